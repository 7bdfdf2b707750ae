/*
 * Benchmark of GetThreadCallStack (coredll): the calling thread, another
 * thread of this process and a thread of another process, each blocked in
 * a wait. Prints "NAME VALUE UNIT" lines; tools/bench.sh runs it on stock
 * Wine (which has no coredll: nothing to compare) and on the layer.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>
#include <pkfuncs.h>

#include "bench.h"

static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);
static HANDLE walked_thread;
static ULONG walked_frames;

static void walk(void)
{
    CallSnapshot frames[64];
    walked_frames = pGetThreadCallStack( walked_thread, 64, frames, 0, 0 );
}

static DWORD WINAPI wait_forever( void *arg )
{
    Sleep( INFINITE );
    return 0;
}

static void bench_thread( const char *name, HANDLE thread )
{
    double ns;

    walked_thread = thread;
    ns = measure( walk, 300 );
    printf( "callstack_%s %.1f ns\n", name, ns );
    printf( "callstack_%s_frames %lu count\n", name, walked_frames );
}

int main( int argc, char **argv )
{
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 16];
    HMODULE coredll;
    HANDLE thread;

    if (argc > 1 && !strcmp( argv[1], "child" ))
    {
        Sleep( 60000 );
        return 0;
    }
    if (!(coredll = LoadLibraryA( "coredll.dll" )) ||
        !(pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" )))
    {
        printf( "# coredll.dll is not available\n" );
        return 1;
    }

    bench_thread( "current_thread", GetCurrentThread() );

    thread = CreateThread( NULL, 0, wait_forever, NULL, 0, NULL );
    Sleep( 100 );
    bench_thread( "other_thread", thread );
    TerminateThread( thread, 0 );
    CloseHandle( thread );

    snprintf( cmd, sizeof(cmd), "\"%s\" child", argv[0] );
    if (!CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ))
    {
        printf( "# no child process, error %lu\n", GetLastError() );
        return 1;
    }
    Sleep( 500 );
    bench_thread( "other_process", pi.hThread );
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    return 0;
}

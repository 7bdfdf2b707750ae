/*
 * Benchmark of GetThreadCallStack (coredll): the calling thread, another
 * thread of this process (blocked in a wait, and running), and a thread of
 * another process blocked in a wait, each against its floor: what Wine
 * needs to get another thread's registers at all (SuspendThread,
 * GetThreadContext, ResumeThread of the same thread). Also the context
 * switches that walks add to a blocked thread (0: it is walked without
 * being suspended). Prints "NAME VALUE UNIT" lines, the ratios among them;
 * tools/bench.sh runs it on stock Wine (which has no coredll: nothing to
 * compare) and on the layer.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>
#include <pkfuncs.h>
#include <wct.h>

#include "bench.h"

static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);
static HWCT (WINAPI *pOpenThreadWaitChainSession)(DWORD, PWAITCHAINCALLBACK);
static BOOL (WINAPI *pGetThreadWaitChain)(HWCT, DWORD_PTR, DWORD, DWORD, DWORD *, WAITCHAIN_NODE_INFO *, BOOL *);
static HANDLE walked_thread;
static ULONG walked_frames;
static volatile LONG stop, sink;

static void walk(void)
{
    CallSnapshot frames[64];
    walked_frames = pGetThreadCallStack( walked_thread, 64, frames, 0, 0 );
}

/* the floor: what getting another thread's registers costs */
static void suspend_floor(void)
{
    CONTEXT context;

    context.ContextFlags = CONTEXT_FULL;
    SuspendThread( walked_thread );
    GetThreadContext( walked_thread, &context );
    ResumeThread( walked_thread );
}

static DWORD WINAPI wait_forever( void *arg )
{
    Sleep( INFINITE );
    return 0;
}

static DWORD WINAPI spin( void *arg )
{
    while (!stop) sink++;
    return 0;
}

static double bench_thread( const char *name, HANDLE thread )
{
    double ns;

    walked_thread = thread;
    ns = measure( walk, 300 );
    printf( "callstack_%s %.1f ns\n", name, ns );
    printf( "callstack_%s_frames %lu count\n", name, walked_frames );
    return ns;
}

static void bench_floor( const char *name, HANDLE thread, double walk_ns )
{
    double ns;

    walked_thread = thread;
    ns = measure( suspend_floor, 300 );
    printf( "floor_%s %.1f ns\n", name, ns );
    printf( "callstack_%s_over_floor %.3f ratio\n", name, walk_ns / ns );
}

/* the context switches of a thread, as Wait Chain Traversal reports them */
static DWORD context_switches( HWCT session, DWORD tid )
{
    WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
    DWORD count = WCT_MAX_NODE_COUNT;
    BOOL cycle;

    if (!session || !pGetThreadWaitChain( session, 0, 0, tid, &count, nodes, &cycle )) return 0;
    return nodes[0].ThreadObject.ContextSwitches;
}

/* ... once they have held for 100 ms: a thread resumed by the floor's last
 * ResumeThread takes a few switches to get back to sleep, which are not
 * the walks' (counted from at once, they came out as 1 per 100 walks) */
static DWORD settled_switches( HWCT session, DWORD tid )
{
    DWORD last = ~0u, now;
    int i;

    for (i = 0; i < 50; i++)
    {
        if ((now = context_switches( session, tid )) == last) break;
        last = now;
        Sleep( 100 );
    }
    return now;
}

#define COUNTED_WALKS 1000

/* the context switches COUNTED_WALKS walks add to a blocked thread */
static void bench_switches( const char *name, HWCT session, HANDLE thread, DWORD tid )
{
    DWORD before, after;
    int i;

    if (!session) return;
    before = settled_switches( session, tid );
    walked_thread = thread;
    for (i = 0; i < COUNTED_WALKS; i++) walk();
    after = context_switches( session, tid );
    printf( "callstack_%s_switches_per_%u_walks %lu count\n", name, COUNTED_WALKS, after - before );
}

int main( int argc, char **argv )
{
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 16];
    HMODULE coredll, advapi32 = LoadLibraryA( "advapi32.dll" );
    HWCT session = NULL;
    HANDLE thread;
    DWORD tid;
    double ns;

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
    pOpenThreadWaitChainSession = (void *)GetProcAddress( advapi32, "OpenThreadWaitChainSession" );
    pGetThreadWaitChain = (void *)GetProcAddress( advapi32, "GetThreadWaitChain" );
    if (pOpenThreadWaitChainSession && pGetThreadWaitChain) session = pOpenThreadWaitChainSession( 0, NULL );

    bench_thread( "current_thread", GetCurrentThread() );

    /* a blocked thread: walked without being suspended */
    thread = CreateThread( NULL, 0, wait_forever, NULL, 0, &tid );
    Sleep( 100 );
    ns = bench_thread( "other_thread", thread );
    bench_floor( "other_thread", thread, ns );
    bench_switches( "other_thread", session, thread, tid );
    TerminateThread( thread, 0 );
    CloseHandle( thread );

    /* a running thread: suspended for its walk */
    thread = CreateThread( NULL, 0, spin, NULL, 0, NULL );
    ns = bench_thread( "running_thread", thread );
    bench_floor( "running_thread", thread, ns );
    stop = 1;
    WaitForSingleObject( thread, INFINITE );
    CloseHandle( thread );

    snprintf( cmd, sizeof(cmd), "\"%s\" child", argv[0] );
    if (!CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ))
    {
        printf( "# no child process, error %lu\n", GetLastError() );
        return 1;
    }
    Sleep( 500 );
    ns = bench_thread( "other_process", pi.hThread );
    bench_floor( "other_process", pi.hThread, ns );
    bench_switches( "other_process", session, pi.hThread, pi.dwThreadId );
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    return 0;
}

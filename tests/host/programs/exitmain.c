/*
 * A process that lives on after its main thread: two threads deadlock on
 * two critical sections, then the main thread calls ExitThread (as node
 * does after a native stack overflow). Prints "exitmain: pid N ready" once
 * both threads hold their section, then exits its main thread.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>

static CRITICAL_SECTION sections[2];
static HANDLE holding[2];

static void __attribute__((noinline)) lock_pair( int me )
{
    EnterCriticalSection( &sections[me] );
    SetEvent( holding[me] );
    WaitForMultipleObjects( 2, holding, TRUE, INFINITE );
    EnterCriticalSection( &sections[!me] );
}

static DWORD WINAPI locker( void *arg )
{
    lock_pair( (int)(INT_PTR)arg );
    return 0;
}

int main( void )
{
    int i;

    for (i = 0; i < 2; i++)
    {
        InitializeCriticalSection( &sections[i] );
        holding[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
    }
    for (i = 0; i < 2; i++) CloseHandle( CreateThread( NULL, 0, locker, (void *)(INT_PTR)i, 0, NULL ) );
    WaitForMultipleObjects( 2, holding, TRUE, INFINITE );
    printf( "exitmain: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    ExitThread( 0 );
}

/*
 * A program that hangs as users' programs do: two threads take two mutexes
 * in opposite orders, in a static function of the program. Built several
 * ways by the host tests (-g, -gdwarf-4, -O1 without -g, a non-ASCII file
 * name) to check that wctdump and the watchdog name its frames.
 * Prints "hang: pid N ready" once both threads are stuck.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>

static HANDLE mutexes[2], holding[2];

static void __attribute__((noinline)) lock_pair( int me )
{
    WaitForSingleObject( mutexes[me], INFINITE );
    SetEvent( holding[me] );
    WaitForSingleObject( holding[!me], INFINITE );
    WaitForSingleObject( mutexes[!me], INFINITE );
}

static DWORD WINAPI locker( void *arg )
{
    lock_pair( (int)(INT_PTR)arg );
    return 0;
}

int main( void )
{
    HANDLE threads[2];
    int i;

    for (i = 0; i < 2; i++)
    {
        mutexes[i] = CreateMutexA( NULL, FALSE, NULL );
        holding[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
    }
    for (i = 0; i < 2; i++) threads[i] = CreateThread( NULL, 0, locker, (void *)(INT_PTR)i, 0, NULL );
    WaitForMultipleObjects( 2, holding, TRUE, INFINITE );
    /* both hold theirs; give them the moment to ask for the other's */
    Sleep( 200 );
    printf( "hang: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    WaitForMultipleObjects( 2, threads, TRUE, INFINITE );
    return 0;
}

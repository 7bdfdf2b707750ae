/*
 * Threads that come and go: 32 at a time, each living a few milliseconds,
 * so that a thread listed by a snapshot has often ended by the time its
 * wait chain is asked for. Prints "churn: pid N ready" once it runs.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>

static DWORD WINAPI short_life( void *arg )
{
    Sleep( 2 );
    return 0;
}

int main( void )
{
    HANDLE threads[32];
    unsigned int i = 0;

    for (i = 0; i < ARRAYSIZE(threads); i++) threads[i] = CreateThread( NULL, 0, short_life, NULL, 0, NULL );
    printf( "churn: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    for (i = 0;; i = (i + 1) % ARRAYSIZE(threads))
    {
        WaitForSingleObject( threads[i], INFINITE );
        CloseHandle( threads[i] );
        threads[i] = CreateThread( NULL, 0, short_life, NULL, 0, NULL );
    }
    return 0;
}

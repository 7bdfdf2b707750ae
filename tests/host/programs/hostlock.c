/*
 * Two threads in a deadlock through a glibc mutex of a Winelib module
 * (hostlock.dll.so), for host/host_locks:
 *   "hostlock cross": thread A holds a critical section and wants the host
 *   mutex, thread B holds the host mutex and wants the critical section;
 *   "hostlock host": A holds host mutex 0 and wants 1, B holds 1 and wants 0.
 * Prints "hostlock: threads A B" (their Windows ids), then "hostlock: pid N
 * ready" once each holds its first lock and is about to ask for the other.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <string.h>
#include <windows.h>

static void (CDECL *acquire)( int );
static CRITICAL_SECTION section;
static HANDLE holds[2];
static BOOL cross;

/* thread 0 takes the section (or host mutex 0), thread 1 host mutex 1;
 * then each the other's */
static DWORD WINAPI locker( void *arg )
{
    int me = (int)(INT_PTR)arg;

    if (me == 0 && cross) EnterCriticalSection( &section );
    else acquire( me );
    SetEvent( holds[me] );
    WaitForSingleObject( holds[!me], INFINITE );
    if (me == 1 && cross) EnterCriticalSection( &section );
    else acquire( !me );
    return 0;
}

int main( int argc, char **argv )
{
    HMODULE module = LoadLibraryA( "hostlock.dll" );
    HANDLE threads[2];
    DWORD tids[2];
    int i;

    cross = argc > 1 && !strcmp( argv[1], "cross" );
    if (!module || !(acquire = (void *)GetProcAddress( module, "hostlock_acquire" )))
    {
        printf( "hostlock: the Winelib module hostlock.dll is not there (error %lu)\n", GetLastError() );
        return 1;
    }
    InitializeCriticalSection( &section );
    for (i = 0; i < 2; i++) holds[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
    for (i = 0; i < 2; i++) threads[i] = CreateThread( NULL, 0, locker, (void *)(INT_PTR)i, 0, &tids[i] );
    WaitForMultipleObjects( 2, holds, TRUE, INFINITE );
    printf( "hostlock: threads %lu %lu\n", tids[0], tids[1] );
    printf( "hostlock: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    WaitForMultipleObjects( 2, threads, TRUE, INFINITE );
    return 0;
}

/*
 * Two threads in a deadlock through glibc locks of a Winelib module
 * (hostlock.dll.so), for host/host_locks. Thread A takes its first lock,
 * thread B its own, then each asks for the other's:
 *   "cross":  A a critical section, B host mutex 1;
 *   "mutex":  host mutexes 0 and 1 (normal ones);
 *   "robust": robust mutexes 0 and 1;
 *   "pi":     A a critical section, B priority-inheriting mutex 1 (two
 *             such mutexes make no lasting cycle: the kernel refuses the
 *             second lock, EDEADLK, and glibc parks that thread forever
 *             on a word of its own stack, which leads nowhere);
 *   "rwlock": each write-locks its rwlock; A then asks to read B's (a
 *             reader waits), B to write A's (a writer waits).
 * Or no deadlock, a lock left locked for ever:
 *   "abandoned": A takes host mutex 0 and is terminated (TerminateThread)
 *             holding it; then B asks for it.
 * Prints "hostlock: threads A B" (their Windows ids), then "hostlock: pid N
 * ready" once each holds its first lock and is about to ask for the other
 * (B is about to ask for the abandoned mutex).
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <string.h>
#include <windows.h>

/* hostlock.dll's kinds */
enum lock_kind { NORMAL_MUTEX, ROBUST_MUTEX, PI_MUTEX, RWLOCK_WRITE, RWLOCK_READ };

static const struct mode
{
    const char *name;
    int         first[2];   /* the kind each thread takes first, -1: the critical section */
    int         second[2];  /* and then the other's */
} modes[] =
{
    { "cross",  { -1, NORMAL_MUTEX },           { NORMAL_MUTEX, -1 } },
    { "mutex",  { NORMAL_MUTEX, NORMAL_MUTEX }, { NORMAL_MUTEX, NORMAL_MUTEX } },
    { "robust", { ROBUST_MUTEX, ROBUST_MUTEX }, { ROBUST_MUTEX, ROBUST_MUTEX } },
    { "pi",     { -1, PI_MUTEX },               { PI_MUTEX, -1 } },
    { "rwlock", { RWLOCK_WRITE, RWLOCK_WRITE }, { RWLOCK_READ, RWLOCK_WRITE } },
};

static int (CDECL *acquire)( int, int );
static const struct mode *mode;
static CRITICAL_SECTION section;
static HANDLE holds[2];

static void take( int kind, int which )
{
    int error;

    if (kind < 0) EnterCriticalSection( &section );
    else if ((error = acquire( kind, which )))
    {
        printf( "hostlock: lock %d of kind %d: error %d\n", which, kind, error );
        fflush( stdout );
    }
}

/* "abandoned": thread A takes mutex 0 and waits to be terminated */
static DWORD WINAPI holder( void *arg )
{
    take( NORMAL_MUTEX, 0 );
    SetEvent( holds[0] );
    Sleep( INFINITE );
    return 0;
}

static DWORD WINAPI waiter( void *arg )
{
    SetEvent( holds[1] );
    take( NORMAL_MUTEX, 0 );
    return 0;
}

/* thread 0 takes lock 0, thread 1 lock 1; then each the other's */
static DWORD WINAPI locker( void *arg )
{
    int me = (int)(INT_PTR)arg;

    take( mode->first[me], me );
    SetEvent( holds[me] );
    WaitForSingleObject( holds[!me], INFINITE );
    take( mode->second[me], !me );
    return 0;
}

int main( int argc, char **argv )
{
    HMODULE module = LoadLibraryA( "hostlock.dll" );
    HANDLE threads[2];
    DWORD tids[2];
    int i;

    BOOL abandoned = argc > 1 && !strcmp( argv[1], "abandoned" );

    for (i = 0; i < ARRAYSIZE(modes) && !mode; i++)
        if (argc > 1 && !strcmp( argv[1], modes[i].name )) mode = &modes[i];
    if (!mode && !abandoned)
    {
        printf( "usage: hostlock cross|mutex|robust|pi|rwlock|abandoned\n" );
        return 2;
    }
    if (!module || !(acquire = (void *)GetProcAddress( module, "hostlock_acquire" )))
    {
        printf( "hostlock: the Winelib module hostlock.dll is not there (error %lu)\n", GetLastError() );
        return 1;
    }
    InitializeCriticalSection( &section );
    for (i = 0; i < 2; i++) holds[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
    if (abandoned)
    {
        threads[0] = CreateThread( NULL, 0, holder, NULL, 0, &tids[0] );
        WaitForSingleObject( holds[0], INFINITE );
        TerminateThread( threads[0], 1 );
        WaitForSingleObject( threads[0], INFINITE );
        threads[1] = CreateThread( NULL, 0, waiter, NULL, 0, &tids[1] );
    }
    else for (i = 0; i < 2; i++) threads[i] = CreateThread( NULL, 0, locker, (void *)(INT_PTR)i, 0, &tids[i] );
    WaitForMultipleObjects( 2, holds, TRUE, INFINITE );
    printf( "hostlock: threads %lu %lu\n", tids[0], tids[1] );
    printf( "hostlock: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    WaitForMultipleObjects( 2, threads, TRUE, INFINITE );
    return 0;
}

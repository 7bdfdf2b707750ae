/*
 * A program whose threads wait where the wineserver cannot see them: in
 * Sleep, for an SRW lock the main thread holds, on a condition variable,
 * in WaitOnAddress, and for a critical section the main thread holds; and
 * one on a named event nobody sets (a wait with no owner to follow), one
 * on that event or a semaphore (WaitForMultipleObjects), two on completion
 * ports, one in ConnectNamedPipe of a synchronous pipe. Prints
 * each thread's id and kind, then "waits: pid N ready", and waits forever.
 * "waits idle": no thread but the main one, which sleeps.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <string.h>
#include <windows.h>

static SRWLOCK srw = SRWLOCK_INIT, cv_lock = SRWLOCK_INIT;
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static CRITICAL_SECTION cs;
static LONG address_value;

static DWORD WINAPI in_sleep( void *arg )
{
    Sleep( INFINITE );
    return 0;
}

static DWORD WINAPI in_srw( void *arg )
{
    AcquireSRWLockExclusive( &srw );
    return 0;
}

static DWORD WINAPI in_cv( void *arg )
{
    AcquireSRWLockExclusive( &cv_lock );
    for (;;) SleepConditionVariableSRW( &cv, &cv_lock, INFINITE, 0 );
    return 0;
}

static DWORD WINAPI in_address( void *arg )
{
    BOOL (WINAPI *pWaitOnAddress)(volatile void *, void *, SIZE_T, DWORD) =
        (void *)GetProcAddress( GetModuleHandleA( "kernelbase.dll" ), "WaitOnAddress" );
    LONG zero = 0;

    for (;;) pWaitOnAddress( &address_value, &zero, sizeof(zero), INFINITE );
    return 0;
}

static DWORD WINAPI in_event( void *arg )
{
    WaitForSingleObject( CreateEventA( NULL, TRUE, FALSE, "WineLayerTestWaitsEvent" ), INFINITE );
    return 0;
}

static DWORD WINAPI in_objects( void *arg )
{
    HANDLE objects[2];

    objects[0] = CreateEventA( NULL, TRUE, FALSE, "WineLayerTestWaitsEvent" );
    objects[1] = CreateSemaphoreA( NULL, 0, 1, NULL );
    WaitForMultipleObjects( 2, objects, FALSE, INFINITE );
    return 0;
}

static DWORD WINAPI in_completion( void *arg )
{
    HANDLE port = CreateIoCompletionPort( INVALID_HANDLE_VALUE, NULL, 0, 1 );
    OVERLAPPED *overlapped;
    ULONG_PTR key;
    DWORD size;

    GetQueuedCompletionStatus( port, &size, &key, &overlapped, INFINITE );
    return 0;
}

static DWORD WINAPI in_completion_ex( void *arg )
{
    HANDLE port = CreateIoCompletionPort( INVALID_HANDLE_VALUE, NULL, 0, 1 );
    OVERLAPPED_ENTRY entries[4];
    ULONG count;

    for (;;) GetQueuedCompletionStatusEx( port, entries, ARRAYSIZE(entries), &count, INFINITE, TRUE );
    return 0;
}

/* synchronous I/O the server waits for: a pipe server waiting for a client */
static DWORD WINAPI in_pipe( void *arg )
{
    HANDLE pipe = CreateNamedPipeA( "\\\\.\\pipe\\WineLayerTestWaitsPipe", PIPE_ACCESS_DUPLEX,
                                    PIPE_TYPE_BYTE | PIPE_WAIT, 1, 256, 256, 0, NULL );

    ConnectNamedPipe( pipe, NULL );
    return 0;
}

static DWORD WINAPI in_critical_section( void *arg )
{
    EnterCriticalSection( &cs );
    return 0;
}

int main( int argc, char **argv )
{
    static const struct { const char *kind; LPTHREAD_START_ROUTINE func; } waits[] =
    {
        { "sleep", in_sleep }, { "srw_lock_exclusive", in_srw }, { "condition_variable", in_cv },
        { "address", in_address }, { "critical_section", in_critical_section }, { "event", in_event },
        { "objects", in_objects }, { "completion", in_completion }, { "completion_ex", in_completion_ex },
        { "pipe", in_pipe },
    };
    DWORD tid;
    int i;

    if (argc > 1 && !strcmp( argv[1], "idle" ))
    {
        printf( "waits: pid %lu ready\n", GetCurrentProcessId() );
        fflush( stdout );
        Sleep( INFINITE );
    }

    InitializeCriticalSection( &cs );
    EnterCriticalSection( &cs );
    AcquireSRWLockExclusive( &srw );
    for (i = 0; i < ARRAYSIZE(waits); i++)
    {
        CloseHandle( CreateThread( NULL, 0, waits[i].func, NULL, 0, &tid ) );
        printf( "waits: thread %lu %s\n", tid, waits[i].kind );
    }
    /* the threads are started; the test waits until each reports its wait */
    printf( "waits: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    Sleep( INFINITE );
    return 0;
}

/*
 * A hang whose frames carry C++ names, as g++ (Itanium ABI) and MSVC
 * decorate them: two threads deadlock on two mutexes through
 * "?Start@node@@YAHHQEAPEAD@Z" (node::Start, as node.exe exports it) and
 * "_ZN3app6Worker9lock_pairEi" (app::Worker::lock_pair(int)); six more
 * threads wait on one event in "_ZN3app4Pool4idleEv" (app::Pool::idle()),
 * with the same stack. The names are given to C functions, so that no C++
 * compiler is needed; the image's symbol table holds them as a C++
 * compiler would have written them.
 * Prints "cxx_names: pid N ready" once all are stuck.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>

#define IDLE_THREADS 6

static HANDLE mutexes[2], holding[2], never;
static LONG idle_count;

void __attribute__((noinline, noipa)) lock_pair( int me ) __asm__( "_ZN3app6Worker9lock_pairEi" );
int __attribute__((noinline, noipa)) start( int me, char **unused ) __asm__( "\"?Start@node@@YAHHQEAPEAD@Z\"" );
void __attribute__((noinline, noipa)) pool_idle( void ) __asm__( "_ZN3app4Pool4idleEv" );

void lock_pair( int me )
{
    WaitForSingleObject( mutexes[me], INFINITE );
    SetEvent( holding[me] );
    WaitForSingleObject( holding[!me], INFINITE );
    WaitForSingleObject( mutexes[!me], INFINITE );
    /* not a tail call: this frame stays on the stack */
    ReleaseMutex( mutexes[!me] );
}

int start( int me, char **unused )
{
    lock_pair( me );
    return 0;
}

void pool_idle( void )
{
    InterlockedIncrement( &idle_count );
    WaitForSingleObject( never, INFINITE );
    InterlockedDecrement( &idle_count );
}

static DWORD WINAPI locker( void *arg )
{
    return start( (int)(INT_PTR)arg, NULL );
}

static DWORD WINAPI idler( void *arg )
{
    pool_idle();
    return 0;
}

int main( void )
{
    HANDLE threads[2];
    int i;

    never = CreateEventA( NULL, TRUE, FALSE, NULL );
    for (i = 0; i < 2; i++)
    {
        mutexes[i] = CreateMutexA( NULL, FALSE, NULL );
        holding[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
    }
    for (i = 0; i < IDLE_THREADS; i++) CloseHandle( CreateThread( NULL, 0, idler, NULL, 0, NULL ) );
    for (i = 0; i < 2; i++) threads[i] = CreateThread( NULL, 0, locker, (void *)(INT_PTR)i, 0, NULL );
    WaitForMultipleObjects( 2, holding, TRUE, INFINITE );
    printf( "cxx_names: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    WaitForMultipleObjects( 2, threads, TRUE, INFINITE );
    return 0;
}

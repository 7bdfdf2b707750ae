/*
 * A program that deadlocks three ways, for the wctdump demonstration:
 * a mutex cycle, a critical-section cycle, and a SendMessage to a thread
 * that is blocked on a critical section the sender holds.
 * Prints "deadlocks: pid N ready" once all six threads are stuck.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>

static HANDLE mutex_a, mutex_b, both_hold[2], cs_both_hold[2], window_ready, sender_holds;
static CRITICAL_SECTION cs_a, cs_b, cs_ui;
static HWND window;

/* the mutex cycle */
static DWORD WINAPI mutex_thread( void *arg )
{
    int me = (int)(INT_PTR)arg;

    WaitForSingleObject( me ? mutex_b : mutex_a, INFINITE );
    SetEvent( both_hold[me] );
    WaitForMultipleObjects( 2, both_hold, TRUE, INFINITE );
    WaitForSingleObject( me ? mutex_a : mutex_b, INFINITE );
    return 0;
}

/* the critical-section cycle */
static DWORD WINAPI cs_thread( void *arg )
{
    int me = (int)(INT_PTR)arg;

    EnterCriticalSection( me ? &cs_b : &cs_a );
    SetEvent( cs_both_hold[me] );
    WaitForMultipleObjects( 2, cs_both_hold, TRUE, INFINITE );
    EnterCriticalSection( me ? &cs_a : &cs_b );
    return 0;
}

/* the SendMessage: the window's thread waits for the lock its caller holds */
static DWORD WINAPI window_thread( void *arg )
{
    window = CreateWindowExA( 0, "static", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, 0, 0, NULL );
    SetEvent( window_ready );
    WaitForSingleObject( sender_holds, INFINITE );
    EnterCriticalSection( &cs_ui );
    return 0;
}

static DWORD WINAPI sender_thread( void *arg )
{
    EnterCriticalSection( &cs_ui );
    SetEvent( sender_holds );
    Sleep( 100 );
    SendMessageA( window, WM_USER, 0, 0 );
    return 0;
}

int main( void )
{
    int i;

    mutex_a = CreateMutexA( NULL, FALSE, "DemoMutexA" );
    mutex_b = CreateMutexA( NULL, FALSE, "DemoMutexB" );
    InitializeCriticalSection( &cs_a );
    InitializeCriticalSection( &cs_b );
    InitializeCriticalSection( &cs_ui );
    for (i = 0; i < 2; i++)
    {
        both_hold[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
        cs_both_hold[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
    }
    window_ready = CreateEventA( NULL, TRUE, FALSE, NULL );
    sender_holds = CreateEventA( NULL, TRUE, FALSE, NULL );

    for (i = 0; i < 2; i++)
    {
        CloseHandle( CreateThread( NULL, 0, mutex_thread, (void *)(INT_PTR)i, 0, NULL ) );
        CloseHandle( CreateThread( NULL, 0, cs_thread, (void *)(INT_PTR)i, 0, NULL ) );
    }
    CloseHandle( CreateThread( NULL, 0, window_thread, NULL, 0, NULL ) );
    WaitForSingleObject( window_ready, INFINITE );
    CloseHandle( CreateThread( NULL, 0, sender_thread, NULL, 0, NULL ) );

    Sleep( 1000 );
    printf( "deadlocks: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    Sleep( INFINITE );
    return 0;
}

/*
 * A program one of whose windows stops responding: its thread takes
 * messages, then sleeps in stop_pumping() while a message waits for it.
 * Another thread's window keeps responding to a message every 100 ms.
 * Prints "unresponsive: thread T" and "unresponsive: pid N ready" once the
 * message waits.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>

static HWND stuck_window, busy_window;
static HANDLE created[2];

static LONG stopped;

static void __attribute__((noinline, noipa)) stop_pumping( void )
{
    Sleep( INFINITE );
    /* not a tail call: this frame stays on the stack */
    InterlockedIncrement( &stopped );
}

static DWORD WINAPI stuck_thread( void *arg )
{
    MSG msg;

    stuck_window = CreateWindowExA( 0, "static", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, 0, 0, NULL );
    SetEvent( created[0] );
    /* responsive until told to stop */
    while (GetMessageA( &msg, 0, 0, 0 ) && msg.message != WM_USER) DispatchMessageA( &msg );
    stop_pumping();
    return 0;
}

static DWORD WINAPI busy_thread( void *arg )
{
    MSG msg;

    busy_window = CreateWindowExA( 0, "static", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, 0, 0, NULL );
    SetEvent( created[1] );
    while (GetMessageA( &msg, 0, 0, 0 )) DispatchMessageA( &msg );
    return 0;
}

int main( void )
{
    DWORD tid;

    created[0] = CreateEventA( NULL, TRUE, FALSE, NULL );
    created[1] = CreateEventA( NULL, TRUE, FALSE, NULL );
    CloseHandle( CreateThread( NULL, 0, stuck_thread, NULL, 0, &tid ) );
    CloseHandle( CreateThread( NULL, 0, busy_thread, NULL, 0, NULL ) );
    WaitForMultipleObjects( 2, created, TRUE, INFINITE );
    PostMessageA( stuck_window, WM_USER, 0, 0 );
    /* the stuck thread takes that one and stops; this one waits for it */
    PostMessageA( stuck_window, WM_USER + 1, 0, 0 );
    printf( "unresponsive: thread %lu\n", tid );
    printf( "unresponsive: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    for (;;)
    {
        PostMessageA( busy_window, WM_USER + 2, 0, 0 );
        Sleep( 100 );
    }
    return 0;
}

/*
 * Conformance tests for GetThreadCallStack and GetCallStackSnapshot
 * (coredll, Windows Embedded Compact). Test ids (C-nn) refer to the
 * project's GetThreadCallStack specification. Desktop Windows has no
 * coredll: the test skips there.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>
#include <psapi.h>
#include <winternl.h>
#include <pkfuncs.h>
#include "deny_access.h"

#define STANDALONE
#include "wine/test.h"
#include "frames.h"
#include "code_stub.h"

static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);
static ULONG (WINAPI *pGetCallStackSnapshot)(ULONG, CallSnapshot *, DWORD, DWORD);
static NTSTATUS (WINAPI *pLdrLockLoaderLock)(ULONG, ULONG *, ULONG_PTR *);
static NTSTATUS (WINAPI *pLdrUnlockLoaderLock)(ULONG, ULONG_PTR);
static BOOL (WINAPI *pGetProcessHandleCount)(HANDLE, DWORD *);
static ULONG (WINAPI *p__wine_walk_blocked_thread)(DWORD, DWORD, void *, ULONG, void **);

static volatile LONG sink;

/* one call site for every snapshot, so that only the paging differs */
static ULONG __attribute__((noinline)) snapshot( ULONG max, CallSnapshot *frames, DWORD flags, DWORD page )
{
    ULONG n = pGetCallStackSnapshot( max, frames, flags, page );
    sink++;
    return n;
}

/* C-01, C-02: round 0 takes the whole stack, the next ones page through it
 * one frame at a time, all through the same call instruction */
static void test_current_thread(void)
{
    static volatile ULONG max_frames[2] = { 64, 1 };
    CallSnapshot all[64], one, *volatile buffers[2] = { all, &one };
    ULONG n = 0, i, round, got;

    for (round = 0; round < 64; round++)
    {
        one.dwReturnAddr = 0;
        /* opaque arguments keep the compiler from making round 0 a call of its own */
        got = snapshot( max_frames[round != 0], buffers[round != 0], 0, round - (round != 0) );
        if (!round)
        {
            n = got;
            continue;
        }
        if (got != 1) break;
        ok( one.dwReturnAddr == all[round - 1].dwReturnAddr, "C-02: frame %lu: %#Ix, expected %#Ix\n",
            round - 1, one.dwReturnAddr, all[round - 1].dwReturnAddr );
    }
    ok( round - 1 == n, "C-02: paging found %lu frames, one call %lu\n", round - 1, n );

    ok( n >= 3 && n < 64, "C-01: %lu frames\n", n );
    ok( in_function( (void *)all[0].dwReturnAddr, snapshot ),
        "C-01: frame 0 %#Ix not in the caller\n", all[0].dwReturnAddr );
    for (i = 0; i < n; i++) ok( all[i].dwReturnAddr != 0, "C-01: frame %lu is 0\n", i );
}

/* C-03 .. C-08 */
static void test_parameters(void)
{
    CallSnapshot frames[64];
    ULONG n;

    SetLastError( 0xdeadbeef );
    n = snapshot( 64, frames, 0x20, 0 );
    ok( !n && GetLastError() == ERROR_INVALID_PARAMETER, "C-03: unknown flag: %lu, error %lu\n", n, GetLastError() );
    SetLastError( 0xdeadbeef );
    n = snapshot( 64, frames, STACKSNAP_EXTENDED_INFO | STACKSNAP_NEW_VM, 0 );
    ok( !n && GetLastError() == ERROR_INVALID_PARAMETER, "C-03: EXTENDED|NEW_VM: %lu, error %lu\n", n, GetLastError() );
    SetLastError( 0xdeadbeef );
    n = snapshot( 0, frames, 0, 0 );
    ok( !n && GetLastError() == ERROR_INVALID_PARAMETER, "C-04: max 0: %lu, error %lu\n", n, GetLastError() );
    SetLastError( 0xdeadbeef );
    n = snapshot( 64, NULL, 0, 0 );
    ok( !n && GetLastError() == ERROR_INVALID_PARAMETER, "C-05: NULL buffer: %lu, error %lu\n", n, GetLastError() );
    SetLastError( 0xdeadbeef );
    n = snapshot( 64, frames, 0, 5000 );
    ok( !n && GetLastError() == ERROR_INVALID_PARAMETER, "C-06: skip 5000: %lu, error %lu\n", n, GetLastError() );

    SetLastError( 0xdeadbeef );
    n = snapshot( 1, frames, STACKSNAP_FAIL_IF_INCOMPLETE, 0 );
    ok( !n && GetLastError() == ERROR_INSUFFICIENT_BUFFER, "C-07: %lu, error %lu\n", n, GetLastError() );
    SetLastError( 0xdeadbeef );
    n = snapshot( 1, frames, STACKSNAP_FAIL_IF_INCOMPLETE | STACKSNAP_RETURN_FRAMES_ON_ERROR, 0 );
    ok( n == 1 && GetLastError() == ERROR_INSUFFICIENT_BUFFER, "C-07: on error: %lu, error %lu\n", n, GetLastError() );

    SetLastError( 0xdeadbeef );
    n = snapshot( 64, frames, STACKSNAP_RETURN_FRAMES_ON_ERROR, 0 );
    ok( n > 0 && GetLastError() == 0, "C-08: %lu, error %lu\n", n, GetLastError() );
    SetLastError( 0xdeadbeef );
    n = snapshot( 64, frames, 0, 0 );
    ok( n > 0 && GetLastError() == 0xdeadbeef, "C-08: success touched the error: %lu\n", GetLastError() );
}

/* C-09, C-10: another thread, and one that has exited */
static HANDLE release_event, entered_event;

static void __attribute__((noinline)) blocked_function(void)
{
    SetEvent( entered_event );
    WaitForSingleObject( release_event, INFINITE );
    sink++;
}

static DWORD WINAPI blocked_thread( void *arg )
{
    blocked_function();
    return 0;
}

static DWORD WINAPI exit_at_once( void *arg ) { return 0; }

static void test_other_thread(void)
{
    CallSnapshotEx ex[64];
    CallSnapshot3 s3[64];
    HANDLE thread;
    ULONG n, i;
    int found = -1;

    release_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    entered_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    thread = CreateThread( NULL, 0, blocked_thread, NULL, 0, NULL );
    /* from here on blocked_function is on the thread's stack, blocked or not */
    WaitForSingleObject( entered_event, INFINITE );
    memset( ex, 0xcc, sizeof(ex) );
    n = pGetThreadCallStack( thread, 64, ex, STACKSNAP_EXTENDED_INFO, 0 );
    ok( n >= 3 && n < 64, "C-09: %lu frames, error %lu\n", n, GetLastError() );
    for (i = 0; i < n; i++) if (in_function( (void *)ex[i].dwReturnAddr, blocked_function )) found = i;
    ok( found > 0, "C-09: blocked_function not in the %lu frames\n", n );
    for (i = 0; i < n; i++)
    {
        winetest_push_context( "frame %lu", i );
        ok( ex[i].dwReturnAddr != 0, "no address\n" );
        ok( ex[i].dwFramePtr != 0, "no frame pointer\n" );
        if (i) ok( ex[i].dwFramePtr >= ex[i - 1].dwFramePtr, "frame pointer %#Ix below %#Ix\n",
                   ex[i].dwFramePtr, ex[i - 1].dwFramePtr );
        ok( ex[i].dwCurProc == GetCurrentProcessId(), "process %#Ix\n", ex[i].dwCurProc );
        winetest_pop_context();
    }

    memset( s3, 0xcc, sizeof(s3) );
    n = pGetThreadCallStack( thread, 64, s3, STACKSNAP_NEW_VM, 0 );
    ok( n >= 3, "C-09: NEW_VM: %lu frames\n", n );
    ok( s3[0].dwActvProc == GetCurrentProcessId() && s3[0].dwVMProc == GetCurrentProcessId(),
        "C-09: processes %#Ix %#Ix\n", s3[0].dwActvProc, s3[0].dwVMProc );

    /* the thread runs on after the walk */
    SetEvent( release_event );
    ok( WaitForSingleObject( thread, 5000 ) == WAIT_OBJECT_0, "C-09: the thread was not resumed\n" );
    CloseHandle( thread );

    thread = CreateThread( NULL, 0, exit_at_once, NULL, 0, NULL );
    WaitForSingleObject( thread, INFINITE );
    SetLastError( 0xdeadbeef );
    n = pGetThreadCallStack( thread, 64, ex, 0, 0 );
    ok( !n && GetLastError() == ERROR_INVALID_HANDLE, "C-10: %lu, error %lu\n", n, GetLastError() );
    CloseHandle( thread );
}

/* Walking threads that keep taking the heap and loader locks never hangs. */
static volatile LONG stop_locking;

static DWORD WINAPI lock_loop( void *arg )
{
    ULONG_PTR cookie;

    while (!stop_locking)
    {
        HeapLock( GetProcessHeap() );
        HeapUnlock( GetProcessHeap() );
        if (pLdrLockLoaderLock && !pLdrLockLoaderLock( 0, NULL, &cookie )) pLdrUnlockLoaderLock( 0, cookie );
    }
    return 0;
}

static void test_locks(void)
{
    CallSnapshot frames[64];
    HANDLE thread = CreateThread( NULL, 0, lock_loop, NULL, 0, NULL );
    int i, walked = 0;

    for (i = 0; i < 300; i++) if (pGetThreadCallStack( thread, 64, frames, 0, 0 )) walked++;
    stop_locking = 1;
    ok( WaitForSingleObject( thread, 5000 ) == WAIT_OBJECT_0, "the locking thread is stuck\n" );
    ok( walked == 300, "only %d of 300 walks returned frames\n", walked );
    trace( "figure: lock_walks=300 lock_walked=%d\n", walked );
    CloseHandle( thread );
}

/* Threads that exit while they are walked: frames or an error, never a crash. */
static DWORD WINAPI short_lived( void *arg )
{
    Sleep( (DWORD)(ULONG_PTR)arg );
    return 0;
}

static void test_exiting_threads(void)
{
    CallSnapshot frames[64];
    int i, walked = 0, failed = 0;
    HANDLE thread;
    ULONG n;

    for (i = 0; i < 200; i++)
    {
        thread = CreateThread( NULL, 0, short_lived, (void *)(ULONG_PTR)(i % 3), 0, NULL );
        if (i & 1) Sleep( 1 );  /* race the thread's exit */
        SetLastError( 0xdeadbeef );
        n = pGetThreadCallStack( thread, 64, frames, 0, 0 );
        if (n) walked++;
        else if (GetLastError() != 0xdeadbeef) failed++;
        WaitForSingleObject( thread, INFINITE );
        CloseHandle( thread );
    }
    ok( walked + failed == 200, "%d walks neither returned frames nor set an error\n", 200 - walked - failed );
    trace( "figure: exiting_walked=%d exiting_gone=%d\n", walked, failed );
}

/* C-11 */
static void test_layout(void)
{
    ok( sizeof(CallSnapshot) == sizeof(void *), "CallSnapshot is %u bytes\n", (int)sizeof(CallSnapshot) );
    ok( sizeof(CallSnapshotEx) == 7 * sizeof(void *), "CallSnapshotEx is %u bytes\n", (int)sizeof(CallSnapshotEx) );
    ok( sizeof(CallSnapshot3) == 8 * sizeof(void *), "CallSnapshot3 is %u bytes\n", (int)sizeof(CallSnapshot3) );
}

/* C-12: a thread of another process, with and without PROCESS_VM_READ */

/* the child signals it before it sleeps, so that the walk finds it loaded */
static HANDLE create_ready_event(void)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    return CreateEventA( &sa, FALSE, FALSE, NULL );
}

static void signal_ready( int argc, char **argv )
{
    if (argc >= 4) SetEvent( (HANDLE)(ULONG_PTR)_strtoui64( argv[3], NULL, 10 ) );
}
/* C-12 (Wine's own, for wctdump): the thread of another process blocked in
 * Sleep, walked by its ids and TEB without a handle: the frames
 * GetThreadCallStack gives; the TEB with another thread's id, this process,
 * no TEB, no room: nothing */
static void test_blocked_without_handle( const PROCESS_INFORMATION *pi )
{
    THREAD_BASIC_INFORMATION info;
    CallSnapshot frames[64];
    void *blocked[64];
    DWORD start = GetTickCount();
    ULONG n = 0, m, i;

    if (!p__wine_walk_blocked_thread)
    {
        skip( "no __wine_walk_blocked_thread (not the layer)\n" );
        return;
    }
    ok( !NtQueryInformationThread( pi->hThread, ThreadBasicInformation, &info, sizeof(info), NULL ),
        "C-12: no TEB\n" );
    /* the child is ready before it sleeps: wait until it is in Sleep's wait */
    while (!(n = p__wine_walk_blocked_thread( pi->dwProcessId, pi->dwThreadId, info.TebBaseAddress, 64, blocked )) &&
           GetTickCount() - start < 30000)
        Sleep( 10 );
    m = pGetThreadCallStack( pi->hThread, 64, frames, 0, 0 );
    ok( n >= 3 && n == m, "C-12: %lu frames without a handle, %lu with one\n", n, m );
    for (i = 0; i < min( n, m ); i++)
        ok( (ULONG_PTR)blocked[i] == frames[i].dwReturnAddr, "C-12: frame %lu is %p, not %#Ix\n", i, blocked[i],
            frames[i].dwReturnAddr );
    ok( !p__wine_walk_blocked_thread( pi->dwProcessId, pi->dwThreadId + 4, info.TebBaseAddress, 64, blocked ),
        "C-12: a TEB walked as another thread's\n" );
    ok( !p__wine_walk_blocked_thread( GetCurrentProcessId(), GetCurrentThreadId(), NtCurrentTeb(), 64, blocked ),
        "C-12: this process walked\n" );
    ok( !p__wine_walk_blocked_thread( pi->dwProcessId, pi->dwThreadId, NULL, 64, blocked ), "C-12: no TEB walked\n" );
    ok( !p__wine_walk_blocked_thread( pi->dwProcessId, pi->dwThreadId, info.TebBaseAddress, 0, blocked ),
        "C-12: no room, and frames\n" );
}

static void test_other_process( const char *exe )
{
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" ), kernel32 = GetModuleHandleA( "kernel32.dll" );
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    CallSnapshot frames[64];
    char cmd[MAX_PATH + 32];
    BOOL in_kernel32 = FALSE;
    ULONG n, i;
    HANDLE ready = create_ready_event();

    /* ntdll and kernel32 sit at the same address in every process */
    sprintf( cmd, "\"%s\" callstack sleep %Iu", exe, (ULONG_PTR)ready );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi ), "C-12: no child\n" );
    ok( !WaitForSingleObject( ready, 60000 ), "C-12: the child did not start\n" );
    n = pGetThreadCallStack( pi.hThread, 64, frames, 0, 0 );
    ok( n >= 3 && n < 64, "C-12: %lu frames, error %lu\n", n, GetLastError() );
    for (i = 0; i < n; i++)
    {
        ok( frames[i].dwReturnAddr != 0, "C-12: frame %lu is 0\n", i );
        if (module_of( (void *)frames[i].dwReturnAddr ) == kernel32) in_kernel32 = TRUE;
    }
    if (n)
    {
        ok( module_of( (void *)frames[n - 1].dwReturnAddr ) == ntdll, "C-12: the last frame %#Ix is not in ntdll\n",
            frames[n - 1].dwReturnAddr );
        ok( in_kernel32, "C-12: no frame in kernel32\n" );
    }
    test_blocked_without_handle( &pi );
    ok( ResumeThread( pi.hThread ) == 0, "C-12: the child's thread was left suspended\n" );
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );

    sprintf( cmd, "\"%s\" callstack deny_sleep %Iu", exe, (ULONG_PTR)ready );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi ), "C-12: no child\n" );
    ok( !WaitForSingleObject( ready, 60000 ), "C-12: the child did not start\n" );
    SetLastError( 0xdeadbeef );
    n = pGetThreadCallStack( pi.hThread, 64, frames, 0, 0 );
    ok( !n && GetLastError() == ERROR_ACCESS_DENIED, "C-12: no access: %lu, error %lu\n", n, GetLastError() );
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    CloseHandle( ready );
}

/* C-12: one process after another, each walked once it is up and ended
 * before the next starts, more of them than a walker keeps open: every
 * walk reads the process it was asked for, down to ntdll */
static void test_process_after_process( const char *exe )
{
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" ), kernel32 = GetModuleHandleA( "kernel32.dll" );
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    CallSnapshot frames[64];
    char cmd[MAX_PATH + 48];
    HANDLE up = CreateEventA( &sa, TRUE, FALSE, NULL );
    DWORD handles, steady = 0;
    BOOL in_kernel32;
    ULONG n, i;
    int round;

    for (round = 0; round < 12; round++)
    {
        winetest_push_context( "process %d", round );
        ResetEvent( up );
        sprintf( cmd, "\"%s\" callstack signal_sleep %Iu", exe, (ULONG_PTR)up );
        ok( CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi ), "C-12: no child\n" );
        ok( !WaitForSingleObject( up, 30000 ), "C-12: the child did not start\n" );
        n = pGetThreadCallStack( pi.hThread, 64, frames, 0, 0 );
        ok( n >= 3 && n < 64, "C-12: %lu frames, error %lu\n", n, GetLastError() );
        for (i = 0, in_kernel32 = FALSE; i < n; i++)
            if (module_of( (void *)frames[i].dwReturnAddr ) == kernel32) in_kernel32 = TRUE;
        if (n)
        {
            ok( module_of( (void *)frames[n - 1].dwReturnAddr ) == ntdll, "C-12: the last frame %#Ix is not in ntdll\n",
                frames[n - 1].dwReturnAddr );
            ok( in_kernel32, "C-12: no frame in kernel32\n" );
        }
        TerminateProcess( pi.hProcess, 0 );
        WaitForSingleObject( pi.hProcess, INFINITE );
        CloseHandle( pi.hProcess );
        CloseHandle( pi.hThread );
        /* what a walker keeps open for the next walks is bounded: from the
         * ninth process on, a walk opens no handle it does not close */
        ok( pGetProcessHandleCount( GetCurrentProcess(), &handles ), "no handle count\n" );
        if (round == 8) steady = handles;
        else if (round > 8) ok( handles <= steady, "C-12: %lu handles, %lu after process 8\n", handles, steady );
        winetest_pop_context();
    }
    CloseHandle( up );
}

/* C-12: a process id given again to a new process. A walker that keeps
 * what it needs to read a process (ntdll keeps a file of its memory) must
 * let an exited process go, and read the new process of its id, never the
 * old one's memory or nothing. The id is made to come again with Wine's
 * allocator of ids (server/process.c alloc_ptid): once its table is full
 * and at least 256 ids are free, an id is taken from the head of the list
 * of freed ids, in the order they were freed. New suspended threads take
 * ids until one gets the old process's (a walker that never lets it go
 * fails there); that thread, ended after a marker thread and before
 * enough padding threads, puts the id right after the marker's; threads
 * take ids again until one gets the marker's, and the next process gets
 * the old process's id. */
static NTSTATUS (WINAPI *p__wine_read_process_memory)( ULONG, const void *, void *, SIZE_T );

static DWORD WINAPI returns_at_once( void *arg ) { return 0; }

static HANDLE suspended_thread( DWORD *tid )
{
    return CreateThread( NULL, 0x10000, returns_at_once, NULL, CREATE_SUSPENDED | STACK_SIZE_PARAM_IS_A_RESERVATION, tid );
}

/* A thread is let run to its end, not terminated: on Wine, TerminateThread
 * of a thread that is still starting can kill a WoW64 process
 * (docs/USER_GUIDE.md, "32-bit programs": the SIGQUIT that ends it comes
 * before the thread has set up what Wine's signal handlers rely on), and
 * the C-12 checks are about process ids, not that. */
static void end_thread( HANDLE thread )
{
    ResumeThread( thread );
    WaitForSingleObject( thread, INFINITE );
    CloseHandle( thread );
}

#define PAD_THREADS  300
#define MAX_TAKEN   4096

/* new suspended threads, kept in 'taken', until one gets 'id' */
static BOOL take_ids_until( DWORD id, HANDLE *taken, unsigned int *count )
{
    DWORD tid;

    while (*count < MAX_TAKEN)
    {
        if (!(taken[*count] = suspended_thread( &tid ))) return FALSE;
        if (tid == id) return TRUE;
        (*count)++;
    }
    return FALSE;
}

static void __attribute__((noinline)) known_sleep( HANDLE up )
{
    SetEvent( up );
    Sleep( 30000 );
    sink++;
}

/* a thread of a child blocked in Sleep: frames through 'known' (if set)
 * and kernel32 down to ntdll */
static void check_child_walk( HANDLE thread, const void *known )
{
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" ), kernel32 = GetModuleHandleA( "kernel32.dll" );
    CallSnapshot frames[64];
    BOOL in_kernel32 = FALSE, in_known = FALSE;
    ULONG n, i;

    n = pGetThreadCallStack( thread, 64, frames, 0, 0 );
    ok( n >= 3 && n < 64, "C-12: %lu frames, error %lu\n", n, GetLastError() );
    for (i = 0; i < n; i++)
    {
        if (module_of( (void *)frames[i].dwReturnAddr ) == kernel32) in_kernel32 = TRUE;
        if (known && in_function( (void *)frames[i].dwReturnAddr, known )) in_known = TRUE;
    }
    if (!n) return;
    ok( module_of( (void *)frames[n - 1].dwReturnAddr ) == ntdll, "C-12: the last frame %#Ix is not in ntdll\n",
        frames[n - 1].dwReturnAddr );
    ok( in_kernel32, "C-12: no frame in kernel32\n" );
    if (known) ok( in_known, "C-12: the new process's known_sleep is not among its %lu frames\n", n );
}

static BOOL start_child( const char *exe, const char *mode, HANDLE up, PROCESS_INFORMATION *pi )
{
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 48];

    ResetEvent( up );
    sprintf( cmd, "\"%s\" callstack %s %Iu", exe, mode, (ULONG_PTR)up );
    if (!CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, pi )) return FALSE;
    if (!WaitForSingleObject( up, 30000 )) return TRUE;
    TerminateProcess( pi->hProcess, 0 );
    CloseHandle( pi->hProcess );
    CloseHandle( pi->hThread );
    return FALSE;
}

static void end_child( PROCESS_INFORMATION *pi )
{
    TerminateProcess( pi->hProcess, 0 );
    WaitForSingleObject( pi->hProcess, INFINITE );
    CloseHandle( pi->hProcess );
    CloseHandle( pi->hThread );
}

/* the new process of the old one's id is walked and read: its frames
 * (known_sleep, which the old one never called), its memory */
static void check_new_process( PROCESS_INFORMATION *pi )
{
    BYTE server[sizeof(RTL_USER_PROCESS_PARAMETERS)], file[sizeof(server)];
    PROCESS_BASIC_INFORMATION info;
    RTL_USER_PROCESS_PARAMETERS *params = NULL;
    SIZE_T done;

    check_child_walk( pi->hThread, known_sleep );
    ok( !NtQueryInformationProcess( pi->hProcess, ProcessBasicInformation, &info, sizeof(info), NULL ),
        "C-12: no process information\n" );
    ok( ReadProcessMemory( pi->hProcess, &info.PebBaseAddress->ProcessParameters, &params, sizeof(params), &done ),
        "C-12: no PEB\n" );
    ok( ReadProcessMemory( pi->hProcess, params, server, sizeof(server), &done ), "C-12: no parameters\n" );
    memset( file, 0xcc, sizeof(file) );
    ok( !p__wine_read_process_memory( pi->dwProcessId, params, file, sizeof(file) ),
        "C-12: the new process %04lx not read\n", pi->dwProcessId );
    ok( !memcmp( server, file, sizeof(file) ), "C-12: the new process's memory read differently\n" );
}

/* one try: FALSE when another process of the prefix took or freed an id
 * meanwhile (or the id never came again, which the last try says) */
static BOOL reuse_process_id( const char *exe, HANDLE up, HANDLE *taken, BOOL last )
{
    static HANDLE pads[2][PAD_THREADS];
    PROCESS_INFORMATION old, new;
    unsigned int i, count = 0;
    DWORD marker_id, pid;
    HANDLE marker, process;
    BYTE byte;
    BOOL ret = FALSE, padded[2] = { TRUE, TRUE };

    marker = suspended_thread( &marker_id );
    for (i = 0; i < PAD_THREADS; i++) pads[0][i] = suspended_thread( NULL );
    for (i = 0; i < PAD_THREADS; i++) pads[1][i] = suspended_thread( NULL );

    /* the old process, walked: whatever the walker keeps, it keeps now */
    if (!start_child( exe, "signal_sleep", up, &old )) goto done;
    check_child_walk( old.hThread, NULL );
    pid = old.dwProcessId;
    TerminateProcess( old.hProcess, 0 );
    WaitForSingleObject( old.hProcess, INFINITE );
    CloseHandle( old.hThread );
    /* its id read while a handle of ours still holds the exited process:
     * once the unix process is gone too (it may take a few milliseconds
     * more), nothing is read, and the walker lets it go, not to open it
     * again: it would keep the id from being freed */
    for (i = 0; i < 1000; i++)
    {
        if (p__wine_read_process_memory( pid, NtCurrentTeb()->Peb, &byte, 1 )) break;
        Sleep( 10 );
    }
    ok( i < 1000, "C-12: process %04lx still read 10 s after it exited\n", pid );
    ok( p__wine_read_process_memory( pid, NtCurrentTeb()->Peb, &byte, 1 ),
        "C-12: exited process %04lx read again\n", pid );
    CloseHandle( old.hProcess );
    /* the server frees the id once the process is reaped and no handle is
     * left: Wine waits for the unix process with a timer (up to a second) */
    for (i = 0; i < 1000; i++)
    {
        if (!(process = OpenProcess( PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid ))) break;
        CloseHandle( process );
        Sleep( 10 );
    }
    ok( !process, "C-12: exited process %04lx is still kept open\n", pid );
    if (process) goto done;
    /* enough free ids that the allocator takes them from its list */
    for (i = 0; i < PAD_THREADS; i++) end_thread( pads[0][i] );
    padded[0] = FALSE;

    if (!take_ids_until( pid, taken, &count ))
    {
        ok( !last, "C-12: the id of exited process %04lx did not come again in %u threads\n", pid, count );
        goto done;
    }
    end_thread( marker );
    marker = NULL;
    end_thread( taken[count] );
    for (i = 0; i < PAD_THREADS; i++) end_thread( pads[1][i] );
    padded[1] = FALSE;
    if (!take_ids_until( marker_id, taken, &count )) goto done;
    count++;

    if (!start_child( exe, "known_sleep", up, &new )) goto done;
    if ((ret = new.dwProcessId == pid))
    {
        trace( "process id %04lx given again after %u threads\n", pid, count );
        check_new_process( &new );
    }
    end_child( &new );

done:
    for (i = 0; i < count; i++) end_thread( taken[i] );
    if (marker) end_thread( marker );
    for (i = 0; padded[0] && i < PAD_THREADS; i++) end_thread( pads[0][i] );
    for (i = 0; padded[1] && i < PAD_THREADS; i++) end_thread( pads[1][i] );
    return ret;
}

static void test_reused_process_id( const char *exe )
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE up = CreateEventA( &sa, TRUE, FALSE, NULL ), *taken;
    int tries;

    p__wine_read_process_memory = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ),
                                                          "__wine_read_process_memory" );
    if (!p__wine_read_process_memory)
    {
        win_skip( "not Wine: its process ids cannot be made to come again\n" );
        return;
    }
    taken = malloc( MAX_TAKEN * sizeof(*taken) );
    /* another process of the prefix may take or free an id meanwhile: tried again */
    for (tries = 0; tries < 3; tries++) if (reuse_process_id( exe, up, taken, tries == 2 )) break;
    ok( tries < 3, "C-12: no process id was given again in 3 tries\n" );
    free( taken );
    CloseHandle( up );
}
#ifdef _WIN64  /* x86 code has no unwind data: a sample stopped in a prologue
                * or an epilogue is off the frame-pointer chain and loses its
                * caller, on x86 Windows too (docs/X86_WALKS.md) */

/* C-13 (not in the specification's catalogue): a running thread sampled
 * again and again, in this process and in another one, as a sampling
 * profiler does: wherever it is stopped, in the prologue, the body or the
 * epilogue of spin_leaf, the walk leads back through spin_loop. */
extern void spin_leaf(void);
#ifdef __x86_64__
__asm__( ".text\n\t"
         ".globl spin_leaf\n\t"
         ".def spin_leaf; .scl 2; .type 32; .endef\n"
         "spin_leaf:\n\t"
         ".seh_proc spin_leaf\n\t"
         "pushq %rbx\n\t"
         ".seh_pushreg %rbx\n\t"
         "pushq %rsi\n\t"
         ".seh_pushreg %rsi\n\t"
         "subq $0x28,%rsp\n\t"
         ".seh_stackalloc 0x28\n\t"
         ".seh_endprologue\n\t"
         "movq $0x1234,%rbx\n\t"
         "movq %rbx,%rsi\n\t"
         "addq $0x28,%rsp\n\t"
         "popq %rsi\n\t"
         "popq %rbx\n\t"
         "ret\n\t"
         ".seh_endproc" );
#else
/* x86 differs: a function has no unwind data, and a walk follows the EBP
 * chain (Microsoft, "x86 architecture" in the debugging docs: frames are
 * found through EBP; code without a frame pointer needs FPO data); here
 * spin_leaf keeps a standard EBP frame. A sample taken before its
 * "movl %esp,%ebp" or at its "ret" finds spin_loop's frame in EBP. */
__asm__( ".text\n\t"
         ".globl _spin_leaf\n\t"
         ".def _spin_leaf; .scl 2; .type 32; .endef\n"
         "_spin_leaf:\n\t"
         "pushl %ebp\n\t"
         "movl %esp,%ebp\n\t"
         "pushl %ebx\n\t"
         "pushl %esi\n\t"
         "movl $0x1234,%ebx\n\t"
         "movl %ebx,%esi\n\t"
         "popl %esi\n\t"
         "popl %ebx\n\t"
         "popl %ebp\n\t"
         "ret" );
#endif

static volatile LONG stop_spinning, spinning;

static void __attribute__((noinline)) spin_loop(void)
{
    /* from here on, every sample leads back through spin_loop */
    spinning = 1;
    while (!stop_spinning) spin_leaf();
    sink++;
}

static DWORD WINAPI spin_thread( void *arg )
{
    spin_loop();
    return 0;
}

/* does a walk of the spinning thread lead back through spin_loop to the
 * thread's start? 'delta' is where its executable lies minus where ours does */
static BOOL good_spin_sample( const CallSnapshot *frames, ULONG n, ULONG_PTR delta, BOOL *in_leaf )
{
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" );
    ULONG i, loop = 0;

    if (n < 3) return FALSE;
    for (i = 0; i < n; i++) if (!frames[i].dwReturnAddr) return FALSE;
    *in_leaf = in_function( (void *)(frames[0].dwReturnAddr - delta), spin_leaf );
    if (*in_leaf) loop = 1;  /* spin_leaf's caller comes next */
    return in_function( (void *)(frames[loop].dwReturnAddr - delta), spin_loop ) &&
           module_of( (void *)frames[n - 1].dwReturnAddr ) == ntdll;
}

/* In some runs on Wine, every sample of another process's thread is wrong:
 * the thread is held (it uses no CPU), yet GetThreadContext, through any
 * handle to it, gives registers of moments of its start-up (system call
 * thunks, heap code) instead of where it spins. Until the cause is found,
 * those checks are flaky on Wine; they are not on Windows. */
static void sample_spinning_thread( HANDLE thread, ULONG_PTR delta, ULONG samples )
{
    BOOL other_process = GetProcessIdOfThread( thread ) != GetCurrentProcessId();
    ULONG i, j, n, bad = 0, in_leaf = 0;
    CallSnapshot frames[64];
    BOOL leaf;

    for (i = 0; i < samples; i++)
    {
        n = pGetThreadCallStack( thread, 64, frames, 0, 0 );
        if (good_spin_sample( frames, n, delta, &leaf ))
        {
            if (leaf) in_leaf++;
            continue;
        }
        if (!bad++)
            for (j = 0; j < n && j < 3; j++) trace( "first bad sample, frame %lu: %#Ix\n", j, frames[j].dwReturnAddr );
    }
    flaky_wine_if( other_process )
    ok( !bad, "C-13: %lu of %lu samples do not lead back through spin_loop\n", bad, samples );
    flaky_wine_if( other_process )
    ok( in_leaf > 0, "C-13: none of %lu samples stopped in spin_leaf\n", samples );
    trace( "C-13: %lu samples, %lu in spin_leaf, %lu bad\n", samples, in_leaf, bad );
}

static void test_running_thread( const char *exe )
{
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 32];
    HMODULE child_exe = NULL;
    LONG child_spinning = 0;
    DWORD needed, i;
    HANDLE thread;

    winetest_push_context( "this process" );
    stop_spinning = spinning = 0;
    thread = CreateThread( NULL, 0, spin_thread, NULL, 0, NULL );
    for (i = 0; i < 6000 && !spinning; i++) Sleep( 5 );
    ok( spinning, "C-13: the thread did not reach spin_loop\n" );
    sample_spinning_thread( thread, 0, 1000 );
    stop_spinning = 1;
    ok( WaitForSingleObject( thread, 5000 ) == WAIT_OBJECT_0, "C-13: the thread was not resumed\n" );
    CloseHandle( thread );
    winetest_pop_context();

    winetest_push_context( "another process" );
    sprintf( cmd, "\"%s\" callstack spin", exe );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ), "C-13: no child\n" );
    /* wait until the child is in spin_loop (its executable is the first
     * module listed): before, it may still be loading its DLLs */
    for (i = 0; i < 6000 && !child_spinning; i++)
    {
        if (!K32EnumProcessModules( pi.hProcess, &child_exe, sizeof(child_exe), &needed ) ||
            !ReadProcessMemory( pi.hProcess, (char *)&spinning - (char *)GetModuleHandleA( NULL ) + (char *)child_exe,
                                &child_spinning, sizeof(child_spinning), NULL ))
            child_spinning = 0;
        if (!child_spinning) Sleep( 5 );
    }
    ok( child_spinning, "C-13: the child did not reach spin_loop, error %lu\n", GetLastError() );
    if (child_spinning)
        sample_spinning_thread( pi.hThread, (ULONG_PTR)child_exe - (ULONG_PTR)GetModuleHandleA( NULL ), 200 );
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    winetest_pop_context();
}

#endif  /* _WIN64 */

/* x86 differs: x86 Windows has no function tables to register
 * (RtlAddFunctionTable, RtlInstallFunctionTableCallback: x64 and ARM only,
 * per Microsoft's documentation of them), so C-14 is x86-64's alone. */
#ifdef __x86_64__

/* C-14 (not in the specification's catalogue): generated code. Unlike
 * RtlCaptureStackBackTrace, these walks read the function tables registered
 * with RtlAddFunctionTable, but they never call a function table callback
 * (the walked thread is held, and the callback might wait for a lock it
 * holds): code covered by a callback ends the trace as code without unwind
 * data does, at the stub's return address. */
static HANDLE stub_ready, stub_release;
static LONG stub_callback_calls;
static CallSnapshot own_frames[64];
static ULONG own_count;

static void __attribute__((noinline)) stub_wait(void)
{
    own_count = snapshot( 64, own_frames, 0, 0 );
    SetEvent( stub_ready );
    WaitForSingleObject( stub_release, INFINITE );
    sink++;
}

static void __attribute__((noinline)) call_stub( void (*stub)(void) )
{
    stub();
    sink++;
}

static DWORD WINAPI stub_thread( void *stub )
{
    call_stub( stub );
    return 0;
}

static RUNTIME_FUNCTION * CALLBACK stub_callback( DWORD64 pc, void *context )
{
    InterlockedIncrement( &stub_callback_calls );
    return ((struct code_stub *)context)->func;
}

static void check_stub_frames( const char *what, const CallSnapshot *frames, ULONG n,
                               const struct code_stub *stub, BOOL through )
{
    ULONG i;

    for (i = 0; i < n; i++) if (frames[i].dwReturnAddr == (ULONG_PTR)stub->after_call) break;
    ok( i > 0 && i < n, "C-14: %s: the stub's return address is not among the %lu frames\n", what, n );
    if (!i || i >= n) return;
    ok( in_function( (void *)frames[i - 1].dwReturnAddr, stub_wait ),
        "C-14: %s: the frame before the stub, %#Ix, is not in its target\n", what, frames[i - 1].dwReturnAddr );
    if (through)
        ok( i + 1 < n && in_function( (void *)frames[i + 1].dwReturnAddr, call_stub ),
            "C-14: %s: the walk does not go on from the stub to its caller (%lu frames after it)\n",
            what, n - 1 - i );
    else
        ok( i == n - 1, "C-14: %s: the walk went on past the stub: %lu frames after it\n", what, n - 1 - i );
}

/* a thread runs the stub, which calls stub_wait: walk it from inside and
 * while it waits */
static void check_stub_walks( const char *how, const struct code_stub *stub, BOOL through )
{
    CallSnapshot frames[64];
    HANDLE thread;
    ULONG n;

    winetest_push_context( "%s", how );
    thread = CreateThread( NULL, 0, stub_thread, stub->code, 0, NULL );
    ok( WaitForSingleObject( stub_ready, 10000 ) == WAIT_OBJECT_0, "C-14: the thread did not start\n" );
    n = pGetThreadCallStack( thread, 64, frames, 0, 0 );
    check_stub_frames( "held thread", frames, n, stub, through );
    SetEvent( stub_release );
    ok( WaitForSingleObject( thread, 10000 ) == WAIT_OBJECT_0, "C-14: the thread did not finish\n" );
    CloseHandle( thread );
    ResetEvent( stub_release );
    check_stub_frames( "own thread", own_frames, own_count, stub, through );
    winetest_pop_context();
}

static void test_function_tables(void)
{
    struct code_stub stub;

    stub_ready = CreateEventA( NULL, FALSE, FALSE, NULL );
    stub_release = CreateEventA( NULL, TRUE, FALSE, NULL );
    make_code_stub( &stub, stub_wait );

    check_stub_walks( "no table", &stub, FALSE );

    ok( RtlAddFunctionTable( stub.func, 1, (ULONG_PTR)stub.code ), "RtlAddFunctionTable failed\n" );
    check_stub_walks( "RtlAddFunctionTable", &stub, TRUE );
    ok( RtlDeleteFunctionTable( stub.func ), "RtlDeleteFunctionTable failed\n" );

    ok( RtlInstallFunctionTableCallback( stub.callback_id, (ULONG_PTR)stub.code, 0x1000, stub_callback,
                                         &stub, NULL ), "RtlInstallFunctionTableCallback failed\n" );
    stub_callback_calls = 0;
    check_stub_walks( "callback", &stub, FALSE );
    ok( !stub_callback_calls, "C-14: the callback was called %ld times\n", stub_callback_calls );
    ok( RtlDeleteFunctionTable( (RUNTIME_FUNCTION *)stub.callback_id ), "RtlDeleteFunctionTable failed\n" );

    free_code_stub( &stub );
    CloseHandle( stub_ready );
    CloseHandle( stub_release );
}

#endif  /* __x86_64__ */

/* C-12: a walk needs the rights a walk of a thread held still needs
 * (THREAD_GET_CONTEXT and THREAD_SUSPEND_RESUME) on every handle, whatever
 * way the thread is then walked: blocked in a wait or running, of this
 * process or another, or the calling thread itself. */
static volatile LONG spin_rights, spinning_for_rights;

static DWORD WINAPI spin_for_rights( void *arg )
{
    spinning_for_rights = 1;
    while (!spin_rights) sink++;
    return 0;
}

static void check_rights( const char *what, DWORD tid )
{
    static const DWORD lacking[] =
    {
        THREAD_QUERY_LIMITED_INFORMATION,
        THREAD_QUERY_INFORMATION | THREAD_GET_CONTEXT,
        THREAD_QUERY_INFORMATION | THREAD_SUSPEND_RESUME,
    };
    const DWORD enough = THREAD_QUERY_INFORMATION | THREAD_GET_CONTEXT | THREAD_SUSPEND_RESUME;
    CallSnapshot frames[64];
    HANDLE thread;
    ULONG n, i;

    for (i = 0; i < ARRAY_SIZE(lacking); i++)
    {
        winetest_push_context( "%s, access %#lx", what, lacking[i] );
        thread = OpenThread( lacking[i], FALSE, tid );
        ok( thread != NULL, "C-12: OpenThread failed, error %lu\n", GetLastError() );
        SetLastError( 0xdeadbeef );
        n = pGetThreadCallStack( thread, 64, frames, 0, 0 );
        ok( !n && GetLastError() == ERROR_ACCESS_DENIED, "C-12: %lu frames, error %lu\n", n, GetLastError() );
        CloseHandle( thread );
        winetest_pop_context();
    }
    winetest_push_context( "%s, access %#lx", what, enough );
    thread = OpenThread( enough, FALSE, tid );
    n = pGetThreadCallStack( thread, 64, frames, 0, 0 );
    ok( n >= 2 && n < 64, "C-12: %lu frames, error %lu\n", n, GetLastError() );
    CloseHandle( thread );
    winetest_pop_context();
}

static void test_handle_rights( const char *exe )
{
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 32];
    HANDLE thread, ready = create_ready_event();
    DWORD tid;

    check_rights( "this thread", GetCurrentThreadId() );

    release_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    entered_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    thread = CreateThread( NULL, 0, blocked_thread, NULL, 0, &tid );
    WaitForSingleObject( entered_event, INFINITE );
    check_rights( "a blocked thread", tid );
    SetEvent( release_event );
    WaitForSingleObject( thread, INFINITE );
    CloseHandle( thread );
    CloseHandle( release_event );
    CloseHandle( entered_event );

    spin_rights = spinning_for_rights = 0;
    thread = CreateThread( NULL, 0, spin_for_rights, NULL, 0, &tid );
    /* walked from its start, it would be walked in the loader's code */
    while (!spinning_for_rights) Sleep( 1 );
    check_rights( "a running thread", tid );
    spin_rights = 1;
    WaitForSingleObject( thread, INFINITE );
    CloseHandle( thread );

    sprintf( cmd, "\"%s\" callstack sleep %Iu", exe, (ULONG_PTR)ready );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi ), "C-12: no child\n" );
    ok( !WaitForSingleObject( ready, 60000 ), "C-12: the child did not start\n" );
    check_rights( "another process's blocked thread", pi.dwThreadId );
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    CloseHandle( ready );
}

static void child_deny_access( int argc, char **argv )
{
    deny_everyone( GetCurrentProcess() );
    signal_ready( argc, argv );
    Sleep( 30000 );
}

START_TEST(callstack)
{
    HMODULE coredll = LoadLibraryA( "coredll.dll" ), ntdll = GetModuleHandleA( "ntdll.dll" );
    char **argv;
    int argc = winetest_get_mainargs( &argv );

    if (argc >= 3 && !strcmp( argv[2], "sleep" ))
    {
        signal_ready( argc, argv );
        Sleep( 30000 );
        return;
    }
    if (argc >= 4 && !strcmp( argv[2], "signal_sleep" ))
    {
        SetEvent( (HANDLE)(ULONG_PTR)_strtoui64( argv[3], NULL, 10 ) );
        Sleep( 30000 );
        return;
    }
    if (argc >= 4 && !strcmp( argv[2], "known_sleep" ))
    {
        known_sleep( (HANDLE)(ULONG_PTR)_strtoui64( argv[3], NULL, 10 ) );
        return;
    }
#ifdef _WIN64
    if (argc >= 3 && !strcmp( argv[2], "spin" ))
    {
        spin_loop();
        return;
    }
#endif
    if (argc >= 3 && !strcmp( argv[2], "deny_sleep" ))
    {
        child_deny_access( argc, argv );
        return;
    }
    if (!coredll)
    {
        win_skip( "coredll.dll is not available (not Windows Embedded Compact)\n" );
        return;
    }
    pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" );
    pGetCallStackSnapshot = (void *)GetProcAddress( coredll, "GetCallStackSnapshot" );
    pLdrLockLoaderLock = (void *)GetProcAddress( ntdll, "LdrLockLoaderLock" );
    pLdrUnlockLoaderLock = (void *)GetProcAddress( ntdll, "LdrUnlockLoaderLock" );
    pGetProcessHandleCount = (void *)GetProcAddress( GetModuleHandleA( "kernel32.dll" ), "GetProcessHandleCount" );
    p__wine_walk_blocked_thread = (void *)GetProcAddress( coredll, "__wine_walk_blocked_thread" );

    test_layout();
    test_current_thread();
    test_parameters();
    test_other_thread();
    test_locks();
    test_exiting_threads();
    test_other_process( argv[0] );
    test_handle_rights( argv[0] );
    test_process_after_process( argv[0] );
    test_reused_process_id( argv[0] );
#ifdef _WIN64
    test_running_thread( argv[0] );
#endif
#ifdef __x86_64__
    test_function_tables();
#endif
}

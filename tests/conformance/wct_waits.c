/*
 * Conformance tests for Wait Chain Traversal: every kind of wait is
 * Blocked (W-32 to W-36, W-43), a query disturbs nothing (W-37), the
 * bookkeeping behind it touches no memory of the program's or the
 * system's (W-38), and a process whose main thread has exited is read as
 * any other (W-39), and reading its memory stops none of its threads (W-40);
 * a cycle runs across a 32-bit and a 64-bit process (W-44). Test ids refer to the scenario catalogue in the
 * project's wait-chain specification.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>
#include <winternl.h>
#include <wct.h>

#define STANDALONE
#include "wine/test.h"
#include "wct_query.h"

static BOOL (WINAPI *pWaitOnAddress)(volatile void *, void *, SIZE_T, DWORD);
static void (WINAPI *pWakeByAddressAll)(void *);
static NTSTATUS (WINAPI *pNtCreateKeyedEvent)(HANDLE *, ACCESS_MASK, const OBJECT_ATTRIBUTES *, ULONG);
static NTSTATUS (WINAPI *pNtWaitForKeyedEvent)(HANDLE, const void *, BOOLEAN, const LARGE_INTEGER *);
static NTSTATUS (WINAPI *pNtReleaseKeyedEvent)(HANDLE, const void *, BOOLEAN, const LARGE_INTEGER *);
static NTSTATUS (WINAPI *pNtQueryInformationThread)(HANDLE, THREADINFOCLASS, void *, ULONG, ULONG *);
static NTSTATUS (WINAPI *pNtQueryInformationProcess)(HANDLE, PROCESSINFOCLASS, void *, ULONG, ULONG *);
static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);

/* CallSnapshot of pkfuncs.h (coredll, Windows Embedded Compact) */
struct call_snapshot
{
    DWORD_PTR ret_addr;
};

static HANDLE never_event;

/* Waits until 'tid' is a chain of one Blocked node, and checks it. */
static void check_blocked_alone( DWORD tid, DWORD flags, DWORD pid )
{
    const struct expect blocked[] = { BLOCKED( tid ) };
    BOOL ret = query_chain( tid, flags, WCT_MAX_NODE_COUNT, blocked, 1 );

    ok( ret, "failed, error %lu\n", GetLastError() );
    ok( node_count == 1, "%lu nodes\n", node_count );
    ok( !is_cycle, "cycle\n" );
    ok( nodes[0].ObjectType == WctThreadType, "type %u\n", nodes[0].ObjectType );
    ok( nodes[0].ObjectStatus == WctStatusBlocked, "status %u\n", nodes[0].ObjectStatus );
    ok( nodes[0].ThreadObject.ThreadId == tid, "tid %04lx, expected %04lx\n", nodes[0].ThreadObject.ThreadId, tid );
    ok( nodes[0].ThreadObject.ProcessId == pid, "pid %04lx, expected %04lx\n", nodes[0].ThreadObject.ProcessId, pid );
}

/* A thread is Blocked as soon as the server has its wait (or it recorded
 * one), a moment before it sleeps in the kernel, which is one more context
 * switch. W-37 is about what queries do, so it starts from a count that
 * has held for 100 ms: the thread is asleep. */
static DWORD settled_switches( DWORD tid )
{
    DWORD start = GetTickCount(), last = ~0u, now;

    for (;;)
    {
        node_count = WCT_MAX_NODE_COUNT;
        pGetThreadWaitChain( session, 0, 0, tid, &node_count, nodes, &is_cycle );
        now = nodes[0].ThreadObject.ContextSwitches;
        if (now == last || GetTickCount() - start > 5000) return now;
        last = now;
        Sleep( 100 );
    }
}

/* W-37: walks of a blocked thread's stack (GetThreadCallStack, where
 * coredll exists) leave its ContextSwitches as they were too: it is walked
 * without being suspended; and so are a thousand walks after it was
 * suspended and resumed once (as a debugger or a profiler does), counted
 * from once it is asleep again */
static DWORD walk_quietly( DWORD tid, DWORD pid, HANDLE thread, DWORD switches )
{
    struct call_snapshot frames[64];
    CONTEXT context;
    ULONG n;
    int i;

    if (!pGetThreadCallStack) return switches;
    for (i = 0; i < 20; i++)
    {
        n = pGetThreadCallStack( thread, ARRAY_SIZE(frames), frames, 0, 0 );
        ok( n > 2, "W-37: walk %d: %lu frames, error %lu\n", i, n, GetLastError() );
    }
    node_count = WCT_MAX_NODE_COUNT;
    ok( pGetThreadWaitChain( session, 0, 0, tid, &node_count, nodes, &is_cycle ),
        "W-37: query failed, error %lu\n", GetLastError() );
    ok( nodes[0].ObjectStatus == WctStatusBlocked, "W-37: status %u after 20 walks\n", nodes[0].ObjectStatus );
    ok( nodes[0].ThreadObject.ProcessId == pid, "W-37: pid %04lx\n", nodes[0].ThreadObject.ProcessId );
    ok( nodes[0].ThreadObject.ContextSwitches == switches, "W-37: %lu context switches after 20 walks, was %lu\n",
        nodes[0].ThreadObject.ContextSwitches, switches );

    context.ContextFlags = CONTEXT_FULL;
    ok( SuspendThread( thread ) == 0, "W-37: SuspendThread failed, error %lu\n", GetLastError() );
    ok( GetThreadContext( thread, &context ), "W-37: GetThreadContext failed, error %lu\n", GetLastError() );
    ok( ResumeThread( thread ) == 1, "W-37: ResumeThread failed, error %lu\n", GetLastError() );
    switches = settled_switches( tid );
    for (i = 0; i < 1000; i++)
    {
        n = pGetThreadCallStack( thread, ARRAY_SIZE(frames), frames, 0, 0 );
        if (n <= 2) ok( 0, "W-37: walk %d after a suspension: %lu frames, error %lu\n", i, n, GetLastError() );
    }
    node_count = WCT_MAX_NODE_COUNT;
    ok( pGetThreadWaitChain( session, 0, 0, tid, &node_count, nodes, &is_cycle ),
        "W-37: query failed, error %lu\n", GetLastError() );
    ok( nodes[0].ObjectStatus == WctStatusBlocked, "W-37: status %u after 1000 walks\n", nodes[0].ObjectStatus );
    ok( nodes[0].ThreadObject.ContextSwitches == switches,
        "W-37: %lu context switches after a suspension and 1000 walks, was %lu\n",
        nodes[0].ThreadObject.ContextSwitches, switches );
    return switches;
}

/* W-32, W-37: the thread stays Blocked, its WaitTime grows, and twenty
 * queries leave its ContextSwitches as they were */
static void check_blocked_wait( const char *what, DWORD tid )
{
    DWORD before, switches;
    HANDLE thread;
    int i;

    winetest_push_context( "%s", what );
    check_blocked_alone( tid, 0, GetCurrentProcessId() );
    before = nodes[0].ThreadObject.WaitTime;
    ok( before < 60000, "wait time %lu\n", before );
    switches = settled_switches( tid );

    for (i = 0; i < 20; i++)
    {
        node_count = WCT_MAX_NODE_COUNT;
        ok( pGetThreadWaitChain( session, 0, 0, tid, &node_count, nodes, &is_cycle ),
            "W-37: query %d failed, error %lu\n", i, GetLastError() );
        ok( nodes[0].ObjectStatus == WctStatusBlocked, "W-37: query %d: status %u\n", i, nodes[0].ObjectStatus );
        ok( nodes[0].ThreadObject.ContextSwitches == switches, "W-37: query %d: %lu context switches, was %lu\n",
            i, nodes[0].ThreadObject.ContextSwitches, switches );
    }
    if ((thread = OpenThread( THREAD_ALL_ACCESS, FALSE, tid )))
    {
        switches = walk_quietly( tid, GetCurrentProcessId(), thread, switches );
        CloseHandle( thread );
    }

    Sleep( 300 );
    check_blocked_alone( tid, 0, GetCurrentProcessId() );
    ok( nodes[0].ThreadObject.WaitTime >= before + 250 && nodes[0].ThreadObject.WaitTime < before + 60000,
        "wait time %lu after 300 ms, was %lu\n", nodes[0].ThreadObject.WaitTime, before );
    ok( nodes[0].ThreadObject.ContextSwitches == switches, "W-37: %lu context switches, was %lu\n",
        nodes[0].ThreadObject.ContextSwitches, switches );
    winetest_pop_context();
}

/* W-32: sleeps */
static DWORD WINAPI sleep_forever( void *arg )
{
    Sleep( INFINITE );
    return 0;
}

static DWORD WINAPI sleep_a_minute( void *arg )
{
    Sleep( 60000 );
    return 0;
}

static DWORD WINAPI sleep_alertable( void *arg )
{
    SleepEx( INFINITE, TRUE );
    return 0;
}

static void CALLBACK wake_apc( ULONG_PTR arg )
{
}

static void test_sleep(void)
{
    HANDLE t;
    DWORD tid;

    t = start_thread( sleep_forever, NULL, &tid );
    check_blocked_wait( "W-32 Sleep(INFINITE)", tid );
    finish_thread( t, TRUE );

    t = start_thread( sleep_a_minute, NULL, &tid );
    check_blocked_wait( "W-32 Sleep(60000)", tid );
    finish_thread( t, TRUE );

    t = start_thread( sleep_alertable, NULL, &tid );
    check_blocked_wait( "W-32 SleepEx(INFINITE, TRUE)", tid );
    QueueUserAPC( wake_apc, t, 0 );
    finish_thread( t, FALSE );
}

/* W-33: SRW locks held by another thread */
static SRWLOCK srw = SRWLOCK_INIT;
static HANDLE holding, release;

static DWORD WINAPI hold_srw( void *arg )
{
    AcquireSRWLockExclusive( &srw );
    SetEvent( holding );
    WaitForSingleObject( release, INFINITE );
    ReleaseSRWLockExclusive( &srw );
    return 0;
}

static DWORD WINAPI acquire_srw( void *arg )
{
    if (arg)
    {
        AcquireSRWLockShared( &srw );
        ReleaseSRWLockShared( &srw );
    }
    else
    {
        AcquireSRWLockExclusive( &srw );
        ReleaseSRWLockExclusive( &srw );
    }
    return 0;
}

static void test_srw_lock(void)
{
    HANDLE holder, waiter;
    DWORD tid;
    int shared;

    for (shared = 0; shared < 2; shared++)
    {
        ResetEvent( holding );
        ResetEvent( release );
        holder = start_thread( hold_srw, NULL, &tid );
        WaitForSingleObject( holding, INFINITE );
        waiter = start_thread( acquire_srw, (void *)(INT_PTR)shared, &tid );
        check_blocked_wait( shared ? "W-33 AcquireSRWLockShared" : "W-33 AcquireSRWLockExclusive", tid );
        SetEvent( release );
        finish_thread( holder, FALSE );
        finish_thread( waiter, FALSE );
    }
}

/* W-34: condition variables, WaitOnAddress and keyed events */
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static CRITICAL_SECTION cv_cs;
static volatile LONG woken, address_value;
static HANDLE keyed_event;

static DWORD WINAPI sleep_cv_cs( void *arg )
{
    EnterCriticalSection( &cv_cs );
    while (!woken) SleepConditionVariableCS( &cv, &cv_cs, INFINITE );
    LeaveCriticalSection( &cv_cs );
    return 0;
}

static DWORD WINAPI sleep_cv_srw( void *arg )
{
    AcquireSRWLockExclusive( &srw );
    while (!woken) SleepConditionVariableSRW( &cv, &srw, INFINITE, 0 );
    ReleaseSRWLockExclusive( &srw );
    return 0;
}

static DWORD WINAPI wait_on_address( void *arg )
{
    LONG zero = 0;

    while (!address_value) pWaitOnAddress( &address_value, &zero, sizeof(zero), INFINITE );
    return 0;
}

static DWORD WINAPI wait_keyed_event( void *arg )
{
    pNtWaitForKeyedEvent( keyed_event, (void *)0x100, FALSE, NULL );
    return 0;
}

static void wake_cv( HANDLE thread )
{
    InterlockedExchange( &woken, 1 );
    WakeAllConditionVariable( &cv );
    finish_thread( thread, FALSE );
    woken = 0;
}

static void test_condition_variables(void)
{
    HANDLE t;
    DWORD tid;

    InitializeCriticalSection( &cv_cs );
    t = start_thread( sleep_cv_cs, NULL, &tid );
    check_blocked_wait( "W-34 SleepConditionVariableCS", tid );
    wake_cv( t );

    t = start_thread( sleep_cv_srw, NULL, &tid );
    check_blocked_wait( "W-34 SleepConditionVariableSRW", tid );
    wake_cv( t );
    DeleteCriticalSection( &cv_cs );

    t = start_thread( wait_on_address, NULL, &tid );
    check_blocked_wait( "W-34 WaitOnAddress", tid );
    InterlockedExchange( &address_value, 1 );
    pWakeByAddressAll( (void *)&address_value );
    finish_thread( t, FALSE );

    ok( !pNtCreateKeyedEvent( &keyed_event, EVENT_ALL_ACCESS, NULL, 0 ), "no keyed event\n" );
    t = start_thread( wait_keyed_event, NULL, &tid );
    check_blocked_wait( "W-34 NtWaitForKeyedEvent", tid );
    pNtReleaseKeyedEvent( keyed_event, (void *)0x100, FALSE, NULL );
    finish_thread( t, FALSE );
    CloseHandle( keyed_event );
}

/* W-43: a thread waiting for a completion port (GetQueuedCompletionStatus,
 * and GetQueuedCompletionStatusEx alertable, as libuv's event loop waits)
 * is Blocked alone: a port has no owner to follow. A packet posted to the
 * port then reaches the thread that waited. */
static HANDLE port;

static DWORD WINAPI wait_completion( void *arg )
{
    OVERLAPPED *overlapped = NULL;
    ULONG_PTR key = 0;
    DWORD size = 0;

    if (!GetQueuedCompletionStatus( port, &size, &key, &overlapped, INFINITE )) return 1;
    return key == 0x43 && size == 43 && overlapped == (OVERLAPPED *)0x4343 ? 0 : 2;
}

static DWORD WINAPI wait_completion_ex( void *arg )
{
    OVERLAPPED_ENTRY entries[4];
    ULONG count = 0;

    if (!GetQueuedCompletionStatusEx( port, entries, ARRAY_SIZE(entries), &count, INFINITE, TRUE )) return 1;
    return count == 1 && entries[0].lpCompletionKey == 0x43 && entries[0].dwNumberOfBytesTransferred == 43 &&
           entries[0].lpOverlapped == (OVERLAPPED *)0x4343 ? 0 : 2;
}

static void test_completion_port(void)
{
    static const struct { const char *what; LPTHREAD_START_ROUTINE func; } waits[] =
    {
        { "W-43 GetQueuedCompletionStatus", wait_completion },
        { "W-43 GetQueuedCompletionStatusEx", wait_completion_ex },
    };
    DWORD tid, code;
    HANDLE t;
    int i;

    for (i = 0; i < ARRAY_SIZE(waits); i++)
    {
        port = CreateIoCompletionPort( INVALID_HANDLE_VALUE, NULL, 0, 1 );
        ok( port != NULL, "W-43: CreateIoCompletionPort failed, error %lu\n", GetLastError() );
        t = start_thread( waits[i].func, NULL, &tid );
        check_blocked_wait( waits[i].what, tid );
        ok( PostQueuedCompletionStatus( port, 43, 0x43, (OVERLAPPED *)0x4343 ),
            "W-43: PostQueuedCompletionStatus failed, error %lu\n", GetLastError() );
        ok( WaitForSingleObject( t, 5000 ) == WAIT_OBJECT_0, "%s: the thread did not wake\n", waits[i].what );
        ok( GetExitCodeThread( t, &code ) && !code, "%s: the thread got %lu\n", waits[i].what, code );
        CloseHandle( t );
        CloseHandle( port );
    }
}

/* W-35, W-37: a critical section held by a thread that waits on an event */
static CRITICAL_SECTION cs;

static DWORD WINAPI hold_cs( void *arg )
{
    CRITICAL_SECTION *section = arg;

    EnterCriticalSection( section );
    SetEvent( holding );
    WaitForSingleObject( never_event, INFINITE );
    return 0;
}

static DWORD WINAPI enter_cs( void *arg )
{
    CRITICAL_SECTION *section = arg;

    EnterCriticalSection( section );
    LeaveCriticalSection( section );
    return 0;
}

static void test_critical_section_wait_time(void)
{
    HANDLE holder, waiter;
    DWORD holder_tid, tid, switches;
    struct expect expect[3] =
        { BLOCKED( 0 ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( 0 ) };
    BOOL ret;
    int i;

    InitializeCriticalSection( &cs );
    ResetEvent( holding );
    holder = start_thread( hold_cs, &cs, &holder_tid );
    WaitForSingleObject( holding, INFINITE );
    waiter = start_thread( enter_cs, &cs, &tid );
    expect[0].tid = tid;
    expect[2].tid = holder_tid;
    ret = query_chain( tid, 0, WCT_MAX_NODE_COUNT, expect, 3 );
    ok( ret && node_count == 3, "W-35: %d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
    switches = settled_switches( tid );

    Sleep( 500 );
    ret = query_chain( tid, 0, WCT_MAX_NODE_COUNT, expect, 3 );
    ok( ret && node_count == 3, "W-35: %d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
    ok( nodes[0].ThreadObject.WaitTime >= 450 && nodes[0].ThreadObject.WaitTime < 60000,
        "W-35: wait time %lu after 500 ms\n", nodes[0].ThreadObject.WaitTime );
    ok( nodes[2].ThreadObject.WaitTime >= 450 && nodes[2].ThreadObject.WaitTime < 60000,
        "W-35: owner's wait time %lu\n", nodes[2].ThreadObject.WaitTime );

    for (i = 0; i < 20; i++)
    {
        node_count = WCT_MAX_NODE_COUNT;
        pGetThreadWaitChain( session, 0, 0, tid, &node_count, nodes, &is_cycle );
        ok( node_count == 3 && nodes[0].ThreadObject.ContextSwitches == switches,
            "W-37: query %d: %lu nodes, %lu context switches, was %lu\n",
            i, node_count, nodes[0].ThreadObject.ContextSwitches, switches );
    }

    finish_thread( holder, TRUE );
    finish_thread( waiter, TRUE );
}

/* W-41: W-13 with a critical section that has no debug information. Wine
 * waits for such a section on a semaphore, through the server, and the
 * chain still says critical section and goes on to its owner. */
static void test_critical_section_no_debug_info(void)
{
    HANDLE holder, waiter;
    DWORD holder_tid, tid;
    struct expect expect[3] =
        { BLOCKED( 0 ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( 0 ) };
    CRITICAL_SECTION section;
    BOOL ret;

    ok( InitializeCriticalSectionEx( &section, 0, CRITICAL_SECTION_NO_DEBUG_INFO ),
        "W-41: InitializeCriticalSectionEx failed, error %lu\n", GetLastError() );
    ResetEvent( holding );
    holder = start_thread( hold_cs, &section, &holder_tid );
    WaitForSingleObject( holding, INFINITE );
    waiter = start_thread( enter_cs, &section, &tid );
    expect[0].tid = tid;
    expect[2].tid = holder_tid;
    ret = query_chain( tid, 0, WCT_MAX_NODE_COUNT, expect, 3 );
    ok( ret && node_count == 3, "W-41: %d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
    ok( !is_cycle, "W-41: cycle\n" );
    ok( nodes[1].ObjectType == WctCriticalSectionType && nodes[1].ObjectStatus == WctStatusOwned,
        "W-41: node 1 is %u/%u\n", nodes[1].ObjectType, nodes[1].ObjectStatus );
    ok( nodes[2].ThreadObject.ThreadId == holder_tid, "W-41: owner %04lx, expected %04lx\n",
        nodes[2].ThreadObject.ThreadId, holder_tid );
    finish_thread( holder, TRUE );
    finish_thread( waiter, TRUE );
}

static DWORD WINAPI wait_never( void *arg )
{
    WaitForSingleObject( never_event, INFINITE );
    return 0;
}

/* W-42: a thread that ran, even without leaving its wait (suspended and
 * resumed while it waits on an event), has switched since: its
 * ContextSwitches grows. Asked until it does, for 10 s at most: a count
 * kept from before it ran never would. */
static void test_switches_after_running(void)
{
    DWORD tid, before, now = 0, start;
    HANDLE thread;

    thread = start_thread( wait_never, NULL, &tid );
    check_blocked_alone( tid, 0, GetCurrentProcessId() );
    before = settled_switches( tid );
    ok( SuspendThread( thread ) == 0, "W-42: SuspendThread failed, error %lu\n", GetLastError() );
    ok( ResumeThread( thread ) == 1, "W-42: ResumeThread failed, error %lu\n", GetLastError() );
    for (start = GetTickCount(); GetTickCount() - start < 10000; Sleep( 10 ))
    {
        node_count = WCT_MAX_NODE_COUNT;
        if (!pGetThreadWaitChain( session, 0, 0, tid, &node_count, nodes, &is_cycle )) continue;
        now = nodes[0].ThreadObject.ContextSwitches;
        if (now > before) break;
    }
    ok( now > before, "W-42: %lu context switches after the thread ran, %lu before\n", now, before );
    check_blocked_alone( tid, 0, GetCurrentProcessId() );
    finish_thread( thread, TRUE );
}

/* W-36: W-13 in another process. The child reports its two threads' ids
 * on a pipe. */
static void child_cs_chain( HANDLE pipe )
{
    DWORD tids[2], written;

    holding = CreateEventA( NULL, TRUE, FALSE, NULL );
    never_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    InitializeCriticalSection( &cs );
    CloseHandle( CreateThread( NULL, 0, hold_cs, &cs, 0, &tids[1] ) );
    WaitForSingleObject( holding, INFINITE );
    CloseHandle( CreateThread( NULL, 0, enter_cs, &cs, 0, &tids[0] ) );
    WriteFile( pipe, tids, sizeof(tids), &written, NULL );
    WaitForSingleObject( never_event, 60000 );
}

static void test_other_process( const char *exe )
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    struct expect expect[3] =
        { BLOCKED( 0 ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( 0 ) };
    const DWORD both = WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG;
    HANDLE read_pipe, write_pipe;
    DWORD tids[2] = { 0 }, size = 0;
    char cmd[MAX_PATH + 64];
    BOOL ret;

    ok( CreatePipe( &read_pipe, &write_pipe, &sa, 0 ), "no pipe\n" );
    sprintf( cmd, "\"%s\" wct_waits cs_chain %Iu", exe, (ULONG_PTR)write_pipe );
    ret = CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi );
    ok( ret, "W-36: no child, error %lu\n", GetLastError() );
    if (!ret) return;
    CloseHandle( write_pipe );
    ok( ReadFile( read_pipe, tids, sizeof(tids), &size, NULL ) && size == sizeof(tids),
        "W-36: the child did not report its threads (%lu bytes)\n", size );
    CloseHandle( read_pipe );

    /* the whole chain first: then both threads are known to be blocked */
    expect[0].tid = tids[0];
    expect[2].tid = tids[1];
    winetest_push_context( "W-36 OUT_OF_PROC|OUT_OF_PROC_CS" );
    ret = query_chain( tids[0], both, WCT_MAX_NODE_COUNT, expect, 3 );
    ok( ret && node_count == 3, "%d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
    ok( !is_cycle, "cycle\n" );
    ok( nodes[0].ThreadObject.ProcessId == pi.dwProcessId, "pid %04lx\n", nodes[0].ThreadObject.ProcessId );
    ok( nodes[2].ThreadObject.ProcessId == pi.dwProcessId, "owner pid %04lx\n", nodes[2].ThreadObject.ProcessId );
    ok( nodes[2].ThreadObject.ThreadId == tids[1], "owner tid %04lx, expected %04lx\n",
        nodes[2].ThreadObject.ThreadId, tids[1] );
    ok( nodes[0].ThreadObject.WaitTime < 60000, "wait time %lu\n", nodes[0].ThreadObject.WaitTime );
    winetest_pop_context();

    winetest_push_context( "W-36 flags 0" );
    check_blocked_alone( tids[0], 0, pi.dwProcessId );
    winetest_pop_context();
    winetest_push_context( "W-36 OUT_OF_PROC" );
    check_blocked_alone( tids[0], WCT_OUT_OF_PROC_FLAG, pi.dwProcessId );
    winetest_pop_context();

    TerminateProcess( pi.hProcess, 0 );
    WaitForSingleObject( pi.hProcess, 5000 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
}

/* W-39: a critical-section deadlock in a process whose main thread has
 * exited (the process lives on in its other threads). The child reports
 * the deadlocked threads' ids on a pipe once each holds its section, and
 * its main thread exits. */
static CRITICAL_SECTION deadlock_cs[2];
static HANDLE deadlock_holding[2];

static DWORD WINAPI cs_deadlock( void *arg )
{
    int me = (int)(INT_PTR)arg;

    EnterCriticalSection( &deadlock_cs[me] );
    SetEvent( deadlock_holding[me] );
    WaitForMultipleObjects( 2, deadlock_holding, TRUE, INFINITE );
    EnterCriticalSection( &deadlock_cs[!me] );
    return 0;
}

static void child_cs_deadlock_exit( HANDLE pipe )
{
    DWORD tids[2], written;
    int i;

    for (i = 0; i < 2; i++)
    {
        InitializeCriticalSection( &deadlock_cs[i] );
        deadlock_holding[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
    }
    for (i = 0; i < 2; i++) CloseHandle( CreateThread( NULL, 0, cs_deadlock, (void *)(INT_PTR)i, 0, &tids[i] ) );
    WaitForMultipleObjects( 2, deadlock_holding, TRUE, INFINITE );
    WriteFile( pipe, tids, sizeof(tids), &written, NULL );
    CloseHandle( pipe );
    ExitThread( 0 );
}

static void test_main_thread_exited( const char *exe )
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    struct expect expect[5] =
        { BLOCKED( 0 ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( 0 ),
          OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( 0 ) };
    const DWORD both = WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG;
    HANDLE read_pipe, write_pipe;
    DWORD tids[2] = { 0 }, size = 0, code = 0;
    char cmd[MAX_PATH + 64];
    BOOL ret;
    int i;

    ok( CreatePipe( &read_pipe, &write_pipe, &sa, 0 ), "no pipe\n" );
    sprintf( cmd, "\"%s\" wct_waits cs_deadlock_exit %Iu", exe, (ULONG_PTR)write_pipe );
    ret = CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi );
    ok( ret, "W-39: no child, error %lu\n", GetLastError() );
    if (!ret) return;
    CloseHandle( write_pipe );
    ok( ReadFile( read_pipe, tids, sizeof(tids), &size, NULL ) && size == sizeof(tids),
        "W-39: the child did not report its threads (%lu bytes)\n", size );
    CloseHandle( read_pipe );
    ok( WaitForSingleObject( pi.hThread, 10000 ) == WAIT_OBJECT_0, "W-39: the main thread did not exit\n" );
    ok( GetExitCodeThread( pi.hThread, &code ) && !code, "W-39: main thread's exit code %lu\n", code );
    ok( WaitForSingleObject( pi.hProcess, 0 ) == WAIT_TIMEOUT, "W-39: the process exited\n" );

    /* from either thread: the whole cycle */
    for (i = 0; i < 2; i++)
    {
        winetest_push_context( "W-39 from thread %d", i );
        expect[0].tid = expect[4].tid = tids[i];
        expect[2].tid = tids[!i];
        ret = query_chain( tids[i], both, WCT_MAX_NODE_COUNT, expect, 5 );
        ok( ret && node_count == 5, "%d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
        ok( is_cycle == TRUE, "no cycle\n" );
        ok( nodes[0].ObjectType == WctThreadType && nodes[0].ObjectStatus == WctStatusBlocked,
            "node 0: type %u status %u\n", nodes[0].ObjectType, nodes[0].ObjectStatus );
        ok( nodes[0].ThreadObject.ThreadId == tids[i], "node 0: tid %04lx\n", nodes[0].ThreadObject.ThreadId );
        ok( nodes[0].ThreadObject.ProcessId == pi.dwProcessId, "node 0: pid %04lx\n",
            nodes[0].ThreadObject.ProcessId );
        ok( nodes[1].ObjectType == WctCriticalSectionType && nodes[1].ObjectStatus == WctStatusOwned,
            "node 1: type %u status %u\n", nodes[1].ObjectType, nodes[1].ObjectStatus );
        ok( nodes[2].ThreadObject.ThreadId == tids[!i], "node 2: tid %04lx\n", nodes[2].ThreadObject.ThreadId );
        ok( nodes[2].ObjectStatus == WctStatusBlocked, "node 2: status %u\n", nodes[2].ObjectStatus );
        ok( nodes[4].ThreadObject.ThreadId == tids[i], "node 4: tid %04lx\n", nodes[4].ThreadObject.ThreadId );
        winetest_pop_context();
    }
    /* and with flags 0, one Blocked node */
    winetest_push_context( "W-39 flags 0" );
    check_blocked_alone( tids[0], 0, pi.dwProcessId );
    winetest_pop_context();

    TerminateProcess( pi.hProcess, 0 );
    WaitForSingleObject( pi.hProcess, 5000 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
}

/* W-40: reading another process's memory stops none of its threads.
 * ReadProcessMemory of an idle child, 1000 times in reads of 8 to 1024
 * bytes, leaves its idle main thread's ContextSwitches as they were. */
static void test_read_memory_undisturbed( const char *exe )
{
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_BASIC_INFORMATION info;
    BYTE buffer[1024];
    char cmd[MAX_PATH + 64];
    DWORD switches;
    SIZE_T size, done;
    BOOL ret;
    int i, failed = 0;

    sprintf( cmd, "\"%s\" wct_waits idle", exe );
    ret = CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi );
    ok( ret, "W-40: no child, error %lu\n", GetLastError() );
    if (!ret) return;
    ok( !pNtQueryInformationProcess( pi.hProcess, ProcessBasicInformation, &info, sizeof(info), NULL ),
        "W-40: no process information\n" );

    winetest_push_context( "W-40" );
    check_blocked_alone( pi.dwThreadId, 0, pi.dwProcessId );
    switches = settled_switches( pi.dwThreadId );
    for (i = 0; i < 1000; i++)
    {
        /* 8 to 1024 bytes of its PEB */
        size = sizeof(ULONG_PTR) << (i % 8);
        done = 0;
        if (!ReadProcessMemory( pi.hProcess, info.PebBaseAddress, buffer, size, &done ) || done != size) failed++;
    }
    ok( !failed, "%d of 1000 reads failed\n", failed );
    node_count = WCT_MAX_NODE_COUNT;
    ok( pGetThreadWaitChain( session, 0, 0, pi.dwThreadId, &node_count, nodes, &is_cycle ),
        "query failed, error %lu\n", GetLastError() );
    ok( nodes[0].ObjectStatus == WctStatusBlocked, "status %u\n", nodes[0].ObjectStatus );
    ok( nodes[0].ThreadObject.ContextSwitches == switches, "%lu context switches after 1000 reads, was %lu\n",
        nodes[0].ThreadObject.ContextSwitches, switches );
    walk_quietly( pi.dwThreadId, pi.dwProcessId, pi.hThread, switches );
    winetest_pop_context();

    TerminateProcess( pi.hProcess, 0 );
    WaitForSingleObject( pi.hProcess, 5000 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
}

/* W-38: loading a DLL with a TLS directory makes the loader touch every
 * thread's TLS array while threads are blocked in a critical section, an
 * SRW lock and Sleep. Nothing around the section and the lock may change,
 * and neither may any of the blocked threads' TEB fields but their TLS
 * array pointer. The section and the lock sit in the middle of a patterned
 * buffer. */
#define GUARD_BYTE 0xa5
static BYTE guard[1024];

static DWORD WINAPI block_in_srw( void *arg )
{
    AcquireSRWLockExclusive( arg );
    ReleaseSRWLockExclusive( arg );
    return 0;
}

static TEB *thread_teb( HANDLE thread )
{
    THREAD_BASIC_INFORMATION info;

    if (pNtQueryInformationThread( thread, ThreadBasicInformation, &info, sizeof(info), NULL )) return NULL;
    return info.TebBaseAddress;
}

/* TEB fields whose meaning is documented (or that Wine's winternl.h names
 * the way Windows' symbols do); a blocked thread's stay as they are. */
struct teb_fields
{
    NT_TIB      tib;
    void       *environment;
    CLIENT_ID   client_id;
    void       *rpc_handle;
    PEB        *peb;
    ULONG       last_error;
    ULONG       owned_sections;
    ULONG       locale;
    void       *activation_stack;
    void       *tls_slots[64];
    ULONG       last_status;
    void       *deallocation_stack;
    void      **tls_expansion;
};

static void get_teb_fields( const TEB *teb, struct teb_fields *fields )
{
    memset( fields, 0, sizeof(*fields) );
    fields->tib = teb->Tib;
    fields->environment = teb->EnvironmentPointer;
    fields->client_id = teb->ClientId;
    fields->rpc_handle = teb->ActiveRpcHandle;
    fields->peb = teb->Peb;
    fields->last_error = teb->LastErrorValue;
    fields->owned_sections = teb->CountOfOwnedCriticalSections;
    fields->locale = teb->CurrentLocale;
    fields->activation_stack = teb->ActivationContextStackPointer;
    memcpy( fields->tls_slots, teb->TlsSlots, sizeof(fields->tls_slots) );
    fields->last_status = teb->LastStatusValue;
    fields->deallocation_stack = teb->DeallocationStack;
    fields->tls_expansion = teb->TlsExpansionSlots;
}

/* The memory past the TEB that belongs to its allocation, where nothing
 * may change: on x86_64 the rest of the TEB's two pages (the layer keeps
 * its wait records and blocked frames there); for 32-bit code the rest of
 * the 32-bit TEB's page and, in WoW64, the gap after the 64-bit TEB
 * (TEB32.WowTebOffset leads to it; 0x1838 bytes of 64-bit TEB, then the
 * gap to the 32-bit TEB at +0x2000), where the layer keeps 32-bit code's
 * records. */
struct teb_tail
{
    BYTE  *start;
    SIZE_T size;
    BYTE  *teb64;   /* the 64-bit TEB this tail belongs to, if it is one's */
};

/* Wine wakes a thread waiting for a critical section every 5 seconds and
 * has it wait again (RtlpWaitForCriticalSection's timeout): each new wait
 * publishes the thread's registers afresh (docs/BLOCKED_WALKS.md, at
 * +0x1f10..+0x1fb8 of its 64-bit TEB), which on a loaded machine can fall
 * between the two looks. That is the thread's own wait, not the load. */
static BOOL is_rewritten_by_rewait( const struct teb_tail *tail, SIZE_T k )
{
    SIZE_T offset;

    if (!tail->teb64) return FALSE;
    offset = tail->start + k - tail->teb64;
    return offset >= 0x1f10 && offset < 0x1fb8;
}

static unsigned int get_teb_tails( TEB *teb, struct teb_tail tails[2] )
{
    unsigned int n = 0;

#ifdef _WIN64
    tails[n].teb64 = (BYTE *)teb;
    tails[n].start = (BYTE *)teb + sizeof(TEB);
    tails[n++].size = 0x2000 - sizeof(TEB);
#else
    tails[n].teb64 = NULL;
    tails[n].start = (BYTE *)teb + sizeof(TEB);
    tails[n++].size = 0x1000 - sizeof(TEB);
    if (teb->WowTebOffset < 0)
    {
        tails[n].teb64 = (BYTE *)teb + teb->WowTebOffset;
        tails[n].start = (BYTE *)teb + teb->WowTebOffset + 0x1838;
        tails[n++].size = 0x2000 - 0x1838;
    }
#endif
    return n;
}

static void test_tls_load_while_blocked(void)
{
    static const char * const names[] = { "critical section", "SRW lock", "Sleep" };
    CRITICAL_SECTION *section = (CRITICAL_SECTION *)(guard + 256);
    SRWLOCK *lock = (SRWLOCK *)(guard + 768);
    struct teb_fields before[3], after[3];
    HANDLE holder, t[3];
    DWORD tid[3], holder_tid, *tls_index;
    struct teb_tail tails[3][2];
    unsigned int tail_count[3], j;
    BYTE *past_teb[3][2];
    HMODULE dll;
    TEB *teb[3];
    size_t i, k;
    BOOL clean;

    memset( guard, GUARD_BYTE, sizeof(guard) );
    InitializeCriticalSection( section );
    InitializeSRWLock( lock );

    ResetEvent( holding );
    holder = start_thread( hold_cs, section, &holder_tid );
    WaitForSingleObject( holding, INFINITE );
    t[0] = start_thread( enter_cs, section, &tid[0] );
    AcquireSRWLockExclusive( lock );
    t[1] = start_thread( block_in_srw, lock, &tid[1] );
    t[2] = start_thread( sleep_forever, NULL, &tid[2] );

    for (i = 0; i < 3; i++)
    {
        winetest_push_context( "W-38 %s", names[i] );
        if (i == 0)
        {
            const struct expect expect[] =
                { BLOCKED( tid[0] ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( holder_tid ) };
            ok( query_chain( tid[0], 0, WCT_MAX_NODE_COUNT, expect, 3 ) && node_count == 3,
                "not blocked: %lu nodes\n", node_count );
        }
        else check_blocked_alone( tid[i], 0, GetCurrentProcessId() );
        teb[i] = thread_teb( t[i] );
        ok( teb[i] != NULL, "no TEB\n" );
        get_teb_fields( teb[i], &before[i] );
        tail_count[i] = get_teb_tails( teb[i], tails[i] );
        for (j = 0; j < tail_count[i]; j++)
        {
            past_teb[i][j] = malloc( tails[i][j].size );
            memcpy( past_teb[i][j], tails[i][j].start, tails[i][j].size );
        }
        winetest_pop_context();
    }

    dll = LoadLibraryA( "tls_dir.dll" );
    ok( dll != NULL, "W-38: tls_dir.dll not loaded, error %lu\n", GetLastError() );
    tls_index = (DWORD *)GetProcAddress( dll, "tls_index" );
    ok( tls_index != NULL, "W-38: no tls_index\n" );

    clean = TRUE;
    for (k = 0; k < sizeof(guard); k++)
    {
        if ((BYTE *)section <= guard + k && guard + k < (BYTE *)(section + 1)) continue;
        if ((BYTE *)lock <= guard + k && guard + k < (BYTE *)(lock + 1)) continue;
        if (guard[k] != GUARD_BYTE)
        {
            ok( 0, "W-38: byte %+d from the critical section changed to %#x\n",
                (int)(guard + k - (BYTE *)section), guard[k] );
            clean = FALSE;
        }
    }
    ok( clean, "W-38: memory around the section and the lock changed\n" );

    for (i = 0; i < 3; i++)
    {
        void **tls;

        winetest_push_context( "W-38 %s", names[i] );
        get_teb_fields( teb[i], &after[i] );
        ok( !memcmp( &before[i], &after[i], sizeof(before[i]) ), "documented TEB fields changed\n" );
        for (j = 0; j < tail_count[i]; j++)
        {
            for (k = 0; k < tails[i][j].size; k++)
            {
                if (i == 0 && is_rewritten_by_rewait( &tails[i][j], k )) continue;
                if (past_teb[i][j][k] != tails[i][j].start[k]) break;
            }
            ok( k == tails[i][j].size, "TEB allocation changed at offset %#Ix\n",
                (SIZE_T)(tails[i][j].start + k - (BYTE *)teb[i]) );
            free( past_teb[i][j] );
        }
        tls = teb[i]->ThreadLocalStoragePointer;
        ok( tls && tls_index && tls[*tls_index] && *(ULONGLONG *)tls[*tls_index] == 0x1122334455667788ull,
            "the blocked thread has no copy of the DLL's TLS data\n" );
        winetest_pop_context();
    }

    ReleaseSRWLockExclusive( lock );
    finish_thread( holder, TRUE );
    finish_thread( t[0], TRUE );
    finish_thread( t[1], FALSE );
    finish_thread( t[2], TRUE );
    FreeLibrary( dll );
}

/* W-44: a cycle across a 32-bit and a 64-bit process. The build of this
 * test for the other architecture (x86 for an x64 build, x64 for an x86
 * one) runs the other half; it is looked for next to this one, in the
 * layouts of the layer's build tree: NAME32.exe or NAME.exe beside it, or
 * NAME.exe in a sibling directory ending in 32 or without it. */
#define XCYCLE_NAME "wct_w41_%lu_%s"

struct xcycle_shared
{
    ULONGLONG image_base;
    ULONGLONG image_size;
    DWORD     owner_tid;    /* holds the critical section, waits on m1 */
    DWORD     waiter_tid;   /* owns m2, waits on the critical section */
};

static WORD image_machine( const char *path )
{
    IMAGE_DOS_HEADER dos;
    IMAGE_FILE_HEADER file;
    DWORD sig, got;
    WORD machine = 0;
    HANDLE handle = CreateFileA( path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL );

    if (handle == INVALID_HANDLE_VALUE) return 0;
    if (ReadFile( handle, &dos, sizeof(dos), &got, NULL ) && got == sizeof(dos) && dos.e_magic == IMAGE_DOS_SIGNATURE &&
        SetFilePointer( handle, dos.e_lfanew, NULL, FILE_BEGIN ) != INVALID_SET_FILE_POINTER &&
        ReadFile( handle, &sig, sizeof(sig), &got, NULL ) && got == sizeof(sig) && sig == IMAGE_NT_SIGNATURE &&
        ReadFile( handle, &file, sizeof(file), &got, NULL ) && got == sizeof(file))
        machine = file.Machine;
    CloseHandle( handle );
    return machine;
}

static BOOL find_twin( const char *self, char *twin, size_t size )
{
#ifdef _WIN64
    const WORD other = IMAGE_FILE_MACHINE_I386;
    static const char * const patterns[] = { "%s\\%s32.exe", "%s\\..\\conformance32\\%s.exe", "%s32\\%s.exe",
                                             "%s\\i386\\%s.exe" };
#else
    const WORD other = IMAGE_FILE_MACHINE_AMD64;
    static const char * const patterns[] = { "%s\\%s.exe", "%s\\..\\conformance\\%s.exe", "%s\\..\\%s.exe" };
#endif
    char dir[MAX_PATH], name[MAX_PATH], *p;
    unsigned int i;

    if (!GetFullPathNameA( self, sizeof(dir), dir, NULL )) return FALSE;
    if (!(p = strrchr( dir, '\\' ))) return FALSE;
    *p = 0;
    strcpy( name, p + 1 );
    if ((p = strrchr( name, '.' ))) *p = 0;
#ifndef _WIN64
    if (strlen( name ) > 2 && !strcmp( name + strlen( name ) - 2, "32" )) name[strlen( name ) - 2] = 0;
#endif
    for (i = 0; i < ARRAY_SIZE(patterns); i++)
    {
        snprintf( twin, size, patterns[i], dir, name );
        if (image_machine( twin ) == other) return TRUE;
    }
#ifndef _WIN64
    /* ..\conformance32\NAME.exe -> ..\conformance\NAME.exe */
    if (strlen( dir ) > 2 && !strcmp( dir + strlen( dir ) - 2, "32" ))
    {
        dir[strlen( dir ) - 2] = 0;
        snprintf( twin, size, "%s\\%s.exe", dir, name );
        if (image_machine( twin ) == other) return TRUE;
    }
#endif
    return FALSE;
}

static CRITICAL_SECTION xcycle_cs;
static HANDLE xcycle_m2, xcycle_owned;

static DWORD WINAPI xcycle_waiter( void *arg )
{
    WaitForSingleObject( xcycle_m2, INFINITE );
    SetEvent( xcycle_owned );
    EnterCriticalSection( &xcycle_cs );
    return 0;
}

/* the other half: the main thread holds the critical section and waits on
 * the parent's m1; another thread owns m2 and waits on the section */
static void child_xcycle( DWORD ppid )
{
    char name[64];
    struct xcycle_shared *shared;
    HANDLE m1, map, ready, thread;
    IMAGE_NT_HEADERS *nt;
    DWORD tid;

    sprintf( name, XCYCLE_NAME, ppid, "m1" );
    m1 = OpenMutexA( SYNCHRONIZE, FALSE, name );
    sprintf( name, XCYCLE_NAME, ppid, "m2" );
    xcycle_m2 = CreateMutexA( NULL, FALSE, name );
    sprintf( name, XCYCLE_NAME, ppid, "map" );
    map = OpenFileMappingA( FILE_MAP_WRITE, FALSE, name );
    sprintf( name, XCYCLE_NAME, ppid, "ready" );
    ready = OpenEventA( EVENT_MODIFY_STATE, FALSE, name );
    if (!m1 || !xcycle_m2 || !map || !ready) return;
    shared = MapViewOfFile( map, FILE_MAP_WRITE, 0, 0, sizeof(*shared) );

    InitializeCriticalSection( &xcycle_cs );
    EnterCriticalSection( &xcycle_cs );
    xcycle_owned = CreateEventA( NULL, TRUE, FALSE, NULL );
    thread = CreateThread( NULL, 0, xcycle_waiter, NULL, 0, &tid );
    WaitForSingleObject( xcycle_owned, INFINITE );

    nt = (IMAGE_NT_HEADERS *)((char *)GetModuleHandleA( NULL ) + ((IMAGE_DOS_HEADER *)GetModuleHandleA( NULL ))->e_lfanew);
    shared->image_base = (ULONG_PTR)GetModuleHandleA( NULL );
    shared->image_size = nt->OptionalHeader.SizeOfImage;
    shared->owner_tid = GetCurrentThreadId();
    shared->waiter_tid = tid;
    SetEvent( ready );
    WaitForSingleObject( m1, INFINITE );  /* until the parent ends it */
    CloseHandle( thread );
}

struct xcycle_parent
{
    DWORD  ppid;
    HANDLE owns, ready;
};

static DWORD WINAPI xcycle_holder( void *arg )
{
    struct xcycle_parent *parent = arg;
    char name[64];
    HANDLE m1, m2;

    sprintf( name, XCYCLE_NAME, parent->ppid, "m1" );
    m1 = CreateMutexA( NULL, TRUE, name );
    SetEvent( parent->owns );
    WaitForSingleObject( parent->ready, INFINITE );
    sprintf( name, XCYCLE_NAME, parent->ppid, "m2" );
    m2 = OpenMutexA( SYNCHRONIZE, FALSE, name );
    WaitForSingleObject( m2, INFINITE );  /* abandoned when the child is ended */
    ReleaseMutex( m2 );
    CloseHandle( m2 );
    ReleaseMutex( m1 );
    CloseHandle( m1 );
    return 0;
}

static BOOL name_ends_with( const WCHAR *name, DWORD ppid, const char *what )
{
    char suffix[64], buffer[WCT_OBJNAME_LENGTH];
    size_t len, slen;

    WideCharToMultiByte( CP_ACP, 0, name, -1, buffer, sizeof(buffer), NULL, NULL );
    sprintf( suffix, "\\" XCYCLE_NAME, ppid, what );
    len = strlen( buffer );
    slen = strlen( suffix );
    return len >= slen && !strcmp( buffer + len - slen, suffix );
}

static void test_cross_bitness_cycle( const char *self )
{
    const DWORD flags = WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG;
    struct xcycle_parent parent = { GetCurrentProcessId() };
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    struct xcycle_shared *shared;
    char twin[MAX_PATH], cmd[2 * MAX_PATH], name[64];
    HANDLE map, holder, waiter;
    DWORD holder_tid, wait_time, i;

    if (!find_twin( self, twin, sizeof(twin) ))
    {
        skip( "W-44: no build of this test for the other architecture next to %s\n", self );
        return;
    }
    winetest_push_context( "W-44" );
    sprintf( name, XCYCLE_NAME, parent.ppid, "map" );
    map = CreateFileMappingA( INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, sizeof(*shared), name );
    shared = MapViewOfFile( map, FILE_MAP_WRITE, 0, 0, sizeof(*shared) );
    sprintf( name, XCYCLE_NAME, parent.ppid, "ready" );
    parent.ready = CreateEventA( NULL, TRUE, FALSE, name );
    parent.owns = CreateEventA( NULL, TRUE, FALSE, NULL );
    holder = start_thread( xcycle_holder, &parent, &holder_tid );
    WaitForSingleObject( parent.owns, INFINITE );

    sprintf( cmd, "\"%s\" wct_waits xcycle %lu", twin, parent.ppid );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ), "no child %s, error %lu\n",
        twin, GetLastError() );
    ok( WaitForSingleObject( parent.ready, 10000 ) == WAIT_OBJECT_0, "the child did not get ready\n" );

    {
        const struct expect expect[] =
        {
            BLOCKED( holder_tid ), OBJECT( WctMutexType, WctStatusOwned ),
            BLOCKED( shared->waiter_tid ), OBJECT( WctCriticalSectionType, WctStatusOwned ),
            BLOCKED( shared->owner_tid ), OBJECT( WctMutexType, WctStatusOwned ), BLOCKED( holder_tid )
        };
        const struct expect from_child[] =
        {
            BLOCKED( shared->waiter_tid ), OBJECT( WctCriticalSectionType, WctStatusOwned ),
            BLOCKED( shared->owner_tid ), OBJECT( WctMutexType, WctStatusOwned ),
            BLOCKED( holder_tid ), OBJECT( WctMutexType, WctStatusOwned ), BLOCKED( shared->waiter_tid )
        };

        ok( query_chain( holder_tid, flags, WCT_MAX_NODE_COUNT, expect, 7 ), "failed, error %lu\n", GetLastError() );
        ok( node_count == 7 && is_cycle == TRUE, "%lu nodes, cycle %d\n", node_count, is_cycle );
        for (i = 0; i < node_count && i < 7; i++)
        {
            ok( nodes[i].ObjectType == expect[i].type && nodes[i].ObjectStatus == expect[i].status,
                "node %lu: type %u status %u\n", i, nodes[i].ObjectType, nodes[i].ObjectStatus );
            if (nodes[i].ObjectType != WctThreadType) continue;
            ok( nodes[i].ThreadObject.ThreadId == expect[i].tid, "node %lu: tid %04lx, expected %04lx\n",
                i, nodes[i].ThreadObject.ThreadId, expect[i].tid );
            ok( nodes[i].ThreadObject.ProcessId == (i == 2 || i == 4 ? pi.dwProcessId : parent.ppid),
                "node %lu: pid %04lx\n", i, nodes[i].ThreadObject.ProcessId );
        }
        ok( name_ends_with( nodes[1].LockObject.ObjectName, parent.ppid, "m2" ), "node 1: name %s\n",
            wine_dbgstr_w( nodes[1].LockObject.ObjectName ) );
        ok( name_ends_with( nodes[5].LockObject.ObjectName, parent.ppid, "m1" ), "node 5: name %s\n",
            wine_dbgstr_w( nodes[5].LockObject.ObjectName ) );
        ok( !nodes[3].LockObject.ObjectName[0], "node 3: name %s\n", wine_dbgstr_w( nodes[3].LockObject.ObjectName ) );

        /* the other process's critical section waiter has a real WaitTime */
        wait_time = nodes[2].ThreadObject.WaitTime;
        Sleep( 300 );
        ok( query_chain( shared->waiter_tid, flags, WCT_MAX_NODE_COUNT, from_child, 7 ), "failed, error %lu\n",
            GetLastError() );
        ok( node_count == 7 && is_cycle == TRUE, "from the child: %lu nodes, cycle %d\n", node_count, is_cycle );
        ok( nodes[0].ThreadObject.WaitTime >= wait_time + 250 && nodes[0].ThreadObject.WaitTime < wait_time + 60000,
            "wait time %lu after 300 ms, was %lu\n", nodes[0].ThreadObject.WaitTime, wait_time );
    }

#ifdef _WIN64
    /* a 64-bit caller walks the 32-bit thread's own frames: its thread
     * procedure in the child's image among them, none above 4 GB */
    if (pGetThreadCallStack && (waiter = OpenThread( THREAD_ALL_ACCESS, FALSE, shared->waiter_tid )))
    {
        struct call_snapshot frames[64];
        BOOL in_image = FALSE;
        ULONG n;

        n = pGetThreadCallStack( waiter, ARRAY_SIZE(frames), frames, 0, 0 );
        ok( n >= 3 && n < ARRAY_SIZE(frames), "%lu frames, error %lu\n", n, GetLastError() );
        for (i = 0; i < n; i++)
        {
            ok( frames[i].ret_addr && frames[i].ret_addr < 0x100000000ull, "frame %lu: %Ix\n", i, frames[i].ret_addr );
            if (frames[i].ret_addr > shared->image_base && frames[i].ret_addr < shared->image_base + shared->image_size)
                in_image = TRUE;
        }
        ok( in_image, "no frame in the child's image %I64x\n", shared->image_base );
        CloseHandle( waiter );
        /* W-37 from a 64-bit caller: a blocked 32-bit thread is walked from
         * the registers wow64 saved, without suspending it. The child's
         * main thread, as its wait has no timeout (a critical section's
         * wakes after 5 s to say so, a switch of its own) */
        walk_quietly( shared->owner_tid, pi.dwProcessId, pi.hThread, settled_switches( shared->owner_tid ) );
    }
#else
    (void)waiter;
#endif

    TerminateProcess( pi.hProcess, 0 );
    WaitForSingleObject( pi.hProcess, 5000 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    finish_thread( holder, FALSE );
    UnmapViewOfFile( shared );
    CloseHandle( map );
    CloseHandle( parent.ready );
    CloseHandle( parent.owns );
    winetest_pop_context();
}

START_TEST(wct_waits)
{
    HMODULE kernelbase = GetModuleHandleA( "kernelbase.dll" ), ntdll = GetModuleHandleA( "ntdll.dll" ), coredll;
    char **argv;
    int argc = winetest_get_mainargs( &argv );

    if (argc >= 4 && !strcmp( argv[2], "cs_chain" ))
    {
        child_cs_chain( (HANDLE)(ULONG_PTR)_strtoui64( argv[3], NULL, 10 ) );
        return;
    }
    if (argc >= 3 && !strcmp( argv[2], "idle" ))
    {
        Sleep( 60000 );
        return;
    }
    if (argc >= 4 && !strcmp( argv[2], "xcycle" ))
    {
        child_xcycle( strtoul( argv[3], NULL, 10 ) );
        return;
    }
    if (argc >= 4 && !strcmp( argv[2], "cs_deadlock_exit" ))
    {
        child_cs_deadlock_exit( (HANDLE)(ULONG_PTR)_strtoui64( argv[3], NULL, 10 ) );
        return;
    }

    if (!load_wct())
    {
        win_skip( "Wait Chain Traversal is not available\n" );
        return;
    }
    pWaitOnAddress = (void *)GetProcAddress( kernelbase, "WaitOnAddress" );
    pWakeByAddressAll = (void *)GetProcAddress( kernelbase, "WakeByAddressAll" );
    pNtCreateKeyedEvent = (void *)GetProcAddress( ntdll, "NtCreateKeyedEvent" );
    pNtWaitForKeyedEvent = (void *)GetProcAddress( ntdll, "NtWaitForKeyedEvent" );
    pNtReleaseKeyedEvent = (void *)GetProcAddress( ntdll, "NtReleaseKeyedEvent" );
    pNtQueryInformationThread = (void *)GetProcAddress( ntdll, "NtQueryInformationThread" );
    pNtQueryInformationProcess = (void *)GetProcAddress( ntdll, "NtQueryInformationProcess" );
    if ((coredll = LoadLibraryA( "coredll.dll" )))
        pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" );

    session = pOpenThreadWaitChainSession( 0, NULL );
    ok( session != NULL, "no session, error %lu\n", GetLastError() );
    never_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    holding = CreateEventA( NULL, TRUE, FALSE, NULL );
    release = CreateEventA( NULL, TRUE, FALSE, NULL );

    test_sleep();
    test_srw_lock();
    test_condition_variables();
    test_completion_port();
    test_critical_section_wait_time();
    test_critical_section_no_debug_info();
    test_switches_after_running();
    test_other_process( argv[0] );
    test_main_thread_exited( argv[0] );
    test_read_memory_undisturbed( argv[0] );
    test_tls_load_while_blocked();
    test_cross_bitness_cycle( argv[0] );

    pCloseThreadWaitChainSession( session );
}

/*
 * Conformance tests for Wait Chain Traversal (advapi32). Test ids (W-nn)
 * refer to the scenario catalogue in the project's wait-chain specification.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>
#include <wct.h>
#include "deny_access.h"

#define STANDALONE
#include "wine/test.h"
#include "wct_query.h"

#define check_thread(i, tid, status) check_thread_(__LINE__, i, tid, status)
static void check_thread_( int line, int i, DWORD tid, WCT_OBJECT_STATUS status )
{
    ok_(__FILE__, line)( nodes[i].ObjectType == WctThreadType, "node %d: type %u\n", i, nodes[i].ObjectType );
    ok_(__FILE__, line)( nodes[i].ObjectStatus == status, "node %d: status %u, expected %u\n",
                         i, nodes[i].ObjectStatus, status );
    ok_(__FILE__, line)( nodes[i].ThreadObject.ThreadId == tid, "node %d: tid %04lx, expected %04lx\n",
                         i, nodes[i].ThreadObject.ThreadId, tid );
    if (tid) ok_(__FILE__, line)( nodes[i].ThreadObject.ProcessId == GetCurrentProcessId(),
                                  "node %d: pid %04lx\n", i, nodes[i].ThreadObject.ProcessId );
}

#define check_object(i, type, status) check_object_(__LINE__, i, type, status)
static void check_object_( int line, int i, WCT_OBJECT_TYPE type, WCT_OBJECT_STATUS status )
{
    ok_(__FILE__, line)( nodes[i].ObjectType == type, "node %d: type %u, expected %u\n",
                         i, nodes[i].ObjectType, type );
    ok_(__FILE__, line)( nodes[i].ObjectStatus == status, "node %d: status %u, expected %u\n",
                         i, nodes[i].ObjectStatus, status );
}

/* every node is the one expected; a thread node's tid is checked, so
 * 'expect' gives each thread its id */
#define check_chain(expect, count) check_chain_(__LINE__, expect, count)
static void check_chain_( int line, const struct expect *expect, DWORD count )
{
    DWORD i;

    for (i = 0; i < count; i++)
    {
        if (expect[i].type == WctThreadType) check_thread_( line, i, expect[i].tid, expect[i].status );
        else check_object_( line, i, expect[i].type, expect[i].status );
    }
}

/* W-01, W-02, W-03, W-18, W-22: sessions and parameters */
static void CALLBACK ignore_callback( HWCT wct, DWORD_PTR context, DWORD status, DWORD *count,
                                      WAITCHAIN_NODE_INFO *info, BOOL *cycle )
{
}

static void test_parameters(void)
{
    HWCT handle;
    DWORD count;
    BOOL ret;

    handle = pOpenThreadWaitChainSession( 0, NULL );
    ok( handle != NULL, "W-01: sync session failed, error %lu\n", GetLastError() );
    pCloseThreadWaitChainSession( handle );

    handle = pOpenThreadWaitChainSession( WCT_ASYNC_OPEN_FLAG, ignore_callback );
    ok( handle != NULL, "W-02: async session failed, error %lu\n", GetLastError() );
    pCloseThreadWaitChainSession( handle );

    SetLastError( 0xdeadbeef );
    handle = pOpenThreadWaitChainSession( 0x2, NULL );
    ok( !handle, "W-03: flag 0x2 accepted\n" );
    ok( GetLastError() == ERROR_INVALID_PARAMETER, "W-03: error %lu\n", GetLastError() );

    count = 0;
    SetLastError( 0xdeadbeef );
    ret = pGetThreadWaitChain( session, 0, 0, GetCurrentThreadId(), &count, nodes, &is_cycle );
    ok( !ret && GetLastError() == ERROR_INVALID_PARAMETER, "W-18: count 0: %d, error %lu\n", ret, GetLastError() );
    count = WCT_MAX_NODE_COUNT + 1;
    SetLastError( 0xdeadbeef );
    ret = pGetThreadWaitChain( session, 0, 0, GetCurrentThreadId(), &count, nodes, &is_cycle );
    ok( !ret && GetLastError() == ERROR_INVALID_PARAMETER, "W-18: count 17: %d, error %lu\n", ret, GetLastError() );

    count = 4;
    SetLastError( 0xdeadbeef );
    ret = pGetThreadWaitChain( session, 0, 0x10, GetCurrentThreadId(), &count, nodes, &is_cycle );
    ok( !ret && GetLastError() == ERROR_INVALID_PARAMETER, "W-22: flag 0x10: %d, error %lu\n", ret, GetLastError() );
    count = 4;
    ret = pGetThreadWaitChain( session, 0, WCT_NETWORK_IO_FLAG, GetCurrentThreadId(), &count, nodes, &is_cycle );
    ok( ret, "W-22: WCT_NETWORK_IO_FLAG refused, error %lu\n", GetLastError() );
}

/* W-04, W-26: the calling thread */
static HRESULT WINAPI call_state( int unused, ULONG *state ) { return E_NOTIMPL; }
static HRESULT WINAPI activation_state( GUID clsid, DWORD id, DWORD *state ) { return E_NOTIMPL; }

static void test_current_thread(void)
{

    const struct expect self[] = { RUNNING( GetCurrentThreadId() ) };
    BOOL ret;

    ret = query_chain( GetCurrentThreadId(), 0, WCT_MAX_NODE_COUNT, self, 1 );
    ok( ret, "W-04: failed, error %lu\n", GetLastError() );
    ok( node_count == 1, "W-04: %lu nodes\n", node_count );
    ok( !is_cycle, "W-04: cycle\n" );
    check_thread( 0, GetCurrentThreadId(), WctStatusRunning );

    pRegisterWaitChainCOMCallback( call_state, activation_state );
    pRegisterWaitChainCOMCallback( call_state, activation_state );
    ret = query_chain( GetCurrentThreadId(), 0, WCT_MAX_NODE_COUNT, self, 1 );
    ok( ret && node_count == 1, "W-26: %d, %lu nodes\n", ret, node_count );
}

/* W-05, W-31: a thread waiting on an event */
static HANDLE never_event;

static DWORD WINAPI wait_never( void *arg )
{
    WaitForSingleObject( never_event, INFINITE );
    return 0;
}

static void test_event_wait(void)
{
    DWORD tid;
    HANDLE thread = start_thread( wait_never, NULL, &tid );
    const struct expect blocked[] = { BLOCKED( tid ) };
    BOOL ret;

    /* blocked for at least 600 ms from the first query that sees it */
    query_chain( tid, 0, WCT_MAX_NODE_COUNT, blocked, 1 );
    Sleep( 600 );
    ret = query_chain( tid, 0, WCT_MAX_NODE_COUNT, blocked, 1 );
    ok( ret && node_count == 1, "W-05: %d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
    check_thread( 0, tid, WctStatusBlocked );
    ok( nodes[0].ThreadObject.WaitTime >= 550 && nodes[0].ThreadObject.WaitTime < 60000,
        "W-31: wait time %lu\n", nodes[0].ThreadObject.WaitTime );
    ok( nodes[0].ThreadObject.ContextSwitches > 0, "W-31: no context switches\n" );
    finish_thread( thread, TRUE );
}

/* W-06, W-07, W-20, W-25: a mutex owned by a thread that waits on an event */
static HANDLE owned_mutex, owner_ready;

static DWORD WINAPI own_mutex_and_wait( void *arg )
{
    WaitForSingleObject( owned_mutex, INFINITE );
    SetEvent( owner_ready );
    WaitForSingleObject( never_event, INFINITE );
    return 0;
}

static DWORD WINAPI wait_mutex( void *arg )
{
    WaitForSingleObject( owned_mutex, INFINITE );
    ReleaseMutex( owned_mutex );
    return 0;
}

static void check_zero_outside( int i )
{
    const BYTE *bytes = (const BYTE *)&nodes[i];
    unsigned int start, k;
    BOOL clean = TRUE;

    if (nodes[i].ObjectType == WctThreadType) start = FIELD_OFFSET( WAITCHAIN_NODE_INFO, ThreadObject ) + 16;
    else start = FIELD_OFFSET( WAITCHAIN_NODE_INFO, LockObject.ObjectName ) +
                 (lstrlenW( nodes[i].LockObject.ObjectName ) + 1) * sizeof(WCHAR);
    for (k = start; k < sizeof(nodes[i]); k++) if (bytes[k]) clean = FALSE;
    ok( clean, "W-25: node %d has stray bytes after offset %#x\n", i, start );
}

static HANDLE chain_threads[2];
static DWORD chain_tids[2];

static void start_mutex_chain( const char *name )
{
    owned_mutex = CreateMutexA( NULL, FALSE, name );
    owner_ready = CreateEventA( NULL, TRUE, FALSE, NULL );
    chain_threads[1] = start_thread( own_mutex_and_wait, NULL, &chain_tids[1] );
    WaitForSingleObject( owner_ready, INFINITE );
    chain_threads[0] = start_thread( wait_mutex, NULL, &chain_tids[0] );
}

static const struct expect *mutex_chain(void)
{
    static struct expect expect[3] =
        { BLOCKED( 0 ), OBJECT( WctMutexType, WctStatusOwned ), BLOCKED( 0 ) };

    expect[0].tid = chain_tids[0];
    expect[2].tid = chain_tids[1];
    return expect;
}

static void end_mutex_chain(void)
{
    finish_thread( chain_threads[1], TRUE );
    finish_thread( chain_threads[0], FALSE );
    CloseHandle( owned_mutex );
    CloseHandle( owner_ready );
}

struct async_result
{
    HANDLE    done;
    LONG      calls;
    DWORD_PTR context;
    DWORD     status;
    DWORD     count;
    HWCT      session;
};

static void CALLBACK async_callback( HWCT wct, DWORD_PTR context, DWORD status, DWORD *count,
                                     WAITCHAIN_NODE_INFO *info, BOOL *cycle )
{
    struct async_result *result = (struct async_result *)context;

    InterlockedIncrement( &result->calls );
    result->context = context;
    result->status = status;
    result->count = *count;
    result->session = wct;
    SetEvent( result->done );
}

static void test_mutex_owner(void)
{
    struct async_result result = { 0 };
    WCHAR *name;
    HWCT async;
    BOOL ret;
    int i;

    start_mutex_chain( NULL );
    ret = query_chain( chain_tids[0], 0, WCT_MAX_NODE_COUNT, mutex_chain(), 3 );
    ok( ret && node_count == 3, "W-06: %d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
    ok( !is_cycle, "W-06: cycle\n" );
    check_thread( 0, chain_tids[0], WctStatusBlocked );
    check_object( 1, WctMutexType, WctStatusOwned );
    ok( !nodes[1].LockObject.ObjectName[0], "W-06: name %s\n", wine_dbgstr_w( nodes[1].LockObject.ObjectName ) );
    check_thread( 2, chain_tids[1], WctStatusBlocked );
    for (i = 0; i < 3; i++) check_zero_outside( i );

    /* W-20: the same chain, asynchronously */
    result.done = CreateEventA( NULL, FALSE, FALSE, NULL );
    async = pOpenThreadWaitChainSession( WCT_ASYNC_OPEN_FLAG, async_callback );
    node_count = WCT_MAX_NODE_COUNT;
    SetLastError( 0xdeadbeef );
    ret = pGetThreadWaitChain( async, (DWORD_PTR)&result, 0, chain_tids[0], &node_count, nodes, &is_cycle );
    ok( !ret && GetLastError() == ERROR_IO_PENDING, "W-20: %d, error %lu\n", ret, GetLastError() );
    ok( WaitForSingleObject( result.done, 5000 ) == WAIT_OBJECT_0, "W-20: no callback\n" );
    ok( result.calls == 1, "W-20: %ld callbacks\n", result.calls );
    ok( result.context == (DWORD_PTR)&result, "W-20: context %#Ix\n", result.context );
    ok( result.status == ERROR_SUCCESS, "W-20: status %lu\n", result.status );
    ok( result.count == 3, "W-20: %lu nodes\n", result.count );
    ok( result.session == async, "W-20: session %p, expected %p\n", result.session, async );
    pCloseThreadWaitChainSession( async );
    CloseHandle( result.done );
    end_mutex_chain();

    /* W-07 */
    start_mutex_chain( "WctTestMutex" );
    ret = query_chain( chain_tids[0], 0, WCT_MAX_NODE_COUNT, mutex_chain(), 3 );
    ok( ret && node_count == 3, "W-07: %d, %lu nodes\n", ret, node_count );
    name = nodes[1].LockObject.ObjectName;
    ok( name[0] == '\\', "W-07: name %s\n", wine_dbgstr_w( name ) );
    ok( lstrlenW( name ) >= 30 && !lstrcmpW( name + lstrlenW( name ) - 30, L"\\BaseNamedObjects\\WctTestMutex" ),
        "W-07: name %s\n", wine_dbgstr_w( name ) );
    end_mutex_chain();
}

/* W-08, W-09: waits on thread handles */
static DWORD WINAPI wait_handle( void *arg )
{
    WaitForSingleObject( arg, INFINITE );
    return 0;
}

static DWORD WINAPI wait_self( void *arg )
{
    HANDLE self;
    DuplicateHandle( GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &self, 0, FALSE,
                     DUPLICATE_SAME_ACCESS );
    WaitForSingleObject( self, INFINITE );
    return 0;
}

static void test_thread_waits(void)
{
    HANDLE t2, t1;
    DWORD tid1, tid2;
    BOOL ret;

    t2 = start_thread( wait_never, NULL, &tid2 );
    t1 = start_thread( wait_handle, t2, &tid1 );
    {
        const struct expect expect[] =
            { BLOCKED( tid1 ), OBJECT( WctThreadWaitType, WctStatusBlocked ), BLOCKED( tid2 ) };
        ret = query_chain( tid1, 0, WCT_MAX_NODE_COUNT, expect, 3 );
        ok( ret && node_count == 3, "W-08: %d, %lu nodes\n", ret, node_count );
        check_chain( expect, 3 );
    }
    ok( !is_cycle, "W-08: cycle\n" );
    finish_thread( t2, TRUE );
    finish_thread( t1, FALSE );

    t1 = start_thread( wait_self, NULL, &tid1 );
    {
        const struct expect expect[] =
            { BLOCKED( tid1 ), OBJECT( WctThreadWaitType, WctStatusBlocked ), BLOCKED( tid1 ) };
        ret = query_chain( tid1, 0, WCT_MAX_NODE_COUNT, expect, 3 );
        ok( ret && node_count == 3, "W-09: %d, %lu nodes\n", ret, node_count );
        check_chain( expect, 3 );
    }
    ok( is_cycle == TRUE, "W-09: no cycle\n" );
    finish_thread( t1, TRUE );
}

/* W-10, W-11, W-17: a mutex deadlock, and threads joining it */
static HANDLE mutex_a, mutex_b, deadlock_ready[2];

static DWORD WINAPI deadlock_thread( void *arg )
{
    int me = (int)(INT_PTR)arg;
    HANDLE mine = me ? mutex_b : mutex_a, other = me ? mutex_a : mutex_b;

    WaitForSingleObject( mine, INFINITE );
    SetEvent( deadlock_ready[me] );
    WaitForMultipleObjects( 2, deadlock_ready, TRUE, INFINITE );
    WaitForSingleObject( other, INFINITE );
    /* woken when the other thread is killed: stay in a wait, so that this
     * thread is never killed while it exits (holding the loader lock) */
    WaitForSingleObject( never_event, INFINITE );
    return 0;
}

static void test_mutex_deadlock(void)
{
    struct expect expect_w11[9] =
        { BLOCKED( 0 ), OBJECT( WctThreadWaitType, WctStatusBlocked ), BLOCKED( 0 ),
          OBJECT( WctThreadWaitType, WctStatusBlocked ), BLOCKED( 0 ), OBJECT( WctMutexType, WctStatusOwned ),
          BLOCKED( 0 ), OBJECT( WctMutexType, WctStatusOwned ), BLOCKED( 0 ) };
    HANDLE t[2], tw1, tw2;
    DWORD tid[2], tidw1, tidw2;
    BOOL ret;
    int i;

    mutex_a = CreateMutexA( NULL, FALSE, NULL );
    mutex_b = CreateMutexA( NULL, FALSE, NULL );
    for (i = 0; i < 2; i++) deadlock_ready[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
    for (i = 0; i < 2; i++) t[i] = start_thread( deadlock_thread, (void *)(INT_PTR)i, &tid[i] );

    {
        const struct expect expect[] =
            { BLOCKED( tid[0] ), OBJECT( WctMutexType, WctStatusOwned ), BLOCKED( tid[1] ),
              OBJECT( WctMutexType, WctStatusOwned ), BLOCKED( tid[0] ) };
        ret = query_chain( tid[0], 0, WCT_MAX_NODE_COUNT, expect, 5 );
        ok( ret && node_count == 5, "W-10: %d, %lu nodes\n", ret, node_count );
        ok( is_cycle == TRUE, "W-10: no cycle\n" );
        check_chain( expect, 5 );
    }

    tw1 = start_thread( wait_handle, t[0], &tidw1 );
    tw2 = start_thread( wait_handle, tw1, &tidw2 );
    expect_w11[0].tid = tidw2;
    expect_w11[2].tid = tidw1;
    expect_w11[4].tid = expect_w11[8].tid = tid[0];
    expect_w11[6].tid = tid[1];
    ret = query_chain( tidw2, 0, WCT_MAX_NODE_COUNT, expect_w11, 9 );
    ok( ret && node_count == 9, "W-11: %d, %lu nodes\n", ret, node_count );
    ok( is_cycle == TRUE, "W-11: no cycle\n" );
    check_chain( expect_w11, 9 );

    /* W-17 */
    ret = query_chain( tidw2, 0, 4, expect_w11, 9 );
    ok( !ret && GetLastError() == ERROR_MORE_DATA, "W-17: %d, error %lu\n", ret, GetLastError() );
    ok( node_count == 9, "W-17: count %lu\n", node_count );
    check_chain( expect_w11, 4 );

    for (i = 0; i < 2; i++) finish_thread( t[i], TRUE );
    finish_thread( tw1, FALSE );
    finish_thread( tw2, FALSE );
    CloseHandle( mutex_a );
    CloseHandle( mutex_b );
    for (i = 0; i < 2; i++) CloseHandle( deadlock_ready[i] );
}

/* W-12, W-13: critical sections */
static CRITICAL_SECTION cs_a, cs_b;

static DWORD WINAPI cs_deadlock_thread( void *arg )
{
    int me = (int)(INT_PTR)arg;

    EnterCriticalSection( me ? &cs_b : &cs_a );
    SetEvent( deadlock_ready[me] );
    WaitForMultipleObjects( 2, deadlock_ready, TRUE, INFINITE );
    EnterCriticalSection( me ? &cs_a : &cs_b );
    return 0;
}

static DWORD WINAPI hold_cs_and_wait( void *arg )
{
    EnterCriticalSection( &cs_a );
    SetEvent( owner_ready );
    WaitForSingleObject( never_event, INFINITE );
    return 0;
}

static DWORD WINAPI enter_cs( void *arg )
{
    EnterCriticalSection( &cs_a );
    LeaveCriticalSection( &cs_a );
    return 0;
}

static void test_critical_sections(void)
{
    HANDLE t[2];
    DWORD tid[2];
    BOOL ret;
    int i;

    /* W-13 */
    InitializeCriticalSection( &cs_a );
    owner_ready = CreateEventA( NULL, TRUE, FALSE, NULL );
    t[1] = start_thread( hold_cs_and_wait, NULL, &tid[1] );
    WaitForSingleObject( owner_ready, INFINITE );
    t[0] = start_thread( enter_cs, NULL, &tid[0] );
    {
        const struct expect expect[] =
            { BLOCKED( tid[0] ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( tid[1] ) };
        ret = query_chain( tid[0], 0, WCT_MAX_NODE_COUNT, expect, 3 );
        ok( ret && node_count == 3, "W-13: %d, %lu nodes\n", ret, node_count );
        ok( !is_cycle, "W-13: cycle\n" );
        check_chain( expect, 3 );
    }
    ok( !nodes[1].LockObject.ObjectName[0], "W-13: name %s\n", wine_dbgstr_w( nodes[1].LockObject.ObjectName ) );
    finish_thread( t[1], TRUE );
    finish_thread( t[0], TRUE );
    CloseHandle( owner_ready );

    /* W-12; the deadlocked sections are left alone: their owners are killed */
    InitializeCriticalSection( &cs_a );
    InitializeCriticalSection( &cs_b );
    for (i = 0; i < 2; i++) deadlock_ready[i] = CreateEventA( NULL, TRUE, FALSE, NULL );
    for (i = 0; i < 2; i++) t[i] = start_thread( cs_deadlock_thread, (void *)(INT_PTR)i, &tid[i] );
    {
        const struct expect expect[] =
            { BLOCKED( tid[0] ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( tid[1] ),
              OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( tid[0] ) };
        ret = query_chain( tid[0], 0, WCT_MAX_NODE_COUNT, expect, 5 );
        ok( ret && node_count == 5, "W-12: %d, %lu nodes\n", ret, node_count );
        ok( is_cycle == TRUE, "W-12: no cycle\n" );
        check_chain( expect, 5 );
    }
    for (i = 0; i < 2; i++) finish_thread( t[i], TRUE );
    for (i = 0; i < 2; i++) CloseHandle( deadlock_ready[i] );
}

/* W-14: a wait on a child process */
static void test_process_wait( const char *exe )
{
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 32];
    HANDLE t;
    DWORD tid;
    BOOL ret;

    sprintf( cmd, "\"%s\" wct sleep", exe );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ), "no child\n" );
    t = start_thread( wait_handle, pi.hProcess, &tid );
    {
        const struct expect expect[] =
            { BLOCKED( tid ), OBJECT( WctProcessWaitType, WctStatusBlocked ), { WctThreadType, WctStatusPidOnly, 0 } };
        ret = query_chain( tid, 0, WCT_MAX_NODE_COUNT, expect, 3 );
    }
    ok( ret && node_count == 3, "W-14: %d, %lu nodes\n", ret, node_count );
    check_thread( 0, tid, WctStatusBlocked );
    check_object( 2 - 1, WctProcessWaitType, WctStatusBlocked );
    ok( nodes[2].ObjectType == WctThreadType, "W-14: type %u\n", nodes[2].ObjectType );
    ok( nodes[2].ObjectStatus == WctStatusPidOnly, "W-14: status %u\n", nodes[2].ObjectStatus );
    ok( nodes[2].ThreadObject.ProcessId == pi.dwProcessId, "W-14: pid %04lx, expected %04lx\n",
        nodes[2].ThreadObject.ProcessId, pi.dwProcessId );
    ok( !nodes[2].ThreadObject.ThreadId, "W-14: tid %04lx\n", nodes[2].ThreadObject.ThreadId );
    TerminateProcess( pi.hProcess, 0 );
    finish_thread( t, FALSE );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
}

/* W-19: threads that do not exist */
static DWORD WINAPI exit_at_once( void *arg ) { return 0; }

static void test_missing_threads(void)
{
    DWORD tid, count;
    HANDLE t = start_thread( exit_at_once, NULL, &tid );
    BOOL ret;

    finish_thread( t, FALSE );
    count = WCT_MAX_NODE_COUNT;
    SetLastError( 0xdeadbeef );
    ret = pGetThreadWaitChain( session, 0, 0, tid, &count, nodes, &is_cycle );
    /* Windows may answer ERROR_INVALID_PARAMETER (unknown) */
    ok( !ret && (GetLastError() == ERROR_OBJECT_NOT_FOUND || broken( GetLastError() == ERROR_INVALID_PARAMETER )),
        "W-19: exited thread: %d, error %lu\n", ret, GetLastError() );

    /* exited, but a handle keeps the thread object (and its id) alive */
    t = start_thread( exit_at_once, NULL, &tid );
    ok( WaitForSingleObject( t, 5000 ) == WAIT_OBJECT_0, "thread did not finish\n" );
    count = WCT_MAX_NODE_COUNT;
    memset( nodes, 0xcc, sizeof(nodes) );
    SetLastError( 0xdeadbeef );
    ret = pGetThreadWaitChain( session, 0, 0, tid, &count, nodes, &is_cycle );
    ok( !ret && (GetLastError() == ERROR_OBJECT_NOT_FOUND || broken( GetLastError() == ERROR_INVALID_PARAMETER )),
        "W-19: exited thread, handle open: %d, error %lu, first node type %u status %u\n",
        ret, GetLastError(), nodes[0].ObjectType, nodes[0].ObjectStatus );
    CloseHandle( t );

    count = WCT_MAX_NODE_COUNT;
    SetLastError( 0xdeadbeef );
    ret = pGetThreadWaitChain( session, 0, 0, 0xfffffffc, &count, nodes, &is_cycle );
    ok( !ret && (GetLastError() == ERROR_OBJECT_NOT_FOUND || broken( GetLastError() == ERROR_INVALID_PARAMETER )),
        "W-19: tid 0xfffffffc: %d, error %lu\n", ret, GetLastError() );
}

/* W-21: closing an asynchronous session while a callback runs */
struct slow_result
{
    LONG calls;
    LONG cancelled;
    LONG returned;
};

static void CALLBACK slow_callback( HWCT wct, DWORD_PTR context, DWORD status, DWORD *count,
                                    WAITCHAIN_NODE_INFO *info, BOOL *cycle )
{
    struct slow_result *result = (struct slow_result *)context;

    InterlockedIncrement( &result->calls );
    if (status == ERROR_CANCELLED) InterlockedIncrement( &result->cancelled );
    else Sleep( 500 );
    InterlockedIncrement( &result->returned );
}

static void test_async_close(void)
{
    static WAITCHAIN_NODE_INFO async_nodes[4][WCT_MAX_NODE_COUNT];
    static DWORD counts[4];
    static BOOL cycles[4];
    struct slow_result result = { 0 };
    HWCT async = pOpenThreadWaitChainSession( WCT_ASYNC_OPEN_FLAG, slow_callback );
    BOOL ret;
    int i;

    for (i = 0; i < 4; i++)
    {
        counts[i] = WCT_MAX_NODE_COUNT;
        ret = pGetThreadWaitChain( async, (DWORD_PTR)&result, 0, GetCurrentThreadId(), &counts[i],
                                   async_nodes[i], &cycles[i] );
        ok( !ret && GetLastError() == ERROR_IO_PENDING, "W-21: %d, error %lu\n", ret, GetLastError() );
    }
    pCloseThreadWaitChainSession( async );
    ok( result.calls == 4, "W-21: %ld callbacks\n", result.calls );
    ok( result.returned == result.calls, "W-21: %ld of %ld callbacks still running after Close\n",
        result.calls - result.returned, result.calls );
}

/* Closing an asynchronous session from its own callback (not in the
 * specification's catalogue): Close must not wait for the callback that
 * calls it. What Windows does is not documented; a Close that never
 * returns there is accepted as broken. */
static HANDLE closed_in_callback;
static LONG self_close_calls;

static void CALLBACK self_closing_callback( HWCT wct, DWORD_PTR context, DWORD status, DWORD *count,
                                            WAITCHAIN_NODE_INFO *info, BOOL *cycle )
{
    InterlockedIncrement( &self_close_calls );
    pCloseThreadWaitChainSession( wct );
    SetEvent( closed_in_callback );
}

static void test_close_in_callback(void)
{
    static WAITCHAIN_NODE_INFO self_nodes[WCT_MAX_NODE_COUNT];
    static DWORD self_count = WCT_MAX_NODE_COUNT;
    static BOOL self_cycle;
    HWCT async = pOpenThreadWaitChainSession( WCT_ASYNC_OPEN_FLAG, self_closing_callback );
    DWORD wait;
    BOOL ret;

    closed_in_callback = CreateEventA( NULL, TRUE, FALSE, NULL );
    ret = pGetThreadWaitChain( async, 0, 0, GetCurrentThreadId(), &self_count, self_nodes, &self_cycle );
    ok( !ret && GetLastError() == ERROR_IO_PENDING, "close in callback: %d, error %lu\n", ret, GetLastError() );
    wait = WaitForSingleObject( closed_in_callback, 5000 );
    ok( wait == WAIT_OBJECT_0 || broken( wait == WAIT_TIMEOUT ),
        "close in callback: Close did not return: %#lx\n", wait );
    ok( self_close_calls == 1, "close in callback: %ld callbacks\n", self_close_calls );
    CloseHandle( closed_in_callback );
}

/* W-27: a chain longer than 16 nodes */
static void test_long_chain(void)
{
    struct expect expect[WCT_MAX_NODE_COUNT];
    HANDLE t[9];
    DWORD tid[9];
    BOOL ret;
    int i;

    t[8] = start_thread( wait_never, NULL, &tid[8] );
    for (i = 7; i >= 0; i--) t[i] = start_thread( wait_handle, t[i + 1], &tid[i] );
    for (i = 0; i < WCT_MAX_NODE_COUNT; i++)
    {
        expect[i].type = i % 2 ? WctThreadWaitType : WctThreadType;
        expect[i].status = WctStatusBlocked;
        expect[i].tid = i % 2 ? 0 : tid[i / 2];
    }
    ret = query_chain( tid[0], 0, WCT_MAX_NODE_COUNT, expect, WCT_MAX_NODE_COUNT );
    ok( !ret && GetLastError() == ERROR_TOO_MANY_THREADS, "W-27: %d, error %lu\n", ret, GetLastError() );
    ok( node_count == WCT_MAX_NODE_COUNT, "W-27: %lu nodes\n", node_count );
    for (i = 0; i < 8; i++) check_thread( 2 * i, tid[i], WctStatusBlocked );
    finish_thread( t[8], TRUE );
    for (i = 7; i >= 0; i--) finish_thread( t[i], FALSE );
}

/* W-45: a chain of seven threads through critical sections, some in an
 * array (next to each other), some each on a page of its own, that ends
 * at the thread asking (Running); asked three times, from its middle, and
 * after a thread in its middle moved to another section */
#define SECTION_THREADS 7

static CRITICAL_SECTION section_array[4];
static CRITICAL_SECTION *sections[SECTION_THREADS + 1];
static volatile LONG sections_held;
static HANDLE section_moved;

static DWORD WINAPI hold_section_and_enter_next( void *arg )
{
    int i = (int)(INT_PTR)arg;

    EnterCriticalSection( sections[i] );
    InterlockedIncrement( &sections_held );
    while (sections_held < SECTION_THREADS) Sleep( 1 );
    EnterCriticalSection( sections[i + 1] );
    return 0;
}

/* holds the third section, waits for the first, leaves it, then waits for the second */
static DWORD WINAPI hold_then_move( void *arg )
{
    EnterCriticalSection( sections[2] );
    EnterCriticalSection( sections[0] );
    LeaveCriticalSection( sections[0] );
    EnterCriticalSection( sections[1] );
    return 0;
}

static DWORD WINAPI enter_third_section( void *arg )
{
    EnterCriticalSection( sections[2] );
    LeaveCriticalSection( sections[2] );
    return 0;
}

static DWORD WINAPI hold_section_and_wait( void *arg )
{
    EnterCriticalSection( arg );
    SetEvent( section_moved );
    WaitForSingleObject( never_event, INFINITE );
    return 0;
}

static void test_section_chain(void)
{
    struct expect expect[2 * SECTION_THREADS + 1];
    CRITICAL_SECTION *own_page[4];
    HANDLE t[SECTION_THREADS], mover, holder, waiter;
    DWORD tid[SECTION_THREADS], mover_tid, holder_tid, waiter_tid, start;
    LONG lock_count;
    BOOL ret;
    int i, j;

    for (i = 0; i < 4; i++)
    {
        own_page[i] = VirtualAlloc( NULL, 4096, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE );
        ok( own_page[i] != NULL, "VirtualAlloc failed, error %lu\n", GetLastError() );
        if (!own_page[i]) return;
        sections[2 * i] = &section_array[i];
        sections[2 * i + 1] = own_page[i];
    }
    for (i = 0; i <= SECTION_THREADS; i++) InitializeCriticalSection( sections[i] );
    EnterCriticalSection( sections[SECTION_THREADS] );
    sections_held = 0;
    for (i = 0; i < SECTION_THREADS; i++)
        t[i] = start_thread( hold_section_and_enter_next, (void *)(INT_PTR)i, &tid[i] );
    for (i = 0; i < SECTION_THREADS; i++)
    {
        expect[2 * i].type = WctThreadType;
        expect[2 * i].status = WctStatusBlocked;
        expect[2 * i].tid = tid[i];
        expect[2 * i + 1].type = WctCriticalSectionType;
        expect[2 * i + 1].status = WctStatusOwned;
        expect[2 * i + 1].tid = 0;
    }
    expect[2 * SECTION_THREADS].type = WctThreadType;
    expect[2 * SECTION_THREADS].status = WctStatusRunning;
    expect[2 * SECTION_THREADS].tid = GetCurrentThreadId();

    ret = query_chain( tid[0], 0, WCT_MAX_NODE_COUNT, expect, 2 * SECTION_THREADS + 1 );
    ok( ret && node_count == 2 * SECTION_THREADS + 1, "W-45: %d, %lu nodes\n", ret, node_count );
    /* the chain stays as it is: each further query gives it exactly */
    for (j = 0; j < 3; j++)
    {
        node_count = WCT_MAX_NODE_COUNT;
        ret = pGetThreadWaitChain( session, 0, 0, tid[0], &node_count, nodes, &is_cycle );
        ok( ret && node_count == 2 * SECTION_THREADS + 1, "W-45: query %d: %d, %lu nodes\n", j, ret, node_count );
        ok( !is_cycle, "W-45: query %d: cycle\n", j );
        check_chain( expect, 2 * SECTION_THREADS + 1 );
    }
    node_count = WCT_MAX_NODE_COUNT;
    ret = pGetThreadWaitChain( session, 0, 0, tid[3], &node_count, nodes, &is_cycle );
    ok( ret && node_count == 2 * (SECTION_THREADS - 3) + 1, "W-45: from the middle: %d, %lu nodes\n",
        ret, node_count );
    check_chain( expect + 6, 2 * (SECTION_THREADS - 3) + 1 );
    for (i = 0; i < SECTION_THREADS; i++) finish_thread( t[i], TRUE );
    LeaveCriticalSection( sections[SECTION_THREADS] );
    /* the sections its threads held when they were ended are made again */
    for (i = 0; i <= SECTION_THREADS; i++) DeleteCriticalSection( sections[i] );

    /* a thread in the middle of a chain that waited for one section, asked
     * about, then waits for another: the owner is that of the other */
    for (i = 0; i <= SECTION_THREADS; i++) InitializeCriticalSection( sections[i] );
    section_moved = CreateEventA( NULL, TRUE, FALSE, NULL );
    EnterCriticalSection( sections[0] );
    mover = start_thread( hold_then_move, NULL, &mover_tid );
    {
        const struct expect first[] =
            { BLOCKED( mover_tid ), OBJECT( WctCriticalSectionType, WctStatusOwned ),
              RUNNING( GetCurrentThreadId() ) };
        ret = query_chain( mover_tid, 0, WCT_MAX_NODE_COUNT, first, 3 );
        ok( ret && node_count == 3, "W-45: before the move: %d, %lu nodes\n", ret, node_count );
        check_chain( first, 3 );
    }
    waiter = start_thread( enter_third_section, NULL, &waiter_tid );
    {
        const struct expect first[] =
            { BLOCKED( waiter_tid ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( mover_tid ),
              OBJECT( WctCriticalSectionType, WctStatusOwned ), RUNNING( GetCurrentThreadId() ) };
        ret = query_chain( waiter_tid, 0, WCT_MAX_NODE_COUNT, first, 5 );
        ok( ret && node_count == 5, "W-45: before the move, from the waiter: %d, %lu nodes\n", ret, node_count );
        check_chain( first, 5 );
    }
    holder = start_thread( hold_section_and_wait, sections[1], &holder_tid );
    WaitForSingleObject( section_moved, INFINITE );
    {
        const struct expect waiting[] = { BLOCKED( holder_tid ) };
        ret = query_chain( holder_tid, 0, WCT_MAX_NODE_COUNT, waiting, 1 );
        ok( ret && node_count == 1, "W-45: the new owner: %d, %lu nodes\n", ret, node_count );
    }
    lock_count = sections[1]->LockCount;
    LeaveCriticalSection( sections[0] );
    /* Not asked while it moves (the server would learn the move): the
     * count of the second section says it came, and the first query that
     * finds it waiting there has the section and its owner right. Until it
     * waits, it runs: the chain ends at it. */
    start = GetTickCount();
    while (sections[1]->LockCount == lock_count && GetTickCount() - start < 10000) Sleep( 1 );
    Sleep( 50 );
    for (;;)
    {
        const struct expect moved[] =
            { BLOCKED( waiter_tid ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( mover_tid ),
              OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( holder_tid ) };

        node_count = WCT_MAX_NODE_COUNT;
        ret = pGetThreadWaitChain( session, 0, 0, waiter_tid, &node_count, nodes, &is_cycle );
        ok( ret, "W-45: after the move: error %lu\n", GetLastError() );
        if (ret && node_count == 3 && nodes[2].ObjectStatus == WctStatusRunning && GetTickCount() - start < 10000)
        {
            /* then the query saw no section to guess: the move is checked less */
            trace( "W-45: the moved thread was still running\n" );
            Sleep( 10 );
            continue;
        }
        ok( ret && node_count == 5, "W-45: after the move: %d, %lu nodes\n", ret, node_count );
        ok( !is_cycle, "W-45: after the move: cycle\n" );
        check_chain( moved, 5 );
        break;
    }
    finish_thread( waiter, TRUE );
    finish_thread( mover, TRUE );
    finish_thread( holder, TRUE );
    CloseHandle( section_moved );
    for (i = 0; i <= SECTION_THREADS; i++) DeleteCriticalSection( sections[i] );
    for (i = 0; i < 4; i++) VirtualFree( own_page[i], 0, MEM_RELEASE );
}

/* W-46: a critical section whose owner exited without leaving it: the
 * chain ends at the section, Owned, and the query does not fail */
static DWORD WINAPI enter_and_exit( void *arg )
{
    EnterCriticalSection( arg );
    return 0;
}

static DWORD WINAPI enter_and_leave( void *arg )
{
    EnterCriticalSection( arg );
    LeaveCriticalSection( arg );
    return 0;
}

static void test_section_of_exited_owner(void)
{
    CRITICAL_SECTION orphan;
    HANDLE owner, waiter;
    DWORD owner_tid, waiter_tid;
    BOOL ret;

    InitializeCriticalSection( &orphan );
    owner = start_thread( enter_and_exit, &orphan, &owner_tid );
    finish_thread( owner, FALSE );
    waiter = start_thread( enter_and_leave, &orphan, &waiter_tid );
    {
        const struct expect expect[] = { BLOCKED( waiter_tid ), OBJECT( WctCriticalSectionType, WctStatusOwned ) };
        ret = query_chain( waiter_tid, 0, WCT_MAX_NODE_COUNT, expect, 2 );
        ok( ret && node_count == 2, "W-46: %d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
        ok( !is_cycle, "W-46: cycle\n" );
        check_chain( expect, 2 );
    }
    finish_thread( waiter, TRUE );
    DeleteCriticalSection( &orphan );
}

/* W-30: an abandoned mutex */
static DWORD WINAPI own_and_exit( void *arg )
{
    WaitForSingleObject( owned_mutex, INFINITE );
    return 0;
}

static DWORD WINAPI wait_mutex_and_event( void *arg )
{
    HANDLE objs[2] = { owned_mutex, never_event };
    WaitForMultipleObjects( 2, objs, TRUE, INFINITE );
    return 0;
}

static void test_abandoned_mutex(void)
{
    HANDLE t;
    DWORD tid;
    BOOL ret;

    owned_mutex = CreateMutexA( NULL, FALSE, NULL );
    finish_thread( start_thread( own_and_exit, NULL, &tid ), FALSE );
    t = start_thread( wait_mutex_and_event, NULL, &tid );
    {
        const struct expect expect[] = { BLOCKED( tid ), OBJECT( WctMutexType, WctStatusAbandoned ) };
        ret = query_chain( tid, 0, WCT_MAX_NODE_COUNT, expect, 2 );
        ok( ret && node_count == 2, "W-30: %d, %lu nodes\n", ret, node_count );
        check_chain( expect, 2 );
    }
    finish_thread( t, TRUE );
    CloseHandle( owned_mutex );
}

/* W-15, W-16: the chain goes into a child process that owns a mutex */
static void test_other_process( const char *exe )
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    HANDLE mutex, ready, t[3];
    DWORD tid[3];
    char cmd[MAX_PATH + 64];
    BOOL ret;
    int i;

    mutex = CreateMutexA( &sa, FALSE, NULL );
    ready = CreateEventA( &sa, TRUE, FALSE, NULL );
    sprintf( cmd, "\"%s\" wct own_mutex %Iu %Iu", exe, (ULONG_PTR)mutex, (ULONG_PTR)ready );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi ), "no child\n" );
    ok( WaitForSingleObject( ready, 10000 ) == WAIT_OBJECT_0, "the child did not take the mutex\n" );

    t[0] = start_thread( wait_handle, mutex, &tid[0] );
    t[1] = start_thread( wait_handle, t[0], &tid[1] );
    t[2] = start_thread( wait_handle, t[1], &tid[2] );

    for (i = 0; i < 2; i++)
    {
        const struct expect expect[] =
            { BLOCKED( tid[2] ), OBJECT( WctThreadWaitType, WctStatusBlocked ), BLOCKED( tid[1] ),
              OBJECT( WctThreadWaitType, WctStatusBlocked ), BLOCKED( tid[0] ),
              OBJECT( WctMutexType, WctStatusOwned ), BLOCKED( pi.dwThreadId ) };

        winetest_push_context( i ? "W-16" : "W-15" );
        ret = query_chain( tid[2], i ? WCT_OUT_OF_PROC_FLAG : 0, WCT_MAX_NODE_COUNT, expect, 7 );
        ok( ret && node_count == 7, "%d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
        ok( !is_cycle, "cycle\n" );
        check_thread( 0, tid[2], WctStatusBlocked );
        check_object( 1, WctThreadWaitType, WctStatusBlocked );
        check_thread( 2, tid[1], WctStatusBlocked );
        check_thread( 4, tid[0], WctStatusBlocked );
        check_object( 5, WctMutexType, WctStatusOwned );
        ok( nodes[6].ObjectType == WctThreadType, "type %u\n", nodes[6].ObjectType );
        ok( nodes[6].ThreadObject.ProcessId == pi.dwProcessId, "pid %04lx, expected %04lx\n",
            nodes[6].ThreadObject.ProcessId, pi.dwProcessId );
        ok( nodes[6].ThreadObject.ThreadId == pi.dwThreadId, "tid %04lx, expected %04lx\n",
            nodes[6].ThreadObject.ThreadId, pi.dwThreadId );
        ok( nodes[6].ObjectStatus == WctStatusBlocked, "status %u\n", nodes[6].ObjectStatus );
        winetest_pop_context();
    }

    TerminateProcess( pi.hProcess, 0 );
    for (i = 0; i < 3; i++) finish_thread( t[i], FALSE );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    CloseHandle( mutex );
    CloseHandle( ready );
}

static void child_own_mutex( HANDLE mutex, HANDLE ready )
{
    WaitForSingleObject( mutex, INFINITE );
    SetEvent( ready );
    WaitForSingleObject( CreateEventA( NULL, TRUE, FALSE, NULL ), 60000 );
}

/* W-23: a SendMessage to a thread blocked on a critical section the sender holds */
static HWND receiver_window;

static DWORD WINAPI receive_thread( void *arg )
{
    receiver_window = CreateWindowExA( 0, "static", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, 0, 0, NULL );
    SetEvent( owner_ready );
    WaitForSingleObject( deadlock_ready[0], INFINITE );
    EnterCriticalSection( &cs_a );
    WaitForSingleObject( never_event, INFINITE );
    return 0;
}

static DWORD WINAPI send_thread( void *arg )
{
    EnterCriticalSection( &cs_a );
    SetEvent( deadlock_ready[0] );
    Sleep( 100 );
    SendMessageA( receiver_window, WM_USER, 0, 0 );
    WaitForSingleObject( never_event, INFINITE );
    return 0;
}

static void test_send_message(void)
{
    HANDLE t[2];
    DWORD tid[2];
    BOOL ret;

    InitializeCriticalSection( &cs_a );
    owner_ready = CreateEventA( NULL, TRUE, FALSE, NULL );
    deadlock_ready[0] = CreateEventA( NULL, TRUE, FALSE, NULL );
    t[1] = start_thread( receive_thread, NULL, &tid[1] );
    WaitForSingleObject( owner_ready, INFINITE );
    ok( receiver_window != NULL, "W-23: no window\n" );
    t[0] = start_thread( send_thread, NULL, &tid[0] );

    {
        const struct expect expect[] =
            { BLOCKED( tid[0] ), OBJECT( WctSendMessageType, WctStatusBlocked ), BLOCKED( tid[1] ),
              OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( tid[0] ) };
        ret = query_chain( tid[0], 0, WCT_MAX_NODE_COUNT, expect, 5 );
        ok( ret && node_count == 5, "W-23: %d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
        ok( is_cycle == TRUE, "W-23: no cycle\n" );
        check_chain( expect, 5 );
    }

    /* W-23 from the other side: the cycle closes on a thread the server
     * sees running (it waits for a critical section) */
    {
        const struct expect expect[] =
            { BLOCKED( tid[1] ), OBJECT( WctCriticalSectionType, WctStatusOwned ), BLOCKED( tid[0] ),
              OBJECT( WctSendMessageType, WctStatusBlocked ), BLOCKED( tid[1] ) };
        ret = query_chain( tid[1], 0, WCT_MAX_NODE_COUNT, expect, 5 );
        ok( ret && node_count == 5, "W-23: %d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
        ok( is_cycle == TRUE, "W-23: no cycle\n" );
        check_chain( expect, 5 );
    }

    finish_thread( t[1], TRUE );
    finish_thread( t[0], TRUE );
    CloseHandle( owner_ready );
    CloseHandle( deadlock_ready[0] );
}

/* W-28, W-29: a thread whose DACL denies everyone */
static void test_access( const char *exe )
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    HANDLE mutex, ready, t;
    DWORD tid;
    char cmd[MAX_PATH + 64];
    BOOL ret;

    mutex = CreateMutexA( &sa, FALSE, NULL );
    ready = CreateEventA( &sa, TRUE, FALSE, NULL );
    sprintf( cmd, "\"%s\" wct deny_access %Iu %Iu", exe, (ULONG_PTR)mutex, (ULONG_PTR)ready );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi ), "no child\n" );
    ok( WaitForSingleObject( ready, 10000 ) == WAIT_OBJECT_0, "the child did not take the mutex\n" );

    node_count = WCT_MAX_NODE_COUNT;
    SetLastError( 0xdeadbeef );
    ret = pGetThreadWaitChain( session, 0, 0, pi.dwThreadId, &node_count, nodes, &is_cycle );
    ok( !ret && GetLastError() == ERROR_ACCESS_DENIED, "W-28: %d, error %lu\n", ret, GetLastError() );

    t = start_thread( wait_handle, mutex, &tid );
    {
        const struct expect expect[] =
            { BLOCKED( tid ), OBJECT( WctMutexType, WctStatusOwned ), { WctThreadType, WctStatusNoAccess, 0 } };
        ret = query_chain( tid, WCT_OUT_OF_PROC_FLAG, WCT_MAX_NODE_COUNT, expect, 3 );
    }
    ok( ret && node_count == 3, "W-29: %d, %lu nodes, error %lu\n", ret, node_count, GetLastError() );
    check_thread( 0, tid, WctStatusBlocked );
    check_object( 1, WctMutexType, WctStatusOwned );
    ok( nodes[2].ObjectType == WctThreadType, "W-29: type %u\n", nodes[2].ObjectType );
    ok( nodes[2].ObjectStatus == WctStatusNoAccess, "W-29: status %u\n", nodes[2].ObjectStatus );

    TerminateProcess( pi.hProcess, 0 );
    finish_thread( t, FALSE );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    CloseHandle( mutex );
    CloseHandle( ready );
}

static void child_deny_access( HANDLE mutex, HANDLE ready )
{
    deny_everyone( GetCurrentThread() );
    deny_everyone( GetCurrentProcess() );
    child_own_mutex( mutex, ready );
}

/* W-24 */
static void test_layout(void)
{
    ok( sizeof(WAITCHAIN_NODE_INFO) == 280, "size %u\n", (int)sizeof(WAITCHAIN_NODE_INFO) );
    ok( FIELD_OFFSET( WAITCHAIN_NODE_INFO, ObjectStatus ) == 4, "ObjectStatus\n" );
    ok( FIELD_OFFSET( WAITCHAIN_NODE_INFO, LockObject.ObjectName ) == 8, "ObjectName\n" );
    ok( FIELD_OFFSET( WAITCHAIN_NODE_INFO, LockObject.Timeout ) == 0x108, "Timeout\n" );
    ok( FIELD_OFFSET( WAITCHAIN_NODE_INFO, LockObject.Alertable ) == 0x110, "Alertable\n" );
    ok( FIELD_OFFSET( WAITCHAIN_NODE_INFO, ThreadObject.ProcessId ) == 8, "ProcessId\n" );
    ok( FIELD_OFFSET( WAITCHAIN_NODE_INFO, ThreadObject.ThreadId ) == 0xc, "ThreadId\n" );
    ok( FIELD_OFFSET( WAITCHAIN_NODE_INFO, ThreadObject.WaitTime ) == 0x10, "WaitTime\n" );
    ok( FIELD_OFFSET( WAITCHAIN_NODE_INFO, ThreadObject.ContextSwitches ) == 0x14, "ContextSwitches\n" );
}

START_TEST(wct)
{
    char **argv;
    int argc = winetest_get_mainargs( &argv );

    if (argc >= 3 && !strcmp( argv[2], "sleep" ))
    {
        Sleep( 30000 );
        return;
    }
    if (argc >= 5 && !strcmp( argv[2], "deny_access" ))
    {
        child_deny_access( (HANDLE)(ULONG_PTR)_strtoui64( argv[3], NULL, 10 ),
                           (HANDLE)(ULONG_PTR)_strtoui64( argv[4], NULL, 10 ) );
        return;
    }
    if (argc >= 5 && !strcmp( argv[2], "own_mutex" ))
    {
        child_own_mutex( (HANDLE)(ULONG_PTR)_strtoui64( argv[3], NULL, 10 ),
                         (HANDLE)(ULONG_PTR)_strtoui64( argv[4], NULL, 10 ) );
        return;
    }

    if (!load_wct())
    {
        win_skip( "Wait Chain Traversal is not available\n" );
        return;
    }
    session = pOpenThreadWaitChainSession( 0, NULL );
    ok( session != NULL, "no session, error %lu\n", GetLastError() );
    never_event = CreateEventA( NULL, TRUE, FALSE, NULL );

    test_layout();
    test_parameters();
    test_current_thread();
    test_event_wait();
    test_mutex_owner();
    test_thread_waits();
    test_mutex_deadlock();
    test_critical_sections();
    test_process_wait( argv[0] );
    test_other_process( argv[0] );
    test_send_message();
    test_access( argv[0] );
    test_missing_threads();
    test_async_close();
    test_close_in_callback();
    test_long_chain();
    test_section_chain();
    test_section_of_exited_owner();
    test_abandoned_mutex();

    pCloseThreadWaitChainSession( session );
}

/*
 * Wait Chain Traversal tests: querying a chain once the threads in it have
 * reached the state a test checks.
 *
 * Threads take a moment to block, and a chain looked at too early is
 * shorter or has a thread still running. A test describes the whole chain
 * it expects, node by node, and query_chain() asks again until every node
 * is there with its type, status and thread id, or 10 s pass; the test then
 * checks what the last query returned, so a chain that never gets there
 * fails with the nodes it had.
 *
 * Include it after wine/test.h: it reports through ok().
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __WCT_QUERY_H
#define __WCT_QUERY_H

#include <windows.h>
#include <wct.h>

static HWCT (WINAPI *pOpenThreadWaitChainSession)(DWORD, PWAITCHAINCALLBACK);
static void (WINAPI *pCloseThreadWaitChainSession)(HWCT);
static BOOL (WINAPI *pGetThreadWaitChain)(HWCT, DWORD_PTR, DWORD, DWORD, DWORD *, WAITCHAIN_NODE_INFO *, BOOL *);
static void (WINAPI *pRegisterWaitChainCOMCallback)(PCOGETCALLSTATE, PCOGETACTIVATIONSTATE);

static HWCT session;
static WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
static DWORD node_count;
static BOOL is_cycle;

/* One expected node. A thread node with tid 0 matches any thread; an
 * object node's tid is not looked at. */
struct expect
{
    WCT_OBJECT_TYPE   type;
    WCT_OBJECT_STATUS status;
    DWORD             tid;
};

#define BLOCKED(tid)      { WctThreadType, WctStatusBlocked, (tid) }
#define RUNNING(tid)      { WctThreadType, WctStatusRunning, (tid) }
#define OBJECT(type, st)  { (type), (st), 0 }

static HANDLE start_thread( LPTHREAD_START_ROUTINE func, void *arg, DWORD *tid )
{
    HANDLE thread = CreateThread( NULL, 0, func, arg, 0, tid );
    ok( thread != NULL, "CreateThread failed, error %lu\n", GetLastError() );
    return thread;
}

static void finish_thread( HANDLE thread, BOOL terminate )
{
    if (terminate) TerminateThread( thread, 0 );
    ok( WaitForSingleObject( thread, 5000 ) == WAIT_OBJECT_0, "thread did not finish\n" );
    CloseHandle( thread );
}

static BOOL load_wct(void)
{
    HMODULE advapi32 = LoadLibraryA( "advapi32.dll" );

    pOpenThreadWaitChainSession = (void *)GetProcAddress( advapi32, "OpenThreadWaitChainSession" );
    pCloseThreadWaitChainSession = (void *)GetProcAddress( advapi32, "CloseThreadWaitChainSession" );
    pGetThreadWaitChain = (void *)GetProcAddress( advapi32, "GetThreadWaitChain" );
    pRegisterWaitChainCOMCallback = (void *)GetProcAddress( advapi32, "RegisterWaitChainCOMCallback" );
    return pOpenThreadWaitChainSession && pCloseThreadWaitChainSession && pGetThreadWaitChain;
}

/* the first 'written' nodes are those the array holds */
static BOOL chain_matches( const struct expect *expect, DWORD count, DWORD written )
{
    DWORD i;

    if (node_count != count) return FALSE;
    for (i = 0; i < written; i++)
    {
        if (nodes[i].ObjectType != expect[i].type || nodes[i].ObjectStatus != expect[i].status) return FALSE;
        if (expect[i].type == WctThreadType && expect[i].tid && nodes[i].ThreadObject.ThreadId != expect[i].tid)
            return FALSE;
    }
    return TRUE;
}

/* Queries 'tid' with an array of 'capacity' nodes until the chain is
 * 'expect' (of 'count' nodes: for a chain too long for the array, the
 * count GetThreadWaitChain reports) or 10 s pass; returns what the last
 * GetThreadWaitChain returned, with its nodes in the globals. */
static BOOL query_chain( DWORD tid, DWORD flags, DWORD capacity, const struct expect *expect, DWORD count )
{
    DWORD start = GetTickCount(), error;
    BOOL ret;

    for (;;)
    {
        memset( nodes, 0xcc, sizeof(nodes) );
        node_count = capacity;
        is_cycle = 0xcc;
        SetLastError( 0xdeadbeef );
        ret = pGetThreadWaitChain( session, 0, flags, tid, &node_count, nodes, &is_cycle );
        error = GetLastError();
        if ((ret || error == ERROR_MORE_DATA || error == ERROR_TOO_MANY_THREADS) &&
            chain_matches( expect, count, min( node_count, capacity ) ))
            break;
        if (GetTickCount() - start > 10000) break;
        Sleep( 10 );
    }
    SetLastError( error );
    return ret;
}

#endif  /* __WCT_QUERY_H */

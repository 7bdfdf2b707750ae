/*
 * A thread blocked in a host system call: ReadFile on a standard input that
 * is a Unix pipe or FIFO (as 7za a -si or esbuild read theirs) waits in the
 * host's read() or poll(), where neither the wineserver nor a wait record
 * sees it. On Windows such a thread is blocked, and Wait Chain Traversal says
 * so. This program starts a thread that reads one line of its standard input
 * and checks, from its main thread, what Wait Chain Traversal and the layer's
 * own request say of it:
 *
 *   - the reader's chain is one thread node, Blocked, with its process and
 *     thread ids, once it is blocked (asked until it is, for 60 s at most);
 *   - the layer says what it is in: WAIT_HOST_CALL, the read(0) or poll(7)
 *     system call, on a pipe ("pipe:[N]") or on the FIFO named by argv[1];
 *   - its WaitTime counts from the first query that saw it blocked: 600 ms
 *     later it is at least 500;
 *   - GetThreadWaitChain of the main thread, which runs, says Running.
 *
 * Then prints "hostcall: pid N ready", waits for the reader to get its line
 * and prints "hostcall: read LINE" and "hostcall: N failures".
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <string.h>
/* the wait-chain node is declared in Wine's server protocol, whose header
 * (through Wine 10's ntuser.h) needs the Wine-internal part of winuser.h */
#define __WINESRC__
#include <windows.h>
#include <wct.h>
#include <winternl.h>
#include "wine/server_protocol.h"
#include "wine/wait_chain.h"

static NTSTATUS (WINAPI *p__wine_get_wait_chain)( DWORD, DWORD, struct wait_chain_node *, ULONG, ULONG *, BOOL * );
static char line[256];
static DWORD got;
static int failures;

static void check( int ok, const char *what )
{
    printf( "hostcall: %s: %s\n", ok ? "ok" : "FAILED", what );
    if (!ok) failures++;
}

static DWORD WINAPI reader( void *arg )
{
    ReadFile( GetStdHandle( STD_INPUT_HANDLE ), line, sizeof(line) - 1, &got, NULL );
    return 0;
}

static BOOL query( HWCT session, DWORD tid, WAITCHAIN_NODE_INFO *nodes, DWORD *count )
{
    BOOL cycle;

    *count = WCT_MAX_NODE_COUNT;
    return GetThreadWaitChain( session, 0, 0, tid, count, nodes, &cycle );
}

int main( int argc, char **argv )
{
    WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
    struct wait_chain_node layer[WCT_MAX_NODE_COUNT];
    char what[130];
    ULONG total, i;
    DWORD count, tid, first;
    HANDLE thread;
    HWCT session;
    BOOL cycle;
    int n;

    p__wine_get_wait_chain = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ), "__wine_get_wait_chain" );
    session = OpenThreadWaitChainSession( 0, NULL );
    thread = CreateThread( NULL, 0, reader, NULL, 0, &tid );
    printf( "hostcall: reader %lu\n", tid );

    /* the reader blocks a moment after it starts: ask until its chain says so */
    for (n = 0; n < 600; n++)
    {
        if (query( session, tid, nodes, &count ) && count == 1 && nodes[0].ObjectStatus == WctStatusBlocked) break;
        Sleep( 100 );
    }
    check( query( session, tid, nodes, &count ), "GetThreadWaitChain of the reader" );
    check( count == 1, "one node" );
    check( nodes[0].ObjectType == WctThreadType, "a thread node" );
    check( nodes[0].ObjectStatus == WctStatusBlocked, "the reader is Blocked" );
    check( nodes[0].ThreadObject.ProcessId == GetCurrentProcessId() && nodes[0].ThreadObject.ThreadId == tid,
           "its process and thread ids" );
    first = nodes[0].ThreadObject.WaitTime;

    check( p__wine_get_wait_chain && !p__wine_get_wait_chain( tid, 0, layer, ARRAYSIZE(layer), &total, &cycle ),
           "__wine_get_wait_chain" );
    for (i = 0; i < layer[0].name_len / sizeof(WCHAR) && i < sizeof(what) - 1; i++) what[i] = layer[0].name[i];
    what[i] = 0;
    printf( "hostcall: kind %#x call %I64u on '%s'\n", layer[0].wait_kind, layer[0].object, what );
    check( total == 1 && layer[0].status == WctStatusBlocked, "the layer says Blocked" );
    check( layer[0].wait_kind == WAIT_HOST_CALL, "in a host call" );
    check( layer[0].object == 0 /* read */ || layer[0].object == 7 /* poll */, "read() or poll()" );
    check( argc > 1 ? !strcmp( what, argv[1] ) : !strncmp( what, "pipe:[", 6 ), "of the pipe or FIFO" );

    Sleep( 600 );
    check( query( session, tid, nodes, &count ) && count == 1 && nodes[0].ObjectStatus == WctStatusBlocked,
           "still Blocked" );
    printf( "hostcall: wait time %lu then %lu ms\n", first, nodes[0].ThreadObject.WaitTime );
    check( nodes[0].ThreadObject.WaitTime >= 500 && nodes[0].ThreadObject.WaitTime >= first,
           "its wait time grows" );

    check( query( session, GetCurrentThreadId(), nodes, &count ) && count == 1 &&
           nodes[0].ObjectStatus == WctStatusRunning, "the main thread is Running" );

    printf( "hostcall: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    WaitForSingleObject( thread, INFINITE );
    line[got] = 0;
    if (got && line[got - 1] == '\n') line[--got] = 0;
    printf( "hostcall: read %s\n", line );
    printf( "hostcall: %d failures\n", failures );
    CloseThreadWaitChainSession( session );
    return failures != 0;
}

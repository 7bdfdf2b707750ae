/*
 * GetThreadCallStack of a thread blocked in ReadFile on a standard input
 * that is a Unix pipe: the host's read() in ntdll's NtReadFile. The thread
 * publishes its registers there, as in its waits, and the buffer read()
 * writes while it blocks (docs/BLOCKED_WALKS.md):
 *
 *   - H-1: blocked reading into a buffer on its own stack, it is walked
 *     held still (a walk that does not suspend it could read the buffer as
 *     the kernel writes it): the walks give its frames, and its
 *     ContextSwitches grow;
 *   - H-2: blocked reading into a static buffer, twenty walks give its
 *     frames and leave its ContextSwitches where they were: it was not
 *     suspended;
 *   - H-3: it then reads one byte at a time from a writer that writes as
 *     fast as it can, leaving and re-entering read() thousands of times, in
 *     both buffers and under different callers, while it is walked
 *     (HOSTRACE_WALKS times, default 3000): every walk gives its functions
 *     in an order its code calls them, down to its start routine and into
 *     kernel32, whichever way it was walked (as C-15 for the waits).
 *
 * With "nonblock" as argument, the standard input is a non-blocking
 * descriptor: read() fails with EAGAIN and NtReadFile blocks in poll(),
 * which writes nothing of the thread's memory: H-1's walks then leave its
 * ContextSwitches unchanged too.
 *
 * The standard input's writer (tests/host/host_calls.sh) writes one byte
 * once "hostrace: pid N ready" is printed (H-1 done), and a stream once
 * "hostrace-race: pid N ready" is (H-2 done). Prints "hostrace: N failures".
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <wct.h>
#include <pkfuncs.h>
#include "walk_check.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);
static HANDLE input;
static HWCT session;
static volatile LONG sink, stop, rounds, first_read_done;
static char static_buffer[4];
static int failures;

static void check( int ok, const char *what )
{
    if (!ok)
    {
        printf( "hostrace: FAILED: %s\n", what );
        failures++;
    }
}

/* one byte into a buffer on this function's stack */
static void __attribute__((noinline)) read_stack(void)
{
    char buffer[4];
    DWORD got = 0;

    if (!ReadFile( input, buffer, 1, &got, NULL ) || !got) stop = 1;
    sink += buffer[0];
}

/* one byte into a buffer that is no stack's */
static void __attribute__((noinline)) read_static(void)
{
    DWORD got = 0;

    if (!ReadFile( input, static_buffer, 1, &got, NULL ) || !got) stop = 1;
    sink++;
}

static void __attribute__((noinline)) via_read(void)
{
    read_static();
    sink++;
}

static void __attribute__((noinline)) worker_loop(void)
{
    read_stack();
    first_read_done = 1;
    while (!stop)
    {
        via_read();
        read_stack();
        read_static();
        rounds++;
    }
    sink++;
}

static DWORD WINAPI worker( void *arg )
{
    worker_loop();
    sink++;
    return 0;
}

/* the chains of our functions a walk may give, innermost first */
static const void *const chains[][WALK_CHAIN_LENGTH] =
{
    { read_static, via_read, worker_loop, worker },
    { via_read, worker_loop, worker },
    { read_stack, worker_loop, worker },
    { read_static, worker_loop, worker },
    { worker_loop, worker },
    { worker },
};

static const void *const functions[] = { read_stack, read_static, via_read, worker_loop, worker };

static const struct walk_rules rules = { chains, ARRAY_SIZE(chains), functions, ARRAY_SIZE(functions) };

/* The thread's node once it is Blocked and its context switches have held
 * for 100 ms: it is asleep in read(). */
static DWORD settled_switches( DWORD tid )
{
    WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
    DWORD start = GetTickCount(), last = ~0u, count;
    BOOL cycle;

    for (;;)
    {
        count = WCT_MAX_NODE_COUNT;
        if (GetThreadWaitChain( session, 0, 0, tid, &count, nodes, &cycle ) && count == 1 &&
            nodes[0].ObjectStatus == WctStatusBlocked)
        {
            if (nodes[0].ThreadObject.ContextSwitches == last) return last;
            last = nodes[0].ThreadObject.ContextSwitches;
        }
        if (GetTickCount() - start > 60000)
        {
            check( 0, "the worker never settled Blocked" );
            return last;
        }
        Sleep( 100 );
    }
}

static DWORD switches_now( DWORD tid )
{
    WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
    DWORD count = WCT_MAX_NODE_COUNT;
    BOOL cycle;

    check( GetThreadWaitChain( session, 0, 0, tid, &count, nodes, &cycle ) && count == 1 &&
           nodes[0].ObjectStatus == WctStatusBlocked, "the worker is Blocked after the walks" );
    return nodes[0].ThreadObject.ContextSwitches;
}

/* 'n' walks of the blocked worker, each giving 'expect' */
static void walk_blocked( HANDLE thread, int n, int expect, const char *id )
{
    CallSnapshot frames[64];
    char why[160], what[200];
    ULONG count;
    enum walk_kind kind;
    int i, chain;

    for (i = 0; i < n; i++)
    {
        count = pGetThreadCallStack( thread, ARRAY_SIZE(frames), frames, 0, 0 );
        snprintf( what, sizeof(what), "%s: walk %d: %lu frames", id, i, count );
        check( count > 0, what );
        if (!count) continue;
        if (!check_walk( &rules, frames, count, &kind, &chain, why, sizeof(why) ))
        {
            snprintf( what, sizeof(what), "%s: walk %d: %s", id, i, why );
            check( 0, what );
        }
        else if (chain != expect)
        {
            snprintf( what, sizeof(what), "%s: walk %d: chain %d, expected %d", id, i, chain, expect );
            check( 0, what );
        }
    }
}

int main( int argc, char **argv )
{
    HMODULE coredll = LoadLibraryA( "coredll.dll" );
    unsigned int i, walks = 3000, bad = 0, empty = 0, short_walks = 0;
    DWORD tid, before, after;
    CallSnapshot frames[64];
    char buf[32], why[160];
    LONG start_rounds;
    HANDLE thread;
    ULONG count;
    BOOL nonblock;
    enum walk_kind kind;
    int chain;

    setvbuf( stdout, NULL, _IONBF, 0 );
    pGetThreadCallStack = coredll ? (void *)GetProcAddress( coredll, "GetThreadCallStack" ) : NULL;
    if (!pGetThreadCallStack)
    {
        printf( "hostrace: no GetThreadCallStack\n" );
        return 1;
    }
    if (GetEnvironmentVariableA( "HOSTRACE_WALKS", buf, sizeof(buf) )) walks = atoi( buf );
    nonblock = argc > 1 && !strcmp( argv[1], "nonblock" );
    input = GetStdHandle( STD_INPUT_HANDLE );
    session = OpenThreadWaitChainSession( 0, NULL );
    thread = CreateThread( NULL, 0, worker, NULL, 0, &tid );

    /* H-1: in read_stack, before anything is written */
    before = settled_switches( tid );
    walk_blocked( thread, 5, 2, "H-1" );
    /* suspended, it leaves read() for a moment: wait until it is back */
    after = nonblock ? switches_now( tid ) : settled_switches( tid );
    printf( "hostrace: H-1: context switches %lu then %lu\n", before, after );
    if (nonblock) check( after == before, "H-1: a poll() is walked without suspending, whatever the buffer" );
    else check( after > before, "H-1: a read() into the stack is walked held still" );
    printf( "hostrace: pid %lu ready\n", GetCurrentProcessId() );

    /* H-2: one byte came; then the worker blocks in via_read's read_static */
    while (!first_read_done) Sleep( 10 );
    before = settled_switches( tid );
    walk_blocked( thread, 20, 0, "H-2" );
    after = switches_now( tid );
    printf( "hostrace: H-2: context switches %lu then %lu\n", before, after );
    check( after == before, "H-2: 20 walks of a read into a static buffer leave ContextSwitches unchanged" );
    printf( "hostrace-race: pid %lu ready\n", GetCurrentProcessId() );

    /* H-3: the writer streams; at least 'walks' walks over 1000 rounds */
    while (!rounds && !stop) Sleep( 1 );
    start_rounds = rounds;
    for (i = 0; !stop && (i < walks || rounds - start_rounds < 1000); i++)
    {
        memset( frames, 0, sizeof(frames) );
        count = pGetThreadCallStack( thread, ARRAY_SIZE(frames), frames, 0, 0 );
        if (!count)
        {
            empty++;
            continue;
        }
        if (!check_walk( &rules, frames, count, &kind, &chain, why, sizeof(why) ))
        {
            if (bad++ < 10)
                printf( "hostrace: FAILED: H-3: walk %u: %s: %lu frames, %#Ix %#Ix %#Ix\n", i, why, count,
                        frames[0].dwReturnAddr, frames[1].dwReturnAddr, frames[2].dwReturnAddr );
        }
        else if (chain < 0) short_walks++;
    }
    printf( "hostrace: H-3: walks=%u bad=%u empty=%u ended_in_ntdll=%u rounds=%ld\n", i, bad, empty, short_walks,
            rounds - start_rounds );
    check( !stop, "H-3: the stream lasted the walks" );
    check( !bad, "H-3: every walk gives the worker's frames" );
    check( !empty, "H-3: every walk gives a frame" );
    stop = 1;
    /* the worker may be blocked in read(): the process ends with it */
    printf( "hostrace: %d failures\n", failures );
    CloseThreadWaitChainSession( session );
    ExitProcess( failures != 0 );
}

/*
 * Benchmark of Wait Chain Traversal and of the synchronization primitives
 * its bookkeeping touches. Prints "NAME VALUE UNIT" lines; tools/bench.sh
 * runs it on stock Wine and on the layer and prints the ratios.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#include <wct.h>

#include "bench.h"

static HWCT (WINAPI *pOpenThreadWaitChainSession)(DWORD, PWAITCHAINCALLBACK);
static BOOL (WINAPI *pGetThreadWaitChain)(HWCT, DWORD_PTR, DWORD, DWORD, DWORD *, WAITCHAIN_NODE_INFO *, BOOL *);

static HANDLE never_event;

/* chains of 1, 5, 9 and 16 nodes: threads joining the next one; the last
 * one waits on an event, or for 16 nodes on an abandoned mutex as well
 * (and 15 nodes through critical sections, below) */
static HWCT session;
static DWORD query_tid, query_nodes;
static HANDLE abandoned_mutex;

static void query(void)
{
    WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
    DWORD count = WCT_MAX_NODE_COUNT;
    BOOL cycle;

    if (pGetThreadWaitChain( session, 0, 0, query_tid, &count, nodes, &cycle )) query_nodes = count;
}

static DWORD WINAPI wait_handle( void *arg )
{
    WaitForSingleObject( arg, INFINITE );
    return 0;
}

static DWORD WINAPI wait_abandoned( void *arg )
{
    HANDLE objs[2] = { abandoned_mutex, never_event };
    WaitForMultipleObjects( 2, objs, TRUE, INFINITE );
    return 0;
}

static DWORD WINAPI own_and_exit( void *arg )
{
    WaitForSingleObject( abandoned_mutex, INFINITE );
    return 0;
}

static double chain_ns[17];

static void bench_chain( int threads, BOOL abandoned, int expect )
{
    HANDLE t[8];
    DWORD tid[8];
    int i;

    t[threads - 1] = CreateThread( NULL, 0, abandoned ? wait_abandoned : wait_handle,
                                   never_event, 0, &tid[threads - 1] );
    for (i = threads - 2; i >= 0; i--) t[i] = CreateThread( NULL, 0, wait_handle, t[i + 1], 0, &tid[i] );
    query_tid = tid[0];
    for (i = 0; i < 250; i++)
    {
        query_nodes = 0;
        query();
        if (query_nodes == expect) break;
        Sleep( 20 );
    }
    if (query_nodes == expect)
    {
        chain_ns[expect] = measure( query, 300 );
        printf( "wct_chain_%d_nodes %.1f ns\n", expect, chain_ns[expect] );
    }
    else
        printf( "# wct_chain_%d_nodes: not supported (%lu nodes)\n", expect, query_nodes );
    TerminateThread( t[threads - 1], 0 );
    for (i = threads - 1; i >= 0; i--)
    {
        WaitForSingleObject( t[i], INFINITE );
        CloseHandle( t[i] );
    }
}

/* 15 nodes through critical sections: thread i holds section i and enters
 * section i + 1; the last one waits on an event. Each thread node's wait
 * is one it recorded (the server does not see it), and each section's
 * owner is read from the process. */
#define CS_THREADS 8

static CRITICAL_SECTION chain_cs[CS_THREADS];
static volatile LONG chain_cs_held;

static DWORD WINAPI hold_and_enter( void *arg )
{
    int i = (int)(INT_PTR)arg;

    EnterCriticalSection( &chain_cs[i] );
    InterlockedIncrement( &chain_cs_held );
    while (chain_cs_held < CS_THREADS) Sleep( 1 );
    if (i < CS_THREADS - 1) EnterCriticalSection( &chain_cs[i + 1] );
    else WaitForSingleObject( never_event, INFINITE );
    return 0;
}

static double chain_cs_ns;

static int __cdecl compare_double( const void *a, const void *b );

/* The 15-node chain through critical sections over a thread alone on an
 * event, measured in turns of 20 ms each: a machine whose load changes
 * over the seconds of the run weighs on both alike. The median of the
 * turns' ratios, each turn timed by 'timer'. */
#define PAIRED_TURNS 15

static double paired_ratio( double (*timer)( void (*)(void), int ), DWORD alone_tid, DWORD cs_tid )
{
    double ratios[PAIRED_TURNS], one;
    int i;

    for (i = 0; i < PAIRED_TURNS; i++)
    {
        query_tid = alone_tid;
        one = timer( query, 20 );
        query_tid = cs_tid;
        ratios[i] = timer( query, 20 ) / one;
    }
    qsort( ratios, PAIRED_TURNS, sizeof(ratios[0]), compare_double );
    return ratios[PAIRED_TURNS / 2];
}

static void bench_paired( DWORD cs_tid )
{
    HANDLE alone = CreateThread( NULL, 0, wait_handle, never_event, 0, &query_tid );
    DWORD alone_tid = query_tid;
    int i;

    for (i = 0; i < 250; i++)
    {
        query_nodes = 0;
        query();
        if (query_nodes == 1) break;
        Sleep( 20 );
    }
    if (query_nodes == 1)
    {
        printf( "wct_chain_15_cs_over_1_paired %.2f ratio\n", paired_ratio( measure, alone_tid, cs_tid ) );
        /* timed by their fastest batches: what the chain's work costs,
         * without the waits for a CPU that come and go */
        printf( "wct_chain_15_cs_over_1_fastest %.2f ratio\n", paired_ratio( measure_best, alone_tid, cs_tid ) );
    }
    TerminateThread( alone, 0 );
    WaitForSingleObject( alone, INFINITE );
    CloseHandle( alone );
    query_tid = cs_tid;
}

static void bench_chain_cs(void)
{
    HANDLE t[CS_THREADS];
    DWORD tid[CS_THREADS];
    int i;

    for (i = 0; i < CS_THREADS; i++) InitializeCriticalSection( &chain_cs[i] );
    for (i = 0; i < CS_THREADS; i++) t[i] = CreateThread( NULL, 0, hold_and_enter, (void *)(INT_PTR)i, 0, &tid[i] );
    query_tid = tid[0];
    for (i = 0; i < 250; i++)
    {
        query_nodes = 0;
        query();
        if (query_nodes == 2 * CS_THREADS - 1) break;
        Sleep( 20 );
    }
    if (query_nodes == 2 * CS_THREADS - 1)
    {
        chain_cs_ns = measure( query, 300 );
        printf( "wct_chain_15_cs_nodes %.1f ns\n", chain_cs_ns );
        bench_paired( tid[0] );
    }
    else
        printf( "# wct_chain_15_cs_nodes: not supported (%lu nodes)\n", query_nodes );
    /* the sections stay held: their owners are ended */
    for (i = 0; i < CS_THREADS; i++) TerminateThread( t[i], 0 );
    WaitForMultipleObjects( CS_THREADS, t, TRUE, INFINITE );
    for (i = 0; i < CS_THREADS; i++) CloseHandle( t[i] );
}

/* the primitives the wait-chain bookkeeping touches */
static CRITICAL_SECTION cs;
static HANDLE mutex, event;
static volatile LONG counter;

static void cs_uncontended(void)
{
    EnterCriticalSection( &cs );
    counter++;
    LeaveCriticalSection( &cs );
}

static SRWLOCK srw_free = SRWLOCK_INIT;

static void srw_uncontended(void)
{
    AcquireSRWLockExclusive( &srw_free );
    counter++;
    ReleaseSRWLockExclusive( &srw_free );
}

/* returns at once: the value differs */
static BOOL (WINAPI *pWaitOnAddress)(volatile void *, void *, SIZE_T, DWORD);

static void wait_on_address_unequal(void)
{
    LONG other = counter + 1;
    pWaitOnAddress( &counter, &other, sizeof(other), INFINITE );
}

static void mutex_wait_release(void)
{
    WaitForSingleObject( mutex, INFINITE );
    ReleaseMutex( mutex );
}

static void event_set_wait(void)
{
    SetEvent( event );
    WaitForSingleObject( event, INFINITE );
}

/* Contended hand-offs between two threads: the paths on which the layer
 * records a wait (a few stores before the thread blocks). Each thread
 * takes the lock, works a little inside it so that the other one blocks,
 * and lets go. */
#define CONTENDED_LOOPS 50000

static SRWLOCK srw = SRWLOCK_INIT;
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static volatile LONG turn;

static void work_inside(void)
{
    int i;
    for (i = 0; i < 50; i++) counter++;
}

static DWORD WINAPI contend_cs( void *arg )
{
    int i;
    for (i = 0; i < CONTENDED_LOOPS; i++)
    {
        EnterCriticalSection( &cs );
        work_inside();
        LeaveCriticalSection( &cs );
    }
    return 0;
}

static DWORD WINAPI contend_srw( void *arg )
{
    int i;
    for (i = 0; i < CONTENDED_LOOPS; i++)
    {
        AcquireSRWLockExclusive( &srw );
        work_inside();
        ReleaseSRWLockExclusive( &srw );
    }
    return 0;
}

/* strict ping-pong: every round wakes the other thread and sleeps on the
 * condition variable until it is this thread's turn again */
#define PING_PONG_ROUNDS 5000

static DWORD WINAPI ping_pong_cs( void *arg )
{
    LONG me = (LONG)(INT_PTR)arg;
    int i;

    EnterCriticalSection( &cs );
    for (i = 0; i < PING_PONG_ROUNDS; i++)
    {
        while (turn != me) SleepConditionVariableCS( &cv, &cs, INFINITE );
        turn = !me;
        WakeConditionVariable( &cv );
    }
    LeaveCriticalSection( &cs );
    return 0;
}

static DWORD WINAPI ping_pong_srw( void *arg )
{
    LONG me = (LONG)(INT_PTR)arg;
    int i;

    AcquireSRWLockExclusive( &srw );
    for (i = 0; i < PING_PONG_ROUNDS; i++)
    {
        while (turn != me) SleepConditionVariableSRW( &cv, &srw, INFINITE, 0 );
        turn = !me;
        WakeConditionVariable( &cv );
    }
    ReleaseSRWLockExclusive( &srw );
    return 0;
}

/* ns per operation of two threads running 'func' together: the median of
 * seven rounds, as one round may find the two threads in step or not */
#define PAIR_ROUNDS 7

static int __cdecl compare_double( const void *a, const void *b )
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void bench_pair( const char *name, LPTHREAD_START_ROUTINE func, int operations )
{
    double start, times[PAIR_ROUNDS];
    HANDLE t[2];
    int i, round;

    for (round = 0; round < PAIR_ROUNDS; round++)
    {
        turn = 0;
        for (i = 0; i < 2; i++)
        {
            t[i] = CreateThread( NULL, 0, func, (void *)(INT_PTR)i, CREATE_SUSPENDED, NULL );
            /* one thread a core, so that runs differ by what they measure, not by where the scheduler put them */
            SetThreadAffinityMask( t[i], (DWORD_PTR)1 << i );
        }
        start = bench_now_ns();
        for (i = 0; i < 2; i++) ResumeThread( t[i] );
        WaitForMultipleObjects( 2, t, TRUE, INFINITE );
        times[round] = (bench_now_ns() - start) / operations;
        for (i = 0; i < 2; i++) CloseHandle( t[i] );
    }
    qsort( times, PAIR_ROUNDS, sizeof(times[0]), compare_double );
    printf( "%s %.1f ns\n", name, times[PAIR_ROUNDS / 2] );
}

int main( int argc, char **argv )
{
    HMODULE advapi32 = LoadLibraryA( "advapi32.dll" );

    never_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    InitializeCriticalSection( &cs );
    mutex = CreateMutexA( NULL, FALSE, NULL );
    event = CreateEventA( NULL, FALSE, FALSE, NULL );

    pWaitOnAddress = (void *)GetProcAddress( GetModuleHandleA( "kernelbase.dll" ), "WaitOnAddress" );
    printf( "cs_uncontended %.1f ns\n", measure( cs_uncontended, 300 ) );
    printf( "srw_uncontended %.1f ns\n", measure( srw_uncontended, 300 ) );
    if (pWaitOnAddress) printf( "wait_on_address_unequal %.1f ns\n", measure( wait_on_address_unequal, 300 ) );
    bench_pair( "cs_contended", contend_cs, 2 * CONTENDED_LOOPS );
    bench_pair( "srw_contended", contend_srw, 2 * CONTENDED_LOOPS );
    bench_pair( "cv_cs_handoff", ping_pong_cs, 2 * PING_PONG_ROUNDS );
    bench_pair( "cv_srw_handoff", ping_pong_srw, 2 * PING_PONG_ROUNDS );
    printf( "mutex_wait_release %.1f ns\n", measure( mutex_wait_release, 300 ) );
    printf( "event_set_wait %.1f ns\n", measure( event_set_wait, 300 ) );

    pOpenThreadWaitChainSession = (void *)GetProcAddress( advapi32, "OpenThreadWaitChainSession" );
    pGetThreadWaitChain = (void *)GetProcAddress( advapi32, "GetThreadWaitChain" );
    if (!(session = pOpenThreadWaitChainSession( 0, NULL )))
    {
        printf( "# Wait Chain Traversal not supported\n" );
        return 0;
    }
    abandoned_mutex = CreateMutexA( NULL, FALSE, NULL );
    WaitForSingleObject( CreateThread( NULL, 0, own_and_exit, NULL, 0, NULL ), INFINITE );
    bench_chain( 1, FALSE, 1 );
    bench_chain( 3, FALSE, 5 );
    bench_chain( 5, FALSE, 9 );
    bench_chain( 8, TRUE, 16 );
    bench_chain_cs();
    if (chain_ns[1] && chain_ns[16])
        printf( "wct_chain_16_over_1 %.2f ratio\n", chain_ns[16] / chain_ns[1] );
    if (chain_ns[1] && chain_cs_ns)
        printf( "wct_chain_15_cs_over_1 %.2f ratio\n", chain_cs_ns / chain_ns[1] );
    /* issue 19's target for the last two: one round trip, whatever the chain */
    printf( "target_wct_chain_15_cs_over_1 1.50 ratio\n" );
    return 0;
}

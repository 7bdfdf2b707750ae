/*
 * GetThreadCallStack of a thread that leaves and re-enters its waits
 * thousands of times while it is walked (C-15). A blocked thread is walked
 * from the registers it published, without suspending it, and the walk is
 * kept only if the thread stayed in the same wait all along; otherwise the
 * thread is suspended and walked. Either way every walk must give the
 * thread's real frames: its functions in an order its code can call them,
 * down to its start, never a frame of one wait under the callers of
 * another. (A thread suspended inside ntdll's system call dispatcher may
 * give a walk that ends there, in ntdll only: counted, not wrong.) Desktop Windows has no coredll: the test skips there.
 *
 * Set CALLSTACK_RACE_ROUNDS for a longer run (default 3000 walks).
 *
 * The worker also yields the processor (NtYieldExecution: a system call
 * that does not block, so that its walks suspend it) from two depths of
 * its own, again and again: a WoW64 thread held still in wow64cpu's entry
 * thunk, after it left 32-bit code for that call and before it stored its
 * 32-bit registers in its CPU area, has as its 32-bit context the one of
 * its previous system call (Wine gives the CPU area whenever the thread
 * runs 64-bit code), whose frames its stack may no longer hold. coredll
 * lets such a thread go on and stops it again: Wine 10.0 says where it
 * stopped in the context, the layer's Wine 8.0 in the 64-bit TEB while the
 * thread is held (dlls/coredll/wow64_walk.c, suspend_wow64_thread; before
 * that, 1 walk in about 30000 of a 32-bit run on 8.0 gave 0x7bc0c57c
 * 0x7b07762e, ntdll's stub, kernelbase, then nothing, as such a context
 * would). Walks of a blocked thread (docs/BLOCKED_WALKS.md) read the CPU
 * area only inside the system call.
 *
 * Built 32-bit, the x86 semantics of a walk of a thread held still at any
 * instruction: x86 has no unwind data to say where a function's return
 * address is, so a thread stopped in a prologue (before its frame pointer
 * is set) or an epilogue (after it is restored) has its caller's frame in
 * EBP, and the walk gives the function it is in (its Eip), then its
 * caller's caller: the caller is skipped, as by Windows' x86
 * RtlWalkFrameChain and debuggers without symbols (docs/X86_WALKS.md).
 * Such a walk is right when its first frame is the thread's Eip in this
 * program and the rest is one of the chains without the second function.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#include <pkfuncs.h>

#define STANDALONE
#include "wine/test.h"
#include "walk_check.h"

static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);
static BOOL (WINAPI *pWaitOnAddress)(volatile void *, void *, SIZE_T, DWORD);

static volatile LONG sink, stop, address;
static volatile LONG rounds, wrong_teb;
static const BYTE *worker_teb;
static HANDLE never_event;
static unsigned int truncated, skipped_caller;

/* three kinds of wait, under different callers: a server wait, a futex
 * wait, and an alertable sleep; each returns at once or nearly */
static void __attribute__((noinline)) wait_server(void)
{
    WaitForSingleObject( never_event, 0 );
    sink++;
}

static void __attribute__((noinline)) via_server(void)
{
    wait_server();
    sink++;
}

static void __attribute__((noinline)) wait_futex(void)
{
    LONG undesired = 0;
    pWaitOnAddress( &address, &undesired, sizeof(undesired), 0 );
    sink++;
}

static void __attribute__((noinline)) wait_sleep(void)
{
    SleepEx( 0, TRUE );
    sink++;
}

/* A WoW64 thread suspended in the system call dispatcher's exit once came
 * back to its 32-bit code with a null %fs (Wine 8.0; patch
 * ntdll-wow64-suspend-fs): its TEB is read after each yield */
static void __attribute__((noinline)) yield_once(void)
{
    SwitchToThread();
    if ((const BYTE *)NtCurrentTeb() != worker_teb) wrong_teb++;
    sink++;
}

static void __attribute__((noinline)) via_yield(void)
{
    yield_once();
    sink++;
}

static void __attribute__((noinline)) worker_loop(void)
{
    unsigned int i;

    while (!stop)
    {
        via_server();
        wait_futex();
        via_server();
        wait_sleep();
        for (i = 0; i < 8; i++)
        {
            yield_once();
            via_yield();
        }
        rounds++;
    }
    sink++;
}

static DWORD WINAPI worker( void *arg )
{
    worker_teb = (const BYTE *)NtCurrentTeb();
    worker_loop();
    sink++;
    return 0;
}

/* the chains of our functions a walk may give, innermost first */
static const void *const chains[][WALK_CHAIN_LENGTH] =
{
    { wait_server, via_server, worker_loop, worker },
    { via_server, worker_loop, worker },
    { wait_futex, worker_loop, worker },
    { wait_sleep, worker_loop, worker },
    { yield_once, via_yield, worker_loop, worker },
    { via_yield, worker_loop, worker },
    { yield_once, worker_loop, worker },
    { worker_loop, worker },
    { worker },
};

static const void *const functions[] = { wait_server, via_server, wait_futex, wait_sleep, yield_once, via_yield,
                                         worker_loop, worker };

static const struct walk_rules rules = { chains, ARRAY_SIZE(chains), functions, ARRAY_SIZE(functions) };

/*
 * The layer keeps a wait record (16 bytes at +0x1f00) and a blocked
 * thread's registers, with what its blocking call may write (+0x1f10 to
 * +0x1fb8), in the gap between the 64-bit TEB (0x1838 bytes) and the
 * 32-bit one at +0x2000, where nothing else of
 * Wine reads or writes (docs/WAIT_RECORDS.md). After thousands of waits,
 * walks and suspensions the rest of the gap must still be zero.
 */
static void check_teb_gap( const BYTE *teb, const char *whose )
{
#ifdef _WIN64
    static const struct { unsigned int start, end; } unused[] = { { 0x1838, 0x1f00 }, { 0x1fb8, 0x2000 } };
#else
    /* the gap of the 64-bit TEB (WowTebOffset leads to it), where 32-bit
     * code's wait record is at +0x1fc0 (16 bytes) */
    static const struct { unsigned int start, end; } unused[] =
        { { 0x1838, 0x1f00 }, { 0x1fb8, 0x1fc0 }, { 0x1fd0, 0x2000 } };
#endif
    unsigned int i, offset;

#ifndef _WIN64
    teb += *(const LONG *)(teb + 0xfdc);  /* TEB32.WowTebOffset */
#endif

    for (i = 0; i < ARRAY_SIZE(unused); i++)
    {
        for (offset = unused[i].start; offset < unused[i].end && !teb[offset]; offset++) ;
        ok( offset == unused[i].end, "C-15: %s TEB: byte +%#x of the unused gap is %#x\n", whose, offset,
            offset < unused[i].end ? teb[offset] : 0 );
    }
}

START_TEST(callstack_races)
{
    HMODULE coredll = LoadLibraryA( "coredll.dll" );
    unsigned int i, walks = 3000, bad = 0, empty = 0;
    CallSnapshot frames[64];
    char buf[32], why[160];
    HANDLE thread;
    LONG start_rounds;
    ULONG count;
    enum walk_kind kind;
    int chain;

    pGetThreadCallStack = coredll ? (void *)GetProcAddress( coredll, "GetThreadCallStack" ) : NULL;
    pWaitOnAddress = (void *)GetProcAddress( GetModuleHandleA( "kernelbase.dll" ), "WaitOnAddress" );
    if (!pGetThreadCallStack || !pWaitOnAddress)
    {
        win_skip( "no GetThreadCallStack (coredll) or no WaitOnAddress\n" );
        return;
    }
    if (GetEnvironmentVariableA( "CALLSTACK_RACE_ROUNDS", buf, sizeof(buf) )) walks = atoi( buf );

    never_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    thread = CreateThread( NULL, 0, worker, NULL, 0, NULL );
    while (!rounds) Sleep( 1 );
    start_rounds = rounds;

    /* at least 'walks' walks, over at least 1000 rounds of the worker */
    for (i = 0; i < walks || rounds - start_rounds < 1000; i++)
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
                ok( 0, "C-15: walk %u: %s: %lu frames, %#Ix %#Ix %#Ix\n", i, why, count, frames[0].dwReturnAddr,
                    frames[1].dwReturnAddr, frames[2].dwReturnAddr );
        }
        else if (kind == WALK_IN_NTDLL) truncated++;
        else if (kind == WALK_SKIPPED_CALLER) skipped_caller++;
    }
    check_teb_gap( worker_teb, "the worker's" );
    check_teb_gap( (const BYTE *)NtCurrentTeb(), "the walker's" );
    stop = 1;
    ok( WaitForSingleObject( thread, 10000 ) == WAIT_OBJECT_0, "the worker did not stop\n" );
    CloseHandle( thread );
    CloseHandle( never_event );

    trace( "figure: walks=%u bad=%u empty=%u ended_in_ntdll=%u skipped_caller=%u worker_rounds=%ld\n", i, bad,
           empty, truncated, skipped_caller, rounds - start_rounds );
    ok( !bad, "C-15: %u of %u walks gave wrong frames\n", bad, i );
    ok( !empty, "C-15: %u of %u walks gave no frame\n", empty, i );
    ok( !wrong_teb, "C-15: the worker read another TEB %ld times after a yield\n", wrong_teb );
}

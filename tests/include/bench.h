/*
 * Timing helpers shared by the benchmark programs in tests/bench.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __BENCH_H
#define __BENCH_H

#include <windows.h>

static double bench_now_ns(void)
{
    static LARGE_INTEGER freq;
    LARGE_INTEGER t;

    if (!freq.QuadPart) QueryPerformanceFrequency( &freq );
    QueryPerformanceCounter( &t );
    return (double)t.QuadPart * 1e9 / (double)freq.QuadPart;
}

/* Runs 'body' for about 'ms' milliseconds; returns ns per call. */
static inline double measure( void (*body)(void), int ms )
{
    double start = bench_now_ns(), end;
    long calls = 0;

    do
    {
        body(); body(); body(); body();
        calls += 4;
        end = bench_now_ns();
    } while (end - start < ms * 1e6);
    return (end - start) / calls;
}

/* Runs 'body' for about 'ms' milliseconds in batches of at least 0.2 ms
 * each; returns ns per call of the fastest batch. The clock is read once
 * a batch, not every few calls (a clock read costs more than a short
 * back-trace), and the fastest batch is the one the machine's load
 * disturbed least: the figure for code that only computes. */
static inline double measure_best( void (*body)(void), int ms )
{
    double start = bench_now_ns(), batch_start, ns, best = 0;
    long calls, batch = 4;

    for (;;)  /* a batch long enough for the clock's cost not to count */
    {
        batch_start = bench_now_ns();
        for (calls = 0; calls < batch; calls++) body();
        if (bench_now_ns() - batch_start >= 2e5 || batch >= (1L << 24)) break;
        batch *= 2;
    }
    do
    {
        batch_start = bench_now_ns();
        for (calls = 0; calls < batch; calls++) body();
        ns = (bench_now_ns() - batch_start) / batch;
        if (!best || ns < best) best = ns;
    } while (bench_now_ns() - start < ms * 1e6);
    return best;
}

/* This thread's CPU time in ns (Wine counts it in clock ticks of 10 ms). */
static inline double thread_cpu_ns(void)
{
    FILETIME creation, exit, kernel, user;

    GetThreadTimes( GetCurrentThread(), &creation, &exit, &kernel, &user );
    return ((((ULONGLONG)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime) +
            (((ULONGLONG)user.dwHighDateTime << 32) | user.dwLowDateTime)) * 100.0;
}

/* Runs 'body' for about 'ms' milliseconds; returns ns of this thread's CPU
 * time per call. On a loaded machine the wall clock also counts the time
 * the thread waits for a core; its CPU time does not. */
static inline double measure_cpu( void (*body)(void), int ms )
{
    double start = bench_now_ns(), cpu = thread_cpu_ns();
    long calls = 0;

    do
    {
        body(); body(); body(); body();
        calls += 4;
    } while (bench_now_ns() - start < ms * 1e6);
    return (thread_cpu_ns() - cpu) / calls;
}

#endif  /* __BENCH_H */

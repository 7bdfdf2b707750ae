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
static double measure( void (*body)(void), int ms )
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

#endif  /* __BENCH_H */

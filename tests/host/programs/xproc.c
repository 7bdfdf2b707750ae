/*
 * One side of a deadlock between two processes over two named mutexes:
 * "xproc a" takes A then wants B, "xproc b" takes B then wants A.
 * Prints "xproc: pid N ready" once it holds its mutex and the other side
 * holds the other one.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <string.h>
#include <windows.h>

int main( int argc, char **argv )
{
    int me = argc > 1 && !strcmp( argv[1], "b" );
    HANDLE mine = CreateMutexA( NULL, FALSE, me ? "WineLayerTestXprocB" : "WineLayerTestXprocA" );
    HANDLE theirs = CreateMutexA( NULL, FALSE, me ? "WineLayerTestXprocA" : "WineLayerTestXprocB" );
    HANDLE i_hold = CreateEventA( NULL, TRUE, FALSE, me ? "WineLayerTestXprocHoldsB" : "WineLayerTestXprocHoldsA" );
    HANDLE they_hold = CreateEventA( NULL, TRUE, FALSE, me ? "WineLayerTestXprocHoldsA" : "WineLayerTestXprocHoldsB" );

    WaitForSingleObject( mine, INFINITE );
    SetEvent( i_hold );
    WaitForSingleObject( they_hold, INFINITE );
    printf( "xproc: pid %lu ready\n", GetCurrentProcessId() );
    fflush( stdout );
    WaitForSingleObject( theirs, INFINITE );
    return 0;
}

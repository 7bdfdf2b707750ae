/*
 * Back-traces of corrupted stacks end cleanly and never crash the caller:
 * an overwritten return address (NULL, unmapped), and a saved frame pointer
 * that sends the walk into unmapped memory (x86_64).
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <windows.h>

#define STANDALONE
#include "wine/test.h"
#include "frames.h"

#define FILL ((void *)0x5555555555555555)

static USHORT (WINAPI *pRtlCaptureStackBackTrace)(ULONG, ULONG, void **, ULONG *);
static volatile LONG sink;
static void *frames[32];
static USHORT frame_count;

static void *unmapped_address(void)
{
    void *addr = VirtualAlloc( NULL, 0x10000, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE );
    VirtualFree( addr, 0, MEM_RELEASE );
    return (char *)addr + 0x8000;
}

/* the return address sits above the saved frame pointer */
static BOOL __attribute__((noinline, optimize("no-omit-frame-pointer"))) corrupt_return( void *value )
{
    void **slot = (void **)__builtin_frame_address(0) + 1, *saved = *slot;

    if (saved != __builtin_return_address(0)) return FALSE;
    *slot = value;
    frame_count = pRtlCaptureStackBackTrace( 0, ARRAYSIZE(frames), frames, NULL );
    *slot = saved;
    sink++;
    return TRUE;
}

static void test_return_address(void)
{
    void *bad = unmapped_address();
    int i;

    for (i = 0; i < ARRAYSIZE(frames); i++) frames[i] = FILL;
    if (!corrupt_return( NULL ))
    {
        skip( "no frame pointer layout to corrupt\n" );
        return;
    }
    ok( frame_count == 1, "NULL return address: %u frames\n", frame_count );
    ok( in_function( frames[0], corrupt_return ), "frame 0 %p\n", frames[0] );
    ok( frames[1] == FILL, "frame 1 written: %p\n", frames[1] );

    for (i = 0; i < ARRAYSIZE(frames); i++) frames[i] = FILL;
    corrupt_return( bad );
    /* the bad address is the caller's return address as far as the unwind
     * data tells, but it is no code: the walk ends without it, as it does at
     * any return address without unwind data that is not executable memory
     * (Windows reports it, and might treat it as a leaf: unknown) */
#ifdef _WIN64
    ok( frame_count == 1 || broken( frame_count >= 2 ), "unmapped return address: %u frames\n", frame_count );
    ok( frames[1] == FILL || broken( frames[1] == bad ), "frame 1 %p written\n", frames[1] );
#else
    /* x86 differs: there is no unwind data to consult, only the chain of
     * saved frame pointers, which is intact here: a frame-pointer walk
     * reads [EBP+4] as the return address without asking what it points
     * at: it checks only that each frame lies on the stack (the rules of
     * docs/X86_WALKS.md), so the bad address is reported and the walk goes
     * on to the callers */
    ok( frame_count >= 3, "unmapped return address: %u frames\n", frame_count );
    ok( frames[1] == bad, "frame 1 %p, expected %p\n", frames[1], bad );
#endif
}

/* the caller's saved frame pointer, overwritten in the callee's frame */
static void *bad_frame;
static BOOL corrupted;

static void __attribute__((noinline, optimize("no-omit-frame-pointer"))) corrupt_saved_rbp(void)
{
    void **slot = (void **)__builtin_frame_address(0), *saved = *slot;

    if (slot[1] != __builtin_return_address(0)) return;
    *slot = bad_frame;
    frame_count = pRtlCaptureStackBackTrace( 0, ARRAYSIZE(frames), frames, NULL );
    *slot = saved;
    corrupted = TRUE;
    sink++;
}

static void __attribute__((noinline, optimize("no-omit-frame-pointer"))) frame_user( int n )
{
    volatile char buffer[64];

    buffer[n & 63] = 1;
    corrupt_saved_rbp();
    sink += buffer[0];
}

static void test_frame_pointer(void)
{
    bad_frame = unmapped_address();
    frame_count = 0;
    frame_user( 3 );
    if (!corrupted)
    {
        skip( "no frame pointer layout to corrupt\n" );
        return;
    }
    /* the walk reaches frame_user, whose frame now lies in unmapped memory */
    ok( frame_count >= 2, "%u frames\n", frame_count );
    ok( in_function( frames[0], corrupt_saved_rbp ), "frame 0 %p\n", frames[0] );
    ok( in_function( frames[1], frame_user ), "frame 1 %p\n", frames[1] );
    ok( frame_count == 2 || broken( frame_count > 2 ), "the walk went on past the bad frame: %u frames\n",
        frame_count );
}

START_TEST(backtrace_corrupt)
{
    pRtlCaptureStackBackTrace = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ),
                                                        "RtlCaptureStackBackTrace" );
    test_return_address();
    test_frame_pointer();
}

/*
 * Back-traces through the same return addresses again and again: the walk
 * must give the same frames every time, and must follow the code that is
 * there now when a DLL is unloaded and another one, whose frame at the same
 * return address is laid out differently, is loaded at its address.
 * unwind_a.dll and unwind_b.dll come from tests/dlls, linked at one base.
 *
 * 32-bit: not run: unwind_a.dll and unwind_b.dll (tests/dlls) are x86-64
 * assembly whose frames are told apart by their unwind data, which x86
 * images do not have (Microsoft, "PE Format", .pdata).
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <malloc.h>
#include <windows.h>

#define STANDALONE
#include "wine/test.h"
#include "frames.h"

static USHORT (WINAPI *pRtlCaptureStackBackTrace)(ULONG, ULONG, void **, ULONG *);
static volatile LONG sink;

struct capture
{
    void  *frames[16];
    USHORT count;
};

static void WINAPI capture_cb( void *arg )
{
    struct capture *c = arg;
    c->count = pRtlCaptureStackBackTrace( 0, ARRAYSIZE(c->frames), c->frames, NULL );
    sink++;
}

static void *through_dll_ret;

/* through_dll -> call_back (in the DLL) -> capture_cb */
static void __attribute__((noinline)) through_dll( void (*call_back)(void (WINAPI *)(void *), void *),
                                                   struct capture *c )
{
    through_dll_ret = __builtin_return_address( 0 );
    call_back( capture_cb, c );
    sink++;
}

static void check_dll_trace( const struct capture *c, HMODULE dll, const char *name )
{
    ok( c->count >= 4, "%s: %u frames\n", name, c->count );
    if (c->count < 4) return;
    ok( in_function( c->frames[0], capture_cb ), "%s: frame 0 %p not in capture_cb\n", name, c->frames[0] );
    ok( module_of( c->frames[1] ) == dll, "%s: frame 1 %p not in the DLL %p\n", name, c->frames[1], dll );
    ok( in_function( c->frames[2], through_dll ), "%s: frame 2 %p not in through_dll\n", name, c->frames[2] );
    ok( c->frames[3] == through_dll_ret, "%s: frame 3 %p, expected %p\n", name, c->frames[3], through_dll_ret );
}

static void test_reload(void)
{
    void (*call_back)(void (WINAPI *)(void *), void *);
    struct capture c;
    HMODULE a, b;
    void *base_a;
    int i;

    a = LoadLibraryA( "unwind_a.dll" );
    ok( a != NULL, "unwind_a.dll not loaded: %lu\n", GetLastError() );
    if (!a) return;
    call_back = (void *)GetProcAddress( a, "call_back" );
    for (i = 0; i < 3; i++)
    {
        memset( &c, 0, sizeof(c) );
        through_dll( call_back, &c );
        check_dll_trace( &c, a, "unwind_a" );
    }
    base_a = a;
    FreeLibrary( a );

    b = LoadLibraryA( "unwind_b.dll" );
    ok( b != NULL, "unwind_b.dll not loaded: %lu\n", GetLastError() );
    if (!b) return;
    if ((void *)b != base_a)
        skip( "unwind_b.dll at %p, not at unwind_a's %p: the return address is not reused\n", b, base_a );
    call_back = (void *)GetProcAddress( b, "call_back" );
    for (i = 0; i < 3; i++)
    {
        memset( &c, 0, sizeof(c) );
        through_dll( call_back, &c );
        check_dll_trace( &c, b, "unwind_b" );
    }
    trace( "figure: reload_same_base=%s\n", b == base_a ? "yes" : "no" );
    FreeLibrary( b );
}

/* Frames of several shapes: a frame pointer with a variable allocation,
 * many saved registers, and plain small frames. */
static void *shape_ret[3];
static struct capture shape_first, shape_again;

static void __attribute__((noinline)) shape_leafward( struct capture *c )
{
    shape_ret[0] = __builtin_return_address( 0 );
    c->count = pRtlCaptureStackBackTrace( 0, ARRAYSIZE(c->frames), c->frames, NULL );
    sink++;
}

static void __attribute__((noinline)) shape_alloca( struct capture *c, int size )
{
    volatile char *buf = alloca( size );

    shape_ret[1] = __builtin_return_address( 0 );
    buf[0] = 1;
    shape_leafward( c );
    sink += buf[0];
}

static void __attribute__((noinline)) shape_saved( struct capture *c, int size )
{
    volatile LONG a = sink, b = sink * 3, d = sink * 5;
    LONG x1 = a + 1, x2 = b + 2, x3 = d + 3, x4 = a * b, x5 = b * d, x6 = a * d;

    shape_ret[2] = __builtin_return_address( 0 );
    shape_alloca( c, size );
    sink += x1 + x2 + x3 + x4 + x5 + x6;
    sink += a + b + d + x1 * x2 * x3 * x4 * x5 * x6;
}

static void test_repeat(void)
{
    int i, round, mismatches = 0;

    /* the variable allocation moves the stack of the inner frames */
    for (round = 0; round < 50; round++)
    {
        struct capture *c = round ? &shape_again : &shape_first;

        memset( c, 0, sizeof(*c) );
        shape_saved( c, 16 + 32 * (round % 7) );
        ok( c->count >= 5, "round %d: %u frames\n", round, c->count );
        if (c->count < 5) break;
        ok( in_function( c->frames[0], shape_leafward ), "round %d: frame 0 %p\n", round, c->frames[0] );
        ok( c->frames[1] == shape_ret[0], "round %d: frame 1 %p, expected %p\n", round, c->frames[1], shape_ret[0] );
        ok( c->frames[2] == shape_ret[1], "round %d: frame 2 %p, expected %p\n", round, c->frames[2], shape_ret[1] );
        ok( c->frames[3] == shape_ret[2], "round %d: frame 3 %p, expected %p\n", round, c->frames[3], shape_ret[2] );
        if (!round) continue;
        /* the return addresses are the same each time, and so are the
         * frames below */
        ok( c->count == shape_first.count, "round %d: %u frames, first %u\n", round, c->count, shape_first.count );
        for (i = 0; i < c->count && i < shape_first.count; i++)
            if (c->frames[i] != shape_first.frames[i]) mismatches++;
    }
    ok( !mismatches, "%d frames differ from the first capture\n", mismatches );
    trace( "figure: repeat_captures=50 repeat_frames=%u repeat_differences=%d\n",
           shape_first.count, mismatches );
}

START_TEST(backtrace_reload)
{
    pRtlCaptureStackBackTrace = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ),
                                                        "RtlCaptureStackBackTrace" );
    test_repeat();
    test_reload();
}

/*
 * Back-traces through user callbacks, exception dispatch and code without
 * unwind data (x86_64). Test ids (R-nn) refer to the catalogue in the
 * project's stack-backtrace specification.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <windows.h>

#define STANDALONE
#include "wine/test.h"
#include "frames.h"

static USHORT (WINAPI *pRtlCaptureStackBackTrace)(ULONG, ULONG, void **, ULONG *);

static volatile LONG sink;
static void *frames[64];
static USHORT frame_count;

static int find_frame( void *addr )
{
    int i;
    for (i = 0; i < frame_count; i++) if (frames[i] == addr) return i;
    return -1;
}

/* a window procedure called during CreateWindowEx leads back to the
 * function that created the window. */
static LRESULT CALLBACK capture_wndproc( HWND hwnd, UINT msg, WPARAM wparam, LPARAM lparam )
{
    if (msg == WM_CREATE) frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
    return DefWindowProcA( hwnd, msg, wparam, lparam );
}

static void __attribute__((noinline)) create_window(void)
{
    HWND hwnd = CreateWindowExA( 0, "backtrace_test", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, 0, 0, NULL );
    ok( hwnd != NULL, "CreateWindowEx failed, error %lu\n", GetLastError() );
    DestroyWindow( hwnd );
    sink++;
}

static void test_window_procedure(void)
{
    WNDCLASSA cls = { 0 };
    int i, found = -1;

    cls.lpfnWndProc = capture_wndproc;
    cls.lpszClassName = "backtrace_test";
    ok( RegisterClassA( &cls ), "RegisterClass failed, error %lu\n", GetLastError() );

    frame_count = 0;
    create_window();
    ok( frame_count > 0, "R-16: no capture in WM_CREATE\n" );
    for (i = 0; i < frame_count; i++) if (in_function( frames[i], create_window )) found = i;
    ok( found > 0, "R-16: the trace (%u frames) does not reach the caller of CreateWindowEx\n", frame_count );
    if (found <= 0)
        for (i = 0; i < frame_count; i++) trace( "frame %d: %p\n", i, frames[i] );
    for (i = 0; i < frame_count; i++) ok( frames[i] != NULL, "R-16: frame %d is NULL\n", i );
    UnregisterClassA( "backtrace_test", NULL );
}

/* a vectored handler sees the faulting address, then the callers of
 * the function that faulted. */
extern char fault_instr[], fault_resume[];
static void *fault_caller;

static void __attribute__((noinline)) fault_function(void)
{
    fault_caller = __builtin_return_address(0);
    __asm__ __volatile__( "xorl %%eax,%%eax\n\t"
                          ".globl fault_instr\n"
                          "fault_instr:\n\t"
                          "movl (%%rax),%%eax\n\t"
                          ".globl fault_resume\n"
                          "fault_resume:\n\t" ::: "rax", "memory" );
    sink++;
}

static LONG CALLBACK capture_handler( EXCEPTION_POINTERS *ptrs )
{
    if (ptrs->ExceptionRecord->ExceptionCode != EXCEPTION_ACCESS_VIOLATION ||
        ptrs->ContextRecord->Rip != (ULONG_PTR)fault_instr)
        return EXCEPTION_CONTINUE_SEARCH;
    frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
    ptrs->ContextRecord->Rip = (ULONG_PTR)fault_resume;
    return EXCEPTION_CONTINUE_EXECUTION;
}

static void test_exception_handler(void)
{
    void *handler = AddVectoredExceptionHandler( TRUE, capture_handler );
    int i;

    frame_count = 0;
    fault_function();
    RemoveVectoredExceptionHandler( handler );
    ok( frame_count > 0, "R-17: no capture in the handler\n" );
    i = find_frame( fault_instr );
    ok( i > 0, "R-17: the faulting address %p is not in the trace (%u frames)\n", fault_instr, frame_count );
    if (i > 0 && i + 1 < frame_count)
        ok( frames[i + 1] == fault_caller, "R-17: after the fault %p, expected the caller %p\n",
            frames[i + 1], fault_caller );
}

/* code without unwind data ends the trace; once a function table
 * describes it, the walk goes on through it. */
static void __attribute__((noinline)) stub_target(void)
{
    frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
    sink++;
}

static void *stub_caller;

static void __attribute__((noinline)) call_stub( void (*stub)(void) )
{
    stub_caller = __builtin_return_address(0);
    stub();
    sink++;
}

static void test_code_without_unwind_data(void)
{
    static const BYTE code[] =
    {
        0x48, 0x83, 0xec, 0x28,                 /* sub $0x28,%rsp */
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,     /* movabs $stub_target,%rax */
        0xff, 0xd0,                             /* call *%rax */
        0x48, 0x83, 0xc4, 0x28,                 /* add $0x28,%rsp */
        0xc3,                                   /* ret */
    };
    static const BYTE unwind_info[] =
    {
        0x01, 0x04, 0x01, 0x00,                 /* version 1, prologue 4 bytes, 1 code */
        0x04, 0x42, 0x00, 0x00,                 /* at 4: UWOP_ALLOC_SMALL 0x28 */
    };
    RUNTIME_FUNCTION *func;
    BYTE *stub = VirtualAlloc( NULL, 0x1000, MEM_COMMIT, PAGE_EXECUTE_READWRITE );
    void *target = stub_target, *after_call;

    memcpy( stub, code, sizeof(code) );
    memcpy( stub + 6, &target, sizeof(target) );
    memcpy( stub + 0x40, unwind_info, sizeof(unwind_info) );
    func = (RUNTIME_FUNCTION *)(stub + 0x80);
    func->BeginAddress = 0;
    func->EndAddress = sizeof(code);
    func->UnwindData = 0x40;
    FlushInstructionCache( GetCurrentProcess(), stub, 0x1000 );
    after_call = stub + 16;

    frame_count = 0;
    call_stub( (void *)stub );
    ok( frame_count == 2, "R-18: got %u frames, expected the trace to end in the stub\n", frame_count );
    ok( in_function( frames[0], stub_target ), "R-18: frame 0 %p not in the target\n", frames[0] );
    if (frame_count > 1) ok( frames[1] == after_call, "R-18: frame 1 %p, expected %p\n", frames[1], after_call );

    ok( RtlAddFunctionTable( func, 1, (ULONG_PTR)stub ), "RtlAddFunctionTable failed\n" );
    frame_count = 0;
    call_stub( (void *)stub );
    ok( frame_count > 3, "R-18: with a function table, got %u frames\n", frame_count );
    if (frame_count > 3)
    {
        ok( frames[1] == after_call, "R-18: frame 1 %p, expected %p\n", frames[1], after_call );
        ok( in_function( frames[2], call_stub ), "R-18: frame 2 %p not in call_stub\n", frames[2] );
        ok( frames[3] == stub_caller, "R-18: frame 3 %p, expected %p\n", frames[3], stub_caller );
    }
    RtlDeleteFunctionTable( func );
    VirtualFree( stub, 0, MEM_RELEASE );
}

START_TEST(backtrace_dispatch)
{
    pRtlCaptureStackBackTrace = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ),
                                                        "RtlCaptureStackBackTrace" );
    test_window_procedure();
    test_exception_handler();
    test_code_without_unwind_data();
}

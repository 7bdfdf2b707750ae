/*
 * Back-traces through user callbacks (window procedures, APCs), exception
 * dispatch (vectored and frame handlers) and code without unwind data or
 * described by function tables (x86_64). Test ids (R-nn) refer to the
 * catalogue in the project's stack-backtrace specification.
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

/* R-16 (continued): SendMessage and DispatchMessage lead back to the
 * function that sent or dispatched the message, and on to its caller. */
static HWND message_window;
static void *message_caller;

static LRESULT CALLBACK message_wndproc( HWND hwnd, UINT msg, WPARAM wparam, LPARAM lparam )
{
    if (msg == WM_USER) frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
    return DefWindowProcA( hwnd, msg, wparam, lparam );
}

static void __attribute__((noinline)) send_message(void)
{
    message_caller = __builtin_return_address(0);
    SendMessageA( message_window, WM_USER, 0, 0 );
    sink++;
}

static void __attribute__((noinline)) dispatch_message(void)
{
    MSG msg;

    message_caller = __builtin_return_address(0);
    while (PeekMessageA( &msg, message_window, 0, 0, PM_REMOVE )) DispatchMessageA( &msg );
    sink++;
}

/* the captured trace passes through 'func', then returns to 'caller' (the
 * return address 'func' recorded), and holds no NULL frame */
static void check_leads_back( const char *how, const void *func, const void *caller )
{
    int i, found = -1;

    ok( frame_count > 0, "%s: nothing captured\n", how );
    for (i = 0; i < frame_count; i++) if (in_function( frames[i], func )) found = i;
    ok( found > 0, "%s: the trace (%u frames) does not reach the function\n", how, frame_count );
    if (found > 0)
        ok( found + 1 < frame_count && frames[found + 1] == caller,
            "%s: after the function, %p instead of its return address %p\n", how,
            found + 1 < frame_count ? frames[found + 1] : NULL, caller );
    for (i = 0; i < frame_count; i++) ok( frames[i] != NULL, "%s: frame %d is NULL\n", how, i );
}

static void test_messages(void)
{
    WNDCLASSA cls = { 0 };

    cls.lpfnWndProc = message_wndproc;
    cls.lpszClassName = "backtrace_messages";
    ok( RegisterClassA( &cls ), "RegisterClass failed, error %lu\n", GetLastError() );
    message_window = CreateWindowExA( 0, "backtrace_messages", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, 0, 0, NULL );
    ok( message_window != NULL, "CreateWindowEx failed, error %lu\n", GetLastError() );

    frame_count = 0;
    send_message();
    check_leads_back( "R-16: SendMessage", send_message, message_caller );

    frame_count = 0;
    ok( PostMessageA( message_window, WM_USER, 0, 0 ), "PostMessage failed, error %lu\n", GetLastError() );
    dispatch_message();
    check_leads_back( "R-16: DispatchMessage", dispatch_message, message_caller );

    DestroyWindow( message_window );
    UnregisterClassA( "backtrace_messages", NULL );
}

/* A user APC runs from KiUserApcDispatcher; its trace leads back to the
 * function whose alertable wait delivered it, and on to its caller. */
static void *apc_waiter_caller;

static void CALLBACK capture_apc( ULONG_PTR arg )
{
    frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
}

static void __attribute__((noinline)) alertable_wait(void)
{
    apc_waiter_caller = __builtin_return_address(0);
    ok( SleepEx( 0, TRUE ) == WAIT_IO_COMPLETION, "SleepEx did not run the APC\n" );
    sink++;
}

static DWORD WINAPI apc_thread( void *arg )
{
    ok( QueueUserAPC( capture_apc, GetCurrentThread(), 0 ), "QueueUserAPC failed, error %lu\n", GetLastError() );
    alertable_wait();
    sink++;
    return 0;
}

static void test_apc(void)
{
    HANDLE thread;

    frame_count = 0;
    thread = CreateThread( NULL, 0, apc_thread, NULL, 0, NULL );
    ok( WaitForSingleObject( thread, 10000 ) == WAIT_OBJECT_0, "the APC thread hangs\n" );
    CloseHandle( thread );

    check_leads_back( "APC", alertable_wait, apc_waiter_caller );
    if (frame_count)
        ok( module_of( frames[frame_count - 1] ) == GetModuleHandleA( "ntdll.dll" ),
            "APC: the trace does not end at the thread's start in ntdll (%p)\n", frames[frame_count - 1] );
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

/* R-17 (continued): the exception handler of the function that faulted,
 * called by RtlDispatchException, sees the same: the faulting address, then
 * the function's caller. */
extern void seh_fault(void);
extern char seh_fault_instr[], seh_fault_resume[];

/* used by the .seh_handler directive below */
static EXCEPTION_DISPOSITION WINAPI __attribute__((used))
seh_capture_handler( EXCEPTION_RECORD *rec, void *frame, CONTEXT *context, void *dispatch )
{
    if (rec->ExceptionCode != EXCEPTION_ACCESS_VIOLATION || context->Rip != (ULONG_PTR)seh_fault_instr)
        return ExceptionContinueSearch;
    frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
    context->Rip = (ULONG_PTR)seh_fault_resume;
    return ExceptionContinueExecution;
}

__asm__( ".text\n\t"
         ".globl seh_fault\n\t"
         ".def seh_fault; .scl 2; .type 32; .endef\n"
         "seh_fault:\n\t"
         ".seh_proc seh_fault\n\t"
         "subq $0x28,%rsp\n\t"
         ".seh_stackalloc 0x28\n\t"
         ".seh_endprologue\n\t"
         ".seh_handler seh_capture_handler, @except\n\t"
         "xorl %eax,%eax\n"
         ".globl seh_fault_instr\n"
         "seh_fault_instr:\n\t"
         "movl (%rax),%eax\n"
         ".globl seh_fault_resume\n"
         "seh_fault_resume:\n\t"
         "addq $0x28,%rsp\n\t"
         "ret\n\t"
         ".seh_endproc" );

static void __attribute__((noinline)) call_seh_fault(void)
{
    seh_fault();
    sink++;
}

static void test_seh_handler(void)
{
    int i;

    frame_count = 0;
    call_seh_fault();
    ok( frame_count > 0, "R-17: no capture in the exception handler\n" );
    i = find_frame( seh_fault_instr );
    ok( i > 0, "R-17: handler: the faulting address %p is not in the trace (%u frames)\n",
        seh_fault_instr, frame_count );
    if (i > 0)
        ok( i + 1 < frame_count && in_function( frames[i + 1], call_seh_fault ),
            "R-17: handler: after the fault, %p is not in the caller\n",
            i + 1 < frame_count ? frames[i + 1] : NULL );
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

static RUNTIME_FUNCTION *callback_func;
static LONG callback_calls;

static RUNTIME_FUNCTION * CALLBACK function_table_callback( DWORD64 pc, void *context )
{
    callback_calls++;
    return callback_func;
}

/* described by a function table, the stub is walked through: the target,
 * the stub's call, call_stub, then call_stub's caller */
static void check_stub_trace( const char *how, const void *after_call )
{
    ok( frame_count > 3, "R-18: %s: got %u frames\n", how, frame_count );
    if (frame_count <= 3) return;
    ok( frames[1] == after_call, "R-18: %s: frame 1 %p, expected %p\n", how, frames[1], after_call );
    ok( in_function( frames[2], call_stub ), "R-18: %s: frame 2 %p not in call_stub\n", how, frames[2] );
    ok( frames[3] == stub_caller, "R-18: %s: frame 3 %p, expected %p\n", how, frames[3], stub_caller );
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
    ULONG_PTR table_id;

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
    check_stub_trace( "function table", after_call );
    RtlDeleteFunctionTable( func );

    /* the same through a callback that the look-up asks for the entry */
    callback_func = func;
    table_id = (ULONG_PTR)stub | 3;  /* callback tables are told apart by the two low bits */
    ok( RtlInstallFunctionTableCallback( table_id, (ULONG_PTR)stub, 0x1000, function_table_callback,
                                         NULL, NULL ), "RtlInstallFunctionTableCallback failed\n" );
    frame_count = 0;
    callback_calls = 0;
    call_stub( (void *)stub );
    ok( callback_calls > 0, "R-18: the function table callback was not called\n" );
    check_stub_trace( "callback", after_call );
    ok( RtlDeleteFunctionTable( (RUNTIME_FUNCTION *)table_id ), "RtlDeleteFunctionTable failed\n" );

    /* and once the table is gone, the trace ends in the stub again */
    frame_count = 0;
    call_stub( (void *)stub );
    ok( frame_count == 2, "R-18: table deleted: got %u frames\n", frame_count );
    VirtualFree( stub, 0, MEM_RELEASE );
}

START_TEST(backtrace_dispatch)
{
    pRtlCaptureStackBackTrace = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ),
                                                        "RtlCaptureStackBackTrace" );
    test_window_procedure();
    test_messages();
    test_apc();
    test_exception_handler();
    test_seh_handler();
    test_code_without_unwind_data();
}

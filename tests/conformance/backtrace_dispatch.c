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
#include "code_stub.h"

static USHORT (WINAPI *pRtlCaptureStackBackTrace)(ULONG, ULONG, void **, ULONG *);
static ULONG (WINAPI *pRtlWalkFrameChain)(void **, ULONG, ULONG);
static void (WINAPI *pRtlGetCallersAddress)(void **, void **);

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
    /* every frame is a return address into code: nothing the dispatcher
     * put on the stack is taken for one */
    for (i = 0; i < frame_count; i++) ok( module_of( frames[i] ) != NULL, "R-16: frame %d %p is in no module\n", i, frames[i] );
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
    for (i = 0; i < frame_count; i++) ok( module_of( frames[i] ) != NULL, "%s: frame %d %p is in no module\n", how, i, frames[i] );
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
#ifdef __x86_64__
#define PC Rip
#else
#define PC Eip
#endif
static void *fault_caller;

static void __attribute__((noinline)) fault_function(void)
{
    fault_caller = __builtin_return_address(0);
#ifdef __x86_64__
    __asm__ __volatile__( "xorl %%eax,%%eax\n\t"
                          ".globl fault_instr\n"
                          "fault_instr:\n\t"
                          "movl (%%rax),%%eax\n\t"
                          ".globl fault_resume\n"
                          "fault_resume:\n\t" ::: "rax", "memory" );
#else
    __asm__ __volatile__( "xorl %%eax,%%eax\n\t"
                          ".globl _fault_instr\n"
                          "_fault_instr:\n\t"
                          "movl (%%eax),%%eax\n\t"
                          ".globl _fault_resume\n"
                          "_fault_resume:\n\t" ::: "eax", "memory" );
#endif
    sink++;
}

static LONG CALLBACK capture_handler( EXCEPTION_POINTERS *ptrs )
{
    if (ptrs->ExceptionRecord->ExceptionCode != EXCEPTION_ACCESS_VIOLATION ||
        ptrs->ContextRecord->PC != (ULONG_PTR)fault_instr)
        return EXCEPTION_CONTINUE_SEARCH;
    frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
    ptrs->ContextRecord->PC = (ULONG_PTR)fault_resume;
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
#ifdef _WIN64
    i = find_frame( fault_instr );
    ok( i > 0, "R-17: the faulting address %p is not in the trace (%u frames)\n", fault_instr, frame_count );
    if (i > 0 && i + 1 < frame_count)
        ok( frames[i + 1] == fault_caller, "R-17: after the fault %p, expected the caller %p\n",
            frames[i + 1], fault_caller );
#else
    /* x86 differs: there is no machine frame. The faulting address is in
     * the CONTEXT only, never a return address on the stack; the dispatcher
     * is entered with the faulting function's EBP, so a frame-pointer walk
     * goes from the dispatcher (in ntdll) to that function's frame, whose
     * return address is its caller (docs/X86_WALKS.md) */
    i = find_frame( fault_caller );
    ok( i > 0, "R-17: the faulting function's caller %p is not in the trace (%u frames)\n", fault_caller,
        frame_count );
    if (i > 0)
        ok( module_of( frames[i - 1] ) == GetModuleHandleA( "ntdll.dll" ),
            "R-17: before the caller, %p is not the dispatcher's\n", frames[i - 1] );
#endif
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
    if (rec->ExceptionCode != EXCEPTION_ACCESS_VIOLATION || context->PC != (ULONG_PTR)seh_fault_instr)
        return ExceptionContinueSearch;
    frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
    context->PC = (ULONG_PTR)seh_fault_resume;
    return ExceptionContinueExecution;
}

#ifdef __x86_64__
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
#else

/* x86 differs: a function's exception handler is not found through unwind
 * data but registered on the stack, in the chain at fs:[0] that
 * RtlDispatchException follows (Matt Pietrek, "A Crash Course on the Depths
 * of Win32 Structured Exception Handling", MSJ January 1997). */
__asm__( ".text\n\t"
         ".globl _seh_fault\n\t"
         ".def _seh_fault; .scl 2; .type 32; .endef\n"
         "_seh_fault:\n\t"
         "pushl %ebp\n\t"
         "movl %esp,%ebp\n\t"
         "pushl $_seh_capture_handler@16\n\t"
         "pushl %fs:0\n\t"
         "movl %esp,%fs:0\n\t"
         "xorl %eax,%eax\n"
         ".globl _seh_fault_instr\n"
         "_seh_fault_instr:\n\t"
         "movl (%eax),%eax\n"
         ".globl _seh_fault_resume\n"
         "_seh_fault_resume:\n\t"
         "popl %fs:0\n\t"
         "addl $4,%esp\n\t"
         "popl %ebp\n\t"
         "ret" );

#endif

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
#ifdef _WIN64
    i = find_frame( seh_fault_instr );
    ok( i > 0, "R-17: handler: the faulting address %p is not in the trace (%u frames)\n",
        seh_fault_instr, frame_count );
    if (i > 0)
        ok( i + 1 < frame_count && in_function( frames[i + 1], call_seh_fault ),
            "R-17: handler: after the fault, %p is not in the caller\n",
            i + 1 < frame_count ? frames[i + 1] : NULL );
#else
    /* x86: as above, the dispatcher's frame (ntdll), then the caller */
    for (i = 0; i < frame_count && !in_function( frames[i], call_seh_fault ); i++) ;
    ok( i > 0 && i < frame_count, "R-17: handler: the caller of the faulting function is not in the trace (%u frames)\n",
        frame_count );
    if (i > 0 && i < frame_count)
        ok( module_of( frames[i - 1] ) == GetModuleHandleA( "ntdll.dll" ),
            "R-17: handler: before the caller, %p is not the dispatcher's\n", frames[i - 1] );
#endif
}

/* x86 differs: there are no function tables to register on x86
 * (RtlAddFunctionTable, RtlInstallFunctionTableCallback: x64 and ARM only,
 * per Microsoft's documentation of them), so R-18 is x86-64's alone. */
#ifdef __x86_64__

/* generated code without unwind data ends a back-trace, and so does
 * code described only by a function table registered at run time
 * (RtlAddFunctionTable, RtlInstallFunctionTableCallback): the walkers read
 * the loaded images' .pdata and nothing else, and never call a function
 * table callback. RtlLookupFunctionEntry and exception dispatch still use
 * those tables: an exception raised below the stub reaches a handler above
 * it. */
#define STUB_EXCEPTION 0xe0000018

enum stub_action { STUB_CAPTURE, STUB_WALK, STUB_RAISE };
static enum stub_action stub_action;
static void *walk[64];
static ULONG walk_count;
static void *callers[2];
static LONG callback_calls, handler_calls;

static void __attribute__((noinline)) stub_target(void)
{
    switch (stub_action)
    {
    case STUB_CAPTURE:
        frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
        break;
    case STUB_WALK:
        walk_count = pRtlWalkFrameChain( walk, 64, 0 );
        pRtlGetCallersAddress( &callers[0], &callers[1] );
        break;
    case STUB_RAISE:
        RaiseException( STUB_EXCEPTION, 0, 0, NULL );
        break;
    }
    sink++;
}

static void __attribute__((noinline)) call_stub( void (*stub)(void) )
{
    stub();
    sink++;
}

/* calls the stub under a frame handler that resumes STUB_EXCEPTION */
extern void guarded_call( void (*stub)(void) );

/* used by the .seh_handler directive below */
static EXCEPTION_DISPOSITION WINAPI __attribute__((used))
stub_exception_handler( EXCEPTION_RECORD *rec, void *frame, CONTEXT *context, void *dispatch )
{
    if (rec->ExceptionCode != STUB_EXCEPTION) return ExceptionContinueSearch;
    handler_calls++;
    return ExceptionContinueExecution;
}

__asm__( ".text\n\t"
         ".globl guarded_call\n\t"
         ".def guarded_call; .scl 2; .type 32; .endef\n"
         "guarded_call:\n\t"
         ".seh_proc guarded_call\n\t"
         "subq $0x28,%rsp\n\t"
         ".seh_stackalloc 0x28\n\t"
         ".seh_endprologue\n\t"
         ".seh_handler stub_exception_handler, @except\n\t"
         "call *%rcx\n\t"
         "nop\n\t"
         "addq $0x28,%rsp\n\t"
         "ret\n\t"
         ".seh_endproc" );

static RUNTIME_FUNCTION * CALLBACK function_table_callback( DWORD64 pc, void *context )
{
    struct code_stub *stub = context;

    callback_calls++;
    return stub->func;
}

/* the capture in the target ends with the stub's return address */
static void check_capture_ends_in_stub( const char *how, const struct code_stub *stub )
{
    frame_count = 0;
    stub_action = STUB_CAPTURE;
    call_stub( (void *)stub->code );
    ok( frame_count == 2, "R-18: %s: got %u frames, expected the trace to end in the stub\n", how, frame_count );
    ok( in_function( frames[0], stub_target ), "R-18: %s: frame 0 %p not in the target\n", how, frames[0] );
    if (frame_count > 1)
        ok( frames[1] == stub->after_call, "R-18: %s: frame 1 %p, expected %p\n", how, frames[1], stub->after_call );
}

/* RtlWalkFrameChain and RtlGetCallersAddress stop at the stub too */
static void check_walk_ends_in_stub( const char *how, const struct code_stub *stub )
{
    walk_count = 0;
    callers[0] = callers[1] = (void *)0xdeadbeef;
    stub_action = STUB_WALK;
    call_stub( (void *)stub->code );
    ok( walk_count == 2, "R-18: %s: RtlWalkFrameChain got %lu frames\n", how, walk_count );
    if (walk_count > 1)
        ok( walk[1] == stub->after_call, "R-18: %s: RtlWalkFrameChain: frame 1 %p, expected %p\n",
            how, walk[1], stub->after_call );
    ok( callers[0] == stub->after_call, "R-18: %s: RtlGetCallersAddress: caller %p, expected %p\n",
        how, callers[0], stub->after_call );
}

/* an exception below the stub is dispatched through it to the handler above */
static void check_dispatch( const char *how, const struct code_stub *stub )
{
    handler_calls = 0;
    stub_action = STUB_RAISE;
    guarded_call( (void *)stub->code );
    ok( handler_calls == 1, "R-18: %s: the handler above the stub was called %ld times\n", how, handler_calls );
}

static void check_lookup( const char *how, const struct code_stub *stub )
{
    RUNTIME_FUNCTION *entry;
    ULONG64 base = 0;

    entry = RtlLookupFunctionEntry( (ULONG_PTR)stub->after_call, &base, NULL );
    ok( entry == stub->func && base == (ULONG_PTR)stub->code,
        "R-18: %s: RtlLookupFunctionEntry gave %p, base %#I64x; expected %p, base %p\n",
        how, entry, base, stub->func, stub->code );
}

static BOOL install_callback( struct code_stub *stub )
{
    return RtlInstallFunctionTableCallback( stub->callback_id, (ULONG_PTR)stub->code, 0x1000,
                                            function_table_callback, stub, NULL );
}

static void test_function_tables(void)
{
    struct code_stub stub;

    make_code_stub( &stub, stub_target );
    check_capture_ends_in_stub( "no table", &stub );

    ok( RtlAddFunctionTable( stub.func, 1, (ULONG_PTR)stub.code ), "RtlAddFunctionTable failed\n" );
    check_capture_ends_in_stub( "RtlAddFunctionTable", &stub );
    check_lookup( "RtlAddFunctionTable", &stub );
    check_dispatch( "RtlAddFunctionTable", &stub );
    ok( RtlDeleteFunctionTable( stub.func ), "RtlDeleteFunctionTable failed\n" );

    ok( install_callback( &stub ), "RtlInstallFunctionTableCallback failed\n" );
    callback_calls = 0;
    check_capture_ends_in_stub( "callback", &stub );
    ok( !callback_calls, "R-18: the callback was called %ld times during the capture\n", callback_calls );
    callback_calls = 0;
    check_lookup( "callback", &stub );
    ok( callback_calls == 1, "R-18: RtlLookupFunctionEntry called the callback %ld times\n", callback_calls );
    callback_calls = 0;
    check_dispatch( "callback", &stub );
    ok( callback_calls > 0, "R-18: exception dispatch did not call the callback\n" );
    ok( RtlDeleteFunctionTable( (RUNTIME_FUNCTION *)stub.callback_id ), "RtlDeleteFunctionTable failed\n" );

    /* last, as stock Wine 8.0 has neither function */
    check_walk_ends_in_stub( "no table", &stub );
    ok( RtlAddFunctionTable( stub.func, 1, (ULONG_PTR)stub.code ), "RtlAddFunctionTable failed\n" );
    check_walk_ends_in_stub( "RtlAddFunctionTable", &stub );
    ok( RtlDeleteFunctionTable( stub.func ), "RtlDeleteFunctionTable failed\n" );
    ok( install_callback( &stub ), "RtlInstallFunctionTableCallback failed\n" );
    callback_calls = 0;
    check_walk_ends_in_stub( "callback", &stub );
    ok( !callback_calls, "R-18: the callback was called %ld times during the walks\n", callback_calls );
    ok( RtlDeleteFunctionTable( (RUNTIME_FUNCTION *)stub.callback_id ), "RtlDeleteFunctionTable failed\n" );

    free_code_stub( &stub );
}

/* A frame found from a frame register other than Rbp (R12 here), below a
 * function that saved that register and then changed it: the walk must
 * give the register the saved value before it unwinds the frame, on the
 * first walk and on the next ones alike (a walker may remember how to
 * unwind each return address; the layer's does, and only brings the
 * registers up to date when a frame needs them). x86-64's alone, as R-18:
 * x86 has no unwind data. */
extern void r12_frame(void);
extern char r12_frame_ret[], r12_inner_ret[];

void __attribute__((used, noinline)) r12_capture(void)
{
    frame_count = pRtlCaptureStackBackTrace( 0, 64, frames, NULL );
}

__asm__( ".text\n\t"
         ".globl r12_frame\n\t"
         ".def r12_frame; .scl 2; .type 32; .endef\n"
         "r12_frame:\n\t"
         ".seh_proc r12_frame\n\t"
         "pushq %r12\n\t"
         ".seh_pushreg %r12\n\t"
         "subq $0x20,%rsp\n\t"
         ".seh_stackalloc 0x20\n\t"
         "movq %rsp,%r12\n\t"
         ".seh_setframe %r12, 0\n\t"
         ".seh_endprologue\n\t"
         "subq $0x30,%rsp\n\t"  /* from here only R12 finds the frame */
         "call r12_inner\n"
         ".globl r12_frame_ret\n"
         "r12_frame_ret:\n\t"
         "leaq 0(%r12),%rsp\n\t"
         "addq $0x20,%rsp\n\t"
         "popq %r12\n\t"
         "ret\n\t"
         ".seh_endproc\n\t"

         ".def r12_inner; .scl 3; .type 32; .endef\n"
         "r12_inner:\n\t"
         ".seh_proc r12_inner\n\t"
         "pushq %r12\n\t"
         ".seh_pushreg %r12\n\t"
         "subq $0x20,%rsp\n\t"
         ".seh_stackalloc 0x20\n\t"
         ".seh_endprologue\n\t"
         "movq $0x5a5a5a5a5a5a,%r12\n\t"  /* no frame lies there */
         "call r12_capture\n"
         ".globl r12_inner_ret\n"
         "r12_inner_ret:\n\t"
         "addq $0x20,%rsp\n\t"
         "popq %r12\n\t"
         "ret\n\t"
         ".seh_endproc" );

static void __attribute__((noinline)) test_frame_register(void)
{
    int i;

    for (i = 0; i < 3; i++)
    {
        memset( frames, 0, sizeof(frames) );
        frame_count = 0;
        r12_frame();
        ok( frame_count >= 4, "walk %d: %u frames\n", i, frame_count );
        ok( in_function( frames[0], r12_capture ), "walk %d: frame 0 %p\n", i, frames[0] );
        ok( frames[1] == r12_inner_ret, "walk %d: frame 1 %p, expected %p\n", i, frames[1], r12_inner_ret );
        ok( frames[2] == r12_frame_ret, "walk %d: frame 2 %p, expected %p\n", i, frames[2], r12_frame_ret );
        ok( in_function( frames[3], test_frame_register ), "walk %d: frame 3 %p\n", i, frames[3] );
    }
}

#endif  /* __x86_64__ */

START_TEST(backtrace_dispatch)
{
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" );

    pRtlCaptureStackBackTrace = (void *)GetProcAddress( ntdll, "RtlCaptureStackBackTrace" );
    pRtlWalkFrameChain = (void *)GetProcAddress( ntdll, "RtlWalkFrameChain" );
    pRtlGetCallersAddress = (void *)GetProcAddress( ntdll, "RtlGetCallersAddress" );
    test_window_procedure();
    test_messages();
    test_apc();
    test_exception_handler();
    test_seh_handler();
#ifdef __x86_64__
    test_function_tables();
    test_frame_register();
#endif
}

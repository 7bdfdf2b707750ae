/*
 * No invented frames (C-16, not in the specification's catalogue): a thread
 * running code without unwind data, as a JIT makes it (VirtualAlloc'd,
 * never given to RtlAddFunctionTable), whose stack holds values that are no
 * return addresses: a stored double (0x4232796302e20000, not a canonical
 * address) and a pointer to data (canonical, readable, not executable).
 * Such code may stand at the top of a stack as a leaf, with its return
 * address at [rsp]; but a value there that is not code is never a frame.
 *
 *   - GetThreadCallStack of the thread, from another thread of its process
 *     and from another process, sampled again and again: every frame is
 *     in executable memory of that process, and none is a planted value;
 *   - RtlCaptureStackBackTrace in a vectored exception handler, for a fault
 *     in such code: the faulting instruction is a frame, the double on the
 *     stack is not.
 *
 * Generated code with unwind data (C-17, not in the specification's
 * catalogue): a child process runs code registered with
 * RtlAddFunctionTable (an outer stub) and RtlAddGrowableFunctionTable (an
 * inner stub, its table grown after it was added), which calls a function
 * that blocks. GetThreadCallStack of that thread from the parent reads the
 * child's dynamic function tables and gives exactly the frames the child's
 * own RtlLookupFunctionEntry and RtlVirtualUnwind give, through both stubs
 * down to child_jit and beyond. With the child's list of tables or its table made corrupt (a
 * cycle, a link that is no address, a count beyond any table's, a table
 * freed), the walk ends cleanly at the blocking function's frame.
 *
 * GetThreadCallStack is coredll's (Windows Embedded Compact): on desktop
 * Windows those parts skip; the handler's back-trace runs everywhere.
 *
 * 32-bit: not run: its generated code is x86-64 and the case it checks is a
 * walk by unwind data (RtlAddFunctionTable, which x86 Windows does not
 * have: Microsoft's documentation of RtlAddFunctionTable lists x64 and ARM).
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>
#include <winternl.h>
#if __has_include(<rtlsupportapi.h>)
#include <rtlsupportapi.h>  /* the function tables' API, outside winnt.h in Wine 10's headers */
#endif
#include <pkfuncs.h>

#define STANDALONE
#include "wine/test.h"
#include "code_stub.h"

static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);

static const ULONG64 stored_double = 0x4232796302e20000ull;
static ULONG64 some_data[4];

/* what the generated code and its threads share; 'spinning' is set by the
 * code itself once the planted values are on its stack */
struct spin_flags
{
    volatile LONG stop;
    volatile LONG spinning;
};

static struct spin_flags flags;

/* void spin(void): pushes the double and the data pointer, says so, then
 * swaps them on the stack until told to stop: wherever it is stopped in the
 * loop, [rsp] holds one of the two */
static BYTE *make_spin_code(void)
{
    static const BYTE code[] =
    {
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,     /* 0x00: movabs $double,%rax */
        0x50,                                   /* 0x0a: push %rax */
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,     /* 0x0b: movabs $data,%rax */
        0x50,                                   /* 0x15: push %rax */
        0x48, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0,     /* 0x16: movabs $flags,%rcx */
        0xc7, 0x41, 0x04, 0x01, 0, 0, 0,        /* 0x20: movl $1,4(%rcx) (spinning) */
        0x48, 0x8b, 0x04, 0x24,                 /* 0x27: loop: mov (%rsp),%rax */
        0x48, 0x8b, 0x54, 0x24, 0x08,           /* 0x2b: mov 8(%rsp),%rdx */
        0x48, 0x89, 0x14, 0x24,                 /* 0x30: mov %rdx,(%rsp) */
        0x48, 0x89, 0x44, 0x24, 0x08,           /* 0x34: mov %rax,8(%rsp) */
        0x83, 0x39, 0x00,                       /* 0x39: cmpl $0,(%rcx) (stop) */
        0x74, 0xe9,                             /* 0x3c: je loop */
        0x48, 0x83, 0xc4, 0x10,                 /* 0x3e: add $0x10,%rsp */
        0xc3,                                   /* 0x42: ret */
    };
    BYTE *mem = VirtualAlloc( NULL, 0x1000, MEM_COMMIT, PAGE_EXECUTE_READWRITE );
    ULONG64 data = (ULONG_PTR)some_data, flags_addr = (ULONG_PTR)&flags;

    memcpy( mem, code, sizeof(code) );
    memcpy( mem + 0x02, &stored_double, 8 );
    memcpy( mem + 0x0d, &data, 8 );
    memcpy( mem + 0x18, &flags_addr, 8 );
    FlushInstructionCache( GetCurrentProcess(), mem, 0x1000 );
    return mem;
}

/* void fault(void): pushes the double, then reads address 0; a handler
 * steps over the read */
static BYTE *make_fault_code(void)
{
    static const BYTE code[] =
    {
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,     /* 0x00: movabs $double,%rax */
        0x50,                                   /* 0x0a: push %rax */
        0x31, 0xc0,                             /* 0x0b: xor %eax,%eax */
        0x48, 0x8b, 0x00,                       /* 0x0d: mov (%rax),%rax: faults */
        0x48, 0x83, 0xc4, 0x08,                 /* 0x10: add $8,%rsp */
        0xc3,                                   /* 0x14: ret */
    };
    BYTE *mem = VirtualAlloc( NULL, 0x1000, MEM_COMMIT, PAGE_EXECUTE_READWRITE );

    memcpy( mem, code, sizeof(code) );
    memcpy( mem + 0x02, &stored_double, 8 );
    FlushInstructionCache( GetCurrentProcess(), mem, 0x1000 );
    return mem;
}

static BOOL is_code( HANDLE process, ULONG_PTR addr )
{
    MEMORY_BASIC_INFORMATION info;

    if (!VirtualQueryEx( process, (void *)addr, &info, sizeof(info) )) return FALSE;
    return info.State == MEM_COMMIT && !(info.Protect & (PAGE_GUARD | PAGE_NOACCESS)) &&
           (info.Protect & (PAGE_EXECUTE | PAGE_EXECUTE_READ | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY));
}

static DWORD WINAPI spin_thread( void *code )
{
    ((void (*)(void))code)();
    return 0;
}

/* sample the thread, which spins in 'code' of 'process' with 'data' planted */
static void sample( HANDLE process, HANDLE thread, ULONG_PTR code, ULONG_PTR data, ULONG samples )
{
    ULONG i, j, n, invented = 0, elsewhere = 0, short_walks = 0;
    CallSnapshot frames[64];

    for (i = 0; i < samples; i++)
    {
        n = pGetThreadCallStack( thread, 64, frames, 0, 0 );
        /* frame 0 is where the thread stands: in the loop */
        if (!n || frames[0].dwReturnAddr < code + 0x27 || frames[0].dwReturnAddr > code + 0x3c) elsewhere++;
        if (n == 1) short_walks++;
        for (j = 0; j < n; j++)
        {
            if (frames[j].dwReturnAddr != stored_double && frames[j].dwReturnAddr != data &&
                is_code( process, frames[j].dwReturnAddr ))
                continue;
            if (!invented++)
                trace( "sample %lu, frame %lu of %lu: %#Ix\n", i, j, n, frames[j].dwReturnAddr );
        }
    }
    ok( !invented, "C-16: %lu frames of %lu samples are no code\n", invented, samples );
    ok( !elsewhere, "C-16: %lu of %lu samples do not stand in the loop\n", elsewhere, samples );
    /* code without unwind data, with no return address at [rsp], ends the walk */
    ok( short_walks == samples, "C-16: %lu of %lu samples have more than the loop's frame\n",
        samples - short_walks, samples );
}

static void test_other_thread(void)
{
    BYTE *code = make_spin_code();
    HANDLE thread;

    flags.stop = flags.spinning = 0;
    thread = CreateThread( NULL, 0, spin_thread, code, 0, NULL );
    while (!flags.spinning) Sleep( 1 );
    sample( GetCurrentProcess(), thread, (ULONG_PTR)code, (ULONG_PTR)some_data, 1000 );
    flags.stop = 1;
    ok( WaitForSingleObject( thread, 10000 ) == WAIT_OBJECT_0, "C-16: the thread did not stop\n" );
    CloseHandle( thread );
    VirtualFree( code, 0, MEM_RELEASE );
}

/* Starts this program again with ARGS and reads the first line it writes
 * to its standard output into LINE. */
static void start_child( const char *exe, const char *args, PROCESS_INFORMATION *pi, char *line, DWORD size )
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 64];
    HANDLE read_end, write_end;
    DWORD got = 0, total = 0;

    line[0] = 0;
    ok( CreatePipe( &read_end, &write_end, &sa, 0 ), "no pipe\n" );
    SetHandleInformation( read_end, HANDLE_FLAG_INHERIT, 0 );
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdOutput = write_end;
    si.hStdInput = GetStdHandle( STD_INPUT_HANDLE );
    si.hStdError = GetStdHandle( STD_ERROR_HANDLE );
    snprintf( cmd, sizeof(cmd), "\"%s\" callstack_jit %s", exe, args );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, pi ), "no child: %s\n", args );
    CloseHandle( write_end );
    while (total < size - 1 && !strchr( line, '\n' ) &&
           ReadFile( read_end, line + total, size - 1 - total, &got, NULL ) && got)
        line[total += got] = 0;
    CloseHandle( read_end );
}

/* the child tells where its code, data and flags are on its standard output */
static void test_other_process( const char *exe )
{
    PROCESS_INFORMATION pi;
    char line[128];
    ULONG64 code = 0, data = 0, child_flags = 0;
    struct spin_flags seen = { 0 };
    int i;

    start_child( exe, "spin", &pi, line, sizeof(line) );
    ok( sscanf( line, "%I64x %I64x %I64x", &code, &data, &child_flags ) == 3, "C-16: the child said '%s'\n", line );

    /* it spins once its code says so */
    for (i = 0; i < 10000 && !seen.spinning; i++)
    {
        if (!ReadProcessMemory( pi.hProcess, (void *)(ULONG_PTR)child_flags, &seen, sizeof(seen), NULL )) break;
        if (!seen.spinning) Sleep( 1 );
    }
    ok( seen.spinning, "C-16: the child does not spin\n" );
    if (seen.spinning) sample( pi.hProcess, pi.hThread, code, data, 300 );
    TerminateProcess( pi.hProcess, 0 );
    WaitForSingleObject( pi.hProcess, 10000 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
}

static void child_spin(void)
{
    BYTE *code = make_spin_code();

    printf( "%I64x %I64x %I64x\n", (ULONG64)(ULONG_PTR)code, (ULONG64)(ULONG_PTR)some_data,
            (ULONG64)(ULONG_PTR)&flags );
    fflush( stdout );
    ((void (*)(void))code)();
}

static BYTE *fault_code;
static void *handler_frames[64];
static USHORT handler_count;
static LONG handler_calls;

static LONG CALLBACK fault_handler( EXCEPTION_POINTERS *ptrs )
{
    CONTEXT *context = ptrs->ContextRecord;

    if (context->Rip != (ULONG_PTR)fault_code + 0x0d) return EXCEPTION_CONTINUE_SEARCH;
    handler_calls++;
    handler_count = RtlCaptureStackBackTrace( 0, 64, handler_frames, NULL );
    context->Rip += 3;
    return EXCEPTION_CONTINUE_EXECUTION;
}

static void test_fault_handler(void)
{
    ULONG i, at_fault = 64;
    void *handler;

    fault_code = make_fault_code();
    handler = AddVectoredExceptionHandler( TRUE, fault_handler );
    ((void (*)(void))fault_code)();
    RemoveVectoredExceptionHandler( handler );

    ok( handler_calls == 1, "C-16: the handler ran %ld times\n", handler_calls );
    for (i = 0; i < handler_count; i++)
    {
        ok( (ULONG_PTR)handler_frames[i] != stored_double, "C-16: frame %lu is the double on the stack\n", i );
        if (handler_frames[i] == fault_code + 0x0d) at_fault = i;
    }
    ok( at_fault < handler_count, "C-16: the faulting instruction is not among %u frames\n", handler_count );
    for (i = 0; i < handler_count; i++) trace( "frame %lu: %p\n", i, handler_frames[i] );
    VirtualFree( fault_code, 0, MEM_RELEASE );
}


/* C-17: the child's side. Its thread calls the outer stub (RtlAddFunctionTable),
 * which calls the inner stub (RtlAddGrowableFunctionTable), which calls
 * jit_block: that takes its own back-trace, breaks what the parent asked
 * it to break, says it is ready and blocks. */
struct jit_child
{
    volatile LONG ready;
    ULONG         own_count;
    ULONG64       own[64];
    ULONG64       block_begin, block_end;   /* jit_block */
    ULONG64       caller_begin, caller_end;     /* child_jit, which calls the outer stub */
    ULONG64       inner_after, outer_after; /* the stubs' return addresses */
};

static struct jit_child jit_child;
static const char *jit_corruption = "";
static void *growable_table;
static RUNTIME_FUNCTION *growable_functions;

static void function_range( void *func, ULONG64 *begin, ULONG64 *end )
{
    ULONG64 base;
    RUNTIME_FUNCTION *entry = RtlLookupFunctionEntry( (ULONG_PTR)func, &base, NULL );

    *begin = entry ? base + entry->BeginAddress : 0;
    *end = entry ? base + entry->EndAddress : 0;
}

/* Wine's entry of the list of tables: its count (docs/INTERNALS.md); the
 * child is only asked to break it where GetThreadCallStack exists */
#define WINE_ENTRY_COUNT 0x28

static void corrupt_tables(void)
{
    PLIST_ENTRY (WINAPI *pRtlGetFunctionTableListHead)(void) =
        (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ), "RtlGetFunctionTableListHead" );
    LIST_ENTRY *head = pRtlGetFunctionTableListHead ? pRtlGetFunctionTableListHead() : NULL;

    if (!strcmp( jit_corruption, "freed" ))
        VirtualFree( growable_functions, 0, MEM_RELEASE );
    else if (!head)
        return;
    else if (!strcmp( jit_corruption, "cycle" ))
        head->Flink->Flink = head->Flink;   /* the outer stub's entry, first: to itself */
    else if (!strcmp( jit_corruption, "wild" ))
        head->Flink->Flink = (LIST_ENTRY *)(ULONG_PTR)stored_double;
    else if (!strcmp( jit_corruption, "count" ))
        *(ULONG *)((BYTE *)growable_table + WINE_ENTRY_COUNT) = 0x7fffffff;
}

/* the child's own frames, from here: RtlLookupFunctionEntry, which reads
 * its dynamic function tables, and RtlVirtualUnwind, until a frame without
 * unwind data or the thread's start */
static void __attribute__((noinline)) own_frames(void)
{
    RUNTIME_FUNCTION *func;
    ULONG64 base, frame;
    CONTEXT context;
    void *data;

    RtlCaptureContext( &context );
    jit_child.own_count = 0;
    while (jit_child.own_count < 64 && context.Rip)
    {
        if (!(func = RtlLookupFunctionEntry( context.Rip, &base, NULL ))) break;
        RtlVirtualUnwind( UNW_FLAG_NHANDLER, base, context.Rip, func, &context, &data, &frame, NULL );
        if (!context.Rip) break;
        jit_child.own[jit_child.own_count++] = context.Rip;
    }
}

static void __attribute__((noinline)) jit_block(void)
{
    own_frames();
    corrupt_tables();
    /* for host/wctdump_jit, which dumps this process */
    printf( "callstack_jit: pid %lu ready, stubs return to %I64x %I64x\n", GetCurrentProcessId(),
            jit_child.inner_after, jit_child.outer_after );
    fflush( stdout );
    InterlockedExchange( &jit_child.ready, 1 );
    WaitForSingleObject( GetCurrentProcess(), INFINITE );
    jit_child.ready = 2;  /* not reached; the wait is no tail call, jit_block has its frame */
}

static void __attribute__((noinline)) child_jit(void)
{
    struct code_stub outer, inner;
    ULONG64 dummy;

    make_code_stub( &inner, jit_block );
    make_code_stub( &outer, (void (*)(void))inner.code );
    jit_child.inner_after = (ULONG_PTR)inner.after_call;
    jit_child.outer_after = (ULONG_PTR)outer.after_call;
    function_range( jit_block, &jit_child.block_begin, &jit_child.block_end );
    function_range( child_jit, &jit_child.caller_begin, &jit_child.caller_end );

    ok( RtlAddFunctionTable( outer.func, 1, (ULONG_PTR)outer.code ), "RtlAddFunctionTable failed\n" );
    /* the inner stub's table, on a page of its own: empty when added,
     * then grown to the stub's entry and one after it */
    growable_functions = VirtualAlloc( NULL, 0x1000, MEM_COMMIT, PAGE_READWRITE );
    growable_functions[0] = *inner.func;
    growable_functions[1].BeginAddress = 0x200;
    growable_functions[1].EndAddress = 0x210;
    growable_functions[1].UnwindData = inner.func->UnwindData;
    ok( !RtlAddGrowableFunctionTable( &growable_table, growable_functions, 0, 2, (ULONG_PTR)inner.code,
                                      (ULONG_PTR)inner.code + 0x1000 ), "RtlAddGrowableFunctionTable failed\n" );
    RtlGrowFunctionTable( growable_table, 2 );
    ok( RtlLookupFunctionEntry( (ULONG_PTR)inner.after_call, &dummy, NULL ) == &growable_functions[0],
        "the grown table is not used\n" );

    printf( "%I64x\n", (ULONG64)(ULONG_PTR)&jit_child );
    fflush( stdout );
    ((void (*)(void))outer.code)();
}

static BOOL in_range( ULONG64 addr, ULONG64 begin, ULONG64 end )
{
    return addr >= begin && addr < end;
}

/* C-17: the parent's side: start the child, wait until it is ready, walk */
static void test_jit_tables( const char *exe, const char *corruption )
{
    PROCESS_INFORMATION pi;
    char args[64], line[128];
    ULONG64 child_addr = 0;
    struct jit_child child;
    CallSnapshot frames[64];
    ULONG i, n, at_block, caller_at;
    int tries;

    winetest_push_context( "C-17 %s", *corruption ? corruption : "intact" );
    memset( &child, 0, sizeof(child) );
    snprintf( args, sizeof(args), "tables %s", corruption );
    start_child( exe, args, &pi, line, sizeof(line) );
    ok( sscanf( line, "%I64x", &child_addr ) == 1, "the child said '%s'\n", line );

    /* it is ready once its own back-trace is taken and its tables broken */
    for (tries = 0; tries < 10000 && !child.ready; tries++)
    {
        if (!ReadProcessMemory( pi.hProcess, (void *)(ULONG_PTR)child_addr, &child, sizeof(child), NULL )) break;
        if (!child.ready) Sleep( 1 );
    }
    ok( child.ready, "the child is not ready\n" );
    if (child.ready)
    {
        /* the child's own back-trace goes through both stubs to child_jit */
        ok( child.own_count > 4 && in_range( child.own[0], child.block_begin, child.block_end ) &&
            child.own[1] == child.inner_after && child.own[2] == child.outer_after,
            "the child's own back-trace (%lu frames) does not go through its stubs\n", child.own_count );
        for (i = 3; i < child.own_count; i++) if (in_range( child.own[i], child.caller_begin, child.caller_end )) break;
        ok( i < child.own_count, "the child's own back-trace does not reach child_jit\n" );

        n = pGetThreadCallStack( pi.hThread, 64, frames, 0, 0 );
        for (at_block = 0; at_block < n; at_block++)
            if (in_range( frames[at_block].dwReturnAddr, child.block_begin, child.block_end )) break;
        ok( at_block < n, "no frame of %lu is in the blocking function\n", n );
        for (i = 0; i < n; i++) trace( "frame %lu: %#Ix\n", i, frames[i].dwReturnAddr );
        if (!*corruption)
        {
            /* every frame from the blocking function's on is the child's own,
             * through both stubs, down to child_jit and its caller (the walk ends
             * at the thread's start, RtlVirtualUnwind may go on) */
            for (caller_at = 3; caller_at < child.own_count; caller_at++)
                if (in_range( child.own[caller_at], child.caller_begin, child.caller_end )) break;
            ok( at_block < n && n - at_block <= child.own_count && n - at_block > caller_at + 1,
                "%lu frames from the blocking function's; the child has %lu, child_jit at %lu\n",
                n - at_block, child.own_count, caller_at );
            for (i = 1; at_block < n && i < child.own_count && at_block + i < n; i++)
                ok( frames[at_block + i].dwReturnAddr == child.own[i], "frame %lu is %#Ix, the child's "
                    "own %#I64x\n", at_block + i, frames[at_block + i].dwReturnAddr, child.own[i] );
        }
        else
            ok( n == at_block + 1, "%lu frames after the blocking function's, whose caller's table is "
                "broken\n", n - at_block - 1 );
    }
    TerminateProcess( pi.hProcess, 0 );
    WaitForSingleObject( pi.hProcess, 10000 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    winetest_pop_context();
}

START_TEST(callstack_jit)
{
    HMODULE coredll;
    char **argv;
    int argc = winetest_get_mainargs( &argv );

    if (argc >= 3 && !strcmp( argv[2], "spin" ))
    {
        child_spin();
        return;
    }
    if (argc >= 3 && !strcmp( argv[2], "tables" ))
    {
        if (argc >= 4) jit_corruption = argv[3];
        child_jit();
        return;
    }

    test_fault_handler();

    if (!(coredll = LoadLibraryA( "coredll.dll" )))
    {
        win_skip( "coredll.dll is not available (not Windows Embedded Compact)\n" );
        return;
    }
    pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" );
    test_other_thread();
    test_other_process( argv[0] );
    test_jit_tables( argv[0], "" );
    test_jit_tables( argv[0], "cycle" );
    test_jit_tables( argv[0], "wild" );
    test_jit_tables( argv[0], "count" );
    test_jit_tables( argv[0], "freed" );
}

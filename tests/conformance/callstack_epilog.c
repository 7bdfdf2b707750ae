/*
 * GetThreadCallStack (coredll) of a thread stopped at each instruction of a
 * function with a prologue, epilogues and jumps, in this process and in
 * another one: both walks must give the same frames. Desktop Windows has no
 * coredll: the test skips there.
 *
 * 32-bit: not run: the function it steps through is x86-64 code described by
 * unwind codes; x86 has none (Microsoft, "x64 exception handling": unwind
 * data is the x64 convention; an x86 walk follows the EBP chain instead).
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>
#include <psapi.h>
#include <pkfuncs.h>

#define STANDALONE
#include "wine/test.h"

static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);

/*
 * epi_func is never run: threads are stopped at each of its instructions by
 * giving them the registers and the stack that instruction would find, as
 * called by epi_caller (which keeps a frame pointer, so that %rbp must be
 * unwound right for the walk to go on), itself called by epi_outer (whose
 * return address is followed by an epilogue, which the unwinders take as
 * such). epi_func saves %rbp, %rbx and %r12, and clobbers %rbp in its body.
 * Its first epilogue goes on through a short and a long jump inside the
 * function; its second is a tail call, a jump out of the function.
 *
 * epi_points lists for each instruction its offset, how far below the
 * function's entry stack pointer the stack then is, and flags.
 */
#define CLOBBERED_RBP 1  /* %rbp holds the body's value, not the caller's */
#define TAIL_CALL     2  /* in the tail call's epilogue, past its first instruction */

extern void epi_func(void), epi_caller(void), epi_outer(void), epi_tail(void);
extern const ULONG epi_points[];
extern const ULONG epi_returns[2];  /* offsets of the return addresses in epi_caller and epi_outer */

__asm__( ".text\n\t"
         ".globl epi_tail\n\t"
         ".def epi_tail; .scl 2; .type 32; .endef\n"
         "epi_tail:\n\t"
         ".seh_proc epi_tail\n\t"
         ".seh_endprologue\n\t"
         "ret\n\t"
         ".seh_endproc\n\t"

         ".globl epi_func\n\t"
         ".def epi_func; .scl 2; .type 32; .endef\n"
         "epi_func:\n\t"
         ".seh_proc epi_func\n"
         ".Lp0:\n\t"
         "pushq %rbp\n\t"
         ".seh_pushreg %rbp\n"
         ".Lp1:\n\t"
         "pushq %rbx\n\t"
         ".seh_pushreg %rbx\n"
         ".Lp2:\n\t"
         "pushq %r12\n\t"
         ".seh_pushreg %r12\n"
         ".Lp3:\n\t"
         "subq $0x28,%rsp\n\t"
         ".seh_stackalloc 0x28\n\t"
         ".seh_endprologue\n"
         ".Lb0:\n\t"
         "movq %rcx,%rbp\n"
         ".Lb1:\n\t"
         "testq %rcx,%rcx\n"
         ".Lb2:\n\t"
         "jz .Lt0\n"
         ".Le0:\n\t"
         "addq $0x28,%rsp\n"
         ".Le1:\n\t"
         "popq %r12\n"
         ".Le2:\n\t"
         ".byte 0xeb\n\t"                   /* jmp rel8 .Lm0, inside the function */
         ".byte .Lm0 - .Le2 - 2\n"
         ".Lt0:\n\t"
         "addq $0x28,%rsp\n"
         ".Lt1:\n\t"
         "popq %r12\n"
         ".Lt2:\n\t"
         "popq %rbx\n"
         ".Lt3:\n\t"
         "popq %rbp\n"
         ".Lt4:\n\t"
         ".byte 0xe9\n\t"                   /* jmp rel32 epi_tail, out of the function */
         ".long epi_tail - .Lt4 - 5\n"
         ".Lm0:\n\t"
         "popq %rbx\n"
         ".Lm1:\n\t"
         ".byte 0xe9\n\t"                   /* jmp rel32 .Lr0, inside the function */
         ".long .Lr0 - .Lm1 - 5\n"
         ".Lr0:\n\t"
         "popq %rbp\n"
         ".Lr1:\n\t"
         "ret\n\t"
         ".seh_endproc\n\t"

         ".globl epi_caller\n\t"
         ".def epi_caller; .scl 2; .type 32; .endef\n"
         "epi_caller:\n\t"
         ".seh_proc epi_caller\n\t"
         "pushq %rbp\n\t"
         ".seh_pushreg %rbp\n\t"
         "movq %rsp,%rbp\n\t"
         ".seh_setframe %rbp,0\n\t"
         "subq $0x20,%rsp\n\t"
         ".seh_stackalloc 0x20\n\t"
         ".seh_endprologue\n\t"
         "xorl %ecx,%ecx\n\t"
         "call epi_func\n"
         ".Lc0:\n\t"
         "nop\n\t"                          /* not an epilogue: the frame pointer unwinds it */
         "movq %rbp,%rsp\n\t"
         "popq %rbp\n\t"
         "ret\n\t"
         ".seh_endproc\n\t"

         ".globl epi_outer\n\t"
         ".def epi_outer; .scl 2; .type 32; .endef\n"
         "epi_outer:\n\t"
         ".seh_proc epi_outer\n\t"
         "subq $0x28,%rsp\n\t"
         ".seh_stackalloc 0x28\n\t"
         ".seh_endprologue\n\t"
         "call epi_caller\n"
         ".Lo0:\n\t"
         "addq $0x28,%rsp\n\t"
         "ret\n\t"
         ".seh_endproc\n\t"

         ".section .rdata,\"dr\"\n\t"
         ".globl epi_returns\n"
         "epi_returns:\n\t"
         ".long .Lc0 - epi_caller, .Lo0 - epi_outer\n\t"
         ".globl epi_points\n"
         "epi_points:\n\t"
         ".long .Lp0 - epi_func, 0, 0\n\t"
         ".long .Lp1 - epi_func, 8, 0\n\t"
         ".long .Lp2 - epi_func, 16, 0\n\t"
         ".long .Lp3 - epi_func, 24, 0\n\t"
         ".long .Lb0 - epi_func, 64, 0\n\t"
         ".long .Lb1 - epi_func, 64, 1\n\t"
         ".long .Lb2 - epi_func, 64, 1\n\t"
         ".long .Le0 - epi_func, 64, 1\n\t"
         ".long .Le1 - epi_func, 24, 1\n\t"
         ".long .Le2 - epi_func, 16, 1\n\t"
         ".long .Lt0 - epi_func, 64, 1\n\t"
         ".long .Lt1 - epi_func, 24, 3\n\t"
         ".long .Lt2 - epi_func, 16, 3\n\t"
         ".long .Lt3 - epi_func, 8, 3\n\t"
         ".long .Lt4 - epi_func, 0, 2\n\t"
         ".long .Lm0 - epi_func, 16, 1\n\t"
         ".long .Lm1 - epi_func, 8, 1\n\t"
         ".long .Lr0 - epi_func, 8, 1\n\t"
         ".long .Lr1 - epi_func, 0, 0\n\t"
         ".long -1\n\t"
         ".text" );

/* The frames are built in a buffer on the held thread's stack, which it
 * never reads, so that the walks find them inside the stack's bounds. */
#define AREA_SIZE   0x200
#define ENTRY       0x80          /* epi_func's entry stack pointer, from the area's start */
#define CALLER_RSP  (ENTRY + 8)   /* epi_caller's stack pointer at its call */
#define CALLER_RBP  (CALLER_RSP + 0x20)
#define OUTER_RSP   (CALLER_RBP + 16)
#define BODY_RBP    0x5a5a5a5a5a5a5a5aull

static BYTE *volatile hold_area;
static volatile LONG sink;

static void __attribute__((noinline)) hold( HANDLE ready, HANDLE wait )
{
    BYTE area[AREA_SIZE];

    hold_area = area;
    SetEvent( ready );
    WaitForSingleObject( wait, INFINITE );
    sink += area[0];
}

static HANDLE release_event;

static DWORD WINAPI hold_thread( void *ready )
{
    hold( ready, release_event );
    return 0;
}

/* the stack epi_func's callers left, for a thread whose code lies 'delta'
 * bytes from ours */
static void build_frames( ULONG64 *stack, ULONG64 area, ULONG_PTR delta )
{
    memset( stack, 0, AREA_SIZE );
    stack[ENTRY / 8] = (ULONG_PTR)epi_caller + epi_returns[0] + delta;
    stack[ENTRY / 8 - 1] = area + CALLER_RBP;     /* epi_func's push of %rbp */
    stack[ENTRY / 8 - 2] = 0x1111;                /* ... %rbx */
    stack[ENTRY / 8 - 3] = 0x2222;                /* ... %r12 */
    stack[CALLER_RBP / 8] = 0;                    /* epi_caller's push of %rbp */
    stack[CALLER_RBP / 8 + 1] = (ULONG_PTR)epi_outer + epi_returns[1] + delta;
    stack[OUTER_RSP / 8 + 5] = 0;                 /* epi_outer's return: the walk ends */
}

struct held_thread
{
    const char *what;
    HANDLE      process;
    HANDLE      thread;
    ULONG64     area;
    ULONG_PTR   delta;    /* where its code lies minus where ours does */
    CONTEXT     saved;
};

/* walk the held thread stopped at 'point' */
static ULONG walk_point( struct held_thread *held, const ULONG *point, CallSnapshotEx *frames, ULONG max )
{
    CONTEXT context = held->saved;
    ULONG64 entry = held->area + ENTRY;

    context.ContextFlags = CONTEXT_CONTROL | CONTEXT_INTEGER;
    context.Rip = (ULONG_PTR)epi_func + held->delta + point[0];
    context.Rsp = entry - point[1];
    context.Rbp = (point[2] & CLOBBERED_RBP) ? BODY_RBP : held->area + CALLER_RBP;
    context.Rbx = 0x3333;
    context.R12 = 0x4444;
    ok( SetThreadContext( held->thread, &context ), "%s: SetThreadContext failed, error %lu\n", held->what,
        GetLastError() );
    memset( frames, 0, max * sizeof(*frames) );
    return pGetThreadCallStack( held->thread, max, frames, STACKSNAP_EXTENDED_INFO, 0 );
}

static BOOL hold_thread_frames( struct held_thread *held )
{
    ULONG64 stack[AREA_SIZE / 8];

    build_frames( stack, held->area, held->delta );
    if (!WriteProcessMemory( held->process, (void *)(ULONG_PTR)held->area, stack, sizeof(stack), NULL ))
    {
        ok( 0, "%s: the frames cannot be written, error %lu\n", held->what, GetLastError() );
        return FALSE;
    }
    ok( SuspendThread( held->thread ) == 0, "%s: the thread was already suspended\n", held->what );
    held->saved.ContextFlags = CONTEXT_CONTROL | CONTEXT_INTEGER;
    ok( GetThreadContext( held->thread, &held->saved ), "%s: GetThreadContext failed, error %lu\n", held->what,
        GetLastError() );
    return TRUE;
}

static void release_thread( struct held_thread *held )
{
    ok( SetThreadContext( held->thread, &held->saved ), "%s: the context cannot be restored, error %lu\n",
        held->what, GetLastError() );
    ok( ResumeThread( held->thread ) == 1, "%s: the thread was not held once\n", held->what );
}

/* the frames one walk found, with addresses made relative to its
 * thread's code and frame pointers to its area */
static void normalize( const struct held_thread *held, CallSnapshotEx *frames, ULONG n )
{
    ULONG i;

    for (i = 0; i < n; i++)
    {
        frames[i].dwReturnAddr -= held->delta;
        frames[i].dwFramePtr -= held->area;
    }
}

static void test_epilogues( const struct held_thread *local, const struct held_thread *remote )
{
    CallSnapshotEx got[2][8];
    const struct held_thread *held[2] = { local, remote };
    const ULONG *point;
    ULONG n[2], i, j;

    for (point = epi_points; point[0] != ~0u; point += 3)
    {
        winetest_push_context( "offset %lu", point[0] );
        for (i = 0; i < 2; i++)
        {
            n[i] = walk_point( (struct held_thread *)held[i], point, got[i], ARRAY_SIZE(got[i]) );
            normalize( held[i], got[i], n[i] );
        }

        ok( n[0] == n[1], "%lu frames in this process, %lu in another\n", n[0], n[1] );
        for (j = 0; j < n[0] && j < n[1]; j++)
            ok( got[0][j].dwReturnAddr == got[1][j].dwReturnAddr && got[0][j].dwFramePtr == got[1][j].dwFramePtr,
                "frame %lu: %#Ix (stack %+Id) in this process, %#Ix (stack %+Id) in another\n", j,
                got[0][j].dwReturnAddr, got[0][j].dwFramePtr, got[1][j].dwReturnAddr, got[1][j].dwFramePtr );

        /* Past the first instruction of a tail call's epilogue, the unwind
         * codes and RtlVirtualUnwind's rules (a jump out of the function
         * ends no epilogue) disagree with the stack: only the agreement of
         * both walks is checked there. Everywhere else the frames are known. */
        if (!(point[2] & TAIL_CALL))
            for (i = 0; i < 2; i++)
            {
                winetest_push_context( "%s", held[i]->what );
                ok( n[i] == 3, "%lu frames\n", n[i] );
                if (n[i] == 3)
                {
                    ok( got[i][0].dwReturnAddr == (ULONG_PTR)epi_func + point[0] &&
                        got[i][0].dwFramePtr == ENTRY - point[1],
                        "frame 0: %#Ix, stack %+Id\n", got[i][0].dwReturnAddr, got[i][0].dwFramePtr );
                    ok( got[i][1].dwReturnAddr == (ULONG_PTR)epi_caller + epi_returns[0] &&
                        got[i][1].dwFramePtr == CALLER_RSP,
                        "frame 1: %#Ix, stack %+Id\n", got[i][1].dwReturnAddr, got[i][1].dwFramePtr );
                    ok( got[i][2].dwReturnAddr == (ULONG_PTR)epi_outer + epi_returns[1] &&
                        got[i][2].dwFramePtr == OUTER_RSP,
                        "frame 2: %#Ix, stack %+Id\n", got[i][2].dwReturnAddr, got[i][2].dwFramePtr );
                }
                winetest_pop_context();
            }
        winetest_pop_context();
    }
}

static void child_hold( const char *event_name )
{
    HANDLE ready = OpenEventA( EVENT_MODIFY_STATE, FALSE, event_name );
    HANDLE wait = CreateEventA( NULL, TRUE, FALSE, NULL );

    if (ready) hold( ready, wait );
}

START_TEST(callstack_epilog)
{
    HMODULE coredll = LoadLibraryA( "coredll.dll" ), child_exe;
    struct held_thread local = { "this process" }, remote = { "another process" };
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 64], name[64];
    HANDLE ready;
    DWORD needed;
    void *area;
    char **argv;
    int argc = winetest_get_mainargs( &argv );

    if (argc >= 4 && !strcmp( argv[2], "hold" ))
    {
        child_hold( argv[3] );
        return;
    }
    if (!coredll)
    {
        win_skip( "coredll.dll is not available (not Windows Embedded Compact)\n" );
        return;
    }
    pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" );

    ready = CreateEventA( NULL, FALSE, FALSE, NULL );
    release_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    local.process = GetCurrentProcess();
    local.thread = CreateThread( NULL, 0, hold_thread, ready, 0, NULL );
    ok( WaitForSingleObject( ready, 10000 ) == WAIT_OBJECT_0, "the thread did not start\n" );
    local.area = (ULONG_PTR)hold_area;
    CloseHandle( ready );

    sprintf( name, "callstack_epilog_%lu", GetCurrentProcessId() );
    ready = CreateEventA( NULL, FALSE, FALSE, name );
    sprintf( cmd, "\"%s\" callstack_epilog hold %s", argv[0], name );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ), "no child, error %lu\n",
        GetLastError() );
    ok( WaitForSingleObject( ready, 10000 ) == WAIT_OBJECT_0, "the child did not start\n" );
    CloseHandle( ready );
    remote.process = pi.hProcess;
    remote.thread = pi.hThread;
    if (!K32EnumProcessModules( pi.hProcess, &child_exe, sizeof(child_exe), &needed ))
        ok( 0, "the child's modules cannot be listed, error %lu\n", GetLastError() );
    else
    {
        remote.delta = (ULONG_PTR)child_exe - (ULONG_PTR)GetModuleHandleA( NULL );
        if (!ReadProcessMemory( pi.hProcess, (char *)&hold_area + remote.delta, &area, sizeof(area), NULL ))
            ok( 0, "the child's area cannot be read, error %lu\n", GetLastError() );
        else
        {
            remote.area = (ULONG_PTR)area;
            if (hold_thread_frames( &local ))
            {
                if (hold_thread_frames( &remote ))
                {
                    test_epilogues( &local, &remote );
                    release_thread( &remote );
                }
                release_thread( &local );
            }
        }
    }
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    SetEvent( release_event );
    ok( WaitForSingleObject( local.thread, 10000 ) == WAIT_OBJECT_0, "the thread did not finish\n" );
    CloseHandle( local.thread );
    CloseHandle( release_event );
}

/*
 * Stack back-traces: RtlWalkFrameChain, RtlCaptureStackBackTrace,
 * RtlGetCallersAddress
 *
 * Copyright 2026 The wine-backtrace-wct authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with this library; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin St, Fifth Floor, Boston, MA 02110-1301, USA
 */

#if defined(__x86_64__) || defined(__i386__)

#include <stdarg.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wine/exception.h"
#include "wine/asm.h"
#include "wine/debug.h"
#include "ntdll_misc.h"
#include "backtrace.h"
#include "x86_frames.h"
#ifdef __x86_64__
#include "unixlib.h"
#include "function_table.h"
#include "unwind_cache.h"
#endif

WINE_DEFAULT_DEBUG_CHANNEL(backtrace);

#define FRAMES_TO_SKIP_SHIFT 8  /* RTL_STACK_WALKING_MODE_FRAMES_TO_SKIP_SHIFT */

/* A fault reading the stack ends a walk with the frames found so far. */
static LONG CALLBACK stack_fault( EXCEPTION_POINTERS *ptrs )
{
    return ptrs->ExceptionRecord->ExceptionCode == EXCEPTION_ACCESS_VIOLATION ?
           EXCEPTION_EXECUTE_HANDLER : EXCEPTION_CONTINUE_SEARCH;
}

/* ... but one writing the caller's buffer is the caller's, as on Windows:
 * a walk writes nothing else that could fault. */
static LONG CALLBACK stack_read_fault( EXCEPTION_POINTERS *ptrs )
{
    const EXCEPTION_RECORD *rec = ptrs->ExceptionRecord;

    if (rec->NumberParameters && rec->ExceptionInformation[0] == EXCEPTION_WRITE_FAULT)
        return EXCEPTION_CONTINUE_SEARCH;
    return stack_fault( ptrs );
}

#endif

#ifdef __x86_64__

/* What a walk needs of the caller's context: its integer registers, Rsp
 * and Rip just after the call. RtlCaptureContext also saves the flags,
 * segments and the whole floating point state, which no unwinder reads. */
extern void capture_caller_context( CONTEXT *context );
__ASM_GLOBAL_FUNC( capture_caller_context,
                   "movq %rax,0x78(%rcx)\n\t"   /* context->Rax */
                   "movq %rcx,0x80(%rcx)\n\t"   /* context->Rcx */
                   "movq %rdx,0x88(%rcx)\n\t"   /* context->Rdx */
                   "movq %rbx,0x90(%rcx)\n\t"   /* context->Rbx */
                   "leaq 8(%rsp),%rax\n\t"
                   "movq %rax,0x98(%rcx)\n\t"   /* context->Rsp */
                   "movq %rbp,0xa0(%rcx)\n\t"   /* context->Rbp */
                   "movq %rsi,0xa8(%rcx)\n\t"   /* context->Rsi */
                   "movq %rdi,0xb0(%rcx)\n\t"   /* context->Rdi */
                   "movq %r8,0xb8(%rcx)\n\t"    /* context->R8 */
                   "movq %r9,0xc0(%rcx)\n\t"    /* context->R9 */
                   "movq %r10,0xc8(%rcx)\n\t"   /* context->R10 */
                   "movq %r11,0xd0(%rcx)\n\t"   /* context->R11 */
                   "movq %r12,0xd8(%rcx)\n\t"   /* context->R12 */
                   "movq %r13,0xe0(%rcx)\n\t"   /* context->R13 */
                   "movq %r14,0xe8(%rcx)\n\t"   /* context->R14 */
                   "movq %r15,0xf0(%rcx)\n\t"   /* context->R15 */
                   "movq (%rsp),%rax\n\t"
                   "movq %rax,0xf8(%rcx)\n\t"   /* context->Rip */
                   "movl $0x100003,0x30(%rcx)\n\t"  /* context->ContextFlags: CONTEXT_CONTROL | CONTEXT_INTEGER */
                   "ret" )

/* Unwind one frame of code in a host ELF module (a Winelib .dll.so) or in a
 * builtin module without PE unwind data, with the host's DWARF information;
 * 'recipe' gets how, where that is simple enough. The unix call
 * (unix/host_unwind.c) is unwind_host_frame. */
static BOOL unwind_elf_frame( CONTEXT *context, struct unwind_recipe *recipe, BOOL *have_recipe )
{
    DISPATCHER_CONTEXT dispatch;
    struct unwind_host_frame_params params = { &dispatch, context, recipe, have_recipe };

    dispatch.ControlPc = context->Rip;
    dispatch.ImageBase = 0;
    dispatch.LanguageHandler = NULL;
    *have_recipe = FALSE;
#ifdef NTDLL_UNIX_CALL  /* Wine 8: ntdll's own macro; Wine 9 and later use the generic one */
    return !NTDLL_UNIX_CALL( unwind_host_frame, &params );
#else
    return !WINE_UNIX_CALL( unix_unwind_host_frame, &params );
#endif
}

/* The user-mode dispatchers unwind through a machine frame: the Rip they
 * lead to was interrupted (a fault, a system call), not a return address. */
BOOL is_user_dispatcher( ULONG64 start )
{
    return start == (ULONG_PTR)KiUserCallbackDispatcher ||
           start == (ULONG_PTR)KiUserExceptionDispatcher ||
           start == (ULONG_PTR)KiUserApcDispatcher;
}

/* this process: the loaded images' function tables (and with 'registered'
 * the tables registered for code outside them), RtlVirtualUnwind, and the
 * host unwinder for ELF frames; 'cached' says what the recipe cache knows,
 * and recipes are compiled over 'source' */
static enum unwind_result __attribute__((noinline)) full_unwind( struct frame_source *source, CONTEXT *context,
                                                                 enum cache_result cached, BOOL registered,
                                                                 ULONG64 *start )
{
    LDR_DATA_TABLE_ENTRY *module;
    struct unwind_recipe recipe;
    RUNTIME_FUNCTION *func;
    ULONG64 frame, base;
    ULONG generation = 0;
    BOOL have_recipe;
    CONTEXT before;
    void *data;

    if (cached == CACHE_MISS)
    {
        generation = function_table_generation();
        before = *context;
    }

    if ((func = function_table_lookup( context->Rip, registered, &base, &module )))
    {
        RtlVirtualUnwind( UNW_FLAG_NHANDLER, base, context->Rip, func, context, &data, &frame, NULL );
        *start = base + func->BeginAddress;
        /* dispatchers are left to the full unwinder, which tells them apart;
         * only the images' code is cached, the same for every walker */
        if (cached == CACHE_MISS && module)
            unwind_cache_add( before.Rip, generation, &before, context,
                              !is_user_dispatcher( *start ) &&
                              compile_pe_recipe( source, base, before.Rip, func, &recipe ) ? &recipe : NULL );
        return UNWOUND;
    }
    if ((!module || (module->Flags & LDR_WINE_INTERNAL)) && unwind_elf_frame( context, &recipe, &have_recipe ))
    {
        /* code outside the loader's modules may be unmapped behind its back */
        if (cached == CACHE_MISS && module)
            unwind_cache_add( before.Rip, generation, &before, context, have_recipe ? &recipe : NULL );
        return UNWOUND_HOST;
    }
    TRACE( "no unwind data for %p in %s\n", (void *)context->Rip,
           module ? debugstr_w(module->BaseDllName.Buffer) : "no module" );
    return NO_UNWIND_DATA;
}

/* The frames of return addresses go through the recipe cache first. */
static enum unwind_result local_unwind( struct frame_source *source, CONTEXT *context, BOOL return_address,
                                       BOOL registered, ULONG64 *start )
{
    enum cache_result cached = CACHE_SLOW;

    if (return_address && (cached = unwind_cache_lookup( context )) == CACHE_HIT) return UNWOUND;
    return full_unwind( source, context, cached, registered, start );
}

/* RtlWalkFrameChain and its callers, as on Windows: the images' .pdata only */
static enum unwind_result unwind_with_images( struct frame_source *source, CONTEXT *context,
                                              BOOL return_address, ULONG64 *start )
{
    return local_unwind( source, context, return_address, FALSE, start );
}

/* our walks of a thread of this process (GetThreadCallStack, the watchdog)
 * also read the tables a JIT registered, but never call its callbacks */
static enum unwind_result unwind_with_tables( struct frame_source *source, CONTEXT *context,
                                              BOOL return_address, ULONG64 *start )
{
    return local_unwind( source, context, return_address, TRUE, start );
}

static BOOL local_read( struct frame_source *source, ULONG64 addr, void *buffer, SIZE_T size )
{
    memcpy( buffer, (void *)addr, size );  /* faults are caught around the walk */
    return TRUE;
}

/* Asked only of addresses the walk cannot vouch for (a leaf's return
 * address taken from the stack, a return address without unwind data at
 * the end of a walk): never on the way through code with unwind data. */
static BOOL local_is_code( struct frame_source *source, ULONG64 addr )
{
    MEMORY_BASIC_INFORMATION info;

    if (addr < 0x10000 || addr > HIGHEST_USER_ADDRESS) return FALSE;
    if (NtQueryVirtualMemory( NtCurrentProcess(), (void *)(ULONG_PTR)addr, MemoryBasicInformation, &info,
                              sizeof(info), NULL ))
        return FALSE;
    return info.State == MEM_COMMIT && is_executable_protection( info.Protect );
}

static struct frame_source image_frames = { unwind_with_images, local_read, is_user_dispatcher, local_is_code };
struct frame_source thread_frame_source = { unwind_with_tables, local_read, is_user_dispatcher, local_is_code };

enum step_result
{
    STEP_DONE,       /* to the caller's frame */
    STEP_END,        /* the walk ends here */
    STEP_UNKNOWN     /* it ends at a return address without unwind data */
};

/* Step from the frame of context->Rip to its caller.
 * '*leaf_ok' says Rip comes from a full context rather than from a return
 * address: only then may it stand in a function without unwind data (a leaf
 * that has not touched the stack). A return address always lies in a
 * function that made a call and therefore has unwind data; where it has none
 * the walk ends rather than guess. On return, '*leaf_ok' says the same of
 * the new Rip. */
static enum step_result step_frame( struct frame_source *source, CONTEXT *context, BOOL *leaf_ok,
                                    const struct stack_limits *limits )
{
    ULONG64 start = 0, rsp = context->Rsp;
    BOOL was_leaf_ok = *leaf_ok;

    *leaf_ok = FALSE;
    switch (source->unwind( source, context, !was_leaf_ok, &start ))
    {
    case UNWOUND:
        *leaf_ok = start && source->is_dispatcher && source->is_dispatcher( start );
        break;
    case UNWOUND_HOST:
        break;
    case NO_UNWIND_DATA:
        if (!was_leaf_ok) return STEP_UNKNOWN;
        if (rsp < limits->low || rsp + sizeof(ULONG64) > limits->high) return STEP_END;
        if (!source->read( source, rsp, &context->Rip, sizeof(context->Rip) )) return STEP_END;
        /* Code without unwind data (a JIT's) may have anything at [rsp]: a
         * leaf's return address is only taken if it points at code. */
        if (!source->is_code( source, context->Rip ))
        {
            TRACE( "%p at %p is no return address\n", (void *)context->Rip, (void *)rsp );
            return STEP_END;
        }
        context->Rsp = rsp + sizeof(ULONG64);
        break;
    default:
        return STEP_END;
    }

    /* Frames go up the stack, and stay inside it. */
    if (context->Rsp <= rsp || context->Rsp < limits->low || context->Rsp > limits->high) return STEP_END;
    /* a return address is a user-mode address */
    if (!context->Rip || context->Rip > HIGHEST_USER_ADDRESS) return STEP_END;
    return STEP_DONE;
}

/* A frame found but not yet stored: it is stored once the walk knows it is
 * one, so that the caller's buffer gets nothing a frame does not stand in. */
struct pending_frame
{
    void *rip;
    void *rsp;
    BOOL  valid;
};

static void store_pending_frame( volatile struct pending_frame *pending, void **buffer, void **stack, volatile ULONG *n )
{
    buffer[*n] = pending->rip;
    if (stack) stack[*n] = pending->rsp;
    pending->valid = FALSE;
    ++*n;
}

enum cached_walk
{
    CACHED_NONE,  /* the first return address is not in the cache */
    CACHED_SOME,  /* frames were unwound, up to one that is not */
    CACHED_END    /* the walk ends: a frame outside the stack, or count reached */
};

/* The registers of the frame 'steps' frames up from 'context', which lazy
 * steps found at 'rip' and 'rsp': the same steps again, applying each
 * recipe's saves, and the full unwinder for a return address whose entry
 * changed since. FALSE if that does not lead to the same frame (the
 * images changed under the walk). */
static BOOL __attribute__((noinline)) restore_registers( struct frame_source *source, CONTEXT *context,
                                                         ULONG steps, ULONG64 rip, ULONG64 rsp,
                                                         const struct stack_limits *limits, ULONG generation )
{
    ULONG64 r = context->Rip, s = context->Rsp;
    BOOL leaf_ok = FALSE;

    while (steps && unwind_cache_step( unwind_cache, &context->Rax, &r, &s, generation )) steps--;
    context->Rip = r;
    context->Rsp = s;
    while (steps--)
        if (step_frame( source, context, &leaf_ok, limits ) != STEP_DONE || leaf_ok) return FALSE;
    return context->Rip == rip && context->Rsp == rsp;
}

/* Most frames are return addresses whose recipe is known: what step_frame
 * does for them, without its calls through the source (which were a fifth
 * of a frame's cost), frame after frame with Rip, Rsp, the count and the
 * frame found last in registers until one is not in the cache. A frame
 * found from Rsp or Rbp is stepped lazily: its saves are not applied, and
 * the other registers stay those of 'context' (whose Rip and Rsp are the
 * first lazy step's start) until a recipe needs them or the walk leaves
 * the cache; most walks end without that. A fault can only come from
 * reading the stack or writing the caller's buffer, so '*n' and '*pending'
 * are written (never read) as they change, and are what the caller's
 * handler finds. */
static enum cached_walk __attribute__((noinline)) walk_cached_frames( struct frame_source *source, CONTEXT *context,
                                                                     const struct stack_limits *limits,
                                                                     ULONG *skip, ULONG count, void **buffer,
                                                                     void **stack, volatile ULONG *n,
                                                                     volatile struct pending_frame *pending )
{
    const ULONG64 low = limits->low, high = limits->high;
    const ULONG generation = function_table_generation();
    ULONG64 rip = context->Rip, rsp = context->Rsp, rbp = context->Rbp, prev = rsp;
    ULONG done = *n, left = *skip, lazy = 0;
    BOOL valid = pending->valid;
    void *last_rip = pending->rip, *last_rsp = pending->rsp;
    struct unwind_cache_entry *cache = unwind_cache;
    enum cached_walk ret = CACHED_NONE;

    if (!cache) return CACHED_NONE;
    for (;;)
    {
        if (unwind_cache_lazy_step( cache, &rip, &rsp, &rbp, generation )) lazy++;
        else
        {
            /* the recipe reads other registers, or there is none: bring
             * them up to this frame first */
            if (lazy && !restore_registers( source, context, lazy, rip, rsp, limits, generation ))
            {
                TRACE( "the images changed during the walk\n" );
                ret = CACHED_END;
                break;
            }
            lazy = 0;
            if (!unwind_cache_step( cache, &context->Rax, &rip, &rsp, generation )) break;
            context->Rip = rip;
            context->Rsp = rsp;
            rbp = context->Rbp;
        }
        ret = CACHED_SOME;
        if (rsp <= prev || rsp < low || rsp > high || !rip || rip > HIGHEST_USER_ADDRESS)
        {
            ret = CACHED_END;
            break;
        }
        prev = rsp;
        if (valid)
        {
            /* volatile: stored before the count says so. The flag stays
             * set until the next frame replaces this one: nothing between
             * the two can fault */
            ((void * volatile *)buffer)[done] = last_rip;
            if (stack) ((void * volatile *)stack)[done] = last_rsp;
            *n = ++done;
        }
        if (left)
        {
            left--;
            if (valid) pending->valid = valid = FALSE;
        }
        else
        {
            pending->rip = last_rip = (void *)rip;
            pending->rsp = last_rsp = (void *)rsp;
            if (!valid) pending->valid = valid = TRUE;
        }
        if (done + valid >= count)
        {
            ret = CACHED_END;
            break;
        }
    }
    /* the registers other than Rip and Rsp are only used by a walk that
     * goes on: at its end they may be those of an earlier frame */
    context->Rip = rip;
    context->Rsp = rsp;
    *skip = left;
    return ret;
}

/* The common core: walk from 'context' (whose own frame is not reported),
 * drop 'skip' return addresses, store at most 'count', and the stack pointer
 * of each frame they return into when 'stack' is given. '*n' counts what is
 * stored as it is stored, so a fault part-way leaves a valid prefix, and
 * '*pending' holds the frame found last until the next step says whether it
 * is one. Unless the context was taken by a call (capture_caller_context),
 * its Rip may be any instruction, and a leaf function may stand there. */
static void walk_frames( struct frame_source *source, CONTEXT *context, BOOL leaf_ok, ULONG skip, ULONG count,
                         void **buffer, void **stack, const struct stack_limits *limits, volatile ULONG *n,
                         volatile struct pending_frame *pending )
{
    /* this process's return addresses go through the recipe cache first */
    BOOL recipes = source == &image_frames || source == &thread_frame_source;
    enum step_result result;

    while (*n + pending->valid < count)
    {
        if (recipes && !leaf_ok)
        {
            enum cached_walk walked = walk_cached_frames( source, context, limits, &skip, count, buffer, stack, n,
                                                          pending );

            if (walked == CACHED_END) break;
            if (walked == CACHED_SOME) continue;
        }
        if ((result = step_frame( source, context, &leaf_ok, limits )) != STEP_DONE)
        {
            /* The last frame has no unwind data: a return address into
             * code without it (a JIT's), or a value of a corrupt frame that
             * never was one. Only the first is a frame. */
            if (pending->valid && result == STEP_UNKNOWN && !source->is_code( source, context->Rip ))
            {
                TRACE( "dropping %p, which is not code\n", (void *)context->Rip );
                pending->valid = FALSE;
            }
            break;
        }
        if (pending->valid) store_pending_frame( pending, buffer, stack, n );
        if (skip) skip--;
        else
        {
            pending->rip = (void *)context->Rip;
            pending->rsp = (void *)context->Rsp;
            pending->valid = TRUE;
        }
    }
    if (pending->valid) store_pending_frame( pending, buffer, stack, n );
}

ULONG walk_stack_frames( struct frame_source *source, CONTEXT *context, BOOL from_call, ULONG skip, ULONG count,
                         void **buffer, void **stack, const struct stack_limits *limits, BOOL buffer_faults )
{
    volatile ULONG n = 0;  /* read after a fault unwinds the __TRY block */
    volatile struct pending_frame pending = { NULL, NULL, FALSE };

    __TRY
    {
        walk_frames( source, context, !from_call, skip, count, buffer, stack, limits, &n, &pending );
    }
    __EXCEPT( buffer_faults ? stack_read_fault : stack_fault )
    {
        /* A corrupted frame led outside readable memory: keep what we have. */
        WARN( "fault while walking the stack after %lu frames\n", n );
    }
    __ENDTRY
    /* the frame whose caller could not be read is one; storing it may fault
     * as any store in the caller's buffer may */
    if (pending.valid)
    {
        __TRY
        {
            store_pending_frame( &pending, buffer, stack, &n );
        }
        __EXCEPT( buffer_faults ? stack_read_fault : stack_fault )
        {
        }
        __ENDTRY
    }
    return n;
}

static ULONG walk_current_thread( CONTEXT *context, ULONG skip, ULONG count, void **buffer, BOOL buffer_faults )
{
    struct stack_limits limits;

    limits.low = (ULONG64)NtCurrentTeb()->Tib.StackLimit;
    limits.high = (ULONG64)NtCurrentTeb()->Tib.StackBase;
    return walk_stack_frames( &image_frames, context, TRUE, skip, count, buffer, NULL, &limits, buffer_faults );
}


/*************************************************************************
 *      RtlWalkFrameChain (NTDLL.@)
 */
ULONG WINAPI RtlWalkFrameChain( void **callers, ULONG count, ULONG flags )
{
    CONTEXT context;

    TRACE( "(%p, %lu, %#lx)\n", callers, count, flags );

    capture_caller_context( &context );
    /* unlike RtlCaptureStackBackTrace, a bad buffer gives 0, not a fault */
    return walk_current_thread( &context, flags >> FRAMES_TO_SKIP_SHIFT, count, callers, FALSE );
}


/*************************************************************************
 *      RtlCaptureStackBackTrace (NTDLL.@)
 */
USHORT WINAPI RtlCaptureStackBackTrace( ULONG skip, ULONG count, void **buffer, ULONG *hash )
{
    CONTEXT context;
    ULONG i, n, sum = 0;

    TRACE( "(%lu, %lu, %p, %p)\n", skip, count, buffer, hash );

    if (count > 0xffff) count = 0xffff;  /* the count returned is a USHORT */
    capture_caller_context( &context );
    n = walk_current_thread( &context, skip, count, buffer, TRUE );
    if (hash && n)
    {
        for (i = 0; i < n; i++) sum += (ULONG)(ULONG_PTR)buffer[i];
        *hash = sum;
    }
    TRACE( "captured %lu frames\n", n );
    return n;
}


/*************************************************************************
 *      RtlGetCallersAddress (NTDLL.@)
 */
void WINAPI RtlGetCallersAddress( void **caller, void **callers_caller )
{
    CONTEXT context;
    void *frames[3];
    ULONG n;

    TRACE( "(%p, %p)\n", caller, callers_caller );

    /* frames[0] is in the function that asked; it wants its caller and the
     * caller's caller. */
    capture_caller_context( &context );
    n = walk_current_thread( &context, 0, 3, frames, TRUE );
    *caller = n > 1 ? frames[1] : NULL;
    *callers_caller = n > 2 ? frames[2] : NULL;
}

#endif  /* __x86_64__ */

#if defined(__x86_64__) || defined(__i386__)

/*
 * 32-bit code has no unwind data: the walkers of 32-bit stacks (this
 * thread's in the i386 ntdll, a WoW64 thread's from the x86_64 one) follow
 * the chain of saved frame pointers, as Windows' x86 ones do
 * (x86_frames.h, docs/X86_WALKS.md).
 */

/* The loop in a function of its own: the __TRY around it (a setjmp in
 * i386 code) would keep all its variables in memory. The stack is read
 * where it lies (no reader): a fault is caught by that __TRY. A
 * back-trace has no frame pointers to store: its loop is compiled
 * without them. */
static void __attribute__((noinline)) walk_own_chain( const struct x86_stack *stack, ULONG ebp, ULONG skip,
                                                      ULONG count, void **buffer, void **frame_ptrs,
                                                      volatile ULONG *n )
{
    if (frame_ptrs) x86_walk_frame_chain( NULL, NULL, stack, ebp, skip, count, buffer, frame_ptrs, n );
    else x86_walk_frame_chain( NULL, NULL, stack, ebp, skip, count, buffer, NULL, n );
}

/* Walk a stack of this process from the frame pointer 'ebp', in [low, high). */
ULONG walk_x86_frames( ULONG ebp, ULONG low, ULONG high, ULONG skip, ULONG count, void **buffer,
                       void **frame_ptrs, BOOL buffer_faults )
{
    struct x86_stack stack = { low, high };
    volatile ULONG n = 0;  /* read after a fault unwinds the __TRY block */

    __TRY
    {
        walk_own_chain( &stack, ebp, skip, count, buffer, frame_ptrs, &n );
    }
    __EXCEPT( buffer_faults ? stack_read_fault : stack_fault )
    {
        WARN( "fault while walking the stack after %lu frames\n", n );
    }
    __ENDTRY
    return n;
}

#endif

#ifdef __i386__

/* __builtin_frame_address(0) makes each entry point keep a frame of its
 * own, whatever the compiler's options: its [EBP+4] is the return address
 * into its caller. */

static ULONG walk_own_frames( void *ebp, ULONG skip, ULONG count, void **buffer, BOOL buffer_faults )
{
    return walk_x86_frames( PtrToUlong( ebp ), PtrToUlong( NtCurrentTeb()->Tib.StackLimit ),
                            PtrToUlong( NtCurrentTeb()->Tib.StackBase ), skip, count, buffer, NULL, buffer_faults );
}


/*************************************************************************
 *      RtlWalkFrameChain (NTDLL.@)
 */
ULONG WINAPI RtlWalkFrameChain( void **callers, ULONG count, ULONG flags )
{
    TRACE( "(%p, %lu, %#lx)\n", callers, count, flags );

    /* unlike RtlCaptureStackBackTrace, a bad buffer gives 0, not a fault */
    return walk_own_frames( __builtin_frame_address( 0 ), flags >> FRAMES_TO_SKIP_SHIFT, count, callers, FALSE );
}


/*************************************************************************
 *      RtlCaptureStackBackTrace (NTDLL.@)
 */
USHORT WINAPI RtlCaptureStackBackTrace( ULONG skip, ULONG count, void **buffer, ULONG *hash )
{
    ULONG i, n, sum = 0;

    TRACE( "(%lu, %lu, %p, %p)\n", skip, count, buffer, hash );

    if (count > 0xffff) count = 0xffff;  /* the count returned is a USHORT */
    n = walk_own_frames( __builtin_frame_address( 0 ), skip, count, buffer, TRUE );
    if (hash && n)
    {
        for (i = 0; i < n; i++) sum += PtrToUlong( buffer[i] );
        *hash = sum;
    }
    TRACE( "captured %lu frames\n", n );
    return n;
}


/*************************************************************************
 *      RtlGetCallersAddress (NTDLL.@)
 */
void WINAPI RtlGetCallersAddress( void **caller, void **callers_caller )
{
    void *frames[3];
    ULONG n;

    TRACE( "(%p, %p)\n", caller, callers_caller );

    /* frames[0] is in the function that asked; it wants its caller and the
     * caller's caller. */
    n = walk_own_frames( __builtin_frame_address( 0 ), 0, 3, frames, TRUE );
    *caller = n > 1 ? frames[1] : NULL;
    *callers_caller = n > 2 ? frames[2] : NULL;
}

#endif  /* __i386__ */

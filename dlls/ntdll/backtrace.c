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

#ifdef __x86_64__

#include <stdarg.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wine/exception.h"
#include "wine/debug.h"
#include "ntdll_misc.h"
#include "unixlib.h"
#include "backtrace.h"

WINE_DEFAULT_DEBUG_CHANNEL(backtrace);

#define FRAMES_TO_SKIP_SHIFT 8  /* RTL_STACK_WALKING_MODE_FRAMES_TO_SKIP_SHIFT */

/* Unwind one frame of code in a host ELF module (a Winelib .dll.so) or in a
 * builtin module without PE unwind data, with the host's DWARF information. */
static BOOL unwind_host_frame( CONTEXT *context )
{
    DISPATCHER_CONTEXT dispatch;
    struct unwind_builtin_dll_params params = { UNW_FLAG_NHANDLER, &dispatch, context };

    dispatch.ControlPc = context->Rip;
    dispatch.ImageBase = 0;
    dispatch.LanguageHandler = NULL;
    return !NTDLL_UNIX_CALL( unwind_builtin_dll, &params );
}

/* The user-mode dispatchers unwind through a machine frame: the Rip they
 * lead to was interrupted (a fault, a system call), not a return address. */
BOOL is_user_dispatcher( ULONG64 start )
{
    return start == (ULONG_PTR)KiUserCallbackDispatcher ||
           start == (ULONG_PTR)KiUserExceptionDispatcher ||
           start == (ULONG_PTR)KiUserApcDispatcher;
}

/* this process: the loader's function tables, RtlVirtualUnwind, and the host
 * unwinder for ELF frames */
static enum unwind_result local_unwind( struct frame_source *source, CONTEXT *context, ULONG64 *start )
{
    LDR_DATA_TABLE_ENTRY *module;
    RUNTIME_FUNCTION *func;
    ULONG64 frame, base;
    void *data;

    if ((func = lookup_function_info( context->Rip, &base, &module )))
    {
        RtlVirtualUnwind( UNW_FLAG_NHANDLER, base, context->Rip, func, context, &data, &frame, NULL );
        *start = base + func->BeginAddress;
        return UNWOUND;
    }
    if ((!module || (module->Flags & LDR_WINE_INTERNAL)) && unwind_host_frame( context )) return UNWOUND_HOST;
    TRACE( "no unwind data for %p in %s\n", (void *)context->Rip,
           module ? debugstr_w(module->BaseDllName.Buffer) : "no module" );
    return NO_UNWIND_DATA;
}

static BOOL local_read( struct frame_source *source, ULONG64 addr, void *buffer, SIZE_T size )
{
    memcpy( buffer, (void *)addr, size );  /* faults are caught around the walk */
    return TRUE;
}

static struct frame_source local_source = { local_unwind, local_read, is_user_dispatcher };

/* Step from the frame of context->Rip to its caller.
 * '*leaf_ok' says Rip comes from a full context rather than from a return
 * address: only then may it stand in a function without unwind data (a leaf
 * that has not touched the stack). A return address always lies in a
 * function that made a call and therefore has unwind data; where it has none
 * the walk ends rather than guess. On return, '*leaf_ok' says the same of
 * the new Rip. */
static BOOL step_frame( struct frame_source *source, CONTEXT *context, BOOL *leaf_ok,
                        const struct stack_limits *limits )
{
    ULONG64 start = 0, rsp = context->Rsp;
    BOOL was_leaf_ok = *leaf_ok;

    *leaf_ok = FALSE;
    switch (source->unwind( source, context, &start ))
    {
    case UNWOUND:
        *leaf_ok = source->is_dispatcher && source->is_dispatcher( start );
        break;
    case UNWOUND_HOST:
        break;
    case NO_UNWIND_DATA:
        if (!was_leaf_ok || rsp < limits->low || rsp + sizeof(ULONG64) > limits->high) return FALSE;
        if (!source->read( source, rsp, &context->Rip, sizeof(context->Rip) )) return FALSE;
        context->Rsp = rsp + sizeof(ULONG64);
        break;
    default:
        return FALSE;
    }

    /* Frames go up the stack, and stay inside it. */
    if (context->Rsp <= rsp || context->Rsp < limits->low || context->Rsp > limits->high) return FALSE;
    return context->Rip != 0;
}

/* The common core: walk from 'context' (whose own frame is not reported),
 * drop 'skip' return addresses, store at most 'count', and the stack pointer
 * of each frame they return into when 'stack' is given. '*n' counts what is
 * stored as it is stored, so a fault part-way leaves a valid prefix. */
static void walk_frames( struct frame_source *source, CONTEXT *context, ULONG skip, ULONG count,
                         void **buffer, void **stack, const struct stack_limits *limits, volatile ULONG *n )
{
    BOOL leaf_ok = TRUE;

    while (*n < count && step_frame( source, context, &leaf_ok, limits ))
    {
        if (skip) skip--;
        else
        {
            buffer[*n] = (void *)context->Rip;
            if (stack) stack[*n] = (void *)context->Rsp;
            ++*n;
        }
    }
}

ULONG walk_stack( struct frame_source *source, CONTEXT *context, ULONG skip, ULONG count,
                  void **buffer, void **stack, const struct stack_limits *limits )
{
    volatile ULONG n = 0;  /* read after a fault unwinds the __TRY block */

    __TRY
    {
        walk_frames( source, context, skip, count, buffer, stack, limits, &n );
    }
    __EXCEPT_PAGE_FAULT
    {
        /* A corrupted frame led outside readable memory: keep what we have. */
        WARN( "fault while walking the stack after %lu frames\n", n );
    }
    __ENDTRY
    return n;
}

static ULONG walk_current_thread( CONTEXT *context, ULONG skip, ULONG count, void **buffer )
{
    struct stack_limits limits;

    limits.low = (ULONG64)NtCurrentTeb()->Tib.StackLimit;
    limits.high = (ULONG64)NtCurrentTeb()->Tib.StackBase;
    return walk_stack( &local_source, context, skip, count, buffer, NULL, &limits );
}


/*************************************************************************
 *      __wine_walk_thread_frames (NTDLL.@)
 *
 * Walk the stack of a thread from 'context', a context of that thread (held
 * still by the caller unless it is the current thread). Like
 * RtlWalkFrameChain, the frame of 'context' itself is not reported. A thread
 * of another process is walked over that process's memory, which needs
 * PROCESS_VM_READ on it.
 */
NTSTATUS WINAPI __wine_walk_thread_frames( HANDLE thread, CONTEXT *context, ULONG skip, ULONG count,
                                           void **frames, void **stack_ptrs, ULONG *ret_count )
{
    THREAD_BASIC_INFORMATION info;
    struct stack_limits limits;
    NTSTATUS status;
    TEB *teb;

    TRACE( "(%p, %p, %lu, %lu, %p, %p, %p)\n", thread, context, skip, count, frames, stack_ptrs, ret_count );

    if ((status = NtQueryInformationThread( thread, ThreadBasicInformation, &info, sizeof(info), NULL )))
        return status;
    if (HandleToULong( info.ClientId.UniqueProcess ) != GetCurrentProcessId())
        return walk_remote_thread( thread, &info.ClientId, context, skip, count, frames, stack_ptrs, ret_count );

    teb = info.TebBaseAddress;
    __TRY
    {
        limits.low = (ULONG64)teb->DeallocationStack;
        limits.high = (ULONG64)teb->Tib.StackBase;
    }
    __EXCEPT_PAGE_FAULT
    {
        /* the thread is gone, and its TEB with it */
        return STATUS_INVALID_HANDLE;
    }
    __ENDTRY
    *ret_count = walk_stack( &local_source, context, skip, count, frames, stack_ptrs, &limits );
    return STATUS_SUCCESS;
}


/*************************************************************************
 *      RtlWalkFrameChain (NTDLL.@)
 */
ULONG WINAPI RtlWalkFrameChain( void **callers, ULONG count, ULONG flags )
{
    CONTEXT context;

    TRACE( "(%p, %lu, %#lx)\n", callers, count, flags );

    RtlCaptureContext( &context );
    return walk_current_thread( &context, flags >> FRAMES_TO_SKIP_SHIFT, count, callers );
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
    RtlCaptureContext( &context );
    n = walk_current_thread( &context, skip, count, buffer );
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
    RtlCaptureContext( &context );
    n = walk_current_thread( &context, 0, 3, frames );
    *caller = n > 1 ? frames[1] : NULL;
    *callers_caller = n > 2 ? frames[2] : NULL;
}

#endif  /* __x86_64__ */

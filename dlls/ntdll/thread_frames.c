/*
 * Stack walks of any thread, for our APIs beyond Windows: which frames a
 * walk reads, those of this process or those of another one
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
#include "wine/debug.h"
#include "wine/server.h"
#include "ntdll_misc.h"
#include "backtrace.h"
#include "remote_frames.h"
#include "x86_frames.h"

WINE_DEFAULT_DEBUG_CHANNEL(backtrace);

/*
 * This file sits above the walkers: it picks the frame source (this
 * process's, or another process's in remote_frames.c) and the stack limits,
 * and both sources feed the frame-stepping core in backtrace.c. Nothing
 * below calls back up here.
 */

/* A 32-bit stack of another process, read through its handle. */
struct x86_remote
{
    HANDLE process;
};

static BOOL read_x86_remote( void *ctx, ULONG addr, void *buffer, ULONG size )
{
    struct x86_remote *remote = ctx;
    SIZE_T got = 0;

    return !NtReadVirtualMemory( remote->process, ULongToPtr( addr ), buffer, size, &got ) && got == size;
}

/* Walk the 32-bit stack [low, high) of a thread from 'ebp': a stack of this
 * process directly, another process's through 'process' */
static NTSTATUS walk_x86_stack( HANDLE process, ULONG ebp, ULONG low, ULONG high, ULONG skip, ULONG count,
                                void **frames, void **frame_ptrs, ULONG *ret_count )
{
    struct x86_stack stack = { low, high };
    struct x86_remote remote = { process };
    volatile ULONG n = 0;

    TRACE( "stack %08lx-%08lx, frame %08lx\n", low, high, ebp );
    if (!process)
    {
        *ret_count = walk_x86_frames( ebp, low, high, skip, count, frames, frame_ptrs, TRUE );
        return STATUS_SUCCESS;
    }
    x86_walk_frame_chain( read_x86_remote, &remote, &stack, ebp, skip, count, frames, frame_ptrs, &n );
    *ret_count = n;
    return STATUS_SUCCESS;
}

/* the 32-bit TEB's stack bounds */
static BOOL read_teb32_stack( HANDLE process, ULONG64 teb32, ULONG *low, ULONG *high )
{
    struct x86_remote remote = { process };

    if (teb32 > 0xffffffff) return FALSE;
    if (!process)
    {
        const TEB32 *teb = ULongToPtr( teb32 );
        BOOL ret = TRUE;

        __TRY
        {
            *low = teb->DeallocationStack;
            *high = teb->Tib.StackBase;
        }
        __EXCEPT_PAGE_FAULT
        {
            ret = FALSE;  /* the thread is gone, and its TEB with it */
        }
        __ENDTRY
        return ret;
    }
    return read_x86_remote( &remote, teb32 + FIELD_OFFSET( TEB32, DeallocationStack ), low, sizeof(*low) ) &&
           read_x86_remote( &remote, teb32 + FIELD_OFFSET( TEB32, Tib.StackBase ), high, sizeof(*high) );
}

static NTSTATUS open_thread_process( const THREAD_BASIC_INFORMATION *info, HANDLE *process )
{
    OBJECT_ATTRIBUTES attr = { sizeof(attr) };
    CLIENT_ID process_id = { info->ClientId.UniqueProcess, 0 };

    *process = NULL;
    if (HandleToULong( info->ClientId.UniqueProcess ) == GetCurrentProcessId()) return STATUS_SUCCESS;
    return NtOpenProcess( process, PROCESS_VM_READ | PROCESS_QUERY_LIMITED_INFORMATION, &attr, &process_id );
}

static NTSTATUS query_thread( HANDLE thread, const THREAD_BASIC_INFORMATION **info,
                              THREAD_BASIC_INFORMATION *queried )
{
    NTSTATUS status;

    /* a thread that has not run yet has not told the server where its TEB
     * is (a 32-bit caller then sees 0x2000, the 32-bit TEB's offset from
     * none); held still now, it has */
    if (*info && (ULONG_PTR)(*info)->TebBaseAddress >= 0x10000) return STATUS_SUCCESS;
    if ((status = NtQueryInformationThread( thread, ThreadBasicInformation, queried, sizeof(*queried), NULL )))
        return status;
    *info = queried;
    return STATUS_SUCCESS;
}

#ifdef __x86_64__

/*************************************************************************
 *      __wine_query_walk_target (NTDLL.@)
 *
 * What a walk of 'thread' needs to know first: its TEB, its ids and
 * whether it has exited, as ThreadBasicInformation gives them (the
 * affinity and priorities are left 0), and in '*read_status' whether the
 * caller may read the memory of its process: the access check
 * OpenProcess( PROCESS_VM_READ ) makes, with the caller's token of the
 * moment (STATUS_SUCCESS for a thread of this process). One server round
 * trip. __wine_walk_thread_frames takes information from here as checked.
 */
NTSTATUS WINAPI __wine_query_walk_target( HANDLE thread, THREAD_BASIC_INFORMATION *info, NTSTATUS *read_status )
{
    NTSTATUS status;

    memset( info, 0, sizeof(*info) );
    *read_status = STATUS_ACCESS_DENIED;
    SERVER_START_REQ( get_thread_walk_info )
    {
        req->handle = wine_server_obj_handle( thread );
        if (!(status = wine_server_call( req )))
        {
            info->ExitStatus = reply->exit_code;
            info->TebBaseAddress = wine_server_get_ptr( reply->teb );
            info->ClientId.UniqueProcess = ULongToHandle( reply->pid );
            info->ClientId.UniqueThread = ULongToHandle( reply->tid );
            *read_status = reply->read_status;
        }
    }
    SERVER_END_REQ;
    TRACE( "thread %p: %#lx, read %#lx\n", thread, status, *read_status );
    return status;
}

/* a thread of this process, whose TEB is 'teb' */
static NTSTATUS walk_local_thread( TEB *teb, CONTEXT *context, ULONG skip, ULONG count,
                                   void **frames, void **stack_ptrs, ULONG *ret_count )
{
    struct stack_limits limits;

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
    *ret_count = walk_stack_frames( &thread_frame_source, context, FALSE, skip, count, frames, stack_ptrs, &limits,
                                    TRUE );
    return STATUS_SUCCESS;
}


/*************************************************************************
 *      __wine_walk_thread_frames (NTDLL.@)
 *
 * Walk the stack of a thread from 'context', a context of that thread (held
 * still by the caller unless it is the current thread). Like
 * RtlWalkFrameChain, the frame of 'context' itself is not reported. 'info'
 * is the thread's basic information from __wine_query_walk_target if the
 * caller has it already (saving a server round trip), else NULL. A thread
 * of another process is walked over that process's memory, which needs
 * PROCESS_VM_READ on it: checked by that query.
 */
NTSTATUS WINAPI __wine_walk_thread_frames( HANDLE thread, const THREAD_BASIC_INFORMATION *info, CONTEXT *context,
                                           ULONG skip, ULONG count, void **frames, void **stack_ptrs,
                                           ULONG *ret_count )
{
    THREAD_BASIC_INFORMATION queried;
    NTSTATUS status, read_status;

    TRACE( "(%p, %p, %p, %lu, %lu, %p, %p, %p)\n", thread, info, context, skip, count, frames, stack_ptrs,
           ret_count );

    if (thread == GetCurrentThread())
        return walk_local_thread( NtCurrentTeb(), context, skip, count, frames, stack_ptrs, ret_count );
    /* a thread that has not run yet has not told the server where its TEB
     * is; held still now, it has */
    if (!info || (ULONG_PTR)info->TebBaseAddress < 0x10000)
    {
        if ((status = __wine_query_walk_target( thread, &queried, &read_status ))) return status;
        if (read_status) return read_status;
        info = &queried;
    }
    if (HandleToULong( info->ClientId.UniqueProcess ) != GetCurrentProcessId())
        return walk_remote_thread( info, context, skip, count, frames, stack_ptrs, ret_count );
    return walk_local_thread( info->TebBaseAddress, context, skip, count, frames, stack_ptrs, ret_count );
}



/*************************************************************************
 *      __wine_walk_wow64_frames (NTDLL.@)
 *
 * Walk the 32-bit frames of a WoW64 thread (of this process or another),
 * held still by the caller, from its 32-bit context (RtlWow64GetThreadContext):
 * the frame-pointer chain of its 32-bit stack, whose bounds are in its
 * 32-bit TEB. As with __wine_walk_thread_frames, the frame of 'context'
 * itself is not reported; 'frame_ptrs' gets each frame's EBP.
 */
NTSTATUS WINAPI __wine_walk_wow64_frames( HANDLE thread, const THREAD_BASIC_INFORMATION *info,
                                          const WOW64_CONTEXT *context, ULONG skip, ULONG count, void **frames,
                                          void **frame_ptrs, ULONG *ret_count )
{
    THREAD_BASIC_INFORMATION queried;
    HANDLE process;
    LONG offset = 0;
    ULONG low, high;
    NTSTATUS status;

    TRACE( "(%p, %p, %p, %lu, %lu, %p, %p, %p)\n", thread, info, context, skip, count, frames, frame_ptrs,
           ret_count );

    *ret_count = 0;
    if ((status = query_thread( thread, &info, &queried ))) return status;
    if ((status = open_thread_process( info, &process ))) return status;
    /* TEB.WowTebOffset leads from the 64-bit TEB to the 32-bit one */
    if (process)
    {
        ULONG64 addr = (ULONG_PTR)info->TebBaseAddress + FIELD_OFFSET( TEB, WowTebOffset );

        if (!NtReadVirtualMemory( process, (void *)(ULONG_PTR)addr, &offset, sizeof(offset), NULL ) && offset > 0 &&
            read_teb32_stack( process, (ULONG_PTR)info->TebBaseAddress + offset, &low, &high ))
            status = walk_x86_stack( process, context->Ebp, low, high, skip, count, frames, frame_ptrs, ret_count );
        else
            status = offset > 0 ? STATUS_PARTIAL_COPY : STATUS_NOT_SUPPORTED;
        NtClose( process );
        return status;
    }
    __TRY
    {
        offset = ((TEB *)info->TebBaseAddress)->WowTebOffset;
    }
    __EXCEPT_PAGE_FAULT
    {
        return STATUS_INVALID_HANDLE;
    }
    __ENDTRY
    if (offset <= 0) return STATUS_NOT_SUPPORTED;  /* not a WoW64 thread */
    if (!read_teb32_stack( NULL, (ULONG_PTR)info->TebBaseAddress + offset, &low, &high ))
        return STATUS_INVALID_HANDLE;
    return walk_x86_stack( NULL, context->Ebp, low, high, skip, count, frames, frame_ptrs, ret_count );
}

#else  /* __i386__ */

/*************************************************************************
 *      __wine_walk_thread_frames (NTDLL.@)
 *
 * The i386 side: a thread of this process or of another 32-bit (WoW64)
 * process, from its i386 context (held still by the caller unless it is the
 * current thread), along its frame-pointer chain. The frame of 'context'
 * itself is not reported; 'stack_ptrs' gets each frame's EBP.
 */
NTSTATUS WINAPI __wine_walk_thread_frames( HANDLE thread, const THREAD_BASIC_INFORMATION *info, CONTEXT *context,
                                           ULONG skip, ULONG count, void **frames, void **stack_ptrs,
                                           ULONG *ret_count )
{
    THREAD_BASIC_INFORMATION queried;
    ULONG_PTR peb32 = 0;
    HANDLE process;
    ULONG low, high;
    NTSTATUS status;

    TRACE( "(%p, %p, %p, %lu, %lu, %p, %p, %p)\n", thread, info, context, skip, count, frames, stack_ptrs,
           ret_count );

    *ret_count = 0;
    if (thread == GetCurrentThread())
    {
        *ret_count = walk_x86_frames( context->Ebp, PtrToUlong( NtCurrentTeb()->Tib.StackLimit ),
                                      PtrToUlong( NtCurrentTeb()->Tib.StackBase ), skip, count, frames,
                                      stack_ptrs, TRUE );
        return STATUS_SUCCESS;
    }
    if ((status = query_thread( thread, &info, &queried ))) return status;
    /* a 32-bit caller sees the 32-bit TEB of a WoW64 thread; a thread of
     * a 64-bit process has no 32-bit frames */
    if ((status = open_thread_process( info, &process ))) return status;
    if (process && (NtQueryInformationProcess( process, ProcessWow64Information, &peb32, sizeof(peb32), NULL ) ||
                    !peb32))
        status = STATUS_NOT_SUPPORTED;
    else if (read_teb32_stack( process, PtrToUlong( info->TebBaseAddress ), &low, &high ))
        status = walk_x86_stack( process, context->Ebp, low, high, skip, count, frames, stack_ptrs, ret_count );
    else
        status = process ? STATUS_PARTIAL_COPY : STATUS_INVALID_HANDLE;
    if (process) NtClose( process );
    return status;
}

#endif  /* __x86_64__ */

#endif  /* __x86_64__ || __i386__ */

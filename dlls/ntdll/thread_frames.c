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

#ifdef __x86_64__

#include <stdarg.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wine/exception.h"
#include "wine/debug.h"
#include "ntdll_misc.h"
#include "backtrace.h"
#include "remote_frames.h"

WINE_DEFAULT_DEBUG_CHANNEL(backtrace);

/*
 * This file sits above the walkers: it picks the frame source (this
 * process's, or another process's in remote_frames.c) and the stack limits,
 * and both sources feed the frame-stepping core in backtrace.c. Nothing
 * below calls back up here.
 */

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
 * is the thread's basic information if the caller has it already (saving a
 * server round trip), else NULL. A thread of another process is walked over
 * that process's memory, which needs PROCESS_VM_READ on it.
 */
NTSTATUS WINAPI __wine_walk_thread_frames( HANDLE thread, const THREAD_BASIC_INFORMATION *info, CONTEXT *context,
                                           ULONG skip, ULONG count, void **frames, void **stack_ptrs,
                                           ULONG *ret_count )
{
    THREAD_BASIC_INFORMATION queried;
    NTSTATUS status;

    TRACE( "(%p, %p, %p, %lu, %lu, %p, %p, %p)\n", thread, info, context, skip, count, frames, stack_ptrs,
           ret_count );

    if (thread == GetCurrentThread())
        return walk_local_thread( NtCurrentTeb(), context, skip, count, frames, stack_ptrs, ret_count );
    /* a thread that has not run yet has not told the server where its TEB
     * is; held still now, it has */
    if (!info || !info->TebBaseAddress)
    {
        if ((status = NtQueryInformationThread( thread, ThreadBasicInformation, &queried, sizeof(queried), NULL )))
            return status;
        info = &queried;
    }
    if (HandleToULong( info->ClientId.UniqueProcess ) != GetCurrentProcessId())
        return walk_remote_thread( info, context, skip, count, frames, stack_ptrs, ret_count );
    return walk_local_thread( info->TebBaseAddress, context, skip, count, frames, stack_ptrs, ret_count );
}

#endif  /* __x86_64__ */

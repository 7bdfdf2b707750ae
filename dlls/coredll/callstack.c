/*
 * Windows Embedded Compact call stacks: GetThreadCallStack
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

#include <stdarg.h>
#include <stdlib.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winbase.h"
#include "winternl.h"
#if __has_include("rtlsupportapi.h")
#include "rtlsupportapi.h"  /* RtlCaptureContext: there since Wine 9, in winnt.h before */
#endif
#include "pkfuncs.h"

#include "wine/debug.h"
#include "wine/exception.h"
#include "wine/wait_chain.h"
#include "wine/memory_file.h"
#include "wow64_walk.h"

WINE_DEFAULT_DEBUG_CHANNEL(callstack);

#define KNOWN_FLAGS (STACKSNAP_FAIL_IF_INCOMPLETE | STACKSNAP_EXTENDED_INFO | STACKSNAP_INPROC_ONLY | \
                     STACKSNAP_RETURN_FRAMES_ON_ERROR | STACKSNAP_NEW_VM)

/* The rights a thread handle must grant for a walk, whichever way the
 * thread is then walked (its own context, blocked, held still, WoW64):
 * what GetThreadContext of a thread held still needs (docs/ACCESS.md). */
#define WALK_ACCESS (THREAD_GET_CONTEXT | THREAD_SUSPEND_RESUME)

/* No stack holds more frames than this (each takes at least 16 bytes). */
#define MAX_FRAMES 0x10000

/* x86_64 frames are named by their stack pointer; x86 ones, which have no
 * unwind data, by their frame pointer, which is what the walk follows */
#ifdef __x86_64__
#define CONTEXT_PC(context) ((context)->Rip)
#define CONTEXT_FRAME(context) ((context)->Rsp)
#else
#define CONTEXT_PC(context) ((context)->Eip)
#define CONTEXT_FRAME(context) ((context)->Ebp)
#endif

struct frames
{
    ULONG  count;
    void **addr;    /* return addresses; for another thread the first is its Rip */
    void **stack;   /* stack pointer of each frame */
};

#ifdef __x86_64__

/* 'size' bytes at 'offset' in the thread's TEB, read in this process or
 * over another process's memory (each read a fresh one: never from a
 * cache). A thread whose TEB is gone reads as an error. */
static NTSTATUS read_teb( const THREAD_BASIC_INFORMATION *info, ULONG offset, void *buffer, SIZE_T size )
{
    const char *addr = (const char *)info->TebBaseAddress + offset;
    ULONG pid = HandleToULong( info->ClientId.UniqueProcess );
    NTSTATUS ret = STATUS_SUCCESS;

    if (pid == GetCurrentProcessId())
    {
        __TRY
        {
            memcpy( buffer, addr, size );
            __asm__ __volatile__( "" ::: "memory" );
        }
        __EXCEPT_PAGE_FAULT
        {
            ret = STATUS_ACCESS_VIOLATION;
        }
        __ENDTRY
        return ret;
    }
    return __wine_read_process_memory( pid, addr, buffer, size );
}

/* The registers a blocked thread published (ntdll's blocked_frame.h) and
 * their count. */
static NTSTATUS read_blocked_frame( const THREAD_BASIC_INFORMATION *info, struct blocked_frame *frame, SIZE_T size )
{
    return read_teb( info, BLOCKED_FRAME_TEB_OFFSET, frame, size );
}

/* Does the thread run 32-bit code (WoW64)? Its 64-bit TEB leads to a
 * 32-bit one. Its 64-bit registers are then those of wow64.dll, not of
 * the program. */
static BOOL is_wow64_thread( const THREAD_BASIC_INFORMATION *info )
{
    LONG offset = 0;

    return !read_teb( info, FIELD_OFFSET( TEB, WowTebOffset ), &offset, sizeof(offset) ) && offset > 0;
}

/* A blocking read() writes its buffer while the count is odd: a walk is
 * kept only if that buffer is outside the stack it walks, the thread's
 * stack, in which its published Rsp lies. */
static BOOL is_write_outside_stack( const THREAD_BASIC_INFORMATION *info, const struct blocked_frame *frame )
{
    ULONG64 low, high, rsp = frame->regs[4];  /* Rax, Rcx, Rdx, Rbx, Rsp */

    if (frame->write_start == frame->write_end) return TRUE;
    if (read_teb( info, FIELD_OFFSET( TEB, DeallocationStack ), &low, sizeof(low) ) ||
        read_teb( info, FIELD_OFFSET( TEB, Tib.StackBase ), &high, sizeof(high) ))
        return FALSE;
    return low < high && rsp >= low && rsp < high &&
           (frame->write_end <= low || frame->write_start >= high) && frame->write_start <= frame->write_end;
}

/* A thread blocked in a system call is walked from the registers it
 * published, without suspending it: its stack cannot change before its
 * count does. The count is read again after the walk; if it changed, or
 * was not odd, the caller suspends the thread instead. See
 * docs/BLOCKED_WALKS.md for why a walk kept is right. */
static BOOL walk_blocked_thread( HANDLE thread, const THREAD_BASIC_INFORMATION *info, struct frames *frames,
                                 ULONG want, NTSTATUS *status, BOOL *wow64 )
{
    struct blocked_frame frame;
    unsigned long long seq;
    CONTEXT context;
    ULONG n = 0;

    if (!info->TebBaseAddress) return FALSE;
    if ((*status = read_blocked_frame( info, &frame, sizeof(frame) )) == STATUS_ACCESS_DENIED)
        return TRUE;  /* a process we may not read is not suspended for nothing */
    if ((*wow64 = is_wow64_thread( info ))) return FALSE;
    if (*status || !(frame.seq & 1) || !frame.regs[16]) return FALSE;
    if (!is_write_outside_stack( info, &frame ))
    {
        TRACE( "thread %04lx reads into its stack\n", HandleToULong( info->ClientId.UniqueThread ) );
        return FALSE;
    }

    memset( &context, 0, sizeof(context) );
    context.ContextFlags = CONTEXT_FULL;
    memcpy( &context.Rax, frame.regs, sizeof(frame.regs) );
    frames->addr[0] = (void *)context.Rip;
    frames->stack[0] = (void *)context.Rsp;
    *status = __wine_walk_thread_frames( thread, info, &context, 0, want - 1, frames->addr + 1,
                                         frames->stack + 1, &n );
    /* the walk stands only if the thread was in the same blocking call all along */
    if (!read_blocked_frame( info, (struct blocked_frame *)&seq, sizeof(seq) ) && seq == frame.seq)
    {
        TRACE( "thread %04lx walked blocked, not suspended\n", HandleToULong( info->ClientId.UniqueThread ) );
        frames->count = n + 1;
        return TRUE;
    }
    TRACE( "thread %04lx left its wait during the walk\n", HandleToULong( info->ClientId.UniqueThread ) );
    return FALSE;
}

/* Is the TEB at info->TebBaseAddress that of the thread info names? */
static BOOL is_teb_of_thread( const THREAD_BASIC_INFORMATION *info )
{
    ULONG_PTR tid = 0;

    return !read_teb( info, FIELD_OFFSET( TEB, ClientId.UniqueThread ), &tid, sizeof(tid) ) &&
           tid == HandleToULong( info->ClientId.UniqueThread );
}

/***********************************************************************
 *      __wine_walk_blocked_thread (COREDLL.@)
 *
 * Beyond Windows, for wctdump: the frames of thread 'tid' of another
 * process 'pid', whose TEB is at 'teb' (SystemExtendedProcessInformation
 * gives all three), walked from the registers it published if it is
 * blocked in a system call: without a handle to it, without suspending it
 * and without a server round trip. The process is read as
 * __wine_read_process_memory reads it. Fills 'frames' with up to 'max'
 * return addresses, the first the thread's Rip, and returns their count;
 * 0 when the thread is not blocked, left its wait during the walk, is not
 * the thread of that TEB before and after it, or cannot be read: the
 * caller then walks it with GetThreadCallStack, and 'frames' may hold
 * what a dropped walk wrote. At most MAX_FRAMES frames are walked.
 */
ULONG WINAPI __wine_walk_blocked_thread( DWORD pid, DWORD tid, void *teb, ULONG max, void **frames )
{
    THREAD_BASIC_INFORMATION info = { STATUS_PENDING };
    struct frames walked = { 0, frames };
    NTSTATUS status = STATUS_SUCCESS;
    BOOL wow64 = FALSE;
    ULONG count = 0;

    TRACE( "(%04lx, %04lx, %p, %lu, %p)\n", pid, tid, teb, max, frames );

    if (!max || !frames || pid == GetCurrentProcessId() || (ULONG_PTR)teb < 0x10000) return 0;
    max = min( max, MAX_FRAMES );
    info.TebBaseAddress = teb;
    info.ClientId.UniqueProcess = ULongToHandle( pid );
    info.ClientId.UniqueThread = ULongToHandle( tid );
    if (!is_teb_of_thread( &info ) || !(walked.stack = malloc( max * sizeof(void *) ))) return 0;
    /* no thread handle: the walk is given the TEB, and reads the process by its id */
    if (walk_blocked_thread( NULL, &info, &walked, max, &status, &wow64 ) && !status && is_teb_of_thread( &info ))
        count = walked.count;
    free( walked.stack );
    return count;
}

#endif  /* __x86_64__ */

/* a walk's outcome as GetThreadCallStack's last error */
static DWORD status_to_error( NTSTATUS status )
{
    return status ? RtlNtStatusToDosError( status ) : ERROR_SUCCESS;
}

/* Walk 'thread': from 'own' (a context captured by our caller) for the
 * current thread, from the registers it published if it is blocked in a
 * system call, else with the thread, described by 'info', held still.
 * Nothing is allocated while it is: it may hold the heap lock. */
static DWORD walk_thread( HANDLE thread, const THREAD_BASIC_INFORMATION *info, CONTEXT *own,
                          struct frames *frames, ULONG want )
{
    NTSTATUS status;
#ifdef __x86_64__
    BOOL wow64 = FALSE;
#endif
    ULONG n = 0;

#ifdef __x86_64__
    if (own) status = __wine_walk_thread_frames( thread, NULL, own, 0, want, frames->addr, frames->stack, &n );
#else
    /* Wine's i386 RtlCaptureContext gives the state its caller returns to
     * (Eip and Ebp from its caller's frame): our caller's return address
     * is that Eip, which the chain from Ebp does not hold */
    if (own)
    {
        frames->addr[0] = (void *)CONTEXT_PC( own );
        frames->stack[0] = (void *)CONTEXT_FRAME( own );
        status = __wine_walk_thread_frames( thread, NULL, own, 0, want - 1, frames->addr + 1, frames->stack + 1, &n );
        n++;
    }
#endif
#ifdef __x86_64__  /* the registers a blocked thread publishes are its 64-bit ones */
    else if (walk_blocked_thread( thread, info, frames, want, &status, &wow64 ))
        return status_to_error( status );
    else if (wow64 && walk_blocked_wow64_thread( thread, info, want, frames->addr, frames->stack, &frames->count,
                                                 &status ))
        return status_to_error( status );
    else if (wow64)
        return status_to_error( walk_held_wow64_thread( thread, info, want, frames->addr, frames->stack,
                                                        &frames->count ) );
#elif defined(__i386__)  /* a blocked WoW64 thread's 32-bit registers are in its CPU area */
    else if (walk_blocked_wow64_thread( thread, info, want, frames->addr, frames->stack, &frames->count, &status ))
        return status_to_error( status );
    else  /* a 32-bit caller's other threads are WoW64 threads */
        return status_to_error( walk_held_wow64_thread( thread, info, want, frames->addr, frames->stack,
                                                        &frames->count ) );
#endif
#ifndef __i386__
    else
    {
        CONTEXT context;

        if (SuspendThread( thread ) == (DWORD)-1) return GetLastError();
        context.ContextFlags = CONTEXT_FULL;
        if (!GetThreadContext( thread, &context ))
        {
            DWORD error = GetLastError();
            ResumeThread( thread );
            return error;
        }
        frames->addr[0] = (void *)CONTEXT_PC( &context );
        frames->stack[0] = (void *)CONTEXT_FRAME( &context );
        status = __wine_walk_thread_frames( thread, info, &context, 0, want - 1, frames->addr + 1,
                                            frames->stack + 1, &n );
        n++;
        ResumeThread( thread );
    }
#endif
    if (!status) frames->count = n;
    return status_to_error( status );
}

static void store_frame( void *buffer, ULONG i, DWORD flags, void *addr, void *stack, DWORD pid )
{
    /* arguments travel in registers on x86_64 and are not recoverable; x86
     * ones are not known to be where a frame's caller put them: zero */
    if (flags & STACKSNAP_EXTENDED_INFO)
    {
        CallSnapshotEx *ex = (CallSnapshotEx *)buffer + i;
        memset( ex, 0, sizeof(*ex) );
        ex->dwReturnAddr = (DWORD_PTR)addr;
        ex->dwFramePtr = (DWORD_PTR)stack;
        ex->dwCurProc = pid;
    }
    else if (flags & STACKSNAP_NEW_VM)
    {
        CallSnapshot3 *s3 = (CallSnapshot3 *)buffer + i;
        memset( s3, 0, sizeof(*s3) );
        s3->dwReturnAddr = (DWORD_PTR)addr;
        s3->dwFramePtr = (DWORD_PTR)stack;
        s3->dwActvProc = pid;
        s3->dwVMProc = pid;
    }
    else ((CallSnapshot *)buffer)[i].dwReturnAddr = (DWORD_PTR)addr;
}

/* The thread to walk: the current one, walked from 'own', a context its
 * caller captured, or another one, described by one query to the server. */
struct target
{
    HANDLE                   thread;
    CONTEXT                 *own;
    THREAD_BASIC_INFORMATION info;
    NTSTATUS                 status;       /* of the query */
    NTSTATUS                 read_status;  /* may we read its process? */
    DWORD                    access_error; /* does the handle grant WALK_ACCESS? */
};

/* The one check of a handle's rights: a real handle, even to the calling
 * thread, must grant WALK_ACCESS; the pseudo-handle grants everything. */
static DWORD check_walk_access( HANDLE thread )
{
    OBJECT_BASIC_INFORMATION info;

    if (thread == GetCurrentThread()) return ERROR_SUCCESS;
    if (NtQueryObject( thread, ObjectBasicInformation, &info, sizeof(info), NULL )) return ERROR_INVALID_HANDLE;
    if ((info.GrantedAccess & WALK_ACCESS) == WALK_ACCESS) return ERROR_SUCCESS;
    TRACE( "handle %p grants %#lx\n", thread, info.GrantedAccess );
    return ERROR_ACCESS_DENIED;
}

/* The query: on x86_64 it also asks whether the caller may read the
 * thread's process (PROCESS_VM_READ, its token of the moment), which the
 * walk then takes as asked; an i386 walk of another process opens it. */
static void query_target( struct target *target )
{
#ifdef __x86_64__
    target->status = __wine_query_walk_target( target->thread, &target->info, &target->read_status );
#else
    target->read_status = STATUS_SUCCESS;
    target->status = NtQueryInformationThread( target->thread, ThreadBasicInformation, &target->info,
                                               sizeof(target->info), NULL );
#endif
}

static ULONG call_stack( struct target *target, ULONG max, void *buffer, DWORD flags, DWORD skip )
{
    struct frames frames = { 0 };
    ULONG i, count = 0, want;
    DWORD error, pid;

    if ((flags & ~KNOWN_FLAGS) || ((flags & STACKSNAP_EXTENDED_INFO) && (flags & STACKSNAP_NEW_VM)) ||
        !max || !buffer)
    {
        SetLastError( ERROR_INVALID_PARAMETER );
        return 0;
    }
    if (target->access_error)
    {
        SetLastError( target->access_error );
        return 0;
    }
    if (target->own) pid = GetCurrentProcessId();
    else if (target->status || target->info.ExitStatus != STATUS_PENDING)
    {
        SetLastError( ERROR_INVALID_HANDLE );
        return 0;
    }
    else if (target->read_status)
    {
        /* a thread of a process we may not read is not suspended for nothing */
        SetLastError( status_to_error( target->read_status ) );
        return 0;
    }
    else pid = HandleToULong( target->info.ClientId.UniqueProcess );

    /* one frame more than asked for tells whether the stack goes on */
    want = skip >= MAX_FRAMES || max >= MAX_FRAMES ? MAX_FRAMES : min( MAX_FRAMES, skip + max + 1 );
    frames.addr = malloc( want * sizeof(void *) );
    frames.stack = malloc( want * sizeof(void *) );
    if (!frames.addr || !frames.stack) error = ERROR_NOT_ENOUGH_MEMORY;
    else if (!(error = walk_thread( target->thread, &target->info, target->own, &frames, want )) &&
             skip >= frames.count)
        error = ERROR_INVALID_PARAMETER;

    if (!error)
    {
        count = min( frames.count - skip, max );
        if (frames.count - skip > max && (flags & STACKSNAP_FAIL_IF_INCOMPLETE))
        {
            error = ERROR_INSUFFICIENT_BUFFER;
            if (!(flags & STACKSNAP_RETURN_FRAMES_ON_ERROR)) count = 0;
        }
        for (i = 0; i < count; i++)
            store_frame( buffer, i, flags, frames.addr[skip + i], frames.stack[skip + i], pid );
    }
    free( frames.addr );
    free( frames.stack );

    TRACE( "%lu frames, error %lu\n", count, error );
    if (error || (flags & STACKSNAP_RETURN_FRAMES_ON_ERROR)) SetLastError( error );
    return count;
}

/***********************************************************************
 *      GetThreadCallStack (COREDLL.@)
 */
ULONG WINAPI GetThreadCallStack( HANDLE thread, ULONG max, void *frames, DWORD flags, DWORD skip )
{
    struct target target = { thread };
    CONTEXT context;

    TRACE( "(%p, %lu, %p, %#lx, %lu)\n", thread, max, frames, flags, skip );

    target.access_error = check_walk_access( thread );
    if (thread != GetCurrentThread())
    {
        query_target( &target );
        if (target.status || HandleToULong( target.info.ClientId.UniqueThread ) != GetCurrentThreadId())
            return call_stack( &target, max, frames, flags, skip );
    }
    RtlCaptureContext( &context );
    target.thread = GetCurrentThread();
    target.own = &context;
    return call_stack( &target, max, frames, flags, skip );
}

/***********************************************************************
 *      GetCallStackSnapshot (COREDLL.@)
 */
ULONG WINAPI GetCallStackSnapshot( ULONG max, CallSnapshot frames[], DWORD flags, DWORD skip )
{
    struct target target = { GetCurrentThread() };
    CONTEXT context;

    TRACE( "(%lu, %p, %#lx, %lu)\n", max, frames, flags, skip );

    RtlCaptureContext( &context );
    target.own = &context;
    return call_stack( &target, max, frames, flags, skip );
}

/*
 * GetThreadCallStack of a blocked 32-bit (WoW64) thread, without suspending it
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
#include <string.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winbase.h"
#include "winternl.h"

#include "wine/debug.h"
#include "wine/exception.h"
#include "wine/wait_chain.h"
#include "wine/memory_file.h"
#include "wow64_walk.h"

WINE_DEFAULT_DEBUG_CHANNEL(callstack);

/*
 * A WoW64 thread runs its 32-bit code until it makes a system call; the
 * call goes through wow64cpu, which stores the 32-bit registers in the
 * thread's CPU area (the 64-bit TEB's TlsSlots[WOW64_TLS_CPURESERVED]: a
 * WOW64_CPURESERVED, then the i386 context at its 4-byte alignment) and
 * calls wow64.dll, whose 64-bit code makes the 64-bit system call. A
 * thread whose blocked frame (blocked_frame.h) has an odd count is inside
 * such a call, so its 32-bit registers are in its CPU area and do not
 * change, and neither does its 32-bit stack, until the count does. Read
 * the count, the CPU area and the stack, then the count again; keep the
 * walk only if it is the same. See docs/BLOCKED_WALKS.md, "WoW64 threads".
 */
struct cpu_area
{
    WOW64_CPURESERVED reserved;
    WOW64_CONTEXT     context;  /* read up to ExtendedRegisters */
};
C_ASSERT( FIELD_OFFSET( struct cpu_area, context ) == 4 );
#define CPU_AREA_READ FIELD_OFFSET( struct cpu_area, context.ExtendedRegisters )

/* a WoW64 thread's 64-bit TEB, in this process (pid 0) or another */
struct wow64_thread
{
    ULONG   pid;
    ULONG64 teb64;
};

/* 'size' bytes at 'addr', above 4 GB, of the thread's process, for a
 * 32-bit caller: Wine 10.0 puts a thread's CPU area on its 64-bit stack,
 * at the top of the address space. The server reads it (a read that
 * stops no thread: patch server-read-memory-unstopped). */
static NTSTATUS read_high_memory( const struct wow64_thread *target, ULONG64 addr, void *buffer, SIZE_T size )
{
#ifdef __i386__
    OBJECT_ATTRIBUTES attr = { sizeof(attr) };
    CLIENT_ID id = { ULongToHandle( target->pid ), 0 };
    HANDLE process = GetCurrentProcess();
    ULONG64 done = 0;
    NTSTATUS status;

    if (target->pid && (status = NtOpenProcess( &process, PROCESS_VM_READ, &attr, &id ))) return status;
    status = NtWow64ReadVirtualMemory64( process, addr, buffer, size, &done );
    if (target->pid) NtClose( process );
    return !status && done != size ? STATUS_PARTIAL_COPY : status;
#else
    return STATUS_PARTIAL_COPY;  /* a 64-bit caller reads every address */
#endif
}

/* 'size' bytes at 'addr' of the thread's process, each read a fresh one */
static NTSTATUS read_thread_memory( const struct wow64_thread *target, ULONG64 addr, void *buffer, SIZE_T size )
{
    NTSTATUS ret = STATUS_SUCCESS;

    if ((ULONG_PTR)addr != addr) return read_high_memory( target, addr, buffer, size );
    if (target->pid) return __wine_read_process_memory( target->pid, (const void *)(ULONG_PTR)addr, buffer, size );
    __TRY
    {
        memcpy( buffer, (const void *)(ULONG_PTR)addr, size );
        __asm__ __volatile__( "" ::: "memory" );
    }
    __EXCEPT_PAGE_FAULT
    {
        ret = STATUS_ACCESS_VIOLATION;  /* the thread is gone, and its TEB with it */
    }
    __ENDTRY
    return ret;
}

/* The blocked frame's count: in this process one 8-byte load (an i386
 * unsigned long long is otherwise read in two halves) */
static NTSTATUS read_count( const struct wow64_thread *target, unsigned long long *seq )
{
    ULONG64 addr = target->teb64 + BLOCKED_FRAME_TEB_OFFSET + FIELD_OFFSET( struct blocked_frame, seq );
    NTSTATUS ret = STATUS_SUCCESS;

    if (target->pid || (ULONG_PTR)addr != addr) return read_thread_memory( target, addr, seq, sizeof(*seq) );
    __TRY
    {
        *seq = __atomic_load_n( (unsigned long long *)(ULONG_PTR)addr, __ATOMIC_SEQ_CST );
    }
    __EXCEPT_PAGE_FAULT
    {
        ret = STATUS_ACCESS_VIOLATION;
    }
    __ENDTRY
    return ret;
}

/* The 64-bit TEB of the thread: a 64-bit caller has it; a 32-bit caller
 * has the 32-bit TEB (0 for a thread of a 64-bit process, 0x2000 for one
 * that has not run yet), whose WowTebOffset leads back */
static BOOL find_teb64( const THREAD_BASIC_INFORMATION *info, struct wow64_thread *target )
{
    ULONG pid = HandleToULong( info->ClientId.UniqueProcess );

    target->pid = pid == GetCurrentProcessId() ? 0 : pid;
    target->teb64 = (ULONG_PTR)info->TebBaseAddress;
    if (target->teb64 < 0x10000) return FALSE;
#ifdef __i386__
    {
        LONG offset = 0;

        if (read_thread_memory( target, target->teb64 + FIELD_OFFSET( TEB, WowTebOffset ), &offset, sizeof(offset) ) ||
            offset >= 0 || target->teb64 < (ULONG)-offset)
            return FALSE;
        target->teb64 += offset;
    }
#endif
    return TRUE;
}

static NTSTATUS walk_wow64_frames( HANDLE thread, const THREAD_BASIC_INFORMATION *info, WOW64_CONTEXT *context,
                                   ULONG count, void **frames, void **frame_ptrs, ULONG *n )
{
#ifdef __x86_64__
    return __wine_walk_wow64_frames( thread, info, context, 0, count, frames, frame_ptrs, n );
#else
    return __wine_walk_thread_frames( thread, info, (CONTEXT *)context, 0, count, frames, frame_ptrs, n );
#endif
}

/* Walk a blocked WoW64 thread's 32-bit frames from the registers wow64
 * saved: TRUE if the walk stands (or the thread's process may not be read:
 * *status says so), FALSE if the caller must hold the thread still */
BOOL walk_blocked_wow64_thread( HANDLE thread, const THREAD_BASIC_INFORMATION *info, ULONG want, void **frames,
                                void **frame_ptrs, ULONG *count, NTSTATUS *status )
{
    struct wow64_thread target;
    struct cpu_area cpu;
    unsigned long long seq, again;
    ULONG64 area = 0;
    ULONG n = 0;

    if (want < 2 || !find_teb64( info, &target )) return FALSE;
    if ((*status = read_count( &target, &seq )) == STATUS_ACCESS_DENIED) return TRUE;
    if (*status || !(seq & 1)) return FALSE;
    if (read_thread_memory( &target, target.teb64 + FIELD_OFFSET( TEB64, TlsSlots[WOW64_TLS_CPURESERVED] ),
                            &area, sizeof(area) ) ||
        !area || read_thread_memory( &target, area, &cpu, CPU_AREA_READ ) ||
        cpu.reserved.Machine != IMAGE_FILE_MACHINE_I386 || !cpu.context.Eip)
        return FALSE;

    frames[0] = ULongToPtr( cpu.context.Eip );
    frame_ptrs[0] = ULongToPtr( cpu.context.Ebp );
    *status = walk_wow64_frames( thread, info, &cpu.context, want - 1, frames + 1, frame_ptrs + 1, &n );
    __asm__ __volatile__( "" ::: "memory" );
    /* the walk stands only if the thread was in the same blocking call all along */
    if (!read_count( &target, &again ) && again == seq)
    {
        TRACE( "WoW64 thread %04lx walked blocked, not suspended\n", HandleToULong( info->ClientId.UniqueThread ) );
        *count = n + 1;
        return TRUE;
    }
    TRACE( "WoW64 thread %04lx left its wait during the walk\n", HandleToULong( info->ClientId.UniqueThread ) );
    return FALSE;
}

/*
 * A WoW64 thread held still for its 32-bit context: Wine gives a thread
 * stopped in 64-bit code the registers its CPU area holds, and in
 * wow64cpu's entry thunk, after it has left 32-bit code for a system call
 * and before it has stored them, those are its previous system call's (a
 * walk from them gives frames the stack no longer holds). Wine 10.0 says
 * where a thread stopped when asked (CONTEXT_EXCEPTION_REQUEST): in 64-bit
 * code outside a system call (CONTEXT_EXCEPTION_ACTIVE), the thread is let
 * go on and stopped again, at most STALE_TRIES times; one that is still
 * there is not walked (STATUS_DEVICE_BUSY: ERROR_BUSY) rather than walked
 * from another call's registers. Wine 8.0 does not say in the context: the
 * layer's suspend handler marks such a stop in the 64-bit TEB while the
 * thread is held (WOW64_STOP_TEB_OFFSET, ntdll's wow64_stop.h). A thread
 * someone else holds suspended cannot go on: it is walked as it is (a
 * thread made suspended that has not run yet reports 64-bit code too, and
 * its CPU area holds its start: docs/X86_WALKS.md, "Limits"). On success
 * the thread is left suspended.
 */
#define STALE_TRIES 32

static NTSTATUS get_wow64_context( HANDLE thread, WOW64_CONTEXT *context )
{
#ifdef __x86_64__
    return RtlWow64GetThreadContext( thread, context );
#else
    return NtGetContextThread( thread, (CONTEXT *)context );
#endif
}

/* Was the thread, held still, stopped in 64-bit code outside a system call? */
static BOOL is_stale_stop( const struct wow64_thread *target, const WOW64_CONTEXT *context )
{
    ULONG64 mark = 0;

    if (context->ContextFlags & WOW64_CONTEXT_EXCEPTION_REPORTING)  /* Wine 10.0 */
        return !!(context->ContextFlags & WOW64_CONTEXT_EXCEPTION_ACTIVE);
    /* written before the thread sent the context we got, cleared once resumed */
    return target && !read_thread_memory( target, target->teb64 + WOW64_STOP_TEB_OFFSET, &mark, sizeof(mark) ) &&
           mark == WOW64_STOP_IN_64BIT_CODE;
}

static NTSTATUS suspend_wow64_thread( HANDLE thread, const THREAD_BASIC_INFORMATION *info, WOW64_CONTEXT *context )
{
    struct wow64_thread target;
    BOOL have_teb = find_teb64( info, &target );
    unsigned int tries;
    NTSTATUS status;
    ULONG held;

    for (tries = 0;; tries++)
    {
        if ((status = NtSuspendThread( thread, &held ))) return status;
        context->ContextFlags = WOW64_CONTEXT_CONTROL | WOW64_CONTEXT_INTEGER | WOW64_CONTEXT_EXCEPTION_REQUEST;
        if ((status = get_wow64_context( thread, context ))) break;
        if (held || !is_stale_stop( have_teb ? &target : NULL, context )) return STATUS_SUCCESS;
        if (tries == STALE_TRIES)
        {
            NtResumeThread( thread, NULL );
            WARN( "thread %p stays in 64-bit code: not walked\n", thread );
            return STATUS_DEVICE_BUSY;
        }
        NtResumeThread( thread, NULL );
        TRACE( "thread %p stopped in 64-bit code: once more\n", thread );
        /* it leaves the thunk in a few instructions, once it runs: the
         * next stop must come after it has (a millisecond, after a few) */
        if (tries < 4) NtYieldExecution();
        else Sleep( 1 );
    }
    NtResumeThread( thread, NULL );
    return status;
}

/* Walk a WoW64 thread's 32-bit frames held still (above): 'frames' gets
 * its Eip then its return addresses, 'count' their number */
NTSTATUS walk_held_wow64_thread( HANDLE thread, const THREAD_BASIC_INFORMATION *info, ULONG want, void **frames,
                                 void **frame_ptrs, ULONG *count )
{
    WOW64_CONTEXT context;
    NTSTATUS status;
    ULONG n = 0;

    if ((status = suspend_wow64_thread( thread, info, &context ))) return status;
    frames[0] = ULongToPtr( context.Eip );
    frame_ptrs[0] = ULongToPtr( context.Ebp );
    status = walk_wow64_frames( thread, info, &context, want - 1, frames + 1, frame_ptrs + 1, &n );
    NtResumeThread( thread, NULL );
    if (!status) *count = n + 1;
    return status;
}

#endif  /* __x86_64__ || __i386__ */

/*
 * The registers of a thread blocked in a system call, published for walks
 * that do not suspend it
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

#ifndef __WINE_NTDLL_BLOCKED_FRAME_H
#define __WINE_NTDLL_BLOCKED_FRAME_H

#include "wine/wait_chain.h"

/* after the wait record, before the 32-bit TEB at teb_offset, in the gap no
 * TEB field covers (see wait_record.h) */
#ifdef _WIN64
C_ASSERT( sizeof(TEB) <= WAIT_RECORD_TEB_OFFSET );
C_ASSERT( WAIT_RECORD_TEB_OFFSET + 16 <= BLOCKED_FRAME_TEB_OFFSET );  /* struct wait_record */
C_ASSERT( BLOCKED_FRAME_TEB_OFFSET + sizeof(struct blocked_frame) <= 0x2000 );
C_ASSERT( FIELD_OFFSET( CONTEXT, Rip ) - FIELD_OFFSET( CONTEXT, Rax ) == 16 * sizeof(ULONG64) );
#endif

#if defined(__x86_64__) && defined(WINE_UNIX_LIB)

/*
 * Unix side only. The outermost blocking call entered from a system call
 * (server_wait, the futex wait of NtWaitForAlertByThreadId, a sleep in
 * NtDelayExecution, the read() or poll() of NtReadFile on a pipe, FIFO or
 * character device) publishes the registers of its syscall frame, and what
 * of the thread's memory the call may write while it blocks; a
 * suspension (wait_suspend, in a signal handler, which may set the context)
 * and a nested blocking call invalidate them, and a suspension that gives
 * back the context published publishes it again. Only the thread writes
 * its frame, but a signal handler may run between any two of its
 * instructions: every change of the count is one atomic operation, so the
 * count only grows (no value comes back), and the count becomes odd only
 * by a compare-and-swap from the even value the same publication set
 * before writing the registers, which fails if a handler changed it in
 * between. See docs/BLOCKED_WALKS.md.
 */
/* amd64_thread_data()->syscall_frame, which signal_x86_64.c pins at this TEB
 * offset for its assembly: NULL until the thread is set up to enter user
 * mode (a server wait may come before) */
#define SYSCALL_FRAME_TEB_OFFSET 0x328

static inline BOOL blocked_frame_has_syscall_frame(void)
{
    return *(void * volatile *)((char *)NtCurrentTeb() + SYSCALL_FRAME_TEB_OFFSET) != NULL;
}

static inline volatile struct blocked_frame *current_blocked_frame(void)
{
    return (volatile struct blocked_frame *)((char *)NtCurrentTeb() + BLOCKED_FRAME_TEB_OFFSET);
}

/* makes the count even, and different from what any reader read; returns it */
static inline unsigned long long blocked_frame_invalidate(void)
{
    volatile struct blocked_frame *frame = current_blocked_frame();
    unsigned long long old = frame->seq;

    while (!__atomic_compare_exchange_n( &frame->seq, &old, (old | 1) + 1, FALSE, __ATOMIC_SEQ_CST,
                                         __ATOMIC_SEQ_CST ))
        ;
    return (old | 1) + 1;
}

/* The thread is about to block in a call it entered from user mode, which
 * may write the 'size' bytes at 'addr' while it blocks (a read()'s buffer,
 * written by the kernel), and nothing else of the thread's memory. */
static inline void blocked_frame_enter_write( const void *addr, SIZE_T size )
{
    volatile struct blocked_frame *frame = current_blocked_frame();
    unsigned long long seq;
    CONTEXT context;
    unsigned int i;

    seq = blocked_frame_invalidate();
    if (__atomic_fetch_add( &frame->depth, 1, __ATOMIC_SEQ_CST )) return;  /* nested: stays invalid */
    if (!blocked_frame_has_syscall_frame()) return;
    frame->write_start = (ULONG_PTR)addr;
    frame->write_end = (ULONG_PTR)addr + size;
    /* the syscall frame: the registers of the user-mode code that called in */
    context.ContextFlags = CONTEXT_AMD64 | CONTEXT_INTEGER | CONTEXT_CONTROL;
    if (NtGetContextThread( GetCurrentThread(), &context )) return;
    for (i = 0; i < 17; i++) frame->regs[i] = (&context.Rax)[i];
    __atomic_compare_exchange_n( &frame->seq, &seq, seq + 1, FALSE, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST );
}

/* the same for a wait, which writes nothing of the thread's memory */
static inline void blocked_frame_enter(void)
{
    blocked_frame_enter_write( NULL, 0 );
}

/* The thread was suspended inside a blocking call (wait_suspend, which made
 * the count 'seq' then) and is about to get 'context' back into its syscall
 * frame: if that is what it published, nobody set its context, and the
 * frame is published again, for walks that do not suspend it. */
static inline void blocked_frame_resume( unsigned long long seq, const CONTEXT *context )
{
    volatile struct blocked_frame *frame = current_blocked_frame();
    unsigned int i;

    if (!frame->depth ||
        (context->ContextFlags & (CONTEXT_INTEGER | CONTEXT_CONTROL)) != (CONTEXT_INTEGER | CONTEXT_CONTROL))
        return;
    for (i = 0; i < 17; i++) if (frame->regs[i] != (&context->Rax)[i]) return;
    __atomic_compare_exchange_n( &frame->seq, &seq, seq + 1, FALSE, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST );
}

/* the thread stops blocking: its stack may change from now on */
static inline void blocked_frame_leave(void)
{
    volatile struct blocked_frame *frame = current_blocked_frame();

    blocked_frame_invalidate();
    if (frame->depth) __atomic_fetch_sub( &frame->depth, 1, __ATOMIC_SEQ_CST );
}

#endif

#endif  /* __WINE_NTDLL_BLOCKED_FRAME_H */

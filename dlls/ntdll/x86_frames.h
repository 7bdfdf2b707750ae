/*
 * Stack back-traces of 32-bit x86 code: the EBP frame chain
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

#ifndef __WINE_NTDLL_X86_FRAMES_H
#define __WINE_NTDLL_X86_FRAMES_H

/*
 * x86 code has no .pdata: Windows' x86 RtlWalkFrameChain and
 * RtlCaptureStackBackTrace follow the chain of saved frame pointers, each
 * frame [EBP] = the caller's EBP, [EBP+4] = the return address into the
 * caller (docs/X86_WALKS.md). The same rules serve the i386 ntdll walking
 * its own thread (backtrace.c) and the x86_64 ntdll walking a WoW64
 * thread's 32-bit stack (thread_frames.c), through a reader that may fail.
 * Everything read is checked before use and the walk is bounded by the
 * stack's size: a frame must lie inside the stack, above the one before
 * it, and its return address must be neither 0 nor in the stack. The
 * bounds and the count live in registers: the loop is stock Wine's EBP
 * walk plus those checks (make bench BENCH=backtrace_bench32).
 * Nothing of ours is included from here.
 */

struct x86_stack
{
    ULONG low;    /* TEB.Tib.StackLimit (or DeallocationStack) */
    ULONG high;   /* TEB.Tib.StackBase */
};

typedef BOOL (*x86_read_func)( void *ctx, ULONG addr, void *buffer, ULONG size );

/* Walk the frames from 'ebp', the frame pointer of the innermost function
 * whose caller is reported first. Drop 'skip' return addresses, store at
 * most 'count' in 'frames', and in 'frame_ptrs' (when given) the frame
 * pointer of the function each returns into. '*n' counts what is stored
 * as it is stored, so that a fault part-way (a reader that raises, a
 * buffer that faults) leaves a valid prefix in the caller's counter. */
static inline void x86_walk_frame_chain( x86_read_func read, void *ctx, const struct x86_stack *stack, ULONG ebp,
                                         ULONG skip, ULONG count, void **frames, void **frame_ptrs,
                                         volatile ULONG *n )
{
    const ULONG low = stack->low, high = stack->high;
    ULONG frame[2];  /* the caller's EBP, the return address */
    ULONG done = *n;

    if (high <= low || high - low < sizeof(frame)) return;
    /* each frame lies 4 bytes or more above the one before it, inside the
     * stack: the loop ends within (high - low) / 4 rounds */
    while (done < count)
    {
        if ((ebp & 3) || ebp < low || ebp > high - sizeof(frame)) break;
        if (!read( ctx, ebp, frame, sizeof(frame) )) break;
        /* no return address: the outermost frame (the thread's start) */
        if (frame[1] < 0x10000) break;
        /* a return address into the stack is no return address */
        if (frame[1] - low < high - low) break;
        if (skip) skip--;
        else
        {
            /* volatile: the stores are kept in order, so that a fault on
             * a bad buffer leaves in *n only the frames stored */
            if (frame_ptrs) ((void * volatile *)frame_ptrs)[done] = ULongToPtr( frame[0] );
            ((void * volatile *)frames)[done] = ULongToPtr( frame[1] );
            *n = ++done;
        }
        /* the next frame is above this one, or the chain ends here */
        if (frame[0] <= ebp) break;
        ebp = frame[0];
    }
}

#endif  /* __WINE_NTDLL_X86_FRAMES_H */

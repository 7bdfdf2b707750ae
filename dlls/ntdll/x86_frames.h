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
 * loop that stores is stock Wine's EBP walk plus those checks, a compare
 * each, and this thread's stack is read with plain loads (no reader), so
 * that it costs what stock Wine's does a frame (make bench
 * BENCH=backtrace_bench32).
 * Nothing of ours is included from here.
 */

struct x86_stack
{
    ULONG low;    /* TEB.Tib.StackLimit (or DeallocationStack) */
    ULONG high;   /* TEB.Tib.StackBase */
};

/* reads 'size' bytes at 'addr' of the stack walked; NULL: this process's,
 * where they lie */
typedef BOOL (*x86_read_func)( void *ctx, ULONG addr, void *buffer, ULONG size );

/* Read the frame at 'ebp' into 'frame' and check its return address: none
 * below 0x10000 (the outermost frame, the thread's start, has none) and
 * none inside the stack [low, high). Without a reader, the stack is this
 * thread's, read where it lies (faults are the caller's to catch): two
 * loads the compiler keeps in registers. */
static inline BOOL x86_read_frame( x86_read_func read, void *ctx, ULONG low, ULONG high, ULONG ebp,
                                   ULONG frame[2] )
{
    if (!read)
    {
        frame[0] = ((const ULONG *)ULongToPtr( ebp ))[0];
        frame[1] = ((const ULONG *)ULongToPtr( ebp ))[1];
    }
    else if (!read( ctx, ebp, frame, 2 * sizeof(ULONG) )) return FALSE;
    return frame[1] >= 0x10000 && (frame[1] < low || frame[1] >= high);
}

/* Whether the next frame 'next' may follow the one at 'ebp': 4-aligned,
 * above it and with its 8 bytes below the stack's top. The first frame is
 * checked against the bottom too; each next one is above it. */
static inline BOOL x86_next_frame_ok( ULONG ebp, ULONG next, ULONG top )
{
    return !(next & 3) && next > ebp && next <= top;
}

/* Walk the frames from 'ebp', the frame pointer of the innermost function
 * whose caller is reported first. Drop 'skip' return addresses, store at
 * most 'count' in 'frames', and in 'frame_ptrs' (when given) the frame
 * pointer of the function each returns into. '*n' counts what is stored
 * as it is stored, so that a fault part-way (a reader that raises, a
 * buffer that faults) leaves a valid prefix in the caller's counter.
 * Each next frame lies above the one before it, inside the stack: each
 * loop ends within (high - low) / 4 rounds. The frames skipped have a loop
 * of their own, so that the one that stores has nothing else to count. */
static inline void x86_walk_frame_chain( x86_read_func read, void *ctx, const struct x86_stack *stack, ULONG ebp,
                                         ULONG skip, ULONG count, void **frames, void **frame_ptrs,
                                         volatile ULONG *n )
{
    const ULONG low = stack->low, high = stack->high;
    ULONG frame[2];  /* the caller's EBP, the return address */
    ULONG top, done = *n;

    if (high <= low || high - low < sizeof(frame) || done >= count) return;
    top = high - sizeof(frame);
    if ((ebp & 3) || ebp < low || ebp > top) return;
    for (; skip; skip--)
    {
        if (!x86_read_frame( read, ctx, low, high, ebp, frame )) return;
        if (!x86_next_frame_ok( ebp, frame[0], top )) return;
        ebp = frame[0];
    }
    for (;;)
    {
        if (!x86_read_frame( read, ctx, low, high, ebp, frame )) return;
        /* volatile: the stores are kept in order, so that a fault on a bad
         * buffer leaves in *n only the frames stored */
        if (frame_ptrs) ((void * volatile *)frame_ptrs)[done] = ULongToPtr( frame[0] );
        ((void * volatile *)frames)[done] = ULongToPtr( frame[1] );
        *n = ++done;
        if (done == count || !x86_next_frame_ok( ebp, frame[0], top )) return;
        ebp = frame[0];
    }
}

#endif  /* __WINE_NTDLL_X86_FRAMES_H */

/*
 * Where a WoW64 thread was stopped: published while it is held suspended
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

#ifndef __WINE_NTDLL_WOW64_STOP_H
#define __WINE_NTDLL_WOW64_STOP_H

#include "wine/wait_chain.h"

/* after the blocked frame, before the 32-bit wait record: the gap no TEB
 * field covers (wait_record.h) */
#ifdef _WIN64
C_ASSERT( BLOCKED_FRAME_TEB_OFFSET + sizeof(struct blocked_frame) <= WOW64_STOP_TEB_OFFSET );
C_ASSERT( WOW64_STOP_TEB_OFFSET + sizeof(ULONG64) <= WAIT_RECORD32_TEB_OFFSET );
#endif

#if defined(__x86_64__) && defined(WINE_UNIX_LIB)

static inline volatile ULONG64 *wow64_stop_mark(void)
{
    return (volatile ULONG64 *)((char *)NtCurrentTeb() + WOW64_STOP_TEB_OFFSET);
}

/* The suspend signal's handler, for a stop outside a system call: the
 * context is the interrupted code's, and 'cs64' the selector of 64-bit
 * code. Only a WoW64 thread writes; the compiler barrier keeps the store
 * before the context goes to the server (a system call: the CPU's). */
static inline void wow64_stop_publish( const CONTEXT *context, USHORT cs64 )
{
    if (!NtCurrentTeb()->WowTebOffset || context->SegCs != cs64) return;
    *wow64_stop_mark() = WOW64_STOP_IN_64BIT_CODE;
    __asm__ __volatile__( "" ::: "memory" );
}

/* resumed: the next stop writes its own */
static inline void wow64_stop_clear(void)
{
    __asm__ __volatile__( "" ::: "memory" );
    if (NtCurrentTeb()->WowTebOffset && *wow64_stop_mark()) *wow64_stop_mark() = 0;
}

#endif  /* __x86_64__ && WINE_UNIX_LIB */

#endif  /* __WINE_NTDLL_WOW64_STOP_H */

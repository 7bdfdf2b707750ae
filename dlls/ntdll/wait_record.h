/*
 * Wait records: what a thread waits for where the server cannot see it
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

#ifndef __WINE_NTDLL_WAIT_RECORD_H
#define __WINE_NTDLL_WAIT_RECORD_H

#include "wine/wait_chain.h"

/* Used on both sides of ntdll, only on paths that are about to block: an
 * uncontended lock never gets here. Recording costs a few loads and stores,
 * no system call. The outermost wait wins: a critical section that waits
 * through RtlWaitOnAddress stays recorded as a critical section. */

#ifdef _WIN64
C_ASSERT( sizeof(TEB) <= WAIT_RECORD_TEB_OFFSET );
#endif
C_ASSERT( WAIT_RECORD_TEB_OFFSET + sizeof(struct wait_record) <= BLOCKED_FRAME_TEB_OFFSET );
/* the 32-bit record: after the blocked frame, before the 32-bit TEB (teb_offset) */
C_ASSERT( BLOCKED_FRAME_TEB_OFFSET + sizeof(struct blocked_frame) <= WAIT_RECORD32_TEB_OFFSET );
C_ASSERT( WAIT_RECORD32_TEB_OFFSET + sizeof(struct wait_record) <= 0x2000 );
C_ASSERT( WAIT_RECORD32_TEB_OFFSET % 16 == 0 );

/* KUSER_SHARED_DATA.InterruptTime: the server's monotonic clock, which it
 * stores there at least every 16 ms. Reading it is a memory load. */
struct wait_record_clock
{
    ULONG LowPart;
    LONG  High1Time;
    LONG  High2Time;
};

static inline ULONGLONG wait_record_now(void)
{
    const volatile struct wait_record_clock *clock = (const volatile struct wait_record_clock *)(0x7ffe0000 + 0x08);
    ULONG low = 0;
    LONG high = 0;
    int i;

    /* the server stores High2Time, LowPart, High1Time in that order */
    for (i = 0; i < 16; i++)
    {
        high = clock->High1Time;
        low = clock->LowPart;
        if (high == clock->High2Time) break;
    }
    return (ULONGLONG)(ULONG)high << 32 | low;
}

#ifdef _WIN64

static inline volatile struct wait_record *current_wait_record(void)
{
    return (volatile struct wait_record *)((char *)NtCurrentTeb() + WAIT_RECORD_TEB_OFFSET);
}

/* one aligned store: the server never sees half a record */
static inline void wait_record_publish( volatile struct wait_record *record, ULONGLONG what )
{
    record->what = what;
}

#else

/* 32-bit code runs in WoW64 mode only (the layer has no 32-bit unix side):
 * its record is in the 64-bit TEB, found through TEB32.WowTebOffset. A
 * thread without a 64-bit TEB records nothing. */
static inline volatile struct wait_record *current_wait_record(void)
{
    LONG offset = NtCurrentTeb()->WowTebOffset;

    if (offset >= 0) return NULL;
    return (volatile struct wait_record *)((char *)NtCurrentTeb() + offset + WAIT_RECORD32_TEB_OFFSET);
}

/* A plain 64-bit store is two 32-bit ones on i386; an aligned 8-byte
 * atomic store is one (x87 fild/fistp or SSE), so the kind and the object
 * still appear together. */
static inline void wait_record_publish( volatile struct wait_record *record, ULONGLONG what )
{
    __atomic_store_n( &record->what, what, __ATOMIC_RELEASE );
}

#endif

/* Returns whether this call made the record; pass that to wait_record_end. */
static inline BOOL wait_record_begin( enum wait_record_kind kind, const void *object )
{
    volatile struct wait_record *record = current_wait_record();

    if (!record || record->what) return FALSE;
    record->since = wait_record_now();
    __asm__ __volatile__( "" ::: "memory" );  /* x86 keeps stores in order: since is seen first */
    wait_record_publish( record, (ULONGLONG)kind << WAIT_RECORD_KIND_SHIFT |
                                 ((ULONG_PTR)object & WAIT_RECORD_OBJECT_MASK) );
    return TRUE;
}

static inline void wait_record_end( BOOL recorded )
{
    if (recorded) wait_record_publish( current_wait_record(), 0 );
}

#endif  /* __WINE_NTDLL_WAIT_RECORD_H */

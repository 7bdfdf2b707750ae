/*
 * Wait records: what a thread waits for where the wineserver cannot see it
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

#ifndef __WINE_WINE_WAIT_CHAIN_H
#define __WINE_WINE_WAIT_CHAIN_H

/*
 * Waits the server never sees (a contended critical section, SRW lock,
 * condition variable or WaitOnAddress waits on a futex; a non-alertable
 * Sleep sleeps on the unix side) are recorded by the waiting thread itself
 * in a wait record, which the server reads when it walks a chain.
 *
 * The record lives in the thread's TEB block, in the gap between the end of
 * the 64-bit TEB (0x1838) and the 32-bit TEB at teb_offset (0x2000): memory
 * that no field of Wine's or Windows' TEB covers and that nothing else reads
 * or writes. Wine zeroes it with the rest of the block for every new thread.
 */
#define WAIT_RECORD_TEB_OFFSET 0x1f00

enum wait_record_kind
{
    WAIT_RECORD_NONE,
    WAIT_RECORD_CRITICAL_SECTION,     /* object: the RTL_CRITICAL_SECTION */
    WAIT_RECORD_SRW_EXCLUSIVE,        /* object: the RTL_SRWLOCK */
    WAIT_RECORD_SRW_SHARED,
    WAIT_RECORD_CONDITION_VARIABLE,   /* object: the RTL_CONDITION_VARIABLE */
    WAIT_RECORD_ADDRESS,              /* object: the address of WaitOnAddress */
    WAIT_RECORD_SLEEP,                /* no object */
    WAIT_RECORD_KIND_COUNT
};

/* 'what' packs the kind above the 48 bits of a user-space address, so that
 * a single aligned store publishes both; the thread stores 'since' first. */
struct wait_record
{
    unsigned long long what;      /* kind << WAIT_RECORD_KIND_SHIFT | object */
    unsigned long long since;     /* KUSER_SHARED_DATA.InterruptTime when the wait began */
};

#define WAIT_RECORD_KIND_SHIFT 56
#define WAIT_RECORD_OBJECT_MASK ((1ull << WAIT_RECORD_KIND_SHIFT) - 1)

#endif  /* __WINE_WINE_WAIT_CHAIN_H */

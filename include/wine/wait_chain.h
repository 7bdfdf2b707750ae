/*
 * Wait records and blocked frames: what a thread waits for where the wineserver
 * cannot see it, and the registers of a thread blocked in a system call
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

/*
 * A WoW64 thread runs 32-bit code whose NtCurrentTeb() is the 32-bit TEB,
 * at the 64-bit TEB + 0x2000 (TEB32.WowTebOffset is -0x2000). The waits
 * its 32-bit ntdll records (critical sections, SRW locks, condition
 * variables, WaitOnAddress) have a record of their own, in the same gap of
 * the 64-bit TEB, after the blocked frame below and before the 32-bit TEB:
 * the 64-bit side of the same thread (wow64.dll, the unix side's sleeps)
 * keeps using the one above, so neither overwrites the other's. The
 * layout is the same; 'what' holds a 32-bit address, and the object's
 * layout is the 32-bit one (a critical section's OwningThread is 4 bytes
 * at offset 12). Offset from the 64-bit TEB, as the server sees threads.
 */
#define WAIT_RECORD32_TEB_OFFSET 0x1fc0

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

/*
 * A thread node's wait_kind may also say what the server found itself: the
 * thread is blocked in a host system call that no server wait and no wait
 * record describes (a read of a Unix pipe or FIFO in ReadFile, a poll() in a
 * driver's unix library). 'object' is then the Linux system call number, and
 * 'name' what its file descriptors refer to as /proc shows them ("pipe:[123]",
 * "/tmp/fifo", "socket:[456]"; a poll's descriptors separated by ", "). No
 * record holds this kind: record kinds fit in 8 bits.
 */
#define WAIT_HOST_CALL 0x100

/* A thread node's wait_kind may also say what the server sees itself: the
 * thread waits for messages on its own queue (GetMessage, WaitMessage), the
 * idle state of a thread with windows. No record holds this kind. */
#define WAIT_MESSAGE_QUEUE 0x200

/* ... or, at the end of a chain, the objects of a server wait that the walk
 * does not follow (an event, a semaphore, every object of a wait on
 * several): 'object' is how many there are, 'name' each one's type and
 * full name ("Event \BaseNamedObjects\Ready, Semaphore"), cut to fit. */
#define WAIT_OBJECTS 0x400

/* 'what' packs the kind above the 48 bits of a user-space address, so that
 * a single aligned store publishes both; the thread stores 'since' first. */
struct wait_record
{
    unsigned long long what;      /* kind << WAIT_RECORD_KIND_SHIFT | object */
    unsigned long long since;     /* KUSER_SHARED_DATA.InterruptTime when the wait began */
};

#define WAIT_RECORD_KIND_SHIFT 56
#define WAIT_RECORD_OBJECT_MASK ((1ull << WAIT_RECORD_KIND_SHIFT) - 1)

/*
 * A thread blocked in a system call has its user-mode registers frozen in
 * its syscall frame, and its stack above them unchanged, until the call
 * returns. The blocking paths of ntdll's unix side (a server wait, a futex
 * wait, a sleep) publish those registers here, after the wait record, with
 * a sequence count: odd while the thread is blocked and the registers are
 * those of its frame, made even before the call returns. A reader that
 * reads an odd count, then the registers, walks the stack, then reads the
 * same count again walked a stack that did not change: the thread was
 * inside the same blocking call all along (docs/BLOCKED_WALKS.md). Only the
 * thread itself writes; 'depth' counts blocking calls nested in signal
 * handlers, which publish the registers again (a context may have been set).
 * A blocking read() writes into its caller's buffer while the count is odd:
 * [write_start, write_end) says which bytes it may write (empty for the
 * waits, which write none), and a reader drops a walk of a stack they lie in.
 */
#define BLOCKED_FRAME_TEB_OFFSET 0x1f10

struct blocked_frame
{
    unsigned long long seq;         /* odd: blocked, regs are current */
    unsigned long long depth;       /* the thread's own: nesting of blocking calls */
    unsigned long long regs[17];    /* Rax ... R15, Rip: CONTEXT's order */
    unsigned long long write_start; /* what the blocking call may write of the */
    unsigned long long write_end;   /* thread's memory while the count is odd */
};

/*
 * Where a WoW64 thread was stopped, for a walker that holds it suspended
 * (Wine 8.0, which does not report it in the context; 10.0 does, with
 * CONTEXT_EXCEPTION_REQUEST). Wine gives a WoW64 thread stopped in 64-bit
 * code the 32-bit registers of its CPU area; stopped outside a system
 * call, in wow64cpu's entry thunk, those are still the previous call's.
 * While such a thread is held in its suspend signal handler it has 1 here,
 * 0 otherwise; it writes 1 before it sends the server its context, so a
 * walker that got that context reads this stop's value. Only WoW64
 * threads write it. Offset from the 64-bit TEB, between the blocked frame
 * and the 32-bit wait record.
 */
#define WOW64_STOP_TEB_OFFSET 0x1fb8
#define WOW64_STOP_IN_64BIT_CODE 1

/*
 * One node of a wait chain, as the get_wait_chain request answers (an
 * array of them) and __wine_get_wait_chain gives them: type and status are
 * WCT_OBJECT_TYPE and WCT_OBJECT_STATUS values. Declared here rather than
 * in the server protocol, so that its readers (advapi32, the watchdog,
 * wctdump) need no server header.
 */
struct wait_chain_node
{
    unsigned int       type;
    unsigned int       status;
    unsigned int       pid;               /* thread nodes */
    unsigned int       tid;               /* thread nodes; host lock nodes: its owner's Linux thread id */
    unsigned int       wait_time;         /* ms in the current wait */
    unsigned int       context_switches;
    unsigned int       unanswered_ms;     /* thread nodes: ms messages waited in its queue unasked for (0: none) */
    unsigned int       wait_kind;         /* thread nodes: WAIT_RECORD_*, WAIT_HOST_CALL, WAIT_MESSAGE_QUEUE, WAIT_OBJECTS */
    unsigned int       name_len;          /* bytes in name */
    unsigned long long object;            /* the recorded object (thread nodes), a critical section or host lock (its node) */
    WCHAR              name[128];         /* full NT name (object nodes), what a host call or wait is on; not terminated */
};

#endif  /* __WINE_WINE_WAIT_CHAIN_H */

/*
 * Wait Chain Traversal: the nodes of the wineserver's get_wait_chain reply
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

/* One node of a wait chain, as the server walks it. The values of 'type'
 * and 'status' are those of WCT_OBJECT_TYPE and WCT_OBJECT_STATUS. */
struct wait_chain_node
{
    unsigned int       type;
    unsigned int       status;
    unsigned int       pid;               /* thread nodes */
    unsigned int       tid;
    unsigned int       wait_time;         /* ms in the current wait */
    unsigned int       context_switches;
    unsigned long long teb;               /* thread nodes: where its critical section wait is recorded */
    unsigned int       name_len;          /* object nodes: bytes in name */
    unsigned int       padding;
    WCHAR              name[128];         /* object nodes: full NT name, not terminated */
};

/* A thread blocked in EnterCriticalSection records the section here, in its
 * TEB, just before it blocks, and clears it when it has the section. */
#define WCT_TEB_CS_WAIT_OFFSET 0x1768     /* TEB64.Reserved5[0] */

#endif  /* __WINE_WINE_WAIT_CHAIN_H */

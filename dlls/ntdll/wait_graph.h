/*
 * The wait graph a deadlock report is made of: cycles, kinds of nodes and
 * their names
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

#ifndef __WINE_WAIT_GRAPH_H
#define __WINE_WAIT_GRAPH_H

#include "wine/wait_chain.h"

/*
 * One model for both reporters of the layer: the deadlock watchdog (inside
 * the hung process, watchdog.c) and wctdump (outside it, programs/wctdump),
 * so that both see the same cycles and call things by the same names. Like
 * walk_names.c, wait_graph.c is built into both; it allocates nothing.
 *
 * A chain (__wine_get_wait_chain) that ends in a cycle ends with a thread
 * node that repeats an earlier one: the cycle runs from that earlier node
 * to the last. A deadlock is known by the set of its threads, kept sorted,
 * whichever of them its chain was asked for.
 */

/* the most deadlocks a report, or a watch, tells apart */
#define WAIT_GRAPH_MAX_CYCLES 256

/* the most frames of a thread's stack a report shows */
#define WAIT_GRAPH_MAX_FRAMES 64

extern DWORD wait_graph_cycle_start( const struct wait_chain_node *nodes, DWORD count );
extern unsigned int wait_graph_cycle_threads( const struct wait_chain_node *cycle, DWORD count,
                                              DWORD *tids );
extern BOOL wait_graph_is_host_lock( const struct wait_chain_node *node );
extern BOOL wait_graph_is_abandoned_lock( const struct wait_chain_node *node );
extern BOOL wait_graph_same_threads( const DWORD *a, unsigned int a_count, const DWORD *b,
                                     unsigned int b_count );

/* Names: words for people when 'id' is FALSE, identifiers (the JSON report's,
 * the graph's) when it is TRUE. The kind of a wait is the wait_kind of a
 * thread node: a wait record's kind, WAIT_HOST_CALL, WAIT_MESSAGE_QUEUE or
 * WAIT_OBJECTS; NULL for one that has no words. */
extern const WCHAR *wait_graph_type_name( unsigned int type, BOOL id );
extern const WCHAR *wait_graph_status_name( unsigned int status, BOOL id );
extern const WCHAR *wait_graph_kind_name( unsigned int kind, BOOL id );
extern const WCHAR *wait_graph_host_call_name( ULONGLONG nr );

#endif  /* __WINE_WAIT_GRAPH_H */

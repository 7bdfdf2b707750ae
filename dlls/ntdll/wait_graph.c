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

#include <stdarg.h>
#include <string.h>

#include "windef.h"
#include "winbase.h"
#include "wct.h"
#include "wine/host_calls.h"
#include "wait_graph.h"

/* Where the cycle of a chain starts: the first node of the thread that the
 * chain's last node repeats ('count' when there is none). */
DWORD wait_graph_cycle_start( const struct wait_chain_node *nodes, DWORD count )
{
    DWORD i;

    if (!count || nodes[count - 1].type != WctThreadType) return count;
    for (i = 0; i < count - 1; i++)
        if (nodes[i].type == WctThreadType && nodes[i].tid == nodes[count - 1].tid) return i;
    return count;
}

/* Is the node a host lock (a glibc mutex or rwlock a thread sleeps on in
 * futex())? Its tid is its owner's Linux thread id; Abandoned: that owner
 * exited holding it, and its waiters wait for ever. */
BOOL wait_graph_is_host_lock( const struct wait_chain_node *node )
{
    return node->type == WctUnknownType && node->object;
}

/* Is it a host lock whose owner exited holding it? */
BOOL wait_graph_is_abandoned_lock( const struct wait_chain_node *node )
{
    return wait_graph_is_host_lock( node ) && node->status == WctStatusAbandoned;
}

/* The threads of a cycle (the 'count' nodes of a chain from its
 * wait_graph_cycle_start on), sorted, in 'tids' (room for
 * WCT_MAX_NODE_COUNT); how many, 0 when there are none. */
unsigned int wait_graph_cycle_threads( const struct wait_chain_node *cycle, DWORD count, DWORD *tids )
{
    DWORD i, j, tmp;
    unsigned int n = 0;

    /* the last node repeats the first */
    for (i = 0; i + 1 < count && n < WCT_MAX_NODE_COUNT; i++)
        if (cycle[i].type == WctThreadType) tids[n++] = cycle[i].tid;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && tids[j - 1] > tids[j]; j--)
        {
            tmp = tids[j];
            tids[j] = tids[j - 1];
            tids[j - 1] = tmp;
        }
    return n;
}

/* Are two cycles' sorted threads the same deadlock? */
BOOL wait_graph_same_threads( const DWORD *a, unsigned int a_count, const DWORD *b, unsigned int b_count )
{
    return a_count == b_count && !memcmp( a, b, a_count * sizeof(*a) );
}

const WCHAR *wait_graph_type_name( unsigned int type, BOOL id )
{
    static const WCHAR * const text[] =
    {
        L"object of unknown type", L"critical section", L"SendMessage", L"mutex", L"ALPC port", L"COM call",
        L"the end of a thread", L"the end of a process", L"thread", L"COM activation", L"object of unknown type",
        L"socket I/O", L"SMB I/O"
    };
    static const WCHAR * const ids[] =
    {
        L"unknown", L"critical_section", L"send_message", L"mutex", L"alpc", L"com", L"thread_wait",
        L"process_wait", L"thread", L"com_activation", L"unknown", L"socket_io", L"smb_io"
    };

    if (type >= ARRAY_SIZE(ids)) type = 0;
    return id ? ids[type] : text[type];
}

const WCHAR *wait_graph_status_name( unsigned int status, BOOL id )
{
    static const WCHAR * const text[] =
    {
        L"state unknown", L"no access", L"running", L"blocked", L"thread unknown", L"thread unknown",
        L"owned", L"not owned", L"abandoned", L"state unknown", L"error"
    };
    static const WCHAR * const ids[] =
    {
        L"unknown", L"no_access", L"running", L"blocked", L"pid_only", L"pid_only_rpcss", L"owned",
        L"not_owned", L"abandoned", L"unknown", L"error"
    };

    if (status >= ARRAY_SIZE(ids)) status = 0;
    return id ? ids[status] : text[status];
}

const WCHAR *wait_graph_kind_name( unsigned int kind, BOOL id )
{
    static const WCHAR * const text[] =
    {
        NULL, L"in EnterCriticalSection", L"acquiring an SRW lock exclusively", L"acquiring an SRW lock shared",
        L"sleeping on a condition variable", L"in WaitOnAddress", L"in Sleep"
    };
    static const WCHAR * const ids[] =
    {
        NULL, L"critical_section", L"srw_lock_exclusive", L"srw_lock_shared", L"condition_variable",
        L"address", L"sleep"
    };
    C_ASSERT( ARRAY_SIZE(ids) == WAIT_RECORD_KIND_COUNT );

    switch (kind)
    {
    case WAIT_HOST_CALL: return id ? L"host_call" : L"in a host system call";
    case WAIT_MESSAGE_QUEUE: return id ? L"messages" : L"waiting for messages";
    case WAIT_OBJECTS: return id ? L"objects" : L"on objects";
    }
    if (kind >= ARRAY_SIZE(ids)) return NULL;
    return id ? ids[kind] : text[kind];
}

/* the name of the Linux system call 'nr' of a WAIT_HOST_CALL node, or NULL */
const WCHAR *wait_graph_host_call_name( ULONGLONG nr )
{
    static const struct { unsigned int nr; const WCHAR *name; } calls[] =
    {
#define HOST_CALL( nr, name, args ) { nr, L ## #name },
        HOST_CALLS
#undef HOST_CALL
    };
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(calls); i++) if (calls[i].nr == nr) return calls[i].name;
    return NULL;
}

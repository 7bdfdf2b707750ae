/*
 * wctdump: the report as a graph, in Graphviz's language
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ntstatus.h>
#define WIN32_NO_STATUS
#include <windows.h>
#include <winternl.h>
#include <tlhelp32.h>
#include <wct.h>

#include "wctdump.h"

/*
 * The wait graph of the report, for 'dot' (Graphviz) to draw: a box for
 * each thread, inside a cluster for its process; an ellipse for each lock
 * or object a chain goes through; an edge for each step of a chain ("waits
 * for", "owned by"). The edges of each deadlock's cycle are red and carry
 * its number, its threads are filled. Every thread of the processes
 * reported is drawn, running ones too, so that the picture is the report.
 *
 * Node names: "t<tid>" for a thread (thread ids are unique in the system),
 * "o<n>" for an object, numbered in the order met. Two nodes of chains are
 * the same object when they have the same type and name; without a name,
 * the same type and address in the same process; without either (an
 * unnamed mutex, the end of a thread), the same type and the same thread
 * after it (the owner, the thread whose end is awaited); else each is its
 * own.
 *
 * Objects, edges and the threads reported are found through hash tables,
 * so that a report of thousands of threads is drawn in linear time.
 */
#define MAX_EDGES  4096
#define EDGE_SLOTS (2 * MAX_EDGES)   /* a power of two, twice the most edges */

struct dot_object
{
    const struct wait_chain_node *node;
    DWORD                         pid;     /* of the thread that waits for it */
    DWORD                         next;    /* tid of the thread after it (pid for a thread of
                                            * another process not followed), 0: none */
    DWORD                         waiter;  /* tid of the thread before it */
};

/* A slot of a hash table holds the index + 1 of an entry (of 'tids': the
 * entry), 0 when free; a table has a power of two of them, twice its most
 * entries. */
struct dot_graph
{
    struct dot_object *objects;
    unsigned int       object_count, object_max;
    DWORD             *object_slots, object_mask;
    struct { unsigned int from, to; } edges[MAX_EDGES];   /* drawn: thread ids, objects' ids | 1 << 31 */
    unsigned int       edge_count;
    unsigned int       edge_slots[EDGE_SLOTS];
    DWORD             *tids, tid_mask;  /* the ids of the threads reported (never 0), in slots */
};

/* FNV-1a */
static unsigned int hash_bytes( unsigned int hash, const void *data, size_t size )
{
    const unsigned char *p = data;

    while (size--) hash = (hash ^ *p++) * 16777619;
    return hash;
}

static unsigned int hash_dword( unsigned int hash, DWORD value )
{
    return hash_bytes( hash, &value, sizeof(value) );
}

/* A table of slots for 'count' entries, and the mask of its indices; NULL when out of memory. */
static void *alloc_slots( unsigned int count, DWORD *mask )
{
    unsigned int size = 16;

    while (size < 2 * count) size *= 2;
    *mask = size - 1;
    return calloc( size, sizeof(DWORD) );
}

/* Is thread 'tid' one of those reported? 'slot': where it is, or would go. */
static BOOL is_reported( const struct dot_graph *graph, DWORD tid, DWORD *slot )
{
    for (*slot = hash_dword( 2166136261u, tid ) & graph->tid_mask; graph->tids[*slot];
         *slot = (*slot + 1) & graph->tid_mask)
        if (graph->tids[*slot] == tid) return TRUE;
    return FALSE;
}

static BOOL same_object( const struct dot_object *a, const struct dot_object *b )
{
    if (a->node->type != b->node->type || a->node->name_len != b->node->name_len) return FALSE;
    if (a->node->name_len) return !memcmp( a->node->name, b->node->name, a->node->name_len );
    if (a->node->object || b->node->object) return a->node->object == b->node->object && a->pid == b->pid;
    if (a->next || b->next) return a->next == b->next;
    return a->waiter == b->waiter;
}

/* of what same_object compares: objects that are the same hash alike */
static unsigned int hash_object( const struct dot_object *object )
{
    const struct wait_chain_node *node = object->node;
    unsigned int hash = hash_dword( 2166136261u, node->type );

    if (node->name_len) return hash_bytes( hash, node->name, node->name_len );
    if (node->object) return hash_dword( hash_bytes( hash, &node->object, sizeof(node->object) ), object->pid );
    return hash_dword( hash, object->next ? object->next : object->waiter );
}

/* The number of the object at 'index' of a chain whose nodes are in the
 * processes 'pids', met before or new; 0: no room. */
static unsigned int object_id( struct dot_graph *graph, const struct wait_chain_node *nodes, DWORD count,
                               DWORD index, const DWORD *pids )
{
    struct dot_object object = { &nodes[index], pids[index] };
    DWORD slot;

    if (index + 1 < count && is_thread_node( &nodes[index + 1] ))
        object.next = nodes[index + 1].tid ? nodes[index + 1].tid : nodes[index + 1].pid;
    if (index && is_thread_node( &nodes[index - 1] )) object.waiter = nodes[index - 1].tid;
    for (slot = hash_object( &object ) & graph->object_mask; graph->object_slots[slot];
         slot = (slot + 1) & graph->object_mask)
        if (same_object( &graph->objects[graph->object_slots[slot] - 1], &object ))
            return graph->object_slots[slot];
    if (graph->object_count == graph->object_max) return 0;
    graph->objects[graph->object_count] = object;
    return graph->object_slots[slot] = ++graph->object_count;
}

/* a string for dot, quoted: other processes' names may hold anything */
static void print_dot_string( const WCHAR *str, int len )
{
    WCHAR buffer[2 * (MAX_PATH + 64) + 3];
    int i, n = 0;

    buffer[n++] = '"';
    for (i = 0; i < len && str[i] && n < ARRAY_SIZE(buffer) - 3; i++)
    {
        if (str[i] == '"' || str[i] == '\\') buffer[n++] = '\\';
        if (str[i] == '\n')
        {
            buffer[n++] = '\\';
            buffer[n++] = 'n';
        }
        else buffer[n++] = str[i] < 0x20 ? ' ' : str[i];
    }
    buffer[n++] = '"';
    buffer[n] = 0;
    print( L"%ls", buffer );
}

static void print_object_dot( const struct dot_object *object, unsigned int id )
{
    const struct wait_chain_node *node = object->node;
    WCHAR label[ARRAY_SIZE(node->name) + 64];
    int len;

    len = _snwprintf( label, ARRAY_SIZE(label) - 1, L"%ls", wait_graph_type_name( node->type, FALSE ) );
    if (node->name_len)
        len += _snwprintf( label + len, ARRAY_SIZE(label) - 1 - len, L"\n%.*ls",
                           (int)(node->name_len / sizeof(WCHAR)), node->name );
    else if (node->object)
        len += _snwprintf( label + len, ARRAY_SIZE(label) - 1 - len, L"\nat 0x%I64x", node->object );
    if (wait_graph_is_abandoned_lock( node ))
        len += _snwprintf( label + len, ARRAY_SIZE(label) - 1 - len, L"\nabandoned: owner exited" );
    print( L"  o%u [shape=ellipse, label=", id );
    print_dot_string( label, max( len, 0 ) );
    if (wait_graph_is_abandoned_lock( node )) print( L", color=orange" );
    print( L"];\n" );
}

static void print_thread_dot( const struct thread_report *report )
{
    const struct wait_chain_node *node = &report->nodes[0];
    WCHAR label[128];
    int len;

    len = _snwprintf( label, ARRAY_SIZE(label) - 1, L"thread %lu", report->tid );
    if (report->state == STATE_GONE) len += _snwprintf( label + len, 32, L"\nended" );
    else if (report->state == STATE_ERROR) len += _snwprintf( label + len, 32, L"\nno wait chain" );
    else if (report->count)
    {
        len += _snwprintf( label + len, 32, L"\n%ls", wait_graph_status_name( node->status, FALSE ) );
        if (is_blocked( report ) && node->wait_time) len += _snwprintf( label + len, 32, L" %u ms", node->wait_time );
    }
    print( L"    t%lu [shape=box, label=", report->tid );
    print_dot_string( label, max( len, 0 ) );
    if (report->state == STATE_DEADLOCK) print( L", style=filled, fillcolor=\"#ffcccc\", color=red" );
    else if (report->state == STATE_ORPHANED) print( L", style=filled, fillcolor=\"#ffe4b5\", color=orange" );
    print( L"];\n" );
}

/* The id of node 'index' of a chain: a thread's id; an object's number |
 * OBJECT_ID; a process's id | PROCESS_ID for a thread of another process
 * the chain did not follow (its id is not given). */
#define OBJECT_ID  0x80000000
#define PROCESS_ID 0x40000000

static unsigned int node_id( struct dot_graph *graph, const struct wait_chain_node *nodes, DWORD count,
                             DWORD index, const DWORD *pids )
{
    if (!is_thread_node( &nodes[index] )) return OBJECT_ID | object_id( graph, nodes, count, index, pids );
    return nodes[index].tid ? nodes[index].tid : PROCESS_ID | nodes[index].pid;
}

static void print_node_ref( unsigned int id )
{
    if (id & OBJECT_ID) print( L"o%u", id & ~OBJECT_ID );
    else if (id & PROCESS_ID) print( L"p%u", id & ~PROCESS_ID );
    else print( L"t%u", id );
}

/* the words of an edge from node 'a' to the next of its chain */
static const WCHAR *step_name( const struct wait_chain_node *a )
{
    switch (a->type)
    {
    case WctThreadType: return L"waits for";
    case WctThreadWaitType: return L"of";
    case WctSendMessageType: return L"sent to";
    default: return L"owned by";
    }
}

/* Adds the edge from 'from' to 'to', unless it is there (or there is no room): is it new? */
static BOOL add_edge( struct dot_graph *graph, unsigned int from, unsigned int to )
{
    unsigned int slot, i;

    for (slot = hash_dword( hash_dword( 2166136261u, from ), to ) & (EDGE_SLOTS - 1); (i = graph->edge_slots[slot]);
         slot = (slot + 1) & (EDGE_SLOTS - 1))
        if (graph->edges[i - 1].from == from && graph->edges[i - 1].to == to) return FALSE;
    if (graph->edge_count == MAX_EDGES) return FALSE;
    graph->edges[graph->edge_count].from = from;
    graph->edges[graph->edge_count++].to = to;
    graph->edge_slots[slot] = graph->edge_count;
    return TRUE;
}

/* Draws the steps of a thread's chain, each once. An object is in the
 * process of the thread that waits for it, the one before it. */
static void print_chain_dot( struct dot_graph *graph, const struct thread_report *report, DWORD pid )
{
    const struct wait_chain_node *nodes = report->nodes;
    DWORD pids[WCT_MAX_NODE_COUNT], i, start;
    unsigned int from, to, deadlock;

    for (i = 0; i < report->count; i++)
    {
        if (is_thread_node( &nodes[i] ) && nodes[i].pid) pid = nodes[i].pid;
        pids[i] = pid;
    }
    /* the steps from there on are the cycle's */
    start = report->cycle ? wait_graph_cycle_start( nodes, report->count ) : report->count;
    for (i = 0; i + 1 < report->count; i++)
    {
        from = node_id( graph, nodes, report->count, i, pids );
        to = node_id( graph, nodes, report->count, i + 1, pids );
        if (!add_edge( graph, from, to )) continue;

        deadlock = i >= start ? report->deadlock : 0;
        print( L"  " );
        print_node_ref( from );
        print( L" -> " );
        print_node_ref( to );
        print( L" [label=\"%ls", step_name( &nodes[i] ) );
        if (deadlock) print( L" (deadlock %u)\", color=red, fontcolor=red, penwidth=2];\n", deadlock );
        else print( L"\"];\n" );
    }
}

/* a thread that a chain reaches in a process not reported: drawn alone */
static void print_other_thread( const struct dot_graph *graph, const struct wait_chain_node *node )
{
    const WCHAR *name;
    DWORD slot;

    if (node->tid && is_reported( graph, node->tid, &slot )) return;
    name = process_name( node->pid );
    if (node->tid)
        print( L"  t%u [shape=box, style=dashed, label=\"thread %u\\nof process %u %ls\"];\n", node->tid,
               node->tid, node->pid, name ? name : L"" );
    else
        print( L"  p%u [shape=box, style=dashed, label=\"a thread of process %u %ls\"];\n", node->pid,
               node->pid, name ? name : L"" );
}

static void print_process_dot( const struct process_report *process )
{
    WCHAR label[MAX_PATH + 32];
    int len = _snwprintf( label, ARRAY_SIZE(label) - 1, L"process %lu %ls", process->pid, process->name );
    DWORD i;

    print( L"  subgraph cluster_%lu {\n    label=", process->pid );
    print_dot_string( label, max( len, 0 ) );
    print( L";\n" );
    for (i = 0; i < process->count; i++) print_thread_dot( &process->threads[i] );
    print( L"  }\n" );
}

void print_report_dot( struct process_report *processes, DWORD count )
{
    static struct dot_graph graph;
    DWORD i, j, k, slot, total = 0;

    memset( &graph, 0, sizeof(graph) );
    for (i = 0; i < count; i++) total += processes[i].count;
    graph.object_max = total * WCT_MAX_NODE_COUNT;
    graph.objects = calloc( graph.object_max + 1, sizeof(*graph.objects) );
    graph.object_slots = alloc_slots( graph.object_max, &graph.object_mask );
    graph.tids = alloc_slots( total, &graph.tid_mask );
    if (!graph.objects || !graph.object_slots || !graph.tids)
    {
        fprintf( stderr, "wctdump: out of memory: no graph drawn\n" );
        goto done;
    }
    for (i = 0; i < count; i++)
        for (j = 0; j < processes[i].count; j++)
            if (!is_reported( &graph, processes[i].threads[j].tid, &slot ))
                graph.tids[slot] = processes[i].threads[j].tid;

    print( L"digraph wctdump {\n  rankdir=LR;\n  node [fontname=\"sans-serif\", fontsize=10];\n"
           L"  edge [fontname=\"sans-serif\", fontsize=9];\n" );
    print( L"  label=\"wctdump: %u deadlock%ls\";\n  labelloc=t;\n", findings.cycle_count,
           findings.cycle_count == 1 ? L"" : L"s" );
    for (i = 0; i < count; i++) print_process_dot( &processes[i] );
    for (i = 0; i < count; i++)
        for (j = 0; j < processes[i].count; j++)
        {
            const struct thread_report *report = &processes[i].threads[j];

            for (k = 1; k < report->count; k++)
                if (is_thread_node( &report->nodes[k] )) print_other_thread( &graph, &report->nodes[k] );
            print_chain_dot( &graph, report, processes[i].pid );
        }
    for (i = 0; i < graph.object_count; i++) print_object_dot( &graph.objects[i], i + 1 );
    print( L"}\n" );
done:
    free( graph.objects );
    free( graph.object_slots );
    free( graph.tids );
}

/*
 * wctdump: the report as text
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

/* a blocked thread's own wait, after "blocked" */
static void print_own_wait( const struct wait_chain_node *node )
{
    const WCHAR *kind = wait_graph_kind_name( node->wait_kind, FALSE );
    const WCHAR *call = wait_graph_host_call_name( node->object );
    int len = node->name_len / sizeof(WCHAR);

    if (node->wait_kind == WAIT_MESSAGE_QUEUE) print( L" %ls", kind );
    else if (node->wait_kind == WAIT_HOST_CALL)
    {
        /* the object is the system call's number, not an address */
        if (call) print( L" in the host system call %ls()", call );
        else print( L" in host system call %I64u", node->object );
        if (len) print( L" on %.*ls", len, node->name );
    }
    else if (node->wait_kind == WAIT_OBJECTS && node->object > 1)
        print( L" on %I64u objects: %.*ls", node->object, len, node->name );
    else if (node->wait_kind == WAIT_OBJECTS) print( L" on %.*ls", len, node->name );
    else if (!kind) print( L" (on a wait that wait chains do not follow: an event, a semaphore, ...)" );
    else if (node->wait_kind == WAIT_RECORD_SLEEP) print( L" %ls", kind );
    else print( L" %ls at 0x%I64x", kind, node->object );
}

static void print_thread_node( const struct wait_chain_node *node, DWORD pid, BOOL last )
{
    const WCHAR *name;

    if (node->status == WctStatusPidOnly || node->status == WctStatusPidOnlyRpcss)
    {
        if ((name = process_name( node->pid ))) print( L"a thread of process %lu %ls", node->pid, name );
        else print( L"a thread of process %lu", node->pid );
        if (!other_processes) print( L" (not followed: --other-processes follows it)" );
        return;
    }
    if (node->pid == pid) print( L"thread %lu", node->tid );
    else if ((name = process_name( node->pid ))) print( L"thread %lu of process %lu %ls", node->tid, node->pid, name );
    else print( L"thread %lu of process %lu", node->tid, node->pid );
    print( L" (%ls", wait_graph_status_name( node->status, FALSE ) );
    if (last && node->pid != pid && !other_processes && node->status == WctStatusBlocked)
        print( L"; not followed into that process: --other-processes follows it" );
    /* the end of a chain: what that thread itself waits in */
    else if (last && node->status == WctStatusBlocked) print_own_wait( node );
    print( L")" );
}

/* 'last': the chain ends at it */
static void print_object_node( const struct wait_chain_node *node, BOOL last )
{
    const WCHAR *type = wait_graph_type_name( node->type, FALSE );
    const WCHAR *status = wait_graph_status_name( node->status, FALSE );
    int len = node->name_len / sizeof(WCHAR);

    /* a host lock names itself ("host mutex at 0x..."), and its owner by its Linux id */
    if (wait_graph_is_abandoned_lock( node ))
        print( L"%.*ls (abandoned: its owner, Linux thread %u, exited holding it)", len, node->name, node->tid );
    else if (wait_graph_is_host_lock( node ) && last)
        print( L"%.*ls (owned by Linux thread %u, which is not a Wine thread)", len, node->name, node->tid );
    else if (node->name_len && node->type == WctUnknownType) print( L"%.*ls (%ls)", len, node->name, status );
    else if (node->name_len)
        print( L"%ls \"%.*ls\" (%ls)", type, (int)(node->name_len / sizeof(WCHAR)), node->name, status );
    else if (node->object) print( L"%ls at 0x%I64x (%ls)", type, node->object, status );
    else print( L"%ls (%ls)", type, status );
}

static void print_node_text( const struct wait_chain_node *node, DWORD pid, BOOL last )
{
    if (is_thread_node( node )) print_thread_node( node, pid, last );
    else print_object_node( node, last );
}

static void print_stack_text( struct target *target, const struct thread_report *report, const WCHAR *indent )
{
    WCHAR where[NAME_LENGTH];
    DWORD i;

    for (i = 0; i < report->stack_count; i++)
    {
        describe_address( target, report->stack[i], where, ARRAY_SIZE(where) );
        print( L"%ls#%02lu %ls\n", indent, i, where );
    }
}

/* the first line of a thread after its id: its state */
static void print_state( const struct thread_report *report )
{
    switch (report->state)
    {
    case STATE_GONE:  print( L"ended while wctdump looked at it" ); return;
    case STATE_ERROR: print( L"no wait chain: %ls", error_text( report->error ) ); return;
    default: break;
    }
    print( L"%ls", wait_graph_status_name( report->nodes[0].status, FALSE ) );
    if (is_blocked( report ) && report->nodes[0].wait_time) print( L" for %u ms", report->nodes[0].wait_time );
    if (is_blocked( report ) && report->count == 1) print_own_wait( &report->nodes[0] );
    /* Windows calls a window not responding after 5 s without its thread
     * asking for a message that waits */
    if (report->nodes[0].unanswered_ms >= 5000)
        print( L"; not responding: a message has waited %u ms", report->nodes[0].unanswered_ms );
}

/* can two threads be printed as one: the same state, wait and stack? */
static BOOL same_group( const struct thread_report *a, const struct thread_report *b )
{
    if (a->state != b->state || a->state == STATE_DEADLOCK || a->state == STATE_ON_DEADLOCK) return FALSE;
    if (a->error != b->error || a->count != b->count || a->count > 1) return FALSE;
    if (a->count && (a->nodes[0].status != b->nodes[0].status || a->nodes[0].wait_kind != b->nodes[0].wait_kind ||
                     a->nodes[0].object != b->nodes[0].object || a->nodes[0].unanswered_ms || b->nodes[0].unanswered_ms))
        return FALSE;
    /* what they wait on: a host call's descriptors, the objects of a wait */
    if (a->count && (a->nodes[0].name_len != b->nodes[0].name_len ||
                     memcmp( a->nodes[0].name, b->nodes[0].name, a->nodes[0].name_len )))
        return FALSE;
    return a->stack_count == b->stack_count && !memcmp( a->stack, b->stack, a->stack_count * sizeof(a->stack[0]) );
}

static void print_thread_text( struct process_report *process, struct thread_report *report )
{
    DWORD i, n = 1, longest = report->count ? report->nodes[0].wait_time : 0;

    for (i = report - process->threads + 1; i < process->count; i++)
        if (!process->threads[i].printed && same_group( report, &process->threads[i] )) n++;
    if (n > 1)
    {
        print( L"  %lu threads in the same state with the same stack:", n );
        for (i = report - process->threads; i < process->count; i++)
        {
            struct thread_report *other = &process->threads[i];

            if (other != report && (other->printed || !same_group( report, other ))) continue;
            other->printed = TRUE;
            if (other->count) longest = max( longest, other->nodes[0].wait_time );
            print( L" %lu", other->tid );
        }
        print( L"\n    " );
        if (is_blocked( report ) && longest)
        {
            print( L"blocked for up to %lu ms", longest );
            if (report->count == 1) print_own_wait( &report->nodes[0] );
        }
        else print_state( report );
        print( L"\n" );
        print_stack_text( &process->target, report, L"    " );
        return;
    }
    report->printed = TRUE;
    print( L"  thread %lu: ", report->tid );
    print_state( report );
    if (report->state == STATE_DEADLOCK) print( L"  ** DEADLOCK %u ** (above)", report->deadlock );
    else if (report->state == STATE_ON_DEADLOCK) print( L"  (waits on deadlock %u)", report->deadlock );
    else if (report->state == STATE_ORPHANED) print( L"  ** WAITS FOR EVER: an abandoned host lock **" );
    print( L"\n" );
    if (report->count > 1 && report->state != STATE_DEADLOCK)
    {
        print( L"    waits for " );
        for (i = 1; i < report->count; i++)
        {
            if (i > 1) print( L"\n      -> " );
            print_node_text( &report->nodes[i], process->pid, i == report->count - 1 && !report->cycle );
        }
        if (report->cycle) print( L": a cycle" );
        print( L"\n" );
    }
    print_stack_text( &process->target, report, L"    " );
}

static void print_cycle_text( unsigned int index )
{
    const struct cycle *cycle = &findings.cycles[index];
    const WCHAR *name = process_name( cycle->pid );
    DWORD i;

    print( L"deadlock %u: %u thread%ls", index + 1, cycle->count, cycle->count == 1 ? L"" : L"s" );
    for (i = 0; i + 1 < cycle->node_count; i++)
        if (is_thread_node( &cycle->nodes[i] ) && cycle->nodes[i].pid != cycle->pid) break;
    if (i + 1 < cycle->node_count) print( L" of several processes\n" );
    else print( L" of process %lu %ls\n", cycle->pid, name ? name : L"" );
    for (i = 0; i < cycle->node_count; i++)
    {
        const struct wait_chain_node *node = &cycle->nodes[i];

        if (!is_thread_node( node ))
        {
            print( L"    waits for " );
            print_object_node( node, FALSE );
            print( L"\n" );
        }
        else if (i == cycle->node_count - 1)
            print( L"  which is thread %lu again: a cycle\n", node->tid );
        else
        {
            print( L"  %lsthread %lu", i ? L"held by " : L"", node->tid );
            if (node->pid != cycle->pid)
            {
                name = process_name( node->pid );
                print( L" of process %lu %ls", node->pid, name ? name : L"" );
            }
            if (node->wait_time) print( L", blocked for %lu ms", node->wait_time );
            print( L"\n" );
        }
    }
}

static const WCHAR *kind_phrase( unsigned int kind )
{
    switch (kind)
    {
    case WAIT_RECORD_SRW_EXCLUSIVE:
    case WAIT_RECORD_SRW_SHARED: return L"an SRW lock (std::mutex of MSVC's STL)";
    case WAIT_RECORD_CONDITION_VARIABLE: return L"a condition variable";
    case WAIT_RECORD_ADDRESS: return L"WaitOnAddress";
    case WAIT_RECORD_CRITICAL_SECTION: return L"a critical section nobody owns";
    case UNFOLLOWED_HOST_CALL: return L"a host system call (a read of a pipe or FIFO, a poll, ...)";
    case UNFOLLOWED_HOST_OWNER: return L"a host lock held by a thread that is not Wine's";
    default: return L"an event, a semaphore or another object without an owner";
    }
}

static void print_summary_text( const struct process_report *processes, DWORD count )
{
    unsigned int i, first = 1;
    DWORD threads = 0;

    for (i = 0; i < count; i++) threads += processes[i].count;
    if (findings.cycle_count)
    {
        print( L"%u deadlock%ls involving %u thread%ls", findings.cycle_count, findings.cycle_count == 1 ? L"" : L"s",
               findings.deadlocked, findings.deadlocked == 1 ? L"" : L"s" );
        if (findings.waiting)
            print( L"; %u more thread%ls wait%ls on %ls", findings.waiting, findings.waiting == 1 ? L"" : L"s",
                   findings.waiting == 1 ? L"s" : L"", findings.cycle_count == 1 ? L"it" : L"them" );
    }
    else if (verdict() == EXIT_CLEAN) print( L"no deadlock" );
    else if (verdict() == EXIT_ORPHANED) print( L"no deadlock, but threads wait for ever on abandoned host locks" );
    else print( L"no deadlock found, but not every chain could be followed" );
    print( L"\n" );
    if (findings.orphaned)
        print( L"%u blocked thread%ls wait%ls for ever on a host lock whose owner exited holding it\n",
               findings.orphaned, findings.orphaned == 1 ? L"" : L"s", findings.orphaned == 1 ? L"s" : L"" );
    if (findings.unfollowed)
    {
        print( L"%u blocked thread%ls wait%ls on something whose owner cannot be followed (",
               findings.unfollowed, findings.unfollowed == 1 ? L"" : L"s", findings.unfollowed == 1 ? L"s" : L"" );
        for (i = 0; i <= UNFOLLOWED_HOST_OWNER; i++)
        {
            if (!findings.unfollowed_kinds[i] || i == WAIT_RECORD_SRW_SHARED) continue;
            if (i == WAIT_RECORD_SRW_EXCLUSIVE) findings.unfollowed_kinds[i] += findings.unfollowed_kinds[WAIT_RECORD_SRW_SHARED];
            print( L"%ls%u on %ls", first ? L"" : L", ", findings.unfollowed_kinds[i], kind_phrase( i ) );
            first = 0;
        }
        print( L"): a deadlock through them would not show\n" );
    }
    if (findings.other_process)
        print( L"%u blocked thread%ls wait%ls on another process, not followed (--other-processes follows)\n",
               findings.other_process, findings.other_process == 1 ? L"" : L"s", findings.other_process == 1 ? L"s" : L"" );
    if (findings.not_responding)
        print( L"%u thread%ls not responding: messages have waited for %ls 5 s or more\n", findings.not_responding,
               findings.not_responding == 1 ? L" is" : L"s are", findings.not_responding == 1 ? L"it" : L"them" );
    if (findings.gone)
        print( L"%u thread%ls ended while wctdump looked at %ls\n", findings.gone, findings.gone == 1 ? L"" : L"s",
               findings.gone == 1 ? L"it" : L"them" );
    if (findings.errors)
        print( L"%u thread%ls gave no wait chain (below)\n", findings.errors, findings.errors == 1 ? L"" : L"s" );
    print( L"%lu thread%ls of %lu process%ls:", threads, threads == 1 ? L"" : L"s", count, count == 1 ? L"" : L"es" );
    for (i = 0; i < count; i++) print( L" %lu %ls", processes[i].pid, processes[i].name );
    print( L"\n" );
}

void print_report_text( struct process_report *processes, DWORD count )
{
    unsigned int i, j;

    print_summary_text( processes, count );
    for (i = 0; i < findings.cycle_count; i++)
    {
        print( L"\n" );
        print_cycle_text( i );
    }
    for (i = 0; i < count; i++)
    {
        struct process_report *process = &processes[i];

        print( L"\nprocess %lu %ls", process->pid, process->name );
        if (process->unix_pid) print( L" (Linux pid %d)", process->unix_pid );
        print( L"\n" );
        if (!process->readable)
            print( L"  (no call stacks: cannot read the process: %ls)\n", error_text( process->read_error ) );
        for (j = 0; j < process->count; j++)
            if (!process->threads[j].printed) print_thread_text( process, &process->threads[j] );
    }
}


void print_list( const DWORD *pids, DWORD count )
{
    DWORD i, threads;
    HANDLE snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPTHREAD, 0 );
    THREADENTRY32 entry = { sizeof(entry) };
    int unix_pid;

    for (i = 0; i < count; i++)
    {
        threads = 0;
        if (Thread32First( snapshot, &entry ))
            do if (entry.th32OwnerProcessID == pids[i]) threads++; while (Thread32Next( snapshot, &entry ));
        print( L"%8lu  %-24ls %3lu thread%ls", pids[i], process_name( pids[i] ), threads,
               threads == 1 ? L" " : L"s" );
        if ((unix_pid = unix_pid_of( pids[i] ))) print( L"  Linux pid %d", unix_pid );
        print( L"\n" );
    }
    CloseHandle( snapshot );
}

/*
 * wctdump: the report as JSON
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

static const WCHAR *state_id( enum thread_state state )
{
    static const WCHAR * const ids[] =
    {
        L"fine", L"deadlock", L"waits_on_deadlock", L"unfollowed", L"other_process", L"orphaned", L"gone", L"error"
    };
    return ids[state];
}

/* a node's name (a lock's, or what a thread waits on) as a JSON string */
static void print_node_name( const struct wait_chain_node *node )
{
    WCHAR name[ARRAY_SIZE(node->name) + 1];

    memcpy( name, node->name, node->name_len );
    name[node->name_len / sizeof(WCHAR)] = 0;
    print_json_string( name );
}

static void print_node_json( const struct wait_chain_node *node, BOOL first )
{
    const WCHAR *kind = wait_graph_kind_name( node->wait_kind, TRUE );
    const WCHAR *call = wait_graph_host_call_name( node->object );

    print( L"%ls{\"type\": \"%ls\", \"status\": \"%ls\"", first ? L"" : L", ",
           wait_graph_type_name( node->type, TRUE ), wait_graph_status_name( node->status, TRUE ) );
    if (is_thread_node( node ))
    {
        print( L", \"pid\": %u, \"tid\": %u", node->pid, node->tid );
        if (node->pid && process_name( node->pid ))
        {
            print( L", \"process_name\": " );
            print_json_string( process_name( node->pid ) );
        }
    }
    else
    {
        print( L", \"name\": " );
        print_node_name( node );
        if (wait_graph_is_host_lock( node )) print( L", \"owner_unix_tid\": %u", node->tid );
    }
    if (kind) print( L", \"wait\": \"%ls\"", kind );
    if (node->wait_kind == WAIT_OBJECTS)
    {
        print( L", \"objects\": " );
        print_node_name( node );
    }
    else if (node->wait_kind == WAIT_HOST_CALL)
    {
        if (call) print( L", \"call\": \"%ls\"", call );
        else print( L", \"call\": \"%I64u\"", node->object );
        print( L", \"on\": " );
        print_node_name( node );
    }
    else if (node->object) print( L", \"address\": \"0x%I64x\"", node->object );
    print( L"}" );
}

static void print_thread_json( struct target *target, const struct thread_report *report, BOOL first )
{
    WCHAR where[NAME_LENGTH];
    DWORD i;

    print( L"%ls\n      {\"tid\": %lu, \"state\": \"%ls\"", first ? L"" : L",", report->tid,
           state_id( report->state ) );
    if (report->state == STATE_GONE || report->state == STATE_ERROR)
    {
        print( L", \"error\": %lu, \"message\": ", report->error );
        print_json_string( report->state == STATE_GONE ? L"the thread ended while wctdump looked at it"
                                                       : error_text( report->error ) );
        print( L"}" );
        return;
    }
    print( L", \"status\": \"%ls\", \"wait_time_ms\": %u, \"context_switches\": %u, \"deadlock\": %ls,"
           L" \"waits_on_deadlock\": %ls",
           wait_graph_status_name( report->nodes[0].status, TRUE ), report->nodes[0].wait_time,
           report->nodes[0].context_switches, report->state == STATE_DEADLOCK ? L"true" : L"false",
           report->state == STATE_ON_DEADLOCK ? L"true" : L"false" );
    if (report->deadlock) print( L", \"deadlock_id\": %u", report->deadlock );
    if (report->nodes[0].unanswered_ms) print( L", \"unanswered_ms\": %u", report->nodes[0].unanswered_ms );
    print( L",\n       \"chain\": [" );
    for (i = 0; i < report->count; i++) print_node_json( &report->nodes[i], !i );
    print( L"],\n       \"stack\": [" );
    for (i = 0; i < report->stack_count; i++)
    {
        describe_address( target, report->stack[i], where, ARRAY_SIZE(where) );
        print( L"%ls{\"address\": \"0x%Ix\", \"where\": ", i ? L", " : L"", report->stack[i] );
        print_json_string( where );
        print( L"}" );
    }
    print( L"]}" );
}

void print_report_json( struct process_report *processes, DWORD count )
{
    static const WCHAR * const verdicts[] = { L"no_deadlock", L"deadlock", NULL, NULL, NULL, L"unfollowed", L"orphaned" };
    unsigned int i, j;

    print( L"{\"schema_version\": %u,\n  \"verdict\": \"%ls\", \"exit_status\": %d,\n  \"processes\": [",
           WCTDUMP_JSON_SCHEMA, verdicts[verdict()], verdict() );
    for (i = 0; i < count; i++)
    {
        print( L"%ls\n    {\"pid\": %lu, \"name\": ", i ? L"," : L"", processes[i].pid );
        print_json_string( processes[i].name );
        if (processes[i].unix_pid) print( L", \"unix_pid\": %d", processes[i].unix_pid );
        print( L", \"threads\": [" );
        for (j = 0; j < processes[i].count; j++)
            print_thread_json( &processes[i].target, &processes[i].threads[j], !j );
        print( L"]}" );
    }
    print( L"\n  ],\n  \"deadlock_cycles\": [" );
    for (i = 0; i < findings.cycle_count; i++)
    {
        print( L"%ls\n    {\"id\": %u, \"threads\": [", i ? L"," : L"", i + 1 );
        for (j = 0; j + 1 < findings.cycles[i].node_count; j++)
        {
            if (!is_thread_node( &findings.cycles[i].nodes[j] )) continue;
            print( L"%ls{\"pid\": %u, \"tid\": %u}", j ? L", " : L"", findings.cycles[i].nodes[j].pid, findings.cycles[i].nodes[j].tid );
        }
        print( L"]}" );
    }
    print( L"%ls],\n  \"deadlocks\": %u,\n  \"deadlocked_threads\": %u,\n  \"threads_waiting_on_deadlocks\": %u,\n"
           L"  \"unfollowed_threads\": %u,\n  \"other_process_threads\": %u,\n  \"orphaned_threads\": %u,\n"
           L"  \"threads_gone\": %u,\n  \"not_responding_threads\": %u\n}\n",
           findings.cycle_count ? L"\n  " : L"", findings.cycle_count, findings.deadlocked, findings.waiting, findings.unfollowed,
           findings.other_process, findings.orphaned, findings.gone, findings.not_responding );
}

/*
 * wctdump: the wait chains of the threads, and the deadlocks they show
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

struct findings findings;

static HWCT session;
static HWCT (WINAPI *pOpenThreadWaitChainSession)(DWORD, PWAITCHAINCALLBACK);
static BOOL (WINAPI *pGetThreadWaitChain)(HWCT, DWORD_PTR, DWORD, DWORD, DWORD *, WAITCHAIN_NODE_INFO *, BOOL *);
static void (WINAPI *pCloseThreadWaitChainSession)(HWCT);
static NTSTATUS (WINAPI *p__wine_get_wait_chain)( DWORD, DWORD, struct wait_chain_node *, ULONG, ULONG *, BOOL * );

/* Wait Chain Traversal, and ntdll's __wine_get_wait_chain where there is one;
 * FALSE, with the error set, where the system has no Wait Chain Traversal */
BOOL init_chains(void)
{
    HMODULE advapi32 = LoadLibraryW( L"advapi32.dll" ), ntdll = GetModuleHandleW( L"ntdll.dll" );

    p__wine_get_wait_chain = (void *)GetProcAddress( ntdll, "__wine_get_wait_chain" );
    pOpenThreadWaitChainSession = (void *)GetProcAddress( advapi32, "OpenThreadWaitChainSession" );
    pGetThreadWaitChain = (void *)GetProcAddress( advapi32, "GetThreadWaitChain" );
    pCloseThreadWaitChainSession = (void *)GetProcAddress( advapi32, "CloseThreadWaitChainSession" );
    if (!pOpenThreadWaitChainSession || !pGetThreadWaitChain || !pCloseThreadWaitChainSession)
    {
        SetLastError( ERROR_PROC_NOT_FOUND );
        return FALSE;
    }
    return (session = pOpenThreadWaitChainSession( 0, NULL )) != NULL;
}

void close_chains(void)
{
    pCloseThreadWaitChainSession( session );
}

BOOL is_blocked( const struct thread_report *report )
{
    return !report->error && report->count && report->nodes[0].status == WctStatusBlocked;
}

BOOL is_thread_node( const struct wait_chain_node *node )
{
    return node->type == WctThreadType;
}

/* Records the cycle a chain ends in, once, and sets the thread's state:
 * in the deadlock, or waiting on it. */
static void record_cycle( struct thread_report *report, DWORD pid )
{
    const struct wait_chain_node *nodes = report->nodes;
    DWORD start = wait_graph_cycle_start( nodes, report->count ), i;
    struct cycle *cycle;
    DWORD tids[WCT_MAX_NODE_COUNT];
    unsigned int n = wait_graph_cycle_threads( nodes + start, report->count - start, tids );
    BOOL member = FALSE;

    for (i = 0; i < n; i++) if (tids[i] == report->tid) member = TRUE;
    for (i = 0; i < findings.cycle_count; i++)
        if (wait_graph_same_threads( findings.cycles[i].tids, findings.cycles[i].count, tids, n )) break;
    if (i == findings.cycle_count && findings.cycle_count < WAIT_GRAPH_MAX_CYCLES)
    {
        cycle = &findings.cycles[findings.cycle_count++];
        memcpy( cycle->tids, tids, n * sizeof(*tids) );
        cycle->count = n;
        cycle->node_count = report->count - start;
        memcpy( cycle->nodes, nodes + start, cycle->node_count * sizeof(*nodes) );
        cycle->pid = nodes[start].pid ? nodes[start].pid : pid;
        findings.deadlocked += n;
    }
    report->deadlock = i + 1;
    report->state = member ? STATE_DEADLOCK : STATE_ON_DEADLOCK;
    if (!member) findings.waiting++;
}

/* The chain of a thread, asked for once: through ntdll's __wine_get_wait_chain
 * where there is one (it carries what a wait record says, which
 * WAITCHAIN_NODE_INFO has no room for), else through Wait Chain Traversal. */
void get_chain( struct thread_report *report, DWORD flags )
{
    WAITCHAIN_NODE_INFO info[WCT_MAX_NODE_COUNT];
    ULONG total = 0, i;
    NTSTATUS status;
    BOOL cycle = FALSE;

    if (p__wine_get_wait_chain)
    {
        status = p__wine_get_wait_chain( report->tid, flags, report->nodes, ARRAY_SIZE(report->nodes),
                                         &total, &cycle );
        if (status) report->error = RtlNtStatusToDosError( status );
        report->count = status ? 0 : min( total, WCT_MAX_NODE_COUNT );
    }
    else
    {
        report->count = WCT_MAX_NODE_COUNT;
        if (!pGetThreadWaitChain( session, 0, flags, report->tid, &report->count, info, &cycle ))
        {
            report->error = GetLastError();
            /* a chain too long still tells who waits for what */
            if (report->error == ERROR_MORE_DATA || report->error == ERROR_TOO_MANY_THREADS) report->error = 0;
        }
        if (report->error) report->count = 0;
        report->count = min( report->count, WCT_MAX_NODE_COUNT );
        for (i = 0; i < report->count; i++)
        {
            struct wait_chain_node *node = &report->nodes[i];

            memset( node, 0, sizeof(*node) );
            node->type = info[i].ObjectType;
            node->status = info[i].ObjectStatus;
            if (node->type == WctThreadType)
            {
                node->pid = info[i].ThreadObject.ProcessId;
                node->tid = info[i].ThreadObject.ThreadId;
                node->wait_time = info[i].ThreadObject.WaitTime;
                node->context_switches = info[i].ThreadObject.ContextSwitches;
            }
            else
            {
                node->name_len = wcsnlen( info[i].LockObject.ObjectName, ARRAY_SIZE(node->name) ) * sizeof(WCHAR);
                memcpy( node->name, info[i].LockObject.ObjectName, node->name_len );
            }
        }
    }
    report->cycle = !report->error && cycle && report->count >= 2;

    /* Without --other-processes a chain stops at the first thread of another
     * process. The query itself follows them: the wineserver, as Windows,
     * reads the critical sections of any process but the caller's only
     * with both OUT_OF_PROC flags, and wctdump is never its target's caller. */
    if (other_processes) return;
    for (i = 1; i < report->count; i++)
    {
        if (!is_thread_node( &report->nodes[i] ) || !report->nodes[i].pid ||
            report->nodes[i].pid == report->nodes[0].pid)
            continue;
        report->count = i + 1;
        report->cycle = FALSE;
        break;
    }
}

/* what the thread's state means for the verdict */
void classify( struct thread_report *report, DWORD pid )
{
    const struct wait_chain_node *last;

    if (report->error == ERROR_OBJECT_NOT_FOUND || report->error == ERROR_INVALID_PARAMETER ||
        (!report->error && !report->count))
    {
        report->state = STATE_GONE;
        findings.gone++;
        return;
    }
    if (report->error)
    {
        report->state = STATE_ERROR;
        findings.errors++;
        return;
    }
    /* as Windows: 5 s without asking for a message that waits */
    if (report->nodes[0].unanswered_ms >= 5000) findings.not_responding++;
    if (report->cycle)
    {
        record_cycle( report, pid );
        return;
    }
    report->state = STATE_FINE;
    if (!is_blocked( report )) return;
    last = &report->nodes[report->count - 1];
    if (wait_graph_is_abandoned_lock( last ))
    {
        report->state = STATE_ORPHANED;
        findings.orphaned++;
        return;
    }
    if (wait_graph_is_host_lock( last ))   /* its owner is a thread that is not Wine's */
    {
        report->state = STATE_UNFOLLOWED;
        findings.unfollowed++;
        findings.unfollowed_kinds[UNFOLLOWED_HOST_OWNER]++;
        return;
    }
    if (!is_thread_node( last )) return;   /* ends at a lock nobody owns: it is not stuck there */
    if (last->pid && last->pid != pid && !other_processes)
    {
        report->state = STATE_OTHER_PROCESS;
        findings.other_process++;
        return;
    }
    if (last->status != WctStatusBlocked || last->wait_kind == WAIT_RECORD_SLEEP ||
        last->wait_kind == WAIT_MESSAGE_QUEUE)
        return;
    report->state = STATE_UNFOLLOWED;
    findings.unfollowed++;
    if (last->wait_kind == WAIT_HOST_CALL) findings.unfollowed_kinds[UNFOLLOWED_HOST_CALL]++;
    else findings.unfollowed_kinds[last->wait_kind < WAIT_RECORD_KIND_COUNT ? last->wait_kind : 0]++;
}


int verdict(void)
{
    if (findings.cycle_count) return EXIT_DEADLOCK;
    if (findings.orphaned) return EXIT_ORPHANED;
    if (findings.unfollowed || findings.other_process) return EXIT_UNFOLLOWED;
    return EXIT_CLEAN;
}

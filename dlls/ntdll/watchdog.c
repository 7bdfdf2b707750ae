/*
 * Deadlock watchdog: WINE_DEADLOCK_WATCHDOG=N prints on stderr the threads
 * of a process that have been blocked in a cycle for N seconds, and those
 * whose messages have waited N seconds (not responding)
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

#if defined(__x86_64__) || defined(__i386__)

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wct.h"
#include "wine/exception.h"
#include "wine/debug.h"
#include "ddk/wdm.h"
#include "wine/wait_chain.h"
#include "ntdll_misc.h"
#include "walk_names.h"
#include "wait_graph.h"
#include "watchdog.h"

WINE_DEFAULT_DEBUG_CHANNEL(watchdog);

/*
 * The watchdog is a thread that looks at the wait chains of the process's
 * threads once a second. Without the variable nothing is started: the cost
 * is one look-up of the environment at start-up.
 *
 * It lives in ntdll because only ntdll's loader sees every process start
 * without the program's help, and it uses ntdll's own functions: the chain
 * from __wine_get_wait_chain (what advapi32's GetThreadWaitChain asks), the
 * frames from __wine_walk_thread_frames (what coredll's GetThreadCallStack
 * walks with), so that it loads no module and nothing calls back into ntdll.
 * It allocates nothing from the heap: a thread it reports may hold the heap
 * lock.
 */

#define MAX_TIMEOUT 86400   /* a day: longer is surely a mistake */

struct cycle
{
    DWORD          tids[WCT_MAX_NODE_COUNT];  /* sorted */
    unsigned int   count;
    LARGE_INTEGER  since;
    BOOL           seen;      /* in this round */
    BOOL           reported;
};

static ULONG timeout_seconds;
static struct cycle cycles[WAIT_GRAPH_MAX_CYCLES];
static char own_name[MAX_PATH * 3];   /* this process's executable, UTF-8 */
static BOOL announce;                 /* say that it watches: not in Wine's own programs */

static struct cycle *track_cycle( const DWORD *tids, unsigned int n, LARGE_INTEGER now )
{
    struct cycle *free_slot = NULL;
    unsigned int i;

    for (i = 0; i < WAIT_GRAPH_MAX_CYCLES; i++)
    {
        if (!cycles[i].count)
        {
            if (!free_slot) free_slot = &cycles[i];
            continue;
        }
        if (wait_graph_same_threads( cycles[i].tids, cycles[i].count, tids, n ))
        {
            cycles[i].seen = TRUE;
            return &cycles[i];
        }
    }
    if (!free_slot) return NULL;
    memcpy( free_slot->tids, tids, n * sizeof(*tids) );
    free_slot->count = n;
    free_slot->since = now;
    free_slot->seen = TRUE;
    free_slot->reported = FALSE;
    return free_slot;
}

/* UTF-8 for stderr, as the rest of Wine's messages */
static const char *utf8_len( const WCHAR *str, DWORD bytes, char *buffer, DWORD size )
{
    DWORD len = 0;

    RtlUnicodeToUTF8N( buffer, size - 1, &len, str, bytes );
    buffer[len] = 0;
    return buffer;
}

static const char *utf8( const WCHAR *str, char *buffer, DWORD size )
{
    return utf8_len( str, wcslen( str ) * sizeof(WCHAR), buffer, size );
}

static const char *node_text( const struct wait_chain_node *node, char *buffer, DWORD size )
{
    return utf8_len( node->name, min( node->name_len, sizeof(node->name) ), buffer, size );
}

/* an object of a chain: what the thread before it waits for */
static void print_object_wait( const struct wait_chain_node *node )
{
    char type[64], name[ARRAY_SIZE(node->name) * 3];

    utf8( wait_graph_type_name( node->type, FALSE ), type, sizeof(type) );
    /* a host lock names itself ("host mutex at 0x..."), and its owner by its Linux id */
    if (wait_graph_is_abandoned_lock( node ))
        MESSAGE( "wine: watchdog:   waits for %s: its owner, Linux thread %u, exited holding it\n",
                 node_text( node, name, sizeof(name) ), node->tid );
    else if (wait_graph_is_host_lock( node ))
        MESSAGE( "wine: watchdog:   waits for %s, owned by Linux thread %u\n", node_text( node, name, sizeof(name) ),
                 node->tid );
    else if (node->name_len)
        MESSAGE( "wine: watchdog:   waits for %s %s\n", type, node_text( node, name, sizeof(name) ) );
    else if (node->object)
        MESSAGE( "wine: watchdog:   waits for %s at 0x%I64x\n", type, node->object );
    else
        MESSAGE( "wine: watchdog:   waits for %s\n", type );
}

/* The executable name of another process, from a process list kept in a
 * static buffer (no heap: see above); "" when it cannot be had. */
static const char *executable_name( DWORD pid, char *buffer, DWORD size )
{
    static ULONG_PTR list[8192];   /* 64 KiB, aligned */
    SYSTEM_PROCESS_INFORMATION *info = (SYSTEM_PROCESS_INFORMATION *)list;
    ULONG offset = 0, len, i;

    buffer[0] = 0;
    if (NtQuerySystemInformation( SystemProcessInformation, list, sizeof(list), &len )) return buffer;
    for (i = 0; i < 4096; i++)
    {
        if (offset > sizeof(list) - sizeof(*info)) break;
        info = (SYSTEM_PROCESS_INFORMATION *)((char *)list + offset);
        if (HandleToULong( info->UniqueProcessId ) == pid)
            return utf8_len( info->ProcessName.Buffer, info->ProcessName.Length, buffer, size );
        if (!info->NextEntryOffset) break;
        offset += info->NextEntryOffset;
    }
    return buffer;
}

/* The reader of walk_names.c for this process: its memory, and the files of
 * its modules, opened one at a time. */
struct own_reader
{
    ULONG_PTR base;
    HANDLE    file;
};

static BOOL read_own_memory( void *ctx, ULONG_PTR addr, void *buffer, SIZE_T size )
{
    BOOL ret = TRUE;

    __TRY
    {
        memcpy( buffer, (const void *)addr, size );
    }
    __EXCEPT_PAGE_FAULT
    {
        ret = FALSE;
    }
    __ENDTRY
    return ret;
}

static HANDLE open_module_file( ULONG_PTR base )
{
    OBJECT_ATTRIBUTES attr;
    UNICODE_STRING name;
    IO_STATUS_BLOCK io;
    LDR_DATA_TABLE_ENTRY *module;
    WCHAR path[MAX_PATH + 4] = L"\\??\\";
    HANDLE file;

    if (LdrFindEntryForAddress( (void *)base, &module ) ||
        module->FullDllName.Length >= (MAX_PATH - 1) * sizeof(WCHAR))
        return 0;
    memcpy( path + 4, module->FullDllName.Buffer, module->FullDllName.Length );
    path[4 + module->FullDllName.Length / sizeof(WCHAR)] = 0;
    RtlInitUnicodeString( &name, path );
    InitializeObjectAttributes( &attr, &name, OBJ_CASE_INSENSITIVE, 0, NULL );
    if (NtOpenFile( &file, GENERIC_READ | SYNCHRONIZE, &attr, &io, FILE_SHARE_READ | FILE_SHARE_DELETE,
                    FILE_SYNCHRONOUS_IO_NONALERT | FILE_NON_DIRECTORY_FILE ))
        return 0;
    return file;
}

static BOOL read_own_file( void *ctx, ULONG_PTR base, ULONGLONG offset, void *buffer, SIZE_T size )
{
    struct own_reader *reader = ctx;
    LARGE_INTEGER pos = { .QuadPart = offset };
    IO_STATUS_BLOCK io;

    if (reader->base != base)
    {
        if (reader->file) NtClose( reader->file );
        reader->file = open_module_file( base );
        reader->base = base;
    }
    return reader->file && !NtReadFile( reader->file, 0, NULL, NULL, &io, buffer, size, &pos, NULL ) &&
           io.Information == size;
}

/* The frames of a thread of this process, held still while they are read:
 * frame 0 is where it is, then its callers. */
static ULONG thread_frames( DWORD tid, void **frames, ULONG max )
{
    OBJECT_ATTRIBUTES attr = { sizeof(attr) };
    CLIENT_ID cid = { 0, ULongToHandle( tid ) };
    void *stack[WAIT_GRAPH_MAX_FRAMES];
    CONTEXT context;
    HANDLE thread;
    ULONG n = 0;

    if (NtOpenThread( &thread, THREAD_GET_CONTEXT | THREAD_SUSPEND_RESUME | THREAD_QUERY_INFORMATION,
                      &attr, &cid ))
        return 0;
    if (!NtSuspendThread( thread, NULL ))
    {
        context.ContextFlags = CONTEXT_FULL;
        if (!NtGetContextThread( thread, &context ))
        {
#ifdef __x86_64__
            frames[0] = (void *)context.Rip;
            stack[0] = (void *)context.Rsp;
#else  /* 32-bit code (WoW64): the frame-pointer chain */
            frames[0] = ULongToPtr( context.Eip );
            stack[0] = ULongToPtr( context.Ebp );
#endif
            if (!__wine_walk_thread_frames( thread, NULL, &context, 0, max - 1, frames + 1, stack + 1, &n )) n++;
            else n = 1;
        }
        NtResumeThread( thread, NULL );
    }
    NtClose( thread );
    return n;
}

static void print_stack( DWORD tid )
{
    struct own_reader own = { 0 };
    const struct frame_reader reader = { &own, read_own_memory, read_own_file };
    void *frames[WAIT_GRAPH_MAX_FRAMES];
    LDR_DATA_TABLE_ENTRY *module;
    char symbol[FRAME_SYMBOL_LENGTH], plain[FRAME_SYMBOL_LENGTH], text[1024];
    WCHAR where[512];
    ULONG_PTR displacement, addr, base;
    ULONG i, n;

    n = thread_frames( tid, frames, WAIT_GRAPH_MAX_FRAMES );
    for (i = 0; i < n; i++)
    {
        addr = (ULONG_PTR)frames[i];
        if (LdrFindEntryForAddress( (void *)addr, &module )) frame_format( where, ARRAY_SIZE(where), NULL, NULL, addr );
        else
        {
            base = (ULONG_PTR)module->DllBase;
            if (frame_symbol( &reader, base, addr, symbol, sizeof(symbol), &displacement ))
            {
                /* C++ names as wctdump prints them */
                if (frame_demangle( symbol, plain, sizeof(plain) )) strcpy( symbol, plain );
                frame_format( where, ARRAY_SIZE(where), module->BaseDllName.Buffer, symbol, displacement );
            }
            else
                frame_format( where, ARRAY_SIZE(where), module->BaseDllName.Buffer, NULL, addr - base );
        }
        MESSAGE( "wine: watchdog:     #%02lu %s\n", i, utf8( where, text, sizeof(text) ) );
    }
    if (own.file) NtClose( own.file );
}

/* 'nodes': the cycle, from its first thread to that thread again */
static void report_cycle( const struct wait_chain_node *nodes, DWORD count, const struct cycle *cycle )
{
    DWORD i, pid = GetCurrentProcessId(), processes = 0, pids[WCT_MAX_NODE_COUNT], j;
    char other[MAX_PATH * 3];

    for (i = 0; i < count - 1; i++)
    {
        if (nodes[i].type != WctThreadType) continue;
        for (j = 0; j < processes; j++) if (pids[j] == nodes[i].pid) break;
        if (j == processes) pids[processes++] = nodes[i].pid;
    }
    if (processes > 1)
        MESSAGE( "wine: watchdog: deadlock in %s (process %lu): %u threads of %lu processes blocked in a cycle"
                 " for %lu s or more\n", own_name, pid, cycle->count, processes, timeout_seconds );
    else
        MESSAGE( "wine: watchdog: deadlock in %s (process %lu): %u thread%s blocked in a cycle for %lu s or more\n",
                 own_name, pid, cycle->count, cycle->count == 1 ? "" : "s", timeout_seconds );

    for (i = 0; i < count; i++)
    {
        const struct wait_chain_node *node = &nodes[i];

        if (node->type == WctThreadType && i == count - 1)
            MESSAGE( "wine: watchdog:   which is thread %u again\n", node->tid );
        else if (node->type == WctThreadType && node->pid == pid)
            MESSAGE( "wine: watchdog:   thread %u\n", node->tid );
        else if (node->type == WctThreadType)
            MESSAGE( "wine: watchdog:   thread %u of process %u %s\n", node->tid, node->pid,
                     executable_name( node->pid, other, sizeof(other) ) );
        else
            print_object_wait( node );
    }
    for (i = 0; i < count - 1; i++)
    {
        if (nodes[i].type != WctThreadType) continue;
        if (nodes[i].pid != pid)
        {
            MESSAGE( "wine: watchdog:   thread %u is in process %u: its stack is in that process's report,"
                     " or: wine-layer wctdump %u\n", nodes[i].tid, nodes[i].pid, nodes[i].pid );
            continue;
        }
        MESSAGE( "wine: watchdog:   stack of thread %u:\n", nodes[i].tid );
        print_stack( nodes[i].tid );
    }
    MESSAGE( "wine: watchdog: every thread of the process: wine-layer wctdump %lu\n", pid );
    /* for whoever reads the log: the report is whole */
    MESSAGE( "wine: watchdog: end of report\n" );
}

/*
 * A thread in a state reported once, until it leaves it (then again if it
 * comes back): not responding, a thread whose message queue has had
 * messages waiting for N seconds without the thread asking for one (what
 * Windows calls a window that is not responding; the wineserver knows when
 * a queue last gave its thread a message); orphaned, a thread that has
 * waited N seconds on a host lock whose owner exited holding it.
 */
#define MAX_REPORTED 64

static DWORD unresponsive[MAX_REPORTED];   /* thread ids reported */
static DWORD orphaned[MAX_REPORTED];

static BOOL first_report( DWORD *reported, DWORD tid, BOOL in_state )
{
    unsigned int i, slot = MAX_REPORTED;

    for (i = 0; i < MAX_REPORTED; i++)
    {
        if (reported[i] == tid)
        {
            if (!in_state) reported[i] = 0;
            return FALSE;
        }
        if (!reported[i] && slot == MAX_REPORTED) slot = i;
    }
    if (!in_state || slot == MAX_REPORTED) return FALSE;
    reported[slot] = tid;
    return TRUE;
}

static void print_thread_wait( const struct wait_chain_node *node )
{
    const WCHAR *call = wait_graph_host_call_name( node->object );
    char kind[64], name[32], what[ARRAY_SIZE(node->name) * 3];

    if (node->status != WctStatusBlocked)
    {
        MESSAGE( "wine: watchdog:   thread %u is running\n", node->tid );
        return;
    }
    if (!wait_graph_kind_name( node->wait_kind, FALSE ) || node->wait_kind == WAIT_MESSAGE_QUEUE)
    {
        MESSAGE( "wine: watchdog:   thread %u is blocked for %u ms\n", node->tid, node->wait_time );
        return;
    }
    utf8( wait_graph_kind_name( node->wait_kind, FALSE ), kind, sizeof(kind) );
    node_text( node, what, sizeof(what) );
    if (node->wait_kind == WAIT_OBJECTS)
        MESSAGE( "wine: watchdog:   thread %u is blocked for %u ms on %s\n", node->tid, node->wait_time, what );
    else if (node->wait_kind == WAIT_HOST_CALL)
        MESSAGE( "wine: watchdog:   thread %u is blocked for %u ms in the host system call %s%s on %s\n",
                 node->tid, node->wait_time, call ? utf8( call, name, sizeof(name) ) : "", call ? "()" : "",
                 what );
    else if (node->wait_kind == WAIT_RECORD_SLEEP)
        MESSAGE( "wine: watchdog:   thread %u is blocked for %u ms %s\n", node->tid, node->wait_time, kind );
    else
        MESSAGE( "wine: watchdog:   thread %u is blocked for %u ms %s at 0x%I64x\n", node->tid, node->wait_time,
                 kind, node->object );
}

static void report_unresponsive( const struct wait_chain_node *nodes, DWORD count, BOOL is_cycle )
{
    DWORD i, pid = GetCurrentProcessId();
    char other[MAX_PATH * 3];

    MESSAGE( "wine: watchdog: not responding in %s (process %lu): thread %u has taken no message for %u s"
             " while messages wait for it\n", own_name, pid, nodes[0].tid, nodes[0].unanswered_ms / 1000 );
    print_thread_wait( &nodes[0] );
    for (i = 1; i < count; i++)
    {
        const struct wait_chain_node *node = &nodes[i];

        if (node->type != WctThreadType)
            print_object_wait( node );
        else if (i == count - 1 && is_cycle)
            MESSAGE( "wine: watchdog:   held by thread %u, which is in a deadlock\n", node->tid );
        else if (node->pid != pid)
            MESSAGE( "wine: watchdog:   held by thread %u of process %u %s\n", node->tid, node->pid,
                     executable_name( node->pid, other, sizeof(other) ) );
        else
        {
            MESSAGE( "wine: watchdog:   held by\n" );
            print_thread_wait( node );
        }
    }
    MESSAGE( "wine: watchdog:   stack of thread %u:\n", nodes[0].tid );
    print_stack( nodes[0].tid );
    MESSAGE( "wine: watchdog: every thread of the process: wine-layer wctdump %lu\n", pid );
    MESSAGE( "wine: watchdog: end of report\n" );
}

/* nodes[1] is a host lock whose owner exited holding it: nodes[0] waits on it for ever */
static void report_orphaned( const struct wait_chain_node *nodes )
{
    MESSAGE( "wine: watchdog: hang in %s (process %lu): thread %u has waited %u s on a host lock whose owner"
             " exited holding it\n", own_name, GetCurrentProcessId(), nodes[0].tid, nodes[0].wait_time / 1000 );
    print_object_wait( &nodes[1] );
    MESSAGE( "wine: watchdog:   stack of thread %u:\n", nodes[0].tid );
    print_stack( nodes[0].tid );
    MESSAGE( "wine: watchdog: every thread of the process: wine-layer wctdump %lu\n", GetCurrentProcessId() );
    MESSAGE( "wine: watchdog: end of report\n" );
}

static void check_thread( DWORD tid, LARGE_INTEGER now )
{
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT];
    DWORD tids[WCT_MAX_NODE_COUNT], i, start;
    ULONG total = 0, count;
    struct cycle *cycle;
    unsigned int n;
    BOOL is_cycle = FALSE;

    /* a cycle may go through other processes: follow it there */
    if (__wine_get_wait_chain( tid, WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG, nodes, ARRAY_SIZE(nodes),
                               &total, &is_cycle ))
        return;
    count = min( total, ARRAY_SIZE(nodes) );
    if (!count) return;
    if (first_report( unresponsive, tid, nodes[0].unanswered_ms >= timeout_seconds * 1000 ))
        report_unresponsive( nodes, count, is_cycle );
    if (first_report( orphaned, tid, count == 2 && wait_graph_is_abandoned_lock( &nodes[1] ) &&
                      nodes[0].wait_time >= timeout_seconds * 1000 ))
        report_orphaned( nodes );
    if (!is_cycle || count < 2) return;
    start = wait_graph_cycle_start( nodes, count );
    if (!(n = wait_graph_cycle_threads( nodes + start, count - start, tids ))) return;
    /* a cycle of other processes that this thread waits for is theirs to report */
    for (i = start; i < count - 1; i++)
        if (nodes[i].type == WctThreadType && nodes[i].pid == GetCurrentProcessId()) break;
    if (i == count - 1) return;
    if (!(cycle = track_cycle( tids, n, now )) || cycle->reported) return;
    if (now.QuadPart - cycle->since.QuadPart < timeout_seconds * (LONGLONG)10000000) return;
    report_cycle( nodes + start, count - start, cycle );
    cycle->reported = TRUE;
}

static void CALLBACK watchdog_thread( void *arg )
{
    LARGE_INTEGER second = { .QuadPart = -10000000 }, now;
    THREAD_BASIC_INFORMATION info;
    HANDLE thread, next;
    unsigned int i;

    if (announce)
        MESSAGE( "wine: watchdog: watching %s (process %lu) for deadlocks of %lu s or more\n", own_name,
                 GetCurrentProcessId(), timeout_seconds );
    for (;;)
    {
        NtDelayExecution( FALSE, &second );
        NtQuerySystemTime( &now );
        for (i = 0; i < WAIT_GRAPH_MAX_CYCLES; i++) cycles[i].seen = FALSE;

        for (thread = 0; !NtGetNextThread( GetCurrentProcess(), thread, THREAD_QUERY_LIMITED_INFORMATION, 0, 0, &next ); thread = next)
        {
            if (thread) NtClose( thread );
            if (!NtQueryInformationThread( next, ThreadBasicInformation, &info, sizeof(info), NULL ) &&
                HandleToULong( info.ClientId.UniqueThread ) != GetCurrentThreadId())
                check_thread( HandleToULong( info.ClientId.UniqueThread ), now );
        }
        if (thread) NtClose( thread );

        /* a cycle that is gone may come back: start counting again */
        for (i = 0; i < WAIT_GRAPH_MAX_CYCLES; i++) if (!cycles[i].seen) cycles[i].count = 0;
    }
}

/* The variable's value: a whole number of seconds, 1 to MAX_TIMEOUT, in
 * decimal digits only. 0 when it is anything else. */
static ULONG parse_timeout( const WCHAR *value )
{
    ULONG seconds = 0;

    if (!*value) return 0;
    for (; *value; value++)
    {
        if (*value < '0' || *value > '9') return 0;
        seconds = seconds * 10 + *value - '0';
        if (seconds > MAX_TIMEOUT) return 0;
    }
    return seconds;
}

/***********************************************************************
 *           start_deadlock_watchdog
 *
 * Called once, when the process has started.
 */
void start_deadlock_watchdog(void)
{
    UNICODE_STRING name, value;
    WCHAR buffer[32];
    char text[100];
    HANDLE thread;
    NTSTATUS status;

    RtlInitUnicodeString( &name, L"WINE_DEADLOCK_WATCHDOG" );
    value.Buffer = buffer;
    value.MaximumLength = sizeof(buffer) - sizeof(WCHAR);
    status = RtlQueryEnvironmentVariable_U( NULL, &name, &value );
    if (status == STATUS_VARIABLE_NOT_FOUND) return;
    if (status == STATUS_BUFFER_TOO_SMALL)
        wcscpy( buffer, L"(a value too long to be seconds)" );
    else if (status) return;
    else buffer[value.Length / sizeof(WCHAR)] = 0;
    /* WINE_DEADLOCK_WATCHDOG= (empty) is the shell's way to unset it */
    if (!buffer[0]) return;
    if (!(timeout_seconds = parse_timeout( buffer )))
    {
        MESSAGE( "wine: watchdog: WINE_DEADLOCK_WATCHDOG=%s is not a whole number of seconds from 1 to %u;"
                 " the watchdog is off\n", utf8( buffer, text, sizeof(text) ), MAX_TIMEOUT );
        return;
    }

    /* the executable's file name, for every message */
    {
        const UNICODE_STRING *path = &NtCurrentTeb()->Peb->ProcessParameters->ImagePathName;
        const WCHAR *start = path->Buffer, *p;
        DWORD len = path->Length / sizeof(WCHAR), i, rest;

        WCHAR system[MAX_PATH];

        for (i = 0, p = start; i < len; i++, p++) if (*p == '\\' || *p == '/') start = p + 1;
        utf8_len( start, (path->Buffer + len - start) * sizeof(WCHAR), own_name, sizeof(own_name) );
        /* Wine's own programs (services.exe, explorer.exe, ...) inherit the
         * variable from the program that started them: watched, but quietly */
        wcscpy( system, user_shared_data->NtSystemRoot );
        wcscat( system, L"\\system32\\" );
        rest = path->Buffer + len - start;
        announce = _wcsnicmp( path->Buffer, system, wcslen( system ) ) &&
                   !(rest == 12 && !_wcsnicmp( start, L"wineboot.exe", rest )) &&
                   !(rest == 9 && !_wcsnicmp( start, L"start.exe", rest ));
    }
    TRACE( "watching for deadlocks of %lu s\n", timeout_seconds );
    if (!RtlCreateUserThread( GetCurrentProcess(), NULL, FALSE, 0, 0, 0, watchdog_thread, NULL, &thread, NULL ))
        NtClose( thread );
}

#endif  /* __x86_64__ || __i386__ */

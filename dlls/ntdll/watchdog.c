/*
 * Deadlock watchdog: WINE_DEADLOCK_WATCHDOG=N prints on stderr the threads
 * of a process that have been blocked in a cycle for N seconds
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

#ifdef __x86_64__

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wct.h"
#include "pkfuncs.h"
#include "wine/exception.h"
#include "wine/debug.h"
#include "ntdll_misc.h"
#include "walk_names.h"
#include "watchdog.h"

WINE_DEFAULT_DEBUG_CHANNEL(watchdog);

/*
 * The watchdog is a thread that looks at the wait chains of the process's
 * threads once a second, through advapi32 and coredll like any program
 * would. Without the variable nothing is started: the cost is one look-up
 * of the environment at start-up.
 *
 * It lives in ntdll because only ntdll's loader sees every process start
 * without the program's help. Wine's ntdll loads no higher module of its
 * own accord; this one loads advapi32 and coredll, and only when the
 * variable is set, on its own thread, once the process runs. Its body uses
 * documented functions only, so that it could move into a module of its
 * own that this hook loads, if Wine wanted it.
 */

#define MAX_CYCLES  32
#define MAX_STACK   24
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
static struct cycle cycles[MAX_CYCLES];

static HWCT (WINAPI *pOpenThreadWaitChainSession)(DWORD, PWAITCHAINCALLBACK);
static BOOL (WINAPI *pGetThreadWaitChain)(HWCT, DWORD_PTR, DWORD, DWORD, DWORD *, WAITCHAIN_NODE_INFO *, BOOL *);
static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);

static void *get_proc( const WCHAR *dll, const char *name )
{
    UNICODE_STRING dll_name;
    ANSI_STRING proc_name;
    HMODULE module;
    void *proc = NULL;

    RtlInitUnicodeString( &dll_name, dll );
    RtlInitAnsiString( &proc_name, name );
    if (!LdrLoadDll( NULL, 0, &dll_name, &module )) LdrGetProcedureAddress( module, &proc_name, 0, &proc );
    return proc;
}

/* Where the cycle of a chain starts: the first node of the thread that the
 * chain's last node repeats. */
static DWORD cycle_start( const WAITCHAIN_NODE_INFO *nodes, DWORD count )
{
    DWORD last = nodes[count - 1].ThreadObject.ThreadId, i;

    for (i = 0; i < count - 1; i++)
        if (nodes[i].ObjectType == WctThreadType && nodes[i].ThreadObject.ThreadId == last) break;
    return i;
}

/* the threads of the cycle, sorted */
static unsigned int cycle_threads( const WAITCHAIN_NODE_INFO *nodes, DWORD count, DWORD *tids )
{
    DWORD i, j, n = 0, tmp;

    for (i = cycle_start( nodes, count ); i < count - 1; i++)
        if (nodes[i].ObjectType == WctThreadType) tids[n++] = nodes[i].ThreadObject.ThreadId;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && tids[j - 1] > tids[j]; j--)
        {
            tmp = tids[j];
            tids[j] = tids[j - 1];
            tids[j - 1] = tmp;
        }
    return n;
}

static struct cycle *track_cycle( const DWORD *tids, unsigned int n, LARGE_INTEGER now )
{
    struct cycle *free_slot = NULL;
    unsigned int i;

    for (i = 0; i < MAX_CYCLES; i++)
    {
        if (!cycles[i].count)
        {
            if (!free_slot) free_slot = &cycles[i];
            continue;
        }
        if (cycles[i].count == n && !memcmp( cycles[i].tids, tids, n * sizeof(*tids) ))
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

static const char *node_name( const WAITCHAIN_NODE_INFO *node )
{
    static const char * const names[] =
    {
        "?", "critical section", "SendMessage", "mutex", "ALPC", "COM", "thread wait",
        "process wait", "thread", "COM activation", "?", "socket", "SMB"
    };
    return node->ObjectType < ARRAY_SIZE(names) ? names[node->ObjectType] : "?";
}

/* UTF-8 for stderr, as the rest of Wine's messages */
static const char *utf8( const WCHAR *str, char *buffer, DWORD size )
{
    DWORD len = 0;

    RtlUnicodeToUTF8N( buffer, size - 1, &len, str, wcslen( str ) * sizeof(WCHAR) );
    buffer[len] = 0;
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

static void print_stack( DWORD tid )
{
    OBJECT_ATTRIBUTES attr = { sizeof(attr) };
    CLIENT_ID cid = { 0, ULongToHandle( tid ) };
    struct own_reader own = { 0 };
    const struct frame_reader reader = { &own, read_own_memory, read_own_file };
    CallSnapshot frames[MAX_STACK];
    LDR_DATA_TABLE_ENTRY *module;
    char symbol[FRAME_SYMBOL_LENGTH], text[1024];
    WCHAR where[512];
    ULONG_PTR displacement, addr, base;
    HANDLE thread;
    ULONG i, n;

    if (!pGetThreadCallStack) return;
    if (NtOpenThread( &thread, THREAD_ALL_ACCESS, &attr, &cid )) return;
    n = pGetThreadCallStack( thread, MAX_STACK, frames, 0, 0 );
    NtClose( thread );
    for (i = 0; i < n; i++)
    {
        addr = frames[i].dwReturnAddr;
        if (LdrFindEntryForAddress( (void *)addr, &module )) frame_format( where, ARRAY_SIZE(where), NULL, NULL, addr );
        else
        {
            base = (ULONG_PTR)module->DllBase;
            if (frame_symbol( &reader, base, addr, symbol, sizeof(symbol), &displacement ))
                frame_format( where, ARRAY_SIZE(where), module->BaseDllName.Buffer, symbol, displacement );
            else
                frame_format( where, ARRAY_SIZE(where), module->BaseDllName.Buffer, NULL, addr - base );
        }
        MESSAGE( "wine: watchdog:     #%02lu %s\n", i, utf8( where, text, sizeof(text) ) );
    }
    if (own.file) NtClose( own.file );
}

static void report_cycle( const WAITCHAIN_NODE_INFO *nodes, DWORD count, const struct cycle *cycle )
{
    DWORD i, pid = GetCurrentProcessId(), processes = 0, pids[WCT_MAX_NODE_COUNT], j;
    char name[WCT_OBJNAME_LENGTH * 3];

    for (i = cycle_start( nodes, count ); i < count - 1; i++)
    {
        if (nodes[i].ObjectType != WctThreadType) continue;
        for (j = 0; j < processes; j++) if (pids[j] == nodes[i].ThreadObject.ProcessId) break;
        if (j == processes) pids[processes++] = nodes[i].ThreadObject.ProcessId;
    }
    if (processes > 1)
        MESSAGE( "wine: watchdog: deadlock: %u threads of %lu processes blocked in a cycle for %lu s or more\n",
                 cycle->count, processes, timeout_seconds );
    else
        MESSAGE( "wine: watchdog: deadlock: %u thread%s blocked in a cycle for %lu s or more\n",
                 cycle->count, cycle->count == 1 ? "" : "s", timeout_seconds );

    for (i = cycle_start( nodes, count ); i < count; i++)
    {
        const WAITCHAIN_NODE_INFO *node = &nodes[i];

        if (node->ObjectType == WctThreadType && i == count - 1)
            MESSAGE( "wine: watchdog:   which is thread %lu again\n", node->ThreadObject.ThreadId );
        else if (node->ObjectType == WctThreadType && node->ThreadObject.ProcessId == pid)
            MESSAGE( "wine: watchdog:   thread %lu\n", node->ThreadObject.ThreadId );
        else if (node->ObjectType == WctThreadType)
            MESSAGE( "wine: watchdog:   thread %lu of process %lu\n", node->ThreadObject.ThreadId,
                     node->ThreadObject.ProcessId );
        else if (node->LockObject.ObjectName[0])
            MESSAGE( "wine: watchdog:   waits for %s %s\n", node_name( node ),
                     utf8( node->LockObject.ObjectName, name, sizeof(name) ) );
        else
            MESSAGE( "wine: watchdog:   waits for %s\n", node_name( node ) );
    }
    for (i = cycle_start( nodes, count ); i < count - 1; i++)
    {
        if (nodes[i].ObjectType != WctThreadType) continue;
        if (nodes[i].ThreadObject.ProcessId != pid)
        {
            MESSAGE( "wine: watchdog:   thread %lu is in process %lu: its stack is in that process's report"
                     " (or: wctdump %lu)\n", nodes[i].ThreadObject.ThreadId, nodes[i].ThreadObject.ProcessId,
                     nodes[i].ThreadObject.ProcessId );
            continue;
        }
        MESSAGE( "wine: watchdog:   stack of thread %lu:\n", nodes[i].ThreadObject.ThreadId );
        print_stack( nodes[i].ThreadObject.ThreadId );
    }
    /* for whoever reads the log: the report is whole */
    MESSAGE( "wine: watchdog: end of report\n" );
}

static void check_thread( HWCT session, DWORD tid, LARGE_INTEGER now )
{
    WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
    DWORD count = WCT_MAX_NODE_COUNT, tids[WCT_MAX_NODE_COUNT], i;
    struct cycle *cycle;
    unsigned int n;
    BOOL is_cycle;

    /* a cycle may go through other processes: follow it there */
    if (!pGetThreadWaitChain( session, 0, WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG, tid, &count, nodes,
                              &is_cycle ) || !is_cycle || count < 2)
        return;
    if (!(n = cycle_threads( nodes, count, tids ))) return;
    /* a cycle of other processes that this thread waits for is theirs to report */
    for (i = cycle_start( nodes, count ); i < count - 1; i++)
        if (nodes[i].ObjectType == WctThreadType && nodes[i].ThreadObject.ProcessId == GetCurrentProcessId())
            break;
    if (i == count - 1) return;
    if (!(cycle = track_cycle( tids, n, now )) || cycle->reported) return;
    if (now.QuadPart - cycle->since.QuadPart < timeout_seconds * (LONGLONG)10000000) return;
    report_cycle( nodes, count, cycle );
    cycle->reported = TRUE;
}

static void CALLBACK watchdog_thread( void *arg )
{
    LARGE_INTEGER second = { .QuadPart = -10000000 }, now;
    THREAD_BASIC_INFORMATION info;
    HANDLE thread, next;
    HWCT session;
    unsigned int i;

    pOpenThreadWaitChainSession = get_proc( L"advapi32.dll", "OpenThreadWaitChainSession" );
    pGetThreadWaitChain = get_proc( L"advapi32.dll", "GetThreadWaitChain" );
    pGetThreadCallStack = get_proc( L"coredll.dll", "GetThreadCallStack" );
    if (!pOpenThreadWaitChainSession || !pGetThreadWaitChain ||
        !(session = pOpenThreadWaitChainSession( 0, NULL )))
    {
        MESSAGE( "wine: watchdog: Wait Chain Traversal is not available; the watchdog is off\n" );
        return;
    }

    for (;;)
    {
        NtDelayExecution( FALSE, &second );
        NtQuerySystemTime( &now );
        for (i = 0; i < MAX_CYCLES; i++) cycles[i].seen = FALSE;

        for (thread = 0; !NtGetNextThread( GetCurrentProcess(), thread, THREAD_QUERY_LIMITED_INFORMATION, 0, 0, &next ); thread = next)
        {
            if (thread) NtClose( thread );
            if (!NtQueryInformationThread( next, ThreadBasicInformation, &info, sizeof(info), NULL ) &&
                HandleToULong( info.ClientId.UniqueThread ) != GetCurrentThreadId())
                check_thread( session, HandleToULong( info.ClientId.UniqueThread ), now );
        }
        if (thread) NtClose( thread );

        /* a cycle that is gone may come back: start counting again */
        for (i = 0; i < MAX_CYCLES; i++) if (!cycles[i].seen) cycles[i].count = 0;
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

    TRACE( "watching for deadlocks of %lu s\n", timeout_seconds );
    if (!RtlCreateUserThread( GetCurrentProcess(), NULL, FALSE, 0, 0, 0, watchdog_thread, NULL, &thread, NULL ))
        NtClose( thread );
}

#endif  /* __x86_64__ */

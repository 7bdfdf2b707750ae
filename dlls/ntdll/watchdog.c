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

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wct.h"
#include "pkfuncs.h"
#include "wine/debug.h"
#include "ntdll_misc.h"
#include "watchdog.h"

WINE_DEFAULT_DEBUG_CHANNEL(watchdog);

/*
 * The watchdog is a thread that looks at the wait chains of the process's
 * threads once a second, through advapi32 and coredll like any program
 * would. Without the variable nothing is started: the cost is one look-up
 * of the environment at start-up.
 */

#define MAX_CYCLES 32
#define MAX_STACK  24

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

/* The threads of the cycle a chain ends in: from the first node of the
 * thread that the chain's last node repeats. */
static unsigned int cycle_threads( const WAITCHAIN_NODE_INFO *nodes, DWORD count, DWORD *tids )
{
    DWORD last = nodes[count - 1].ThreadObject.ThreadId, i, j, n = 0, tmp;

    for (i = 0; i < count - 1; i++)
        if (nodes[i].ObjectType == WctThreadType && nodes[i].ThreadObject.ThreadId == last) break;
    for (; i < count - 1; i++)
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

/* the named export whose code 'addr' is in: the nearest one at or below it
 * in 'module', unless another function starts in between; what a stack can
 * be named with inside the process, without debug information */
static const char *export_before( const LDR_DATA_TABLE_ENTRY *module, ULONG_PTR addr, ULONG_PTR *offset )
{
    const BYTE *base = module->DllBase;
    const IMAGE_EXPORT_DIRECTORY *exports;
    const DWORD *functions, *names;
    const WORD *ordinals;
    ULONG size, i, rva = addr - (ULONG_PTR)base, func, best = 0;
    const char *name = NULL;
    RUNTIME_FUNCTION *func_entry;
    ULONG64 image_base;

    if (!(exports = RtlImageDirectoryEntryToData( module->DllBase, TRUE, IMAGE_DIRECTORY_ENTRY_EXPORT, &size )))
        return NULL;
    functions = (const DWORD *)(base + exports->AddressOfFunctions);
    names = (const DWORD *)(base + exports->AddressOfNames);
    ordinals = (const WORD *)(base + exports->AddressOfNameOrdinals);
    for (i = 0; i < exports->NumberOfNames; i++)
    {
        if (ordinals[i] >= exports->NumberOfFunctions) continue;
        func = functions[ordinals[i]];
        /* the first name of an address wins (NtXxx before its ZwXxx alias);
         * forwarders point into the export directory, not at code */
        if (func > rva || func <= best ||
            (base + func >= (const BYTE *)exports && base + func < (const BYTE *)exports + size))
            continue;
        best = func;
        name = (const char *)base + names[i];
    }
    if (!name) return NULL;
    /* a function that starts between the export and the address is not the
     * export's: naming it after the export would mislead */
    if ((func_entry = RtlLookupFunctionEntry( addr, &image_base, NULL )) &&
        image_base + func_entry->BeginAddress > (ULONG_PTR)base + best)
        return NULL;
    *offset = rva - best;
    return name;
}

static void print_stack( DWORD tid )
{
    OBJECT_ATTRIBUTES attr = { sizeof(attr) };
    CLIENT_ID cid = { 0, ULongToHandle( tid ) };
    CallSnapshot frames[MAX_STACK];
    LDR_DATA_TABLE_ENTRY *module;
    HANDLE thread;
    ULONG i, n;

    if (!pGetThreadCallStack) return;
    if (NtOpenThread( &thread, THREAD_ALL_ACCESS, &attr, &cid )) return;
    n = pGetThreadCallStack( thread, MAX_STACK, frames, 0, 0 );
    NtClose( thread );
    for (i = 0; i < n; i++)
    {
        void *addr = (void *)frames[i].dwReturnAddr;
        const char *name;
        ULONG_PTR offset;

        if (LdrFindEntryForAddress( addr, &module ))
            MESSAGE( "wine: watchdog:     #%02lu %p\n", i, addr );
        else if ((name = export_before( module, (ULONG_PTR)addr, &offset )))
            MESSAGE( "wine: watchdog:     #%02lu %ls!%s+0x%Ix\n", i, module->BaseDllName.Buffer, name, offset );
        else
            MESSAGE( "wine: watchdog:     #%02lu %ls+0x%Ix\n", i, module->BaseDllName.Buffer,
                     (ULONG_PTR)addr - (ULONG_PTR)module->DllBase );
    }
}

static void report_cycle( const WAITCHAIN_NODE_INFO *nodes, DWORD count, const struct cycle *cycle )
{
    DWORD i;

    MESSAGE( "wine: watchdog: deadlock: %u threads blocked in a cycle for %lu s or more\n",
             cycle->count, timeout_seconds );
    for (i = 0; i < count; i++)
    {
        if (nodes[i].ObjectType == WctThreadType)
            MESSAGE( "wine: watchdog:   thread %04lx\n", nodes[i].ThreadObject.ThreadId );
        else if (nodes[i].LockObject.ObjectName[0])
            MESSAGE( "wine: watchdog:   waits for %s %ls\n", node_name( &nodes[i] ), nodes[i].LockObject.ObjectName );
        else
            MESSAGE( "wine: watchdog:   waits for %s\n", node_name( &nodes[i] ) );
    }
    for (i = 0; i < cycle->count; i++)
    {
        MESSAGE( "wine: watchdog:   stack of thread %04lx:\n", cycle->tids[i] );
        print_stack( cycle->tids[i] );
    }
}

static void check_thread( HWCT session, DWORD tid, LARGE_INTEGER now )
{
    WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
    DWORD count = WCT_MAX_NODE_COUNT, tids[WCT_MAX_NODE_COUNT];
    struct cycle *cycle;
    unsigned int n;
    BOOL is_cycle;

    if (!pGetThreadWaitChain( session, 0, 0, tid, &count, nodes, &is_cycle ) || !is_cycle || count < 2) return;
    if (!(n = cycle_threads( nodes, count, tids ))) return;
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
        ERR( "Wait Chain Traversal is not available\n" );
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

/***********************************************************************
 *           start_deadlock_watchdog
 *
 * Called once, when the process has started.
 */
void start_deadlock_watchdog(void)
{
    UNICODE_STRING name, value;
    WCHAR buffer[16];
    HANDLE thread;

    RtlInitUnicodeString( &name, L"WINE_DEADLOCK_WATCHDOG" );
    value.Buffer = buffer;
    value.MaximumLength = sizeof(buffer) - sizeof(WCHAR);
    if (RtlQueryEnvironmentVariable_U( NULL, &name, &value )) return;
    buffer[value.Length / sizeof(WCHAR)] = 0;
    if (!(timeout_seconds = wcstoul( buffer, NULL, 10 ))) return;

    TRACE( "watching for deadlocks of %lu s\n", timeout_seconds );
    if (!RtlCreateUserThread( GetCurrentProcess(), NULL, FALSE, 0, 0, 0, watchdog_thread, NULL, &thread, NULL ))
        NtClose( thread );
}

#endif  /* __x86_64__ */

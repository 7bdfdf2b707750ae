/*
 * wctdump: wait chains and call stacks of every thread, with deadlocks marked
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

#include <windows.h>
#include <tlhelp32.h>
#include <dbghelp.h>
#include <wct.h>

#include "wctdump.h"

#define MAX_STACK 64

static const char usage[] =
    "Usage: wctdump [--json] [PID...]\n"
    "\n"
    "Lists every thread of the given processes (all processes without a PID)\n"
    "with its wait chain, and the call stack of each blocked thread. Marks the\n"
    "threads whose chain is a cycle: a deadlock.\n"
    "Exit status: 0 no deadlock, 1 a deadlock, 2 an error.\n";

static BOOL json;
static HWCT session;

static const char *type_name( WCT_OBJECT_TYPE type )
{
    static const char * const names[] =
    {
        "unknown", "critical_section", "send_message", "mutex", "alpc", "com", "thread_wait",
        "process_wait", "thread", "com_activation", "unknown", "socket_io", "smb_io"
    };
    return type < ARRAY_SIZE(names) ? names[type] : "unknown";
}

static const char *status_name( WCT_OBJECT_STATUS status )
{
    static const char * const names[] =
    {
        "unknown", "no_access", "running", "blocked", "pid_only", "pid_only_rpcss", "owned",
        "not_owned", "abandoned", "unknown", "error"
    };
    return status < ARRAY_SIZE(names) ? names[status] : "unknown";
}

/* JSON strings: names come from other processes, escape everything odd */
static void print_json_string( const char *str )
{
    putchar( '"' );
    for (; *str; str++)
    {
        if (*str == '"' || *str == '\\') printf( "\\%c", *str );
        else if ((unsigned char)*str < 0x20) printf( "\\u%04x", (unsigned char)*str );
        else putchar( *str );
    }
    putchar( '"' );
}

static void object_name( const WAITCHAIN_NODE_INFO *node, char *buffer, int size )
{
    WideCharToMultiByte( CP_UTF8, 0, node->LockObject.ObjectName, -1, buffer, size, NULL, NULL );
    buffer[size - 1] = 0;
}

struct thread_report
{
    DWORD               tid;
    BOOL                ok;
    DWORD               error;
    DWORD               count;
    BOOL                cycle;
    WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
    DWORD64             stack[MAX_STACK];
    DWORD               stack_count;
};

static BOOL is_blocked( const struct thread_report *report )
{
    return report->ok && report->count && report->nodes[0].ObjectStatus == WctStatusBlocked;
}

/* does the unwind data put the start of the function of 'addr' after 'start'
 * (then the export at 'start' is another function)? */
static BOOL function_starts_between( HANDLE process, DWORD64 base, DWORD64 start, DWORD64 addr )
{
    const RUNTIME_FUNCTION *func = SymFunctionTableAccess64( process, addr );
    return func && base + func->BeginAddress > start;
}

/* module!symbol+offset (from the debug information, else the exports), or
 * module+offset, or the bare address */
static void describe_address( HANDLE process, DWORD64 addr, char *buffer, int size )
{
    char symbol_buffer[sizeof(SYMBOL_INFO) + 256];
    SYMBOL_INFO *symbol = (SYMBOL_INFO *)symbol_buffer;
    IMAGEHLP_MODULE64 module = { sizeof(module) };
    DWORD64 displacement = 0;
    BOOL have_module = SymGetModuleInfo64( process, addr, &module );

    symbol->SizeOfStruct = sizeof(*symbol);
    symbol->MaxNameLen = 255;
    if (have_module && SymFromAddr( process, addr, &displacement, symbol ))
        snprintf( buffer, size, "%s!%s+0x%I64x", module.ModuleName, symbol->Name, displacement );
    else if (have_module && export_symbol( process, module.BaseOfImage, addr, symbol->Name,
                                           symbol->MaxNameLen + 1, &displacement ) &&
             !function_starts_between( process, module.BaseOfImage, addr - displacement, addr ))
        snprintf( buffer, size, "%s!%s+0x%I64x", module.ModuleName, symbol->Name, displacement );
    else if (have_module)
        snprintf( buffer, size, "%s+0x%I64x", module.ModuleName, addr - module.BaseOfImage );
    else
        snprintf( buffer, size, "0x%I64x", addr );
}

static void walk_stack( HANDLE process, DWORD tid, struct thread_report *report )
{
    HANDLE thread = OpenThread( THREAD_GET_CONTEXT | THREAD_SUSPEND_RESUME | THREAD_QUERY_INFORMATION, FALSE, tid );
    STACKFRAME64 frame;
    CONTEXT context;

    if (!thread) return;
    if (SuspendThread( thread ) != (DWORD)-1)
    {
        context.ContextFlags = CONTEXT_FULL;
        if (GetThreadContext( thread, &context ))
        {
            memset( &frame, 0, sizeof(frame) );
            frame.AddrPC.Offset = context.Rip;
            frame.AddrPC.Mode = AddrModeFlat;
            frame.AddrStack.Offset = context.Rsp;
            frame.AddrStack.Mode = AddrModeFlat;
            frame.AddrFrame.Offset = context.Rbp;
            frame.AddrFrame.Mode = AddrModeFlat;
            while (report->stack_count < MAX_STACK &&
                   StackWalk64( IMAGE_FILE_MACHINE_AMD64, process, thread, &frame, &context, NULL,
                                SymFunctionTableAccess64, SymGetModuleBase64, NULL ) &&
                   frame.AddrPC.Offset)
                report->stack[report->stack_count++] = frame.AddrPC.Offset;
        }
        ResumeThread( thread );
    }
    CloseHandle( thread );
}

static void print_text( HANDLE process, const struct thread_report *report )
{
    char name[WCT_OBJNAME_LENGTH * 3], where[512];
    DWORD i;

    if (!report->ok)
    {
        printf( "  thread %04lx: no wait chain (error %lu)\n", report->tid, report->error );
        return;
    }
    printf( "  thread %04lx: %s", report->tid, status_name( report->nodes[0].ObjectStatus ) );
    if (is_blocked( report ) && report->nodes[0].ThreadObject.WaitTime)
        printf( " for %lu ms", report->nodes[0].ThreadObject.WaitTime );
    printf( "%s\n", report->cycle ? "  ** DEADLOCK **" : "" );
    if (report->count > 1)
    {
        printf( "    chain:" );
        for (i = 0; i < report->count; i++)
        {
            const WAITCHAIN_NODE_INFO *node = &report->nodes[i];
            if (i) printf( " ->" );
            if (node->ObjectType == WctThreadType)
                printf( " thread %04lx:%04lx (%s)", node->ThreadObject.ProcessId, node->ThreadObject.ThreadId,
                        status_name( node->ObjectStatus ) );
            else
            {
                object_name( node, name, sizeof(name) );
                printf( " %s%s%s%s (%s)", type_name( node->ObjectType ), name[0] ? " \"" : "", name,
                        name[0] ? "\"" : "", status_name( node->ObjectStatus ) );
            }
        }
        printf( "\n" );
    }
    for (i = 0; i < report->stack_count; i++)
    {
        describe_address( process, report->stack[i], where, sizeof(where) );
        printf( "    #%02lu %s\n", i, where );
    }
}

static void print_json( HANDLE process, const struct thread_report *report, BOOL first )
{
    char name[WCT_OBJNAME_LENGTH * 3], where[512];
    DWORD i;

    printf( "%s\n      {\"tid\": %lu", first ? "" : ",", report->tid );
    if (!report->ok)
    {
        printf( ", \"error\": %lu}", report->error );
        return;
    }
    printf( ", \"status\": \"%s\", \"wait_time_ms\": %lu, \"context_switches\": %lu, \"deadlock\": %s,\n",
            status_name( report->nodes[0].ObjectStatus ), report->nodes[0].ThreadObject.WaitTime,
            report->nodes[0].ThreadObject.ContextSwitches, report->cycle ? "true" : "false" );
    printf( "       \"chain\": [" );
    for (i = 0; i < report->count; i++)
    {
        const WAITCHAIN_NODE_INFO *node = &report->nodes[i];
        printf( "%s{\"type\": \"%s\", \"status\": \"%s\"", i ? ", " : "",
                type_name( node->ObjectType ), status_name( node->ObjectStatus ) );
        if (node->ObjectType == WctThreadType)
            printf( ", \"pid\": %lu, \"tid\": %lu}", node->ThreadObject.ProcessId, node->ThreadObject.ThreadId );
        else
        {
            object_name( node, name, sizeof(name) );
            printf( ", \"name\": " );
            print_json_string( name );
            printf( "}" );
        }
    }
    printf( "],\n       \"stack\": [" );
    for (i = 0; i < report->stack_count; i++)
    {
        describe_address( process, report->stack[i], where, sizeof(where) );
        printf( "%s{\"address\": \"0x%I64x\", \"where\": ", i ? ", " : "", report->stack[i] );
        print_json_string( where );
        printf( "}" );
    }
    printf( "]}" );
}

/* Returns the number of deadlocked threads. */
static int dump_process( DWORD pid, const char *exe, BOOL first )
{
    THREADENTRY32 entry = { sizeof(entry) };
    struct thread_report report;
    HANDLE snapshot, process;
    BOOL first_thread = TRUE;
    int deadlocked = 0;

    process = OpenProcess( PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid );
    if (process) SymInitialize( process, NULL, TRUE );

    if (json)
    {
        printf( "%s\n    {\"pid\": %lu, \"name\": ", first ? "" : ",", pid );
        print_json_string( exe );
        printf( ", \"threads\": [" );
    }
    else printf( "process %04lx %s\n", pid, exe );

    snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPTHREAD, 0 );
    if (Thread32First( snapshot, &entry ))
    {
        do
        {
            if (entry.th32OwnerProcessID != pid) continue;
            memset( &report, 0, sizeof(report) );
            report.tid = entry.th32ThreadID;
            report.count = WCT_MAX_NODE_COUNT;
            report.ok = GetThreadWaitChain( session, 0, WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG,
                                            report.tid, &report.count, report.nodes, &report.cycle );
            if (!report.ok)
            {
                report.error = GetLastError();
                /* a chain too long still tells who waits for what */
                if (report.error == ERROR_MORE_DATA || report.error == ERROR_TOO_MANY_THREADS)
                    report.ok = TRUE;
            }
            if (report.cycle) deadlocked++;
            if (process && is_blocked( &report )) walk_stack( process, report.tid, &report );
            if (json) print_json( process, &report, first_thread );
            else print_text( process, &report );
            first_thread = FALSE;
        } while (Thread32Next( snapshot, &entry ));
    }
    CloseHandle( snapshot );
    if (json) printf( "]}" );
    if (process)
    {
        SymCleanup( process );
        CloseHandle( process );
    }
    return deadlocked;
}

int __cdecl main( int argc, char *argv[] )
{
    PROCESSENTRY32 entry = { sizeof(entry) };
    HANDLE snapshot;
    int i, deadlocked = 0, count = 0;
    char *end;

    for (i = 1; i < argc; i++)
    {
        if (!strcmp( argv[i], "--json" )) json = TRUE;
        else if (!strcmp( argv[i], "--help" ) || !strcmp( argv[i], "/?" ))
        {
            fputs( usage, stdout );
            return 0;
        }
        else if (!strtoul( argv[i], &end, 0 ) || *end)
        {
            fprintf( stderr, "wctdump: not a process id: %s\n\n%s", argv[i], usage );
            return 2;
        }
    }
    if (!(session = OpenThreadWaitChainSession( 0, NULL )))
    {
        fprintf( stderr, "wctdump: Wait Chain Traversal is not available (error %lu)\n", GetLastError() );
        return 2;
    }
    SymSetOptions( SymGetOptions() | SYMOPT_DEFERRED_LOADS | SYMOPT_UNDNAME );
    if (json) printf( "{\"processes\": [" );

    snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPPROCESS, 0 );
    if (Process32First( snapshot, &entry ))
    {
        do
        {
            BOOL wanted = FALSE;
            for (i = 1; i < argc; i++)
                if (strcmp( argv[i], "--json" ) && strtoul( argv[i], NULL, 0 ) == entry.th32ProcessID) wanted = TRUE;
            if (argc > 1 + json && !wanted) continue;
            if (entry.th32ProcessID == GetCurrentProcessId()) continue;
            deadlocked += dump_process( entry.th32ProcessID, entry.szExeFile, !count++ );
        } while (Process32Next( snapshot, &entry ));
    }
    CloseHandle( snapshot );
    CloseThreadWaitChainSession( session );

    if (json) printf( "\n  ],\n  \"deadlocked_threads\": %d\n}\n", deadlocked );
    else printf( "%d deadlocked thread%s\n", deadlocked, deadlocked == 1 ? "" : "s" );
    for (i = 1; i < argc; i++)
        if (strcmp( argv[i], "--json" ) && !count)
        {
            fprintf( stderr, "wctdump: no such process\n" );
            return 2;
        }
    return deadlocked ? 1 : 0;
}

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
#include <winternl.h>
#include <tlhelp32.h>
#include <psapi.h>
#include <dbghelp.h>
#include <wct.h>
#include <pkfuncs.h>

#include "wine/server_protocol.h"
#include "wine/wait_chain.h"
#include "wctdump.h"

static const WCHAR usage[] =
    L"Usage: wctdump [--json] [--all] [PID...]\n"
    L"\n"
    L"Lists every thread of the given processes (of all processes without a PID)\n"
    L"with its wait chain, and the call stack of each blocked thread. Marks the\n"
    L"threads whose chain is a cycle: a deadlock.\n"
    L"\n"
    L"  PID      a process id in decimal, as wctdump and Windows' tools print it\n"
    L"  --json   the report as JSON (UTF-8), for programs\n"
    L"  --all    the call stacks of every thread, running ones included (sampled)\n"
    L"  --help   this text\n"
    L"\n"
    L"Exit status: 0 no deadlock, 1 a deadlock, 2 an error.\n";

static BOOL json, all_stacks;
static HWCT session;
static HMODULE coredll;
static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);
static HWCT (WINAPI *pOpenThreadWaitChainSession)(DWORD, PWAITCHAINCALLBACK);
static BOOL (WINAPI *pGetThreadWaitChain)(HWCT, DWORD_PTR, DWORD, DWORD, DWORD *, WAITCHAIN_NODE_INFO *, BOOL *);
static void (WINAPI *pCloseThreadWaitChainSession)(HWCT);

/*
 * Output. Text follows the user's locale: a console gets wide characters,
 * a file or pipe the locale's code page (on Wine, the Unix locale's). JSON
 * is UTF-8 wherever it goes.
 */
struct output
{
    HANDLE handle;
    BOOL   console;
    UINT   codepage;
};

static struct output out, err;

static void init_output( struct output *output, DWORD std )
{
    DWORD mode;

    output->handle = GetStdHandle( std );
    output->console = GetConsoleMode( output->handle, &mode );
    if (json && std == STD_OUTPUT_HANDLE) output->codepage = CP_UTF8;
    /* CP_UNIXCP: Wine's name for the Unix locale's code page */
    else if (WideCharToMultiByte( CP_UNIXCP, 0, L"a", 1, NULL, 0, NULL, NULL )) output->codepage = CP_UNIXCP;
    else output->codepage = GetConsoleOutputCP();
}

static void write_output( struct output *output, const WCHAR *text, int len )
{
    char buffer[4096];
    DWORD done;
    int chunk, size;

    if (output->console && !(json && output == &out))
    {
        WriteConsoleW( output->handle, text, len, &done, NULL );
        return;
    }
    while (len > 0)
    {
        /* whole characters only: do not split a surrogate pair */
        chunk = min( len, 1000 );
        if (chunk < len && IS_HIGH_SURROGATE( text[chunk - 1] )) chunk--;
        size = WideCharToMultiByte( output->codepage, 0, text, chunk, buffer, sizeof(buffer), NULL, NULL );
        WriteFile( output->handle, buffer, size, &done, NULL );
        text += chunk;
        len -= chunk;
    }
}

static void __cdecl print_to( struct output *output, const WCHAR *format, ... )
{
    WCHAR buffer[2048];
    va_list args;
    int len;

    va_start( args, format );
    len = _vsnwprintf( buffer, ARRAY_SIZE(buffer) - 1, format, args );
    va_end( args );
    if (len < 0) len = ARRAY_SIZE(buffer) - 1;
    buffer[len] = 0;
    write_output( output, buffer, len );
}

#define print(...) print_to( &out, __VA_ARGS__ )
#define error(...) print_to( &err, L"wctdump: " __VA_ARGS__ )

/* a JSON string: names come from other processes, escape everything odd */
static void print_json_string( const WCHAR *str )
{
    WCHAR buffer[1024];
    int len = 0;

    buffer[len++] = '"';
    for (; *str; str++)
    {
        if (len > ARRAY_SIZE(buffer) - 8)
        {
            write_output( &out, buffer, len );
            len = 0;
        }
        if (*str == '"' || *str == '\\')
        {
            buffer[len++] = '\\';
            buffer[len++] = *str;
        }
        else if (*str < 0x20) len += _snwprintf( buffer + len, 7, L"\\u%04x", *str );
        else buffer[len++] = *str;
    }
    buffer[len++] = '"';
    write_output( &out, buffer, len );
}

/* the system's text for an error, on one line */
static const WCHAR *error_text( DWORD code )
{
    static WCHAR buffer[256];
    int len;

    len = FormatMessageW( FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0,
                          buffer, ARRAY_SIZE(buffer), NULL );
    while (len && (buffer[len - 1] == '\n' || buffer[len - 1] == '\r' || buffer[len - 1] == ' ' ||
                   buffer[len - 1] == '.'))
        len--;
    if (!len) _snwprintf( buffer, ARRAY_SIZE(buffer), L"error %lu", code );
    else buffer[len] = 0;
    return buffer;
}

/* Names of node types and states: words for people in text, identifiers in JSON. */
static const WCHAR *type_name( WCT_OBJECT_TYPE type )
{
    static const WCHAR * const text[] =
    {
        L"object of unknown type", L"critical section", L"SendMessage", L"mutex", L"ALPC port", L"COM call",
        L"the end of a thread", L"the end of a process", L"thread", L"COM activation", L"object of unknown type", L"socket I/O",
        L"SMB I/O"
    };
    static const WCHAR * const ids[] =
    {
        L"unknown", L"critical_section", L"send_message", L"mutex", L"alpc", L"com", L"thread_wait",
        L"process_wait", L"thread", L"com_activation", L"unknown", L"socket_io", L"smb_io"
    };
    if (type >= ARRAY_SIZE(ids)) type = 0;
    return json ? ids[type] : text[type];
}

static const WCHAR *status_name( WCT_OBJECT_STATUS status )
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
    return json ? ids[status] : text[status];
}

/*
 * The modules of a process and the reader that walk_names.c names their
 * frames through: the process's memory, read a page at a time and kept,
 * as naming a frame reads many small pieces, and the modules' files.
 */
#define MAX_MODULES 1024
#define CACHE_PAGES 64
#define PAGE_SIZE_  4096

struct module
{
    ULONG_PTR base;
    DWORD     size;
    WCHAR     path[MAX_PATH];
    HANDLE    file;     /* opened when first read; INVALID_HANDLE_VALUE: cannot be */
};

struct page
{
    ULONG_PTR addr;
    BOOL      valid;
    BYTE      data[PAGE_SIZE_];
};

struct target
{
    HANDLE         process;
    DWORD          pid;
    struct module *modules;
    DWORD          count;
    struct page   *cache;
    BOOL           symbols;   /* dbghelp initialized for it */
};

static BOOL read_target_memory( void *ctx, ULONG_PTR addr, void *buffer, SIZE_T size )
{
    struct target *target = ctx;
    SIZE_T done, chunk;
    struct page *page;
    ULONG_PTR start;
    BYTE *dst = buffer;

    while (size)
    {
        start = addr & ~(ULONG_PTR)(PAGE_SIZE_ - 1);
        page = &target->cache[(start / PAGE_SIZE_) % CACHE_PAGES];
        if (!page->valid || page->addr != start)
        {
            page->addr = start;
            page->valid = ReadProcessMemory( target->process, (void *)start, page->data, PAGE_SIZE_, &done ) &&
                          done == PAGE_SIZE_;
            if (!page->valid)
                return ReadProcessMemory( target->process, (void *)addr, dst, size, &done ) && done == size;
        }
        chunk = min( size, start + PAGE_SIZE_ - addr );
        memcpy( dst, page->data + (addr - start), chunk );
        dst += chunk;
        addr += chunk;
        size -= chunk;
    }
    return TRUE;
}

static struct module *find_module( struct target *target, ULONG_PTR addr )
{
    DWORD i;

    for (i = 0; i < target->count; i++)
        if (addr >= target->modules[i].base && addr - target->modules[i].base < target->modules[i].size)
            return &target->modules[i];
    return NULL;
}

static BOOL read_module_file( void *ctx, ULONG_PTR base, ULONGLONG offset, void *buffer, SIZE_T size )
{
    struct module *module = find_module( ctx, base );
    LARGE_INTEGER pos = { .QuadPart = offset };
    DWORD done;

    if (!module) return FALSE;
    if (!module->file)
        module->file = CreateFileW( module->path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
                                    OPEN_EXISTING, 0, NULL );
    if (module->file == INVALID_HANDLE_VALUE) return FALSE;
    return SetFilePointerEx( module->file, pos, NULL, FILE_BEGIN ) &&
           ReadFile( module->file, buffer, size, &done, NULL ) && done == size;
}

static BOOL open_target( struct target *target, DWORD pid )
{
    HMODULE handles[MAX_MODULES];
    MODULEINFO info;
    DWORD needed, i;

    memset( target, 0, sizeof(*target) );
    target->pid = pid;
    if (!(target->process = OpenProcess( PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid ))) return FALSE;
    target->cache = calloc( CACHE_PAGES, sizeof(*target->cache) );
    target->modules = calloc( MAX_MODULES, sizeof(*target->modules) );
    if (!target->cache || !target->modules) return FALSE;
    if (!EnumProcessModules( target->process, handles, sizeof(handles), &needed )) return TRUE;
    for (i = 0; i < min( needed / sizeof(HMODULE), MAX_MODULES ); i++)
    {
        struct module *module = &target->modules[target->count];

        if (!GetModuleInformation( target->process, handles[i], &info, sizeof(info) )) continue;
        if (!GetModuleFileNameExW( target->process, handles[i], module->path, ARRAY_SIZE(module->path) )) continue;
        module->base = (ULONG_PTR)info.lpBaseOfDll;
        module->size = info.SizeOfImage;
        target->count++;
    }
    return TRUE;
}

static void close_target( struct target *target )
{
    DWORD i;

    for (i = 0; i < target->count; i++)
        if (target->modules[i].file && target->modules[i].file != INVALID_HANDLE_VALUE)
            CloseHandle( target->modules[i].file );
    if (target->symbols) SymCleanup( target->process );
    if (target->process) CloseHandle( target->process );
    free( target->modules );
    free( target->cache );
}

/* dbghelp, for what the symbol table and the exports do not name (PDB, and
 * DWARF without a symbol table), and to walk stacks where there is no
 * GetThreadCallStack (Windows) */
static BOOL init_symbols( struct target *target )
{
    if (!target->symbols)
    {
        SymSetOptions( SymGetOptions() | SYMOPT_DEFERRED_LOADS | SYMOPT_UNDNAME );
        target->symbols = SymInitializeW( target->process, NULL, TRUE );
    }
    return target->symbols;
}

static BOOL debug_symbol( struct target *target, ULONG_PTR addr, char *name, DWORD size, ULONG_PTR *displacement )
{
    char buffer[sizeof(SYMBOL_INFOW) + FRAME_SYMBOL_LENGTH * sizeof(WCHAR)];
    SYMBOL_INFOW *symbol = (SYMBOL_INFOW *)buffer;
    DWORD64 disp;

    symbol->SizeOfStruct = sizeof(*symbol);
    symbol->MaxNameLen = FRAME_SYMBOL_LENGTH;
    if (!init_symbols( target ) || !SymFromAddrW( target->process, addr, &disp, symbol )) return FALSE;
    *displacement = disp;
    return WideCharToMultiByte( CP_UTF8, 0, symbol->Name, -1, name, size, NULL, NULL ) > 0;
}

/* module!symbol+offset, the same text as the deadlock watchdog's */
static void describe_address( struct target *target, ULONG_PTR addr, WCHAR *buffer, DWORD size )
{
    const struct frame_reader reader = { target, read_target_memory, read_module_file };
    struct module *module = find_module( target, addr );
    char symbol[FRAME_SYMBOL_LENGTH];
    ULONG_PTR displacement;

    if (!module) frame_format( buffer, size, NULL, NULL, addr );
    else if (frame_symbol( &reader, module->base, addr, symbol, sizeof(symbol), &displacement ) ||
             debug_symbol( target, addr, symbol, sizeof(symbol), &displacement ))
        frame_format( buffer, size, module->path, symbol, displacement );
    else frame_format( buffer, size, module->path, NULL, addr - module->base );
}

/* What the layer tells beyond WAITCHAIN_NODE_INFO: the kind of a wait the
 * server does not see (Sleep, an SRW lock, ...) and the address of what it
 * waits on, or of a critical section. Wine only: on Windows, and on a
 * chain that changed between the two queries, the report says what Wait
 * Chain Traversal says. */
struct wait_detail
{
    unsigned int kind;     /* WAIT_RECORD_* */
    ULONGLONG    object;
};

static NTSTATUS (WINAPI *p__wine_get_wait_chain)( DWORD, DWORD, struct wait_chain_node *, ULONG, ULONG *, BOOL * );

struct thread_report
{
    DWORD               tid;
    BOOL                ok;
    DWORD               error;
    DWORD               count;
    BOOL                cycle;      /* the chain ends in a cycle */
    BOOL                member;     /* the thread is in that cycle */
    WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
    struct wait_detail  details[WCT_MAX_NODE_COUNT];
    ULONG_PTR           stack[MAX_STACK];
    DWORD               stack_count;
};

static BOOL is_blocked( const struct thread_report *report )
{
    return report->ok && report->count && report->nodes[0].ObjectStatus == WctStatusBlocked;
}

static void walk_with_dbghelp( struct target *target, HANDLE thread, struct thread_report *report )
{
    STACKFRAME64 frame;
    CONTEXT context;

    if (!init_symbols( target )) return;
    context.ContextFlags = CONTEXT_FULL;
    if (SuspendThread( thread ) == (DWORD)-1) return;
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
               StackWalk64( IMAGE_FILE_MACHINE_AMD64, target->process, thread, &frame, &context, NULL,
                            SymFunctionTableAccess64, SymGetModuleBase64, NULL ) &&
               frame.AddrPC.Offset)
            report->stack[report->stack_count++] = frame.AddrPC.Offset;
    }
    ResumeThread( thread );
}

/* the thread's stack: with the layer's walker (coredll's GetThreadCallStack)
 * where there is one, else with dbghelp */
static void walk_stack( struct target *target, struct thread_report *report )
{
    HANDLE thread = OpenThread( THREAD_GET_CONTEXT | THREAD_SUSPEND_RESUME | THREAD_QUERY_INFORMATION,
                                FALSE, report->tid );
    CallSnapshot frames[MAX_STACK];
    ULONG i, n = 0;

    if (!thread) return;
    if (pGetThreadCallStack) n = pGetThreadCallStack( thread, MAX_STACK, frames, 0, 0 );
    for (i = 0; i < n; i++) report->stack[i] = frames[i].dwReturnAddr;
    report->stack_count = n;
    if (!n) walk_with_dbghelp( target, thread, report );
    CloseHandle( thread );
}

/* Deadlocks: the cycles found, each once, as the sorted ids of its threads. */
#define MAX_CYCLES 256

struct cycle
{
    DWORD        tids[WCT_MAX_NODE_COUNT];
    unsigned int count;
};

static struct cycle cycles[MAX_CYCLES];
static unsigned int cycle_count;
static DWORD deadlocked[MAX_CYCLES * WCT_MAX_NODE_COUNT];
static unsigned int deadlocked_count, waiting_count;

static int __cdecl compare_tids( const void *a, const void *b )
{
    DWORD x = *(const DWORD *)a, y = *(const DWORD *)b;
    return x < y ? -1 : x > y;
}

/* records the cycle a chain ends in; is the chain's own thread in it? */
static BOOL record_cycle( const struct thread_report *report )
{
    const WAITCHAIN_NODE_INFO *nodes = report->nodes;
    DWORD last = nodes[report->count - 1].ThreadObject.ThreadId, i, j;
    struct cycle cycle = { { 0 } };
    BOOL member = FALSE;

    for (i = 0; i < report->count - 1; i++)
        if (nodes[i].ObjectType == WctThreadType && nodes[i].ThreadObject.ThreadId == last) break;
    for (; i < report->count - 1; i++)
    {
        if (nodes[i].ObjectType != WctThreadType) continue;
        if (nodes[i].ThreadObject.ThreadId == report->tid) member = TRUE;
        cycle.tids[cycle.count++] = nodes[i].ThreadObject.ThreadId;
    }
    qsort( cycle.tids, cycle.count, sizeof(DWORD), compare_tids );
    for (i = 0; i < cycle_count; i++)
        if (cycles[i].count == cycle.count && !memcmp( cycles[i].tids, cycle.tids, cycle.count * sizeof(DWORD) ))
            break;
    if (i == cycle_count && cycle_count < MAX_CYCLES)
    {
        cycles[cycle_count++] = cycle;
        for (j = 0; j < cycle.count; j++) deadlocked[deadlocked_count++] = cycle.tids[j];
    }
    return member;
}

/* what a thread with nothing after it in its chain waits in, as text and as a JSON id */
static const WCHAR *wait_kind_text( unsigned int kind, BOOL json )
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
    if (kind >= ARRAY_SIZE(ids)) return NULL;
    return json ? ids[kind] : text[kind];
}

static void print_node_text( const WAITCHAIN_NODE_INFO *node, const struct wait_detail *detail, DWORD pid )
{
    if (node->ObjectType == WctThreadType)
    {
        if (node->ObjectStatus == WctStatusPidOnly || node->ObjectStatus == WctStatusPidOnlyRpcss)
            print( L"a thread of process %lu", node->ThreadObject.ProcessId );
        else if (node->ThreadObject.ProcessId == pid)
            print( L"thread %lu (%ls)", node->ThreadObject.ThreadId, status_name( node->ObjectStatus ) );
        else
            print( L"thread %lu of process %lu (%ls)", node->ThreadObject.ThreadId, node->ThreadObject.ProcessId,
                   status_name( node->ObjectStatus ) );
    }
    else if (node->LockObject.ObjectName[0])
        print( L"%ls \"%ls\" (%ls)", type_name( node->ObjectType ), node->LockObject.ObjectName,
               status_name( node->ObjectStatus ) );
    else if (detail->object)
        print( L"%ls at 0x%I64x (%ls)", type_name( node->ObjectType ), detail->object,
               status_name( node->ObjectStatus ) );
    else print( L"%ls (%ls)", type_name( node->ObjectType ), status_name( node->ObjectStatus ) );
}

static void print_text( struct target *target, const struct thread_report *report )
{
    WCHAR where[512];
    DWORD i;

    if (!report->ok)
    {
        print( L"  thread %lu: no wait chain: %ls\n", report->tid, error_text( report->error ) );
        return;
    }
    print( L"  thread %lu: %ls", report->tid, status_name( report->nodes[0].ObjectStatus ) );
    if (is_blocked( report ) && report->nodes[0].ThreadObject.WaitTime)
        print( L" for %lu ms", report->nodes[0].ThreadObject.WaitTime );
    if (is_blocked( report ) && report->count == 1)
    {
        const WCHAR *kind = wait_kind_text( report->details[0].kind, FALSE );

        if (!kind) print( L" (on a wait that wait chains do not follow)" );
        else if (report->details[0].kind == WAIT_RECORD_SLEEP) print( L" %ls", kind );
        else print( L" %ls at 0x%I64x", kind, report->details[0].object );
    }
    if (report->member) print( L"  ** DEADLOCK **" );
    else if (report->cycle) print( L"  (waits on a deadlock)" );
    print( L"\n" );
    if (report->count > 1)
    {
        print( L"    waits for " );
        for (i = 1; i < report->count; i++)
        {
            if (i > 1) print( L"\n      -> " );
            print_node_text( &report->nodes[i], &report->details[i], target->pid );
        }
        if (report->cycle) print( L": a cycle" );
        print( L"\n" );
    }
    for (i = 0; i < report->stack_count; i++)
    {
        describe_address( target, report->stack[i], where, ARRAY_SIZE(where) );
        print( L"    #%02lu %ls\n", i, where );
    }
}

static void print_json( struct target *target, const struct thread_report *report, BOOL first )
{
    WCHAR where[512];
    DWORD i;

    print( L"%ls\n      {\"tid\": %lu", first ? L"" : L",", report->tid );
    if (!report->ok)
    {
        print( L", \"error\": %lu, \"message\": ", report->error );
        print_json_string( error_text( report->error ) );
        print( L"}" );
        return;
    }
    print( L", \"status\": \"%ls\", \"wait_time_ms\": %lu, \"context_switches\": %lu, \"deadlock\": %ls,"
           L" \"waits_on_deadlock\": %ls,\n",
           status_name( report->nodes[0].ObjectStatus ), report->nodes[0].ThreadObject.WaitTime,
           report->nodes[0].ThreadObject.ContextSwitches, report->member ? L"true" : L"false",
           report->cycle && !report->member ? L"true" : L"false" );
    print( L"       \"chain\": [" );
    for (i = 0; i < report->count; i++)
    {
        const WAITCHAIN_NODE_INFO *node = &report->nodes[i];
        print( L"%ls{\"type\": \"%ls\", \"status\": \"%ls\"", i ? L", " : L"",
               type_name( node->ObjectType ), status_name( node->ObjectStatus ) );
        if (node->ObjectType == WctThreadType)
            print( L", \"pid\": %lu, \"tid\": %lu", node->ThreadObject.ProcessId, node->ThreadObject.ThreadId );
        else
        {
            print( L", \"name\": " );
            print_json_string( node->LockObject.ObjectName );
        }
        if (wait_kind_text( report->details[i].kind, TRUE ))
            print( L", \"wait\": \"%ls\"", wait_kind_text( report->details[i].kind, TRUE ) );
        if (report->details[i].object) print( L", \"address\": \"0x%I64x\"", report->details[i].object );
        print( L"}" );
    }
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

static void get_details( struct thread_report *report, DWORD flags )
{
    struct wait_chain_node layer[WCT_MAX_NODE_COUNT];
    ULONG i, total = 0;
    BOOL cycle;

    memset( report->details, 0, sizeof(report->details) );
    if (!p__wine_get_wait_chain || !report->count) return;
    if (p__wine_get_wait_chain( report->tid, flags, layer, ARRAY_SIZE(layer), &total, &cycle )) return;
    if (min( total, WCT_MAX_NODE_COUNT ) < report->count) return;
    for (i = 0; i < report->count; i++)
    {
        if (layer[i].type != report->nodes[i].ObjectType || layer[i].status != report->nodes[i].ObjectStatus) return;
        if (layer[i].type == WctThreadType && layer[i].tid != report->nodes[i].ThreadObject.ThreadId) return;
    }
    for (i = 0; i < report->count; i++)
    {
        report->details[i].kind = layer[i].wait_kind;
        report->details[i].object = layer[i].object;
    }
}

static void get_chain( struct thread_report *report )
{
    report->count = WCT_MAX_NODE_COUNT;
    report->ok = pGetThreadWaitChain( session, 0, WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG, report->tid,
                                      &report->count, report->nodes, &report->cycle );
    if (!report->ok)
    {
        report->error = GetLastError();
        /* a chain too long still tells who waits for what */
        if (report->error == ERROR_MORE_DATA || report->error == ERROR_TOO_MANY_THREADS) report->ok = TRUE;
    }
    if (!report->ok) report->count = 0;
    get_details( report, WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG );
    report->cycle = report->ok && report->cycle && report->count >= 2;
    if (report->cycle && (report->member = record_cycle( report ))) return;
    if (report->cycle) waiting_count++;
}

static void dump_process( DWORD pid, const WCHAR *exe, BOOL first )
{
    THREADENTRY32 entry = { sizeof(entry) };
    struct thread_report report;
    struct target target;
    HANDLE snapshot;
    BOOL first_thread = TRUE, readable;

    readable = open_target( &target, pid );
    if (json)
    {
        print( L"%ls\n    {\"pid\": %lu, \"name\": ", first ? L"" : L",", pid );
        print_json_string( exe );
        print( L", \"threads\": [" );
    }
    else
    {
        print( L"process %lu %ls\n", pid, exe );
        if (!readable) print( L"  (no call stacks: cannot read the process: %ls)\n", error_text( GetLastError() ) );
    }

    snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPTHREAD, 0 );
    if (Thread32First( snapshot, &entry ))
    {
        do
        {
            if (entry.th32OwnerProcessID != pid) continue;
            memset( &report, 0, sizeof(report) );
            report.tid = entry.th32ThreadID;
            get_chain( &report );
            if (readable && (is_blocked( &report ) || all_stacks)) walk_stack( &target, &report );
            if (json) print_json( &target, &report, first_thread );
            else print_text( &target, &report );
            first_thread = FALSE;
        } while (Thread32Next( snapshot, &entry ));
    }
    CloseHandle( snapshot );
    if (json) print( L"]}" );
    close_target( &target );
}

/* A process id as wctdump prints it: decimal digits, no leading zero, so
 * that 0070 (octal to some tools, decimal to others) is never guessed at. */
static BOOL parse_pid( const WCHAR *arg, DWORD *pid )
{
    ULONGLONG value = 0;
    const WCHAR *p;

    for (p = arg; *p; p++)
    {
        if (*p < '0' || *p > '9' || (value = value * 10 + *p - '0') > MAXDWORD)
        {
            error( L"%ls: not a process id (process ids are decimal numbers)\n", arg );
            return FALSE;
        }
    }
    if (p == arg) error( L"an empty process id\n" );
    else if (arg[0] == '0' && arg[1])
        error( L"%ls: ambiguous process id: ids are decimal, without leading zeros (%I64u?)\n", arg, value );
    else
    {
        *pid = value;
        return TRUE;
    }
    return FALSE;
}

static BOOL load_functions(void)
{
    HMODULE advapi32 = LoadLibraryW( L"advapi32.dll" );

    p__wine_get_wait_chain = (void *)GetProcAddress( GetModuleHandleW( L"ntdll.dll" ), "__wine_get_wait_chain" );
    pOpenThreadWaitChainSession = (void *)GetProcAddress( advapi32, "OpenThreadWaitChainSession" );
    pGetThreadWaitChain = (void *)GetProcAddress( advapi32, "GetThreadWaitChain" );
    pCloseThreadWaitChainSession = (void *)GetProcAddress( advapi32, "CloseThreadWaitChainSession" );
    if ((coredll = LoadLibraryW( L"coredll.dll" )))
        pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" );
    return pOpenThreadWaitChainSession && pGetThreadWaitChain && pCloseThreadWaitChainSession;
}

int __cdecl wmain( int argc, WCHAR *argv[] )
{
    PROCESSENTRY32W entry = { sizeof(entry) };
    DWORD pids[256], found[256], npids = 0, i, j;
    HANDLE snapshot;
    int count = 0, status = 0;

    for (i = 1; i < argc; i++)
        if (!wcscmp( argv[i], L"--json" )) json = TRUE;
    init_output( &out, STD_OUTPUT_HANDLE );
    init_output( &err, STD_ERROR_HANDLE );

    for (i = 1; i < argc; i++)
    {
        if (!wcscmp( argv[i], L"--json" )) continue;
        if (!wcscmp( argv[i], L"--all" )) all_stacks = TRUE;
        else if (!wcscmp( argv[i], L"--help" ) || !wcscmp( argv[i], L"-h" ) || !wcscmp( argv[i], L"/?" ))
        {
            print_to( &out, L"%ls", usage );
            return 0;
        }
        else if (argv[i][0] == '-' || argv[i][0] == '/')
        {
            error( L"unknown option %ls (wctdump --help lists them)\n", argv[i] );
            return 2;
        }
        else if (npids == ARRAY_SIZE(pids))
        {
            error( L"too many process ids (at most %u)\n", (unsigned int)ARRAY_SIZE(pids) );
            return 2;
        }
        else if (!parse_pid( argv[i], &pids[npids] )) return 2;
        else found[npids++] = 0;
    }
    if (!load_functions())
    {
        error( L"this system has no Wait Chain Traversal (stock Wine 8.0 has none: run wctdump on the layer,"
               L" wine-layer wctdump)\n" );
        return 2;
    }
    if (!(session = pOpenThreadWaitChainSession( 0, NULL )))
    {
        error( L"cannot open a wait chain session: %ls\n", error_text( GetLastError() ) );
        return 2;
    }
    if (json) print( L"{\"schema_version\": %u,\n  \"processes\": [", WCTDUMP_JSON_SCHEMA );

    snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPPROCESS, 0 );
    if (Process32FirstW( snapshot, &entry ))
    {
        do
        {
            BOOL wanted = !npids;
            for (j = 0; j < npids; j++)
                if (pids[j] == entry.th32ProcessID) wanted = found[j] = TRUE;
            if (!wanted || entry.th32ProcessID == GetCurrentProcessId()) continue;
            dump_process( entry.th32ProcessID, entry.szExeFile, !count++ );
        } while (Process32NextW( snapshot, &entry ));
    }
    CloseHandle( snapshot );
    pCloseThreadWaitChainSession( session );

    if (json)
        print( L"\n  ],\n  \"deadlocks\": %u,\n  \"deadlocked_threads\": %u,\n  \"threads_waiting_on_deadlocks\": %u\n}\n",
               cycle_count, deadlocked_count, waiting_count );
    else
    {
        if (!cycle_count) print( L"no deadlock" );
        else print( L"%u deadlock%ls involving %u thread%ls", cycle_count, cycle_count == 1 ? L"" : L"s",
                    deadlocked_count, deadlocked_count == 1 ? L"" : L"s" );
        if (waiting_count)
            print( L"; %u more thread%ls wait%ls on %ls", waiting_count, waiting_count == 1 ? L"" : L"s",
                   waiting_count == 1 ? L"s" : L"", cycle_count == 1 ? L"it" : L"them" );
        print( L"\n" );
    }
    for (j = 0; j < npids; j++)
        if (!found[j])
        {
            error( L"no such process %lu\n", pids[j] );
            status = 2;
        }
    if (status) return status;
    return cycle_count ? 1 : 0;
}

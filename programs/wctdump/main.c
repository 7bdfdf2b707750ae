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

#include <ntstatus.h>
#define WIN32_NO_STATUS
#include <windows.h>
#include <winternl.h>
#include <tlhelp32.h>
#include <psapi.h>
#ifndef LIST_MODULES_32BIT
#define LIST_MODULES_32BIT 0x01  /* Windows' psapi.h; Wine 8.0's lacks it */
#endif
#include <dbghelp.h>
#include <wct.h>
#include <pkfuncs.h>

#include "wine/server.h"
#include "wine/wait_chain.h"
#include "wine/memory_file.h"
#include "wctdump.h"
#include "page_cache.h"
#include "pe_image.h"
#include "dynamic_tables.h"

static const WCHAR usage[] =
    L"Usage: wctdump [OPTION...] [PROCESS...]\n"
    L"       wctdump --list\n"
    L"\n"
    L"Finds deadlocks: lists the threads of the given processes (of every program\n"
    L"in the prefix without one) with their wait chains, the call stacks of the\n"
    L"blocked ones, and the cycles of waits (deadlocks), each once.\n"
    L"\n"
    L"  PROCESS  a Windows process id in decimal (32), in hex as Wine writes it (0x20,\n"
    L"           00000020), the Linux pid of a Wine process (what ps shows), or an\n"
    L"           executable's name (hang.exe or hang: every process of that name)\n"
    L"  --list             one line per process, and nothing else\n"
    L"  --all              the call stacks of every thread, running ones too (sampled)\n"
    L"  --other-processes  follow chains into other processes (WCT_OUT_OF_PROC_FLAG)\n"
    L"  --wine             Wine's own processes too (services, winedevice, plugplay,\n"
    L"                     svchost, rpcss, explorer, conhost, wineboot, winemenubuilder,\n"
    L"                     wctdump's start.exe)\n"
    L"  --raw              symbol names as the image has them, not demangled\n"
    L"  --json             the report as JSON (UTF-8), for programs\n"
    L"  --timing           after the report, how long its parts took (on stderr)\n"
    L"  --help             this text\n"
    L"\n"
    L"Exit status:\n"
    L"  0  no deadlock, and every blocked thread's chain was followed to its end\n"
    L"  1  a deadlock\n"
    L"  2  a usage error, or wctdump failed\n"
    L"  3  a process asked for does not exist (nothing is reported)\n"
    L"  4  no program runs in the prefix (only Wine's own processes), or no prefix\n"
    L"  5  no deadlock found, but some blocked threads wait on something whose owner\n"
    L"     cannot be followed (an event, a semaphore, an SRW lock, ...) or in another\n"
    L"     process: a deadlock through them would not show\n";

enum exit_status
{
    EXIT_CLEAN = 0,
    EXIT_DEADLOCK = 1,
    EXIT_ERROR = 2,
    EXIT_NO_SUCH_PROCESS = 3,
    EXIT_NO_PROGRAM = 4,
    EXIT_UNFOLLOWED = 5,
};

static BOOL json, all_stacks, raw_names, with_wine, other_processes, list_only, timing;

/* --timing: where a report's time goes, in ms */
enum report_part { PART_MODULES, PART_CHAINS, PART_STACKS, PART_PRINT, PART_COUNT };
static double part_ms[PART_COUNT];

static double now_ms(void)
{
    LARGE_INTEGER freq, counter;

    QueryPerformanceFrequency( &freq );
    QueryPerformanceCounter( &counter );
    return (double)counter.QuadPart * 1000 / (double)freq.QuadPart;
}

static HWCT session;
static HMODULE coredll;
static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);
static ULONG (WINAPI *p__wine_walk_blocked_thread)(DWORD, DWORD, void *, ULONG, void **);
static HWCT (WINAPI *pOpenThreadWaitChainSession)(DWORD, PWAITCHAINCALLBACK);
static BOOL (WINAPI *pGetThreadWaitChain)(HWCT, DWORD_PTR, DWORD, DWORD, DWORD *, WAITCHAIN_NODE_INFO *, BOOL *);
static void (WINAPI *pCloseThreadWaitChainSession)(HWCT);
static NTSTATUS (WINAPI *p__wine_get_wait_chain)( DWORD, DWORD, struct wait_chain_node *, ULONG, ULONG *, BOOL * );
static unsigned int (CDECL *p_wine_server_call)( void * );
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

/* The system's text for an error, on one line; our own words for those
 * a wait chain query gives where the system has none (Wine's tables lack
 * most of the newer codes). */
static const WCHAR *error_text( DWORD code )
{
    static const struct { DWORD code; const WCHAR *text; } words[] =
    {
        { ERROR_OBJECT_NOT_FOUND, L"the thread no longer exists" },
        { ERROR_INVALID_PARAMETER, L"the thread no longer exists" },
        { ERROR_ACCESS_DENIED, L"access denied" },
        { ERROR_TOO_MANY_THREADS, L"the chain is longer than 16 nodes" },
        { ERROR_MORE_DATA, L"the chain is longer than 16 nodes" },
        { ERROR_PARTIAL_COPY, L"part of the process's memory could not be read" },
        { ERROR_NOT_SUPPORTED, L"not supported" },
    };
    static WCHAR buffer[256];
    unsigned int i;
    int len;

    for (i = 0; i < ARRAY_SIZE(words); i++) if (words[i].code == code) return words[i].text;
    len = FormatMessageW( FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0,
                          buffer, ARRAY_SIZE(buffer), NULL );
    while (len && (buffer[len - 1] == '\n' || buffer[len - 1] == '\r' || buffer[len - 1] == ' ' ||
                   buffer[len - 1] == '.'))
        len--;
    if (!len) _snwprintf( buffer, ARRAY_SIZE(buffer), L"system error %lu, which has no text here", code );
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
#define CACHE_PAGES 1024      /* 4 MB: the tables of every module a report names frames in */
#define FILE_WINDOW 0x10000   /* the part of a module's file read at a time */
#define NAME_SLOTS  1024      /* frames named in a report, kept (a power of two) */
#define NAME_LENGTH 512

struct module
{
    ULONG_PTR  base;
    DWORD      size;
    WCHAR      path[MAX_PATH];
    HANDLE     file;         /* opened when first read; INVALID_HANDLE_VALUE: cannot be */
    BYTE      *window;       /* FILE_WINDOW bytes of the file read last: the symbol table is read */
    ULONGLONG  window_start; /* in small pieces, one after another */
    DWORD      window_size;
};

/* Threads share most of their frames (the wait functions, the thread
 * start): each address is named once a report. */
struct frame_name
{
    ULONG_PTR addr;          /* 0: empty */
    WCHAR     text[NAME_LENGTH];
};

struct target
{
    HANDLE              process;
    DWORD               pid;
    struct module      *modules;
    DWORD               count;
    struct page_cache   cache;   /* the modules' headers and tables, for one report */
    ULONG64            *page_addrs;
    BYTE               *page_data;
    struct frame_name  *names;   /* NAME_SLOTS of them, or NULL */
    BOOL                symbols; /* dbghelp initialized for it */
};

/* the page cache's reader: ntdll's, which keeps the process open and reads
 * a file of its memory, without a server round trip a read */
static BOOL target_read_process( void *ctx, ULONG64 addr, void *buffer, SIZE_T size )
{
    const struct target *target = ctx;

    return !__wine_read_process_memory( target->pid, (void *)(ULONG_PTR)addr, buffer, size );
}

static BOOL read_target_memory( void *ctx, ULONG_PTR addr, void *buffer, SIZE_T size )
{
    struct target *target = ctx;

    return page_cache_read( &target->cache, addr, buffer, size );
}

static struct module *find_module( struct target *target, ULONG_PTR addr )
{
    DWORD i;

    for (i = 0; i < target->count; i++)
        if (addr >= target->modules[i].base && addr - target->modules[i].base < target->modules[i].size)
            return &target->modules[i];
    return NULL;
}

static BOOL read_file_at( HANDLE file, ULONGLONG offset, void *buffer, DWORD size, DWORD *done )
{
    LARGE_INTEGER pos = { .QuadPart = offset };

    return SetFilePointerEx( file, pos, NULL, FILE_BEGIN ) && ReadFile( file, buffer, size, done, NULL );
}

/* Naming a frame reads the symbol table 1 KB at a time: the file is read
 * a window at a time, and a piece the window holds costs a copy. */
static BOOL read_module_file( void *ctx, ULONG_PTR base, ULONGLONG offset, void *buffer, SIZE_T size )
{
    struct module *module = find_module( ctx, base );
    ULONGLONG start;
    DWORD done;

    if (!module || offset + size < offset) return FALSE;
    if (!module->file)
        module->file = CreateFileW( module->path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
                                    OPEN_EXISTING, 0, NULL );
    if (module->file == INVALID_HANDLE_VALUE) return FALSE;
    if (size > FILE_WINDOW / 2 || (!module->window && !(module->window = malloc( FILE_WINDOW ))))
        return read_file_at( module->file, offset, buffer, size, &done ) && done == size;
    if (offset < module->window_start || offset + size > module->window_start + module->window_size)
    {
        start = offset & ~(ULONGLONG)(FILE_WINDOW / 2 - 1);
        module->window_size = 0;
        if (!read_file_at( module->file, start, module->window, FILE_WINDOW, &done )) return FALSE;
        module->window_start = start;
        module->window_size = done;
        if (offset + size > start + done) return FALSE;
    }
    memcpy( buffer, module->window + (offset - module->window_start), size );
    return TRUE;
}

/* The modules from the process's loader list, read once through the page
 * cache: psapi walks the list again for each module it is asked about, and
 * each of its reads is a server round trip. */
static BOOL read_module_list( struct target *target )
{
    NTSTATUS (WINAPI *pNtQueryInformationProcess)(HANDLE, PROCESSINFOCLASS, void *, ULONG, ULONG *);
    PROCESS_BASIC_INFORMATION info;
    LDR_DATA_TABLE_ENTRY record;
    ULONG_PTR ldr, head, entry;
    DWORD n, length;

    pNtQueryInformationProcess = (void *)GetProcAddress( GetModuleHandleW( L"ntdll.dll" ),
                                                         "NtQueryInformationProcess" );
    if (!pNtQueryInformationProcess ||
        pNtQueryInformationProcess( target->process, ProcessBasicInformation, &info, sizeof(info), NULL ) ||
        !read_target_memory( target, (ULONG_PTR)info.PebBaseAddress + FIELD_OFFSET( PEB, LdrData ),
                             &ldr, sizeof(ldr) ) || !ldr)
        return FALSE;
    head = ldr + FIELD_OFFSET( PEB_LDR_DATA, InLoadOrderModuleList );
    if (!read_target_memory( target, head, &entry, sizeof(entry) )) return FALSE;
    /* the list is the other process's: bounded, and every entry checked */
    for (n = 0; entry != head && n < MAX_MODULES && target->count < MAX_MODULES; n++)
    {
        struct module *module = &target->modules[target->count];

        if (!read_target_memory( target, entry - FIELD_OFFSET( LDR_DATA_TABLE_ENTRY, InLoadOrderLinks ),
                                 &record, sizeof(record) ))
            return FALSE;
        length = record.FullDllName.Length / sizeof(WCHAR);
        if (record.DllBase && record.SizeOfImage && length && length < ARRAY_SIZE(module->path) &&
            read_target_memory( target, (ULONG_PTR)record.FullDllName.Buffer, module->path, length * sizeof(WCHAR) ))
        {
            module->path[length] = 0;
            module->base = (ULONG_PTR)record.DllBase;
            module->size = record.SizeOfImage;
            target->count++;
        }
        entry = (ULONG_PTR)record.InLoadOrderLinks.Flink;
    }
    return target->count > 0;
}

static BOOL open_target( struct target *target, DWORD pid )
{
    HMODULE handles[MAX_MODULES];
    WCHAR system_dir[MAX_PATH], wow64_dir[MAX_PATH];
    UINT system_len = 0;
    BOOL wow64 = FALSE;
    MODULEINFO info;
    DWORD needed, i;

    memset( target, 0, sizeof(*target) );
    target->pid = pid;
    if (!(target->process = OpenProcess( PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid ))) return FALSE;
    target->page_addrs = malloc( CACHE_PAGES * sizeof(*target->page_addrs) );
    target->page_data = malloc( CACHE_PAGES * PAGE_CACHE_PAGE_SIZE );
    target->names = calloc( NAME_SLOTS, sizeof(*target->names) );
    target->modules = calloc( MAX_MODULES, sizeof(*target->modules) );
    if (!target->page_addrs || !target->page_data || !target->modules) return FALSE;
    page_cache_init( &target->cache, target, target_read_process, target->page_addrs, target->page_data,
                     CACHE_PAGES );
    /* the loader list of the 64-bit PEB holds a 32-bit program's 64-bit
     * modules only (ntdll, wow64*.dll): psapi reads its 32-bit list */
    if (!IsWow64Process( target->process, &wow64 )) wow64 = FALSE;
    if (!wow64 && read_module_list( target )) return TRUE;
    target->count = 0;
    /* its 32-bit modules, whose frames are walked: Wine 10 lists them only
     * when asked, Wine 8.0's EnumProcessModulesEx gives them always */
    if (!(wow64 ? EnumProcessModulesEx( target->process, handles, sizeof(handles), &needed, LIST_MODULES_32BIT ) :
                  EnumProcessModules( target->process, handles, sizeof(handles), &needed )))
        return TRUE;
    /* a 32-bit program's modules say system32, as it sees it: their files
     * are in syswow64 */
    if (wow64)
    {
        system_len = GetSystemDirectoryW( system_dir, ARRAY_SIZE(system_dir) );
        if (!GetSystemWow64DirectoryW( wow64_dir, ARRAY_SIZE(wow64_dir) )) system_len = 0;
    }
    for (i = 0; i < min( needed / sizeof(HMODULE), MAX_MODULES ); i++)
    {
        struct module *module = &target->modules[target->count];

        if (!GetModuleInformation( target->process, handles[i], &info, sizeof(info) )) continue;
        if (!GetModuleFileNameExW( target->process, handles[i], module->path, ARRAY_SIZE(module->path) )) continue;
        if (system_len && system_len < ARRAY_SIZE(system_dir) && !wcsnicmp( module->path, system_dir, system_len ) &&
            module->path[system_len] == '\\' &&
            wcslen( wow64_dir ) + wcslen( module->path + system_len ) < ARRAY_SIZE(module->path))
        {
            WCHAR rest[MAX_PATH];

            lstrcpynW( rest, module->path + system_len, ARRAY_SIZE(rest) );
            lstrcpyW( module->path, wow64_dir );
            lstrcatW( module->path, rest );
        }
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
    {
        if (target->modules[i].file && target->modules[i].file != INVALID_HANDLE_VALUE)
            CloseHandle( target->modules[i].file );
        free( target->modules[i].window );
    }
    if (target->symbols) SymCleanup( target->process );
    if (target->process) CloseHandle( target->process );
    free( target->modules );
    free( target->page_addrs );
    free( target->page_data );
    free( target->names );
}

/* dbghelp, for what the symbol table and the exports do not name (PDB, and
 * DWARF without a symbol table), and to walk stacks where there is no
 * GetThreadCallStack (Windows) */
static BOOL init_symbols( struct target *target )
{
    if (!target->symbols)
    {
        DWORD options = SymGetOptions() | SYMOPT_DEFERRED_LOADS;

        if (raw_names) options &= ~SYMOPT_UNDNAME;
        else options |= SYMOPT_UNDNAME;
        SymSetOptions( options );
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

/* module!symbol+offset, the same text as the deadlock watchdog's: from
 * what the image's own tables named ('query'), else from dbghelp */
static void format_name( struct target *target, const struct module *module, const struct frame_name_query *query,
                         WCHAR *buffer, DWORD size )
{
    char symbol[FRAME_SYMBOL_LENGTH], plain[FRAME_SYMBOL_LENGTH];
    ULONG_PTR displacement = query->displacement;

    if (!module) frame_format( buffer, size, NULL, NULL, query->addr );
    else if (query->found || debug_symbol( target, query->addr, symbol, sizeof(symbol), &displacement ))
    {
        if (query->found) strcpy( symbol, query->name );
        /* C++ names as people write them, unless asked for the image's own */
        if (!raw_names && frame_demangle( symbol, plain, sizeof(plain) )) strcpy( symbol, plain );
        frame_format( buffer, size, module->path, symbol, displacement );
    }
    else frame_format( buffer, size, module->path, NULL, query->addr - module->base );
}

/* the slot of 'addr' among the names kept, or an empty one for it, or NULL */
static struct frame_name *name_slot( struct target *target, ULONG_PTR addr )
{
    unsigned int i, hash = (unsigned int)(addr ^ (addr >> 12) ^ (addr >> 24));
    struct frame_name *slot;

    for (i = 0; target->names && addr && i < 8; i++)
    {
        slot = &target->names[(hash + i) % NAME_SLOTS];
        if (!slot->addr || slot->addr == addr) return slot;
    }
    return NULL;
}

static void describe_address( struct target *target, ULONG_PTR addr, WCHAR *buffer, DWORD size )
{
    const struct frame_reader reader = { target, read_target_memory, read_module_file };
    struct frame_name *slot = size == NAME_LENGTH ? name_slot( target, addr ) : NULL;
    struct frame_name_query query = { addr };
    struct module *module;

    if (slot && slot->addr == addr)
    {
        memcpy( buffer, slot->text, sizeof(slot->text) );
        return;
    }
    if ((module = find_module( target, addr ))) frame_symbols( &reader, module->base, &query, 1 );
    format_name( target, module, &query, buffer, size );
    if (slot)
    {
        memcpy( slot->text, buffer, sizeof(slot->text) );
        slot->addr = addr;
    }
}

static int __cdecl compare_addrs( const void *a, const void *b )
{
    ULONG_PTR x = *(const ULONG_PTR *)a, y = *(const ULONG_PTR *)b;
    return x < y ? -1 : x > y;
}

/* Names the frames 'addrs' (sorted, each once) of one module together, in
 * one pass over its tables, into the names kept. */
static void name_module_frames( struct target *target, const struct module *module, const ULONG_PTR *addrs,
                                DWORD count, struct frame_name_query *queries )
{
    const struct frame_reader reader = { target, read_target_memory, read_module_file };
    struct frame_name *slot;
    DWORD i;

    for (i = 0; i < count; i++) queries[i].addr = addrs[i];
    frame_symbols( &reader, module->base, queries, count );
    for (i = 0; i < count; i++)
    {
        if (!(slot = name_slot( target, addrs[i] )) || slot->addr) continue;
        format_name( target, module, &queries[i], slot->text, ARRAY_SIZE(slot->text) );
        slot->addr = addrs[i];
    }
}

/*
 * What wctdump learns of each thread, before it prints anything: the
 * summary comes first, each deadlock is printed once, and threads in the
 * same state with the same stack are printed once with their count.
 */
enum thread_state
{
    STATE_FINE,          /* running, sleeping, or its chain ends at something that is not stuck */
    STATE_DEADLOCK,      /* in a cycle */
    STATE_ON_DEADLOCK,   /* its chain leads into a cycle it is not part of */
    STATE_UNFOLLOWED,    /* blocked, and the chain ends at a wait whose owner cannot be followed */
    STATE_OTHER_PROCESS, /* blocked, and the chain goes into another process, not followed */
    STATE_GONE,          /* ended while it was examined */
    STATE_ERROR,
};

struct thread_report
{
    DWORD                  tid;
    void                  *teb;        /* NULL: not known */
    DWORD                  error;
    DWORD                  count;
    BOOL                   cycle;      /* the chain ends in a cycle */
    enum thread_state      state;
    unsigned int           deadlock;   /* 1-based number of its cycle */
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT];
    ULONG_PTR              stack[MAX_STACK];
    DWORD                  stack_count;
    BOOL                   printed;    /* in text: printed in a group */
};

struct process_report
{
    DWORD                 pid;
    int                   unix_pid;   /* 0: unknown */
    WCHAR                 name[MAX_PATH];
    struct target         target;
    BOOL                  readable;
    DWORD                 read_error;
    struct thread_report *threads;
    DWORD                 count;
};

/* Deadlocks: the cycles found, each once, as the sorted ids of its threads,
 * with the chain of the first thread that showed it. */
#define MAX_CYCLES 256

struct cycle
{
    DWORD                  tids[WCT_MAX_NODE_COUNT];
    unsigned int           count;
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT];   /* from the thread that starts it */
    DWORD                  node_count;
    DWORD                  pid;
};

static struct cycle cycles[MAX_CYCLES];
static unsigned int cycle_count, deadlocked_count, waiting_count, unfollowed_count, other_process_count,
                    gone_count, error_count, not_responding_count;
/* counted by the kind of wait: the wait records' kinds, then host calls */
#define UNFOLLOWED_HOST_CALL WAIT_RECORD_KIND_COUNT
static unsigned int unfollowed_kinds[WAIT_RECORD_KIND_COUNT + 1];

static BOOL is_blocked( const struct thread_report *report )
{
    return !report->error && report->count && report->nodes[0].status == WctStatusBlocked;
}

static BOOL is_thread_node( const struct wait_chain_node *node )
{
    return node->type == WctThreadType;
}

static int __cdecl compare_tids( const void *a, const void *b )
{
    DWORD x = *(const DWORD *)a, y = *(const DWORD *)b;
    return x < y ? -1 : x > y;
}

/* Where the cycle of a chain starts: the first node of the thread that the
 * chain's last node repeats. */
static DWORD cycle_start( const struct wait_chain_node *nodes, DWORD count )
{
    DWORD i;

    for (i = 0; i < count - 1; i++)
        if (is_thread_node( &nodes[i] ) && nodes[i].tid == nodes[count - 1].tid) break;
    return i;
}

/* records the cycle a chain ends in and sets the thread's state */
static void record_cycle( struct thread_report *report, DWORD pid )
{
    const struct wait_chain_node *nodes = report->nodes;
    DWORD start = cycle_start( nodes, report->count ), i;
    struct cycle cycle = { { 0 } };
    BOOL member = FALSE;

    for (i = start; i < report->count - 1; i++)
    {
        if (!is_thread_node( &nodes[i] )) continue;
        if (nodes[i].tid == report->tid) member = TRUE;
        cycle.tids[cycle.count++] = nodes[i].tid;
    }
    qsort( cycle.tids, cycle.count, sizeof(DWORD), compare_tids );
    for (i = 0; i < cycle_count; i++)
        if (cycles[i].count == cycle.count && !memcmp( cycles[i].tids, cycle.tids, cycle.count * sizeof(DWORD) ))
            break;
    if (i == cycle_count && cycle_count < MAX_CYCLES)
    {
        cycle.node_count = report->count - start;
        memcpy( cycle.nodes, nodes + start, cycle.node_count * sizeof(*nodes) );
        cycle.pid = nodes[start].pid ? nodes[start].pid : pid;
        cycles[cycle_count++] = cycle;
        deadlocked_count += cycle.count;
    }
    report->deadlock = i + 1;
    report->state = member ? STATE_DEADLOCK : STATE_ON_DEADLOCK;
    if (!member) waiting_count++;
}

/* The chain of a thread, asked for once: through ntdll's __wine_get_wait_chain
 * where there is one (it carries what a wait record says, which
 * WAITCHAIN_NODE_INFO has no room for), else through Wait Chain Traversal. */
static void get_chain( struct thread_report *report, DWORD flags )
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
static void classify( struct thread_report *report, DWORD pid )
{
    const struct wait_chain_node *last;

    if (report->error == ERROR_OBJECT_NOT_FOUND || report->error == ERROR_INVALID_PARAMETER ||
        (!report->error && !report->count))
    {
        report->state = STATE_GONE;
        gone_count++;
        return;
    }
    if (report->error)
    {
        report->state = STATE_ERROR;
        error_count++;
        return;
    }
    /* as Windows: 5 s without asking for a message that waits */
    if (report->nodes[0].unanswered_ms >= 5000) not_responding_count++;
    if (report->cycle)
    {
        record_cycle( report, pid );
        return;
    }
    report->state = STATE_FINE;
    if (!is_blocked( report )) return;
    last = &report->nodes[report->count - 1];
    if (!is_thread_node( last )) return;   /* ends at a lock nobody owns: it is not stuck there */
    if (last->pid && last->pid != pid && !other_processes)
    {
        report->state = STATE_OTHER_PROCESS;
        other_process_count++;
        return;
    }
    if (last->status != WctStatusBlocked || last->wait_kind == WAIT_RECORD_SLEEP ||
        last->wait_kind == WAIT_MESSAGE_QUEUE)
        return;
    report->state = STATE_UNFOLLOWED;
    unfollowed_count++;
    if (last->wait_kind == WAIT_HOST_CALL) unfollowed_kinds[UNFOLLOWED_HOST_CALL]++;
    else unfollowed_kinds[last->wait_kind < WAIT_RECORD_KIND_COUNT ? last->wait_kind : 0]++;
}

#ifdef __x86_64__

/*
 * The target's dynamic function tables, for dbghelp's walks: Wine's
 * dbghelp does not read them (Windows' does), so a walk would end at the
 * first frame of a JIT's code (V8's in node.exe). Under the layer, ntdll
 * exports the head of its list (RtlGetFunctionTableListHead) at the same
 * address in every process of the prefix; its entries are read as ntdll's
 * remote walker reads them (dynamic_tables.h), every address checked and
 * every loop bounded.
 */
static ULONG64 dynamic_list_head;

static void init_dynamic_tables(void)
{
    HMODULE ntdll = GetModuleHandleW( L"ntdll.dll" );
    PLIST_ENTRY (WINAPI *get_head)(void) = (void *)GetProcAddress( ntdll, "RtlGetFunctionTableListHead" );

    /* Windows' entries are not Wine's, and its dbghelp reads them itself */
    if (get_head && GetProcAddress( ntdll, "wine_get_version" ))
        dynamic_list_head = (ULONG_PTR)get_head();
}

/* the target of the walk under way: dbghelp's callbacks are given its
 * handle only, and its walks are single-threaded */
static struct target *walked_target;

static BOOL read_walked_target( void *ctx, ULONG64 addr, void *buffer, SIZE_T size )
{
    return read_target_memory( walked_target, addr, buffer, size );
}

static BOOL read_table_function( void *ctx, ULONG index, RUNTIME_FUNCTION *func )
{
    const ULONG64 *table = ctx;

    return read_walked_target( NULL, *table + (ULONG64)index * sizeof(*func), func, sizeof(*func) );
}

/* the entry of the walked target's dynamic function tables for 'pc', and its base */
static BOOL find_target_dynamic_function( DWORD64 pc, ULONG64 *base, RUNTIME_FUNCTION *func )
{
    struct dynamic_table table;

    if (!dynamic_list_head || !walked_target ||
        !dynamic_table_find( read_walked_target, NULL, dynamic_list_head, pc, &table ) || !table.table)
        return FALSE;
    *base = table.base;
    return pe_find_function( read_table_function, &table.table, table.count, table.base, pc, func, NULL ) &&
           dynamic_function_ok( &table, func ) &&
           pe_follow_function_links( read_target_memory, walked_target, table.base, func, NULL ) &&
           dynamic_function_ok( &table, func );
}

/* dbghelp's walk is single-threaded: what it is given lives until the next call */
static RUNTIME_FUNCTION dynamic_function;

static void * CALLBACK table_access( HANDLE process, DWORD64 pc )
{
    void *ret = SymFunctionTableAccess64( process, pc );
    ULONG64 base;

    if (ret || !find_target_dynamic_function( pc, &base, &dynamic_function )) return ret;
    return &dynamic_function;
}

static DWORD64 CALLBACK module_base( HANDLE process, DWORD64 pc )
{
    DWORD64 base = SymGetModuleBase64( process, pc );
    RUNTIME_FUNCTION func;

    if (base || !find_target_dynamic_function( pc, &base, &func )) return base;
    return base;
}

#else
static void init_dynamic_tables(void) { }
#endif

/* Is 'addr' in executable memory of the target? dbghelp takes what is at
 * [rsp] for a return address where it has no unwind data: a value that is
 * no code is never a frame. */
static BOOL is_target_code( HANDLE process, DWORD64 addr )
{
    MEMORY_BASIC_INFORMATION info;

    if (addr < 0x10000 || addr > 0x7ffffffeffffull) return FALSE;
    if (!VirtualQueryEx( process, (void *)(ULONG_PTR)addr, &info, sizeof(info) )) return FALSE;
    return info.State == MEM_COMMIT && !(info.Protect & (PAGE_GUARD | PAGE_NOACCESS)) &&
           (info.Protect & (PAGE_EXECUTE | PAGE_EXECUTE_READ | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY));
}

/* dbghelp's walk of a held thread from its registers, for 'machine' */
static void stack_walk( struct target *target, HANDLE thread, DWORD machine, DWORD64 pc, DWORD64 sp,
                        DWORD64 fp, void *context, struct thread_report *report )
{
    PFUNCTION_TABLE_ACCESS_ROUTINE64 access = SymFunctionTableAccess64;
    PGET_MODULE_BASE_ROUTINE64 base = SymGetModuleBase64;
    STACKFRAME64 frame;

    memset( &frame, 0, sizeof(frame) );
    frame.AddrPC.Offset = pc;
    frame.AddrPC.Mode = AddrModeFlat;
    frame.AddrStack.Offset = sp;
    frame.AddrStack.Mode = AddrModeFlat;
    frame.AddrFrame.Offset = fp;
    frame.AddrFrame.Mode = AddrModeFlat;

#ifdef __x86_64__
    if (machine == IMAGE_FILE_MACHINE_AMD64)
    {
        access = table_access;
        base = module_base;
        walked_target = target;
    }
#endif
    while (report->stack_count < MAX_STACK &&
           StackWalk64( machine, target->process, thread, &frame, context, NULL, access, base, NULL ) &&
           frame.AddrPC.Offset && is_target_code( target->process, frame.AddrPC.Offset ))
        report->stack[report->stack_count++] = frame.AddrPC.Offset;
#ifdef __x86_64__
    walked_target = NULL;
#endif
}

static void walk_with_dbghelp( struct target *target, HANDLE thread, struct thread_report *report )
{
    CONTEXT context;
#ifdef __x86_64__
    WOW64_CONTEXT wow_context;
    BOOL wow64 = FALSE;
#endif

    if (!init_symbols( target )) return;
    context.ContextFlags = CONTEXT_FULL;
    if (SuspendThread( thread ) == (DWORD)-1) return;
#ifdef __x86_64__
    /* a 32-bit program's frames are its 32-bit ones (WoW64) */
    if (IsWow64Process( target->process, &wow64 ) && wow64)
    {
        wow_context.ContextFlags = WOW64_CONTEXT_FULL;
        if (Wow64GetThreadContext( thread, &wow_context ))
            stack_walk( target, thread, IMAGE_FILE_MACHINE_I386, wow_context.Eip, wow_context.Esp,
                        wow_context.Ebp, &wow_context, report );
    }
    else if (GetThreadContext( thread, &context ))
        stack_walk( target, thread, IMAGE_FILE_MACHINE_AMD64, context.Rip, context.Rsp, context.Rbp,
                    &context, report );
#else
    /* a 32-bit wctdump (syswow64's) sees the 32-bit registers of a thread */
    if (GetThreadContext( thread, &context ))
        stack_walk( target, thread, IMAGE_FILE_MACHINE_I386, context.Eip, context.Esp, context.Ebp, &context,
                    report );
#endif
    ResumeThread( thread );
}

/* the thread's stack: with the layer's walker where there is one (from the
 * registers a blocked thread published, without opening it, else coredll's
 * GetThreadCallStack), else with dbghelp */
static void walk_stack( struct target *target, struct thread_report *report )
{
    CallSnapshot frames[MAX_STACK];
    void *blocked[MAX_STACK];
    HANDLE thread;
    ULONG i, n = 0;

    if (p__wine_walk_blocked_thread && report->teb &&
        (n = p__wine_walk_blocked_thread( target->pid, report->tid, report->teb, MAX_STACK, blocked )))
    {
        for (i = 0; i < n; i++) report->stack[i] = (ULONG_PTR)blocked[i];
        report->stack_count = n;
        return;
    }
    if (!(thread = OpenThread( THREAD_GET_CONTEXT | THREAD_SUSPEND_RESUME | THREAD_QUERY_INFORMATION,
                               FALSE, report->tid )))
        return;
    if (pGetThreadCallStack) n = pGetThreadCallStack( thread, MAX_STACK, frames, 0, 0 );
    for (i = 0; i < n; i++) report->stack[i] = frames[i].dwReturnAddr;
    report->stack_count = n;
    if (!n) walk_with_dbghelp( target, thread, report );
    CloseHandle( thread );
}

/* Every process of the snapshot, to name the process of a node. */
struct process_name
{
    DWORD pid;
    WCHAR name[MAX_PATH];
};

static struct process_name *all_processes;
static DWORD all_process_count;

static const WCHAR *process_name( DWORD pid )
{
    DWORD i;

    for (i = 0; i < all_process_count; i++) if (all_processes[i].pid == pid) return all_processes[i].name;
    return NULL;
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

/* The Linux system call a thread blocked in a host call is in (the node's
 * object): the ones the server reports, by their x86_64 numbers. */
static const WCHAR *host_call_name( ULONGLONG nr )
{
    static const struct { unsigned int nr; const WCHAR *name; } calls[] =
    {
        { 0, L"read" }, { 1, L"write" }, { 7, L"poll" }, { 17, L"pread64" }, { 18, L"pwrite64" },
        { 19, L"readv" }, { 20, L"writev" }, { 23, L"select" }, { 34, L"pause" }, { 35, L"nanosleep" },
        { 42, L"connect" }, { 43, L"accept" }, { 44, L"sendto" }, { 45, L"recvfrom" }, { 46, L"sendmsg" },
        { 47, L"recvmsg" }, { 61, L"wait4" }, { 72, L"fcntl" }, { 73, L"flock" }, { 128, L"rt_sigtimedwait" },
        { 130, L"rt_sigsuspend" }, { 202, L"futex" }, { 230, L"clock_nanosleep" }, { 232, L"epoll_wait" },
        { 247, L"waitid" }, { 270, L"pselect6" }, { 271, L"ppoll" }, { 281, L"epoll_pwait" },
        { 288, L"accept4" }, { 295, L"preadv" }, { 296, L"pwritev" }, { 299, L"recvmmsg" },
        { 327, L"preadv2" }, { 328, L"pwritev2" }, { 441, L"epoll_pwait2" },
    };
    unsigned int i;

    for (i = 0; i < ARRAY_SIZE(calls); i++) if (calls[i].nr == nr) return calls[i].name;
    return NULL;
}

/* a blocked thread's own wait, after "blocked" */
static void print_own_wait( const struct wait_chain_node *node )
{
    const WCHAR *kind = wait_kind_text( node->wait_kind, FALSE );

    if (node->wait_kind == WAIT_MESSAGE_QUEUE) print( L" waiting for messages" );
    else if (node->wait_kind == WAIT_HOST_CALL)
    {
        /* the object is the system call's number, not an address */
        if (host_call_name( node->object )) print( L" in the host system call %ls()", host_call_name( node->object ) );
        else print( L" in host system call %I64u", node->object );
        if (node->name_len) print( L" on %.*ls", (int)(node->name_len / sizeof(WCHAR)), node->name );
    }
    else if (node->wait_kind == WAIT_OBJECTS && node->object > 1)
        print( L" on %I64u objects: %.*ls", node->object, (int)(node->name_len / sizeof(WCHAR)), node->name );
    else if (node->wait_kind == WAIT_OBJECTS)
        print( L" on %.*ls", (int)(node->name_len / sizeof(WCHAR)), node->name );
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
    print( L" (%ls", status_name( node->status ) );
    if (last && node->pid != pid && !other_processes && node->status == WctStatusBlocked)
        print( L"; not followed into that process: --other-processes follows it" );
    /* the end of a chain: what that thread itself waits in */
    else if (last && node->status == WctStatusBlocked) print_own_wait( node );
    print( L")" );
}

static void print_object_node( const struct wait_chain_node *node )
{
    if (node->name_len)
        print( L"%ls \"%.*ls\" (%ls)", type_name( node->type ), (int)(node->name_len / sizeof(WCHAR)), node->name,
               status_name( node->status ) );
    else if (node->object)
        print( L"%ls at 0x%I64x (%ls)", type_name( node->type ), node->object, status_name( node->status ) );
    else print( L"%ls (%ls)", type_name( node->type ), status_name( node->status ) );
}

static void print_node_text( const struct wait_chain_node *node, DWORD pid, BOOL last )
{
    if (is_thread_node( node )) print_thread_node( node, pid, last );
    else print_object_node( node );
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
    print( L"%ls", status_name( report->nodes[0].status ) );
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
    const struct cycle *cycle = &cycles[index];
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
            print_object_node( node );
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
    default: return L"an event, a semaphore or another object without an owner";
    }
}

static int verdict(void)
{
    if (cycle_count) return EXIT_DEADLOCK;
    if (unfollowed_count || other_process_count) return EXIT_UNFOLLOWED;
    return EXIT_CLEAN;
}

static void print_summary_text( const struct process_report *processes, DWORD count )
{
    unsigned int i, first = 1;
    DWORD threads = 0;

    for (i = 0; i < count; i++) threads += processes[i].count;
    if (cycle_count)
    {
        print( L"%u deadlock%ls involving %u thread%ls", cycle_count, cycle_count == 1 ? L"" : L"s",
               deadlocked_count, deadlocked_count == 1 ? L"" : L"s" );
        if (waiting_count)
            print( L"; %u more thread%ls wait%ls on %ls", waiting_count, waiting_count == 1 ? L"" : L"s",
                   waiting_count == 1 ? L"s" : L"", cycle_count == 1 ? L"it" : L"them" );
    }
    else if (verdict() == EXIT_CLEAN) print( L"no deadlock" );
    else print( L"no deadlock found, but not every chain could be followed" );
    print( L"\n" );
    if (unfollowed_count)
    {
        print( L"%u blocked thread%ls wait%ls on something whose owner cannot be followed (",
               unfollowed_count, unfollowed_count == 1 ? L"" : L"s", unfollowed_count == 1 ? L"s" : L"" );
        for (i = 0; i <= UNFOLLOWED_HOST_CALL; i++)
        {
            if (!unfollowed_kinds[i] || i == WAIT_RECORD_SRW_SHARED) continue;
            if (i == WAIT_RECORD_SRW_EXCLUSIVE) unfollowed_kinds[i] += unfollowed_kinds[WAIT_RECORD_SRW_SHARED];
            print( L"%ls%u on %ls", first ? L"" : L", ", unfollowed_kinds[i], kind_phrase( i ) );
            first = 0;
        }
        print( L"): a deadlock through them would not show\n" );
    }
    if (other_process_count)
        print( L"%u blocked thread%ls wait%ls on another process, not followed (--other-processes follows)\n",
               other_process_count, other_process_count == 1 ? L"" : L"s", other_process_count == 1 ? L"s" : L"" );
    if (not_responding_count)
        print( L"%u thread%ls not responding: messages have waited for %ls 5 s or more\n", not_responding_count,
               not_responding_count == 1 ? L" is" : L"s are", not_responding_count == 1 ? L"it" : L"them" );
    if (gone_count)
        print( L"%u thread%ls ended while wctdump looked at %ls\n", gone_count, gone_count == 1 ? L"" : L"s",
               gone_count == 1 ? L"it" : L"them" );
    if (error_count)
        print( L"%u thread%ls gave no wait chain (below)\n", error_count, error_count == 1 ? L"" : L"s" );
    print( L"%lu thread%ls of %lu process%ls:", threads, threads == 1 ? L"" : L"s", count, count == 1 ? L"" : L"es" );
    for (i = 0; i < count; i++) print( L" %lu %ls", processes[i].pid, processes[i].name );
    print( L"\n" );
}

static void print_report_text( struct process_report *processes, DWORD count )
{
    unsigned int i, j;

    print_summary_text( processes, count );
    for (i = 0; i < cycle_count; i++)
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

static const WCHAR *state_id( enum thread_state state )
{
    static const WCHAR * const ids[] =
    {
        L"fine", L"deadlock", L"waits_on_deadlock", L"unfollowed", L"other_process", L"gone", L"error"
    };
    return ids[state];
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
           status_name( report->nodes[0].status ), report->nodes[0].wait_time,
           report->nodes[0].context_switches, report->state == STATE_DEADLOCK ? L"true" : L"false",
           report->state == STATE_ON_DEADLOCK ? L"true" : L"false" );
    if (report->deadlock) print( L", \"deadlock_id\": %u", report->deadlock );
    if (report->nodes[0].unanswered_ms) print( L", \"unanswered_ms\": %u", report->nodes[0].unanswered_ms );
    print( L",\n       \"chain\": [" );
    for (i = 0; i < report->count; i++)
    {
        const struct wait_chain_node *node = &report->nodes[i];
        WCHAR name[ARRAY_SIZE(node->name) + 1];

        print( L"%ls{\"type\": \"%ls\", \"status\": \"%ls\"", i ? L", " : L"",
               type_name( node->type ), status_name( node->status ) );
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
            memcpy( name, node->name, node->name_len );
            name[node->name_len / sizeof(WCHAR)] = 0;
            print( L", \"name\": " );
            print_json_string( name );
        }
        if (wait_kind_text( node->wait_kind, TRUE ))
            print( L", \"wait\": \"%ls\"", wait_kind_text( node->wait_kind, TRUE ) );
        else if (node->wait_kind == WAIT_MESSAGE_QUEUE) print( L", \"wait\": \"messages\"" );
        if (node->wait_kind == WAIT_OBJECTS && is_thread_node( node ))
        {
            memcpy( name, node->name, node->name_len );
            name[node->name_len / sizeof(WCHAR)] = 0;
            print( L", \"wait\": \"objects\", \"objects\": " );
            print_json_string( name );
        }
        else if (node->wait_kind == WAIT_HOST_CALL && is_thread_node( node ))
        {
            print( L", \"wait\": \"host_call\"" );
            if (host_call_name( node->object )) print( L", \"call\": \"%ls\"", host_call_name( node->object ) );
            else print( L", \"call\": \"%I64u\"", node->object );
            memcpy( name, node->name, node->name_len );
            name[node->name_len / sizeof(WCHAR)] = 0;
            print( L", \"on\": " );
            print_json_string( name );
        }
        else if (node->object && node->wait_kind != WAIT_OBJECTS && node->wait_kind != WAIT_HOST_CALL)
            print( L", \"address\": \"0x%I64x\"", node->object );
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

static void print_report_json( struct process_report *processes, DWORD count )
{
    static const WCHAR * const verdicts[] = { L"no_deadlock", L"deadlock", NULL, NULL, NULL, L"unfollowed" };
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
    for (i = 0; i < cycle_count; i++)
    {
        print( L"%ls\n    {\"id\": %u, \"threads\": [", i ? L"," : L"", i + 1 );
        for (j = 0; j + 1 < cycles[i].node_count; j++)
        {
            if (!is_thread_node( &cycles[i].nodes[j] )) continue;
            print( L"%ls{\"pid\": %u, \"tid\": %u}", j ? L", " : L"", cycles[i].nodes[j].pid, cycles[i].nodes[j].tid );
        }
        print( L"]}" );
    }
    print( L"%ls],\n  \"deadlocks\": %u,\n  \"deadlocked_threads\": %u,\n  \"threads_waiting_on_deadlocks\": %u,\n"
           L"  \"unfollowed_threads\": %u,\n  \"other_process_threads\": %u,\n  \"threads_gone\": %u,\n"
           L"  \"not_responding_threads\": %u\n}\n",
           cycle_count ? L"\n  " : L"", cycle_count, deadlocked_count, waiting_count, unfollowed_count,
           other_process_count, gone_count, not_responding_count );
}

/* Every process and thread of the system, taken once: toolhelp maps its
 * snapshot again for each Process32Next and Thread32Next, which costs a
 * few server round trips an entry. */
struct thread_id
{
    DWORD pid;
    DWORD tid;
    void *teb;   /* NULL: not known */
};

static PROCESSENTRY32W *system_processes;
static DWORD system_process_count;
static struct thread_id *all_threads;
static DWORD all_thread_count;

/* the processes and threads of one SystemProcessInformation answer, or
 * SystemExtendedProcessInformation ('extended', which has each thread's TEB
 * too), each entry checked against the buffer: counted, or stored when the
 * arrays are there */
static BOOL parse_system( const BYTE *buffer, ULONG size, BOOL extended, DWORD *processes, DWORD *threads )
{
    SIZE_T entry_size = extended ? sizeof(SYSTEM_EXTENDED_THREAD_INFORMATION) : sizeof(SYSTEM_THREAD_INFORMATION);
    const SYSTEM_PROCESS_INFORMATION *spi;
    ULONG offset = 0;
    DWORD i;

    *processes = *threads = 0;
    while (size >= sizeof(*spi) && offset <= size - sizeof(*spi))
    {
        spi = (const SYSTEM_PROCESS_INFORMATION *)(buffer + offset);
        if (spi->dwThreadCount > (size - offset - FIELD_OFFSET( SYSTEM_PROCESS_INFORMATION, ti )) / entry_size)
            return FALSE;
        if (system_processes)
        {
            PROCESSENTRY32W *entry = &system_processes[*processes];
            const BYTE *name = (const BYTE *)spi->ProcessName.Buffer;
            DWORD len = min( spi->ProcessName.Length, sizeof(entry->szExeFile) - sizeof(WCHAR) ) / sizeof(WCHAR);

            memset( entry, 0, sizeof(*entry) );
            entry->dwSize = sizeof(*entry);
            entry->th32ProcessID = HandleToULong( spi->UniqueProcessId );
            entry->th32ParentProcessID = HandleToULong( spi->ParentProcessId );
            entry->cntThreads = spi->dwThreadCount;
            if (len && name >= buffer && name < buffer + size && len * sizeof(WCHAR) <= buffer + size - name)
                memcpy( entry->szExeFile, name, len * sizeof(WCHAR) );
        }
        for (i = 0; i < spi->dwThreadCount; i++)
        {
            const SYSTEM_THREAD_INFORMATION *ti = (const void *)((const BYTE *)spi->ti + i * entry_size);

            if (all_threads)
            {
                all_threads[*threads + i].pid = HandleToULong( spi->UniqueProcessId );
                all_threads[*threads + i].tid = HandleToULong( ti->ClientId.UniqueThread );
                all_threads[*threads + i].teb = extended ? ((const SYSTEM_EXTENDED_THREAD_INFORMATION *)ti)->TebBase
                                                         : NULL;
            }
        }
        *threads += spi->dwThreadCount;
        (*processes)++;
        if (!spi->NextEntryOffset) break;
        offset += spi->NextEntryOffset;
    }
    return TRUE;
}

static BOOL query_system( BOOL extended )
{
    NTSTATUS (WINAPI *pNtQuerySystemInformation)(SYSTEM_INFORMATION_CLASS, void *, ULONG, ULONG *);
    ULONG size = 0, next = 0x40000, needed = 0;
    NTSTATUS status = STATUS_INFO_LENGTH_MISMATCH;
    DWORD processes, threads;
    BYTE *buffer = NULL;
    BOOL ret = FALSE;
    int tries;

    pNtQuerySystemInformation = (void *)GetProcAddress( GetModuleHandleW( L"ntdll.dll" ),
                                                        "NtQuerySystemInformation" );
    if (!pNtQuerySystemInformation) return FALSE;
    free( system_processes );
    free( all_threads );
    system_processes = NULL;
    all_threads = NULL;
    system_process_count = all_thread_count = 0;
    for (tries = 0; tries < 8 && status == STATUS_INFO_LENGTH_MISMATCH; tries++)
    {
        free( buffer );
        size = next;
        if (!(buffer = malloc( size ))) return FALSE;
        status = pNtQuerySystemInformation( extended ? SystemExtendedProcessInformation : SystemProcessInformation,
                                            buffer, size, &needed );
        next = max( size * 2, needed + 0x10000 );
    }
    if (!status && parse_system( buffer, size, extended, &processes, &threads ) &&
        (system_processes = calloc( processes + 1, sizeof(*system_processes) )) &&
        (all_threads = calloc( threads + 1, sizeof(*all_threads) )))
    {
        ret = parse_system( buffer, size, extended, &system_process_count, &all_thread_count );
    }
    free( buffer );
    return ret;
}

/* the same from a toolhelp snapshot, where the system does not answer the above */
static void snapshot_system(void)
{
    HANDLE snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPPROCESS | TH32CS_SNAPTHREAD, 0 );
    PROCESSENTRY32W process = { sizeof(process) };
    THREADENTRY32 thread = { sizeof(thread) };
    DWORD size = 64;

    free( system_processes );
    free( all_threads );
    system_process_count = all_thread_count = 0;
    if ((system_processes = malloc( size * sizeof(*system_processes) )) && Process32FirstW( snapshot, &process ))
    {
        do
        {
            if (system_process_count == size)
            {
                void *bigger = realloc( system_processes, 2 * size * sizeof(*system_processes) );
                if (!bigger) break;
                system_processes = bigger;
                size *= 2;
            }
            system_processes[system_process_count++] = process;
        } while (Process32NextW( snapshot, &process ));
    }
    size = 256;
    if ((all_threads = malloc( size * sizeof(*all_threads) )) && Thread32First( snapshot, &thread ))
    {
        do
        {
            if (all_thread_count == size)
            {
                void *bigger = realloc( all_threads, 2 * size * sizeof(*all_threads) );
                if (!bigger) break;
                all_threads = bigger;
                size *= 2;
            }
            all_threads[all_thread_count].pid = thread.th32OwnerProcessID;
            all_threads[all_thread_count].teb = NULL;
            all_threads[all_thread_count++].tid = thread.th32ThreadID;
        } while (Thread32Next( snapshot, &thread ));
    }
    CloseHandle( snapshot );
}

/* Names every frame of a report before it is printed: naming one frame
 * reads its image's whole symbol table and exports, and most frames of a
 * process are in a few images. What cannot be done here is done when the
 * frame is printed. */
#define NAME_BATCH 64

static void name_frames( struct process_report *process )
{
    struct target *target = &process->target;
    struct frame_name_query *queries = malloc( NAME_BATCH * sizeof(*queries) );
    DWORD total = 0, count = 0, i, j, n;
    ULONG_PTR *addrs = NULL;
    struct module *module;

    for (i = 0; i < process->count; i++) total += process->threads[i].stack_count;
    if (total && queries && (addrs = malloc( total * sizeof(*addrs) )))
    {
        for (i = 0; i < process->count; i++)
            for (j = 0; j < process->threads[i].stack_count; j++)
                addrs[count++] = process->threads[i].stack[j];
        qsort( addrs, count, sizeof(*addrs), compare_addrs );
        for (i = j = 0; i < count; i++) if (!j || addrs[i] != addrs[j - 1]) addrs[j++] = addrs[i];
        count = j;
        /* a module's frames are a run of the sorted addresses */
        for (i = 0; i < count; i += n)
        {
            if (!(module = find_module( target, addrs[i] )))
            {
                n = 1;
                continue;
            }
            for (n = 1; n < NAME_BATCH && i + n < count && addrs[i + n] - module->base < module->size; n++) ;
            name_module_frames( target, module, addrs + i, n, queries );
        }
    }
    free( addrs );
    free( queries );
}

/* Collects the report of one process: each thread's chain first (it costs
 * the thread nothing), then the stacks (walking one suspends it). */
static void collect_process( struct process_report *process )
{
    DWORD flags = WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG, i, t, size = 16;
    double start = now_ms(), modules;

    if (!(process->readable = open_target( &process->target, process->pid )))
        process->read_error = GetLastError();
    modules = now_ms();
    part_ms[PART_MODULES] += modules - start;
    process->threads = malloc( size * sizeof(*process->threads) );
    for (t = 0; process->threads && t < all_thread_count; t++)
    {
        struct thread_report *report;

        if (all_threads[t].pid != process->pid) continue;
        if (process->count == size)
        {
            void *bigger = realloc( process->threads, 2 * size * sizeof(*process->threads) );
            if (!bigger) break;
            process->threads = bigger;
            size *= 2;
        }
        report = &process->threads[process->count++];
        memset( report, 0, sizeof(*report) );
        report->tid = all_threads[t].tid;
        report->teb = all_threads[t].teb;
        get_chain( report, flags );
    }
    start = now_ms();
    part_ms[PART_CHAINS] += start - modules;
    for (i = 0; i < process->count; i++)
    {
        classify( &process->threads[i], process->pid );
        if (process->readable && (is_blocked( &process->threads[i] ) || all_stacks))
            walk_stack( &process->target, &process->threads[i] );
    }
    part_ms[PART_STACKS] += now_ms() - start;
}

/*
 * Finding the processes. Wine's own processes are left out unless asked
 * for: they are not the user's program, and they wait forever by design.
 */
static BOOL is_wine_process( const PROCESSENTRY32W *entry, DWORD parent )
{
    static const WCHAR * const names[] =
    {
        L"services.exe", L"winedevice.exe", L"plugplay.exe", L"svchost.exe", L"rpcss.exe", L"explorer.exe",
        L"conhost.exe", L"wineboot.exe", L"winemenubuilder.exe",
    };
    unsigned int i;

    /* the start.exe that runs wctdump (wine's way of starting a program) */
    if (entry->th32ProcessID == parent && !wcsicmp( entry->szExeFile, L"start.exe" )) return TRUE;
    for (i = 0; i < ARRAY_SIZE(names); i++) if (!wcsicmp( entry->szExeFile, names[i] )) return TRUE;
    return FALSE;
}

/* Linux pids of Wine's processes, from the wineserver's process list
 * (Wine only: on Windows there are none). */
struct unix_pid
{
    DWORD pid;
    int   unix_pid;
};

static struct unix_pid *unix_pids;
static DWORD unix_pid_count;

static void get_unix_pids(void)
{
    struct __server_request_info req;
    struct list_processes_reply *reply = &req.u.reply.list_processes_reply;
    const struct process_info *info;
    data_size_t size = 65536, pos;
    unsigned int status, i;
    char *buffer = NULL;

    if (!p_wine_server_call) return;
    for (i = 0; i < 8; i++)
    {
        free( buffer );
        if (!(buffer = malloc( size ))) return;
        memset( &req, 0, sizeof(req) );
        req.u.req.request_header.req = REQ_list_processes;
        wine_server_set_reply( &req, buffer, size );
        status = p_wine_server_call( &req );
        if (status != STATUS_INFO_LENGTH_MISMATCH) break;
        size = max( size * 2, reply->info_size );
    }
    if (status || !(unix_pids = calloc( reply->process_count, sizeof(*unix_pids) )))
    {
        free( buffer );
        return;
    }
    /* each process_info is followed by its name and its threads, 8-aligned */
    for (i = 0, pos = 0; i < reply->process_count; i++)
    {
        pos = (pos + 7) & ~7;
        if (pos + sizeof(*info) > reply->info_size) break;
        info = (const struct process_info *)(buffer + pos);
        pos += sizeof(*info) + info->name_len;
        pos = (pos + 7) & ~7;
        pos += info->thread_count * sizeof(struct thread_info);
        unix_pids[unix_pid_count].pid = info->pid;
        unix_pids[unix_pid_count++].unix_pid = info->unix_pid;
    }
    free( buffer );
}

static int unix_pid_of( DWORD pid )
{
    DWORD i;

    for (i = 0; i < unix_pid_count; i++) if (unix_pids[i].pid == pid) return unix_pids[i].unix_pid;
    return 0;
}

/* a process argument as given, and what it found */
struct wanted
{
    const WCHAR *arg;
    DWORD        pid;        /* a number: the Windows id it names */
    BOOL         number;
    BOOL         found;
};

/*
 * A process argument: a decimal Windows id as wctdump prints it (32), Wine's
 * hex forms (0x20, and 00000020 as winedbg writes it), a Linux pid, or an
 * executable's name. A decimal number with a leading zero other than
 * winedbg's eight digits (0070) is refused: some tools read it as octal.
 */
static BOOL parse_process( const WCHAR *arg, struct wanted *wanted )
{
    ULONGLONG value = 0;
    const WCHAR *p = arg;
    BOOL hex = FALSE, digits = TRUE;

    wanted->arg = arg;
    if (!arg[0])
    {
        error( L"an empty process argument\n" );
        return FALSE;
    }
    if (arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X'))
    {
        hex = TRUE;
        p += 2;
        if (!*p) digits = FALSE;
    }
    else if (wcslen( arg ) == 8 && arg[0] == '0') hex = TRUE;
    for (; *p && digits; p++)
    {
        if (*p >= '0' && *p <= '9') value = value * (hex ? 16 : 10) + *p - '0';
        else if (hex && ((*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
            value = value * 16 + (*p | 0x20) - 'a' + 10;
        else digits = FALSE;
        if (value > MAXDWORD)
        {
            error( L"%ls: not a process id (too large)\n", arg );
            return FALSE;
        }
    }
    if (!digits)
    {
        if (hex)
        {
            error( L"%ls: not a process id (0x is followed by hexadecimal digits)\n", arg );
            return FALSE;
        }
        return TRUE;   /* a name */
    }
    if (!hex && arg[0] == '0' && arg[1])
    {
        error( L"%ls: ambiguous process id: ids are decimal without leading zeros (%I64u), or hexadecimal"
               L" as 0x%I64x or with eight digits as winedbg writes them\n", arg, value, value );
        return FALSE;
    }
    wanted->number = TRUE;
    wanted->pid = value;
    return TRUE;
}

/* does the name (hang.exe or hang) name this executable? */
static BOOL name_matches( const WCHAR *name, const WCHAR *exe )
{
    size_t len = wcslen( name );

    if (!wcsicmp( name, exe )) return TRUE;
    return !wcsnicmp( name, exe, len ) && !wcsicmp( exe + len, L".exe" );
}

/* Resolves the numbers: a Windows id wins when it exists; else the Linux
 * pid of a Wine process. One that is both, for different processes, is refused. */
static BOOL resolve_numbers( struct wanted *wanted, DWORD count )
{
    DWORD i, j, by_unix;
    BOOL windows;

    for (i = 0; i < count; i++)
    {
        if (!wanted[i].number) continue;
        windows = FALSE;
        by_unix = 0;
        for (j = 0; j < all_process_count; j++)
            if (all_processes[j].pid == wanted[i].pid) windows = TRUE;
        for (j = 0; j < unix_pid_count; j++)
            if (unix_pids[j].unix_pid == (int)wanted[i].pid) by_unix = unix_pids[j].pid;
        if (windows && by_unix && by_unix != wanted[i].pid)
        {
            error( L"%ls is both the Windows id of %ls and the Linux pid of %ls (Windows id %lu):"
                   L" give 0x%lx for the first, %lu for the second\n", wanted[i].arg,
                   process_name( wanted[i].pid ), process_name( by_unix ), by_unix, wanted[i].pid, by_unix );
            return FALSE;
        }
        if (!windows && by_unix) wanted[i].pid = by_unix;
    }
    return TRUE;
}

static BOOL load_functions(void)
{
    HMODULE advapi32 = LoadLibraryW( L"advapi32.dll" ), ntdll = GetModuleHandleW( L"ntdll.dll" );

    p__wine_get_wait_chain = (void *)GetProcAddress( ntdll, "__wine_get_wait_chain" );
    p_wine_server_call = (void *)GetProcAddress( ntdll, "wine_server_call" );
    pOpenThreadWaitChainSession = (void *)GetProcAddress( advapi32, "OpenThreadWaitChainSession" );
    pGetThreadWaitChain = (void *)GetProcAddress( advapi32, "GetThreadWaitChain" );
    pCloseThreadWaitChainSession = (void *)GetProcAddress( advapi32, "CloseThreadWaitChainSession" );
    if ((coredll = LoadLibraryW( L"coredll.dll" )))
    {
        pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" );
        p__wine_walk_blocked_thread = (void *)GetProcAddress( coredll, "__wine_walk_blocked_thread" );
    }
    init_dynamic_tables();
    return pOpenThreadWaitChainSession && pGetThreadWaitChain && pCloseThreadWaitChainSession;
}

static void print_list( const DWORD *pids, DWORD count )
{
    DWORD i, j, threads;
    HANDLE snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPTHREAD, 0 );
    THREADENTRY32 entry = { sizeof(entry) };
    int unix_pid;

    for (i = 0; i < count; i++)
    {
        threads = 0;
        if (Thread32First( snapshot, &entry ))
            do if (entry.th32OwnerProcessID == pids[i]) threads++; while (Thread32Next( snapshot, &entry ));
        for (j = 0; j < all_process_count; j++) if (all_processes[j].pid == pids[i]) break;
        print( L"%8lu  %-24ls %3lu thread%ls", pids[i], all_processes[j].name, threads, threads == 1 ? L" " : L"s" );
        if ((unix_pid = unix_pid_of( pids[i] ))) print( L"  Linux pid %d", unix_pid );
        print( L"\n" );
    }
    CloseHandle( snapshot );
}

int __cdecl wmain( int argc, WCHAR *argv[] )
{
    struct wanted *wanted;
    struct process_report *processes;
    DWORD nwanted = 0, nprocesses = 0, i, j, k, parent = 0, *chosen, nchosen = 0, skipped = 0;
    double report_start, start;
    int status = 0;

    for (i = 1; i < argc; i++)
        if (!wcscmp( argv[i], L"--json" )) json = TRUE;
    init_output( &out, STD_OUTPUT_HANDLE );
    init_output( &err, STD_ERROR_HANDLE );

    if (!(wanted = calloc( argc, sizeof(*wanted) ))) return EXIT_ERROR;
    for (i = 1; i < argc; i++)
    {
        if (!wcscmp( argv[i], L"--json" )) continue;
        if (!wcscmp( argv[i], L"--all" )) all_stacks = TRUE;
        else if (!wcscmp( argv[i], L"--raw" )) raw_names = TRUE;
        else if (!wcscmp( argv[i], L"--wine" )) with_wine = TRUE;
        else if (!wcscmp( argv[i], L"--other-processes" )) other_processes = TRUE;
        else if (!wcscmp( argv[i], L"--list" )) list_only = TRUE;
        else if (!wcscmp( argv[i], L"--timing" )) timing = TRUE;
        else if (!wcscmp( argv[i], L"--help" ) || !wcscmp( argv[i], L"-h" ) || !wcscmp( argv[i], L"/?" ))
        {
            print_to( &out, L"%ls", usage );
            return EXIT_CLEAN;
        }
        else if (argv[i][0] == '-' || argv[i][0] == '/')
        {
            error( L"unknown option %ls (wctdump --help lists them)\n", argv[i] );
            return EXIT_ERROR;
        }
        else if (!parse_process( argv[i], &wanted[nwanted++] )) return EXIT_ERROR;
    }
    if (!load_functions())
    {
        error( L"this system has no Wait Chain Traversal (stock Wine has none: run wctdump on the layer,"
               L" wine-layer wctdump)\n" );
        return EXIT_ERROR;
    }
    if (!(session = pOpenThreadWaitChainSession( 0, NULL )))
    {
        error( L"cannot open a wait chain session: %ls\n", error_text( GetLastError() ) );
        return EXIT_ERROR;
    }

    /* every process and thread, once: names for the nodes, the processes to
     * report and their threads */
    report_start = now_ms();
    /* the extended answer has each thread's TEB, for walks without a handle */
    if (!query_system( TRUE ) && !query_system( FALSE )) snapshot_system();
    i = system_process_count;
    all_processes = calloc( i + 1, sizeof(*all_processes) );
    chosen = calloc( i + 1, sizeof(*chosen) );
    processes = calloc( i + 1, sizeof(*processes) );
    if (!system_processes || !all_processes || !chosen || !processes) return EXIT_ERROR;
    for (k = 0; k < system_process_count; k++)
    {
        const PROCESSENTRY32W *entry = &system_processes[k];

        if (entry->th32ProcessID == GetCurrentProcessId()) parent = entry->th32ParentProcessID;
        all_processes[all_process_count].pid = entry->th32ProcessID;
        wcscpy( all_processes[all_process_count++].name, entry->szExeFile );
    }
    get_unix_pids();
    if (!resolve_numbers( wanted, nwanted )) return EXIT_ERROR;

    for (k = 0; k < system_process_count; k++)
    {
        const PROCESSENTRY32W *entry = &system_processes[k];
        BOOL want = !nwanted;

        if (entry->th32ProcessID == GetCurrentProcessId()) continue;
        for (j = 0; j < nwanted; j++)
        {
            if (wanted[j].number ? wanted[j].pid == entry->th32ProcessID
                                 : name_matches( wanted[j].arg, entry->szExeFile ))
                want = wanted[j].found = TRUE;
        }
        if (!nwanted && !with_wine && is_wine_process( entry, parent ))
        {
            skipped++;
            continue;
        }
        if (want && nchosen <= i) chosen[nchosen++] = entry->th32ProcessID;
    }

    /* a process asked for that is not there: no verdict, no report */
    for (j = 0; j < nwanted; j++)
    {
        if (wanted[j].found) continue;
        if (wanted[j].number) error( L"no such process %ls\n", wanted[j].arg );
        else error( L"no process named %ls\n", wanted[j].arg );
        status = EXIT_NO_SUCH_PROCESS;
    }
    if (status) return status;
    if (!nchosen)
    {
        error( L"no program runs in this prefix%ls (is WINEPREFIX the prefix of the program?)\n",
               skipped ? L", only Wine's own processes (--wine shows them)" : L"" );
        return EXIT_NO_PROGRAM;
    }
    if (list_only)
    {
        print_list( chosen, nchosen );
        return EXIT_CLEAN;
    }

    for (j = 0; j < nchosen; j++)
    {
        struct process_report *process = &processes[nprocesses++];

        process->pid = chosen[j];
        process->unix_pid = unix_pid_of( chosen[j] );
        wcscpy( process->name, process_name( chosen[j] ) );
        collect_process( process );
    }
    pCloseThreadWaitChainSession( session );

    start = now_ms();
    for (j = 0; j < nprocesses; j++) if (processes[j].readable) name_frames( &processes[j] );
    if (json) print_report_json( processes, nprocesses );
    else print_report_text( processes, nprocesses );
    part_ms[PART_PRINT] = now_ms() - start;
    if (timing)
    {
        DWORD threads = 0;

        for (j = 0; j < nprocesses; j++) threads += processes[j].count;
        error( L"report of %lu threads in %.2f ms: modules %.2f, wait chains %.2f, stacks %.2f, "
               L"naming frames and printing %.2f\n", threads, now_ms() - report_start, part_ms[PART_MODULES],
               part_ms[PART_CHAINS], part_ms[PART_STACKS], part_ms[PART_PRINT] );
    }
    for (j = 0; j < nprocesses; j++) close_target( &processes[j].target );
    return verdict();
}

/*
 * wctdump: the modules of a process, and the names of its frames
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
#include <psapi.h>
#ifndef LIST_MODULES_32BIT
#define LIST_MODULES_32BIT 0x01  /* Windows' psapi.h; Wine 8.0's lacks it */
#endif
#include <dbghelp.h>

#include "wine/memory_file.h"
#include "wctdump.h"

/*
 * The modules of a process and the reader that walk_names.c names their
 * frames through: the process's memory, read a page at a time and kept,
 * as naming a frame reads many small pieces, and the modules' files.
 */
#define CACHE_PAGES 1024      /* 4 MB: the tables of every module a report names frames in */
#define FILE_WINDOW 0x10000   /* the part of a module's file read at a time */
#define NAME_SLOTS  1024      /* frames named in a report, kept (a power of two) */

/* the page cache's reader: ntdll's, which keeps the process open and reads
 * a file of its memory, without a server round trip a read */
static BOOL target_read_process( void *ctx, ULONG64 addr, void *buffer, SIZE_T size )
{
    const struct target *target = ctx;

    return !__wine_read_process_memory( target->pid, (void *)(ULONG_PTR)addr, buffer, size );
}

BOOL read_target_memory( void *ctx, ULONG_PTR addr, void *buffer, SIZE_T size )
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

BOOL open_target( struct target *target, DWORD pid )
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

void close_target( struct target *target )
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
BOOL init_symbols( struct target *target )
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

void describe_address( struct target *target, ULONG_PTR addr, WCHAR *buffer, DWORD size )
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

/* Names every frame of a report before it is printed: naming one frame
 * reads its image's whole symbol table and exports, and most frames of a
 * process are in a few images. What cannot be done here is done when the
 * frame is printed. */
#define NAME_BATCH 64

void name_frames( struct process_report *process )
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

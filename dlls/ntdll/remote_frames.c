/*
 * Stack back-traces of threads of other processes, over their memory
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

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wine/debug.h"
#include "ntdll_misc.h"
#include "backtrace.h"
#include "remote_frames.h"
#include "unwind_codes.h"
#include "pe_image.h"
#include "page_cache.h"
#include "dynamic_tables.h"
#include "wine/memory_file.h"

WINE_DEFAULT_DEBUG_CHANNEL(backtrace);

/*
 * The walk's rules are those of backtrace.c; this file supplies the data:
 * the target's modules and their .pdata, read through its process handle,
 * which unwind_codes.c interprets with RtlVirtualUnwind's rules.
 * Everything read is checked before use and every loop is bounded, since
 * the target's memory may be corrupt or change under us. Host ELF frames of
 * the target cannot be unwound from here: the walk ends at them. Code
 * outside its images is unwound with the tables the target registered
 * (RtlAddFunctionTable, RtlAddGrowableFunctionTable: a JIT's), read from
 * its list (dynamic_tables.h); a function table callback cannot run here
 * (Windows has a debugger load the out-of-process callback DLL named at
 * install time; Wine keeps no such name), so the walk ends at a callback's
 * code as at code without unwind data.
 */

#define MAX_IMAGES 1024

struct remote_image
{
    ULONG64           base;
    ULONG64           end;
    BOOL              loaded;     /* its .pdata was looked for */
    RUNTIME_FUNCTION *functions;  /* a copy of its .pdata */
    ULONG             count;
};

/* The thread walked is held still, so what the walk reads of its process
 * stays true for the walk: the page cache lives as long as one walk. */
#define CACHED_PAGES 32

struct remote_source
{
    struct frame_source source;
    ULONG               pid;
    NTSTATUS            status;   /* of the first read that failed */
    struct remote_image images[MAX_IMAGES];
    ULONG               nb_images;
    ULONG64             table_list;  /* the head of its dynamic function tables, 0: none read */
    struct dynamic_table table;      /* the last one found */
    struct page_cache   cache;
    ULONG64             page_addrs[CACHED_PAGES];
    BYTE                page_data[CACHED_PAGES][PAGE_CACHE_PAGE_SIZE];
};

/* the page cache's reader; 'ctx' is the remote_source */
static BOOL remote_read_process( void *ctx, ULONG64 addr, void *buffer, SIZE_T size )
{
    struct remote_source *remote = ctx;
    NTSTATUS status;

    TRACE( "reading %Iu bytes at %I64x\n", size, addr );
    if (!(status = __wine_read_process_memory( remote->pid, (void *)(ULONG_PTR)addr, buffer, size ))) return TRUE;
    if (!remote->status) remote->status = status;
    return FALSE;
}

static BOOL remote_read( struct frame_source *source, ULONG64 addr, void *buffer, SIZE_T size )
{
    struct remote_source *remote = CONTAINING_RECORD( source, struct remote_source, source );

    return page_cache_read( &remote->cache, addr, buffer, size );
}

/* the readers of pe_image.h */
static BOOL read_target( void *ctx, ULONG_PTR addr, void *buffer, SIZE_T size )
{
    return remote_read( ctx, addr, buffer, size );
}

static BOOL read_copied_entry( void *ctx, ULONG index, RUNTIME_FUNCTION *func )
{
    const struct remote_image *image = ctx;

    *func = image->functions[index];
    return TRUE;
}

static BOOL read_u64( struct remote_source *remote, ULONG64 addr, ULONG64 *value )
{
    return remote_read( &remote->source, addr, value, sizeof(*value) );
}

/* the target's modules, from its loader's list; their .pdata is read when
 * the walk first needs it. The PEB's address comes from the thread's TEB,
 * whose page the walk reads anyway for the stack's bounds. */
static void read_images( struct remote_source *remote, ULONG64 teb )
{
    ULONG64 peb, ldr, head, entry;
    ULONG i;

    if (!read_u64( remote, teb + FIELD_OFFSET( TEB, Peb ), &peb ) ||
        !read_u64( remote, peb + FIELD_OFFSET( PEB, LdrData ), &ldr ) || !ldr)
        return;
    head = ldr + FIELD_OFFSET( PEB_LDR_DATA, InMemoryOrderModuleList );
    if (!read_u64( remote, head, &entry )) return;

    for (i = 0; entry != head && i < 4 * MAX_IMAGES && remote->nb_images < MAX_IMAGES; i++)
    {
        ULONG64 record = entry - FIELD_OFFSET( LDR_DATA_TABLE_ENTRY, InMemoryOrderLinks ), base, size;
        struct remote_image *image = &remote->images[remote->nb_images];

        if (!read_u64( remote, record + FIELD_OFFSET( LDR_DATA_TABLE_ENTRY, DllBase ), &base ) ||
            !read_u64( remote, record + FIELD_OFFSET( LDR_DATA_TABLE_ENTRY, SizeOfImage ), &size ) ||
            !read_u64( remote, entry, &entry ))
            return;
        size &= 0xffffffff;  /* SizeOfImage is a ULONG */
        if (!size || base + size < base) continue;
        image->base = base;
        image->end = base + size;
        image->loaded = FALSE;
        image->functions = NULL;
        image->count = 0;
        remote->nb_images++;
    }
}

/*
 * A big .pdata costs a round trip of its own, and the same few processes
 * are walked again and again (a watchdog, a hang reporter, a profiler): the
 * copies are kept from one walk to the next. One is used again only for
 * the same process, at the same address, with the same headers (the whole
 * page at the image's base, which every walk reads anyway).
 */
#define KEPT_TABLES    32
#define MAX_KEPT_COUNT (0x40000 / sizeof(RUNTIME_FUNCTION))

struct kept_table
{
    ULONG             pid;
    ULONG64           base;
    ULONG             count;
    BYTE              headers[PAGE_CACHE_PAGE_SIZE];
    RUNTIME_FUNCTION  functions[1];
};

static struct kept_table *kept_tables[KEPT_TABLES];
static RTL_SRWLOCK kept_lock = RTL_SRWLOCK_INIT;

static struct kept_table **kept_slot( ULONG pid, ULONG64 base )
{
    /* images are 64k-aligned: mix the bits above */
    return &kept_tables[(((base >> 16) ^ pid) * 0x9e3779b97f4a7c15ull) >> 59];
}

static BOOL copy_kept_table( ULONG pid, ULONG64 base, const BYTE *headers, RUNTIME_FUNCTION *functions,
                             ULONG count )
{
    struct kept_table *kept;
    BOOL found;

    RtlAcquireSRWLockShared( &kept_lock );
    kept = *kept_slot( pid, base );
    found = kept && kept->pid == pid && kept->base == base && kept->count == count &&
            !memcmp( kept->headers, headers, PAGE_CACHE_PAGE_SIZE );
    if (found) memcpy( functions, kept->functions, count * sizeof(RUNTIME_FUNCTION) );
    RtlReleaseSRWLockShared( &kept_lock );
    return found;
}

static void keep_table( ULONG pid, ULONG64 base, const BYTE *headers, const RUNTIME_FUNCTION *functions,
                        ULONG count )
{
    struct kept_table *kept, *old;

    if (count > MAX_KEPT_COUNT) return;
    if (!(kept = RtlAllocateHeap( GetProcessHeap(), 0, offsetof( struct kept_table, functions[count] ) ))) return;
    kept->pid = pid;
    kept->base = base;
    kept->count = count;
    memcpy( kept->headers, headers, PAGE_CACHE_PAGE_SIZE );
    memcpy( kept->functions, functions, count * sizeof(RUNTIME_FUNCTION) );
    RtlAcquireSRWLockExclusive( &kept_lock );
    old = *kept_slot( pid, base );
    *kept_slot( pid, base ) = kept;
    RtlReleaseSRWLockExclusive( &kept_lock );
    RtlFreeHeap( GetProcessHeap(), 0, old );
}

/* a copy of the image's .pdata, kept or read in one go */
static void load_image_functions( struct remote_source *remote, struct remote_image *image )
{
    IMAGE_NT_HEADERS64 nt;
    const BYTE *headers;
    DWORD rva;
    ULONG count;

    image->loaded = TRUE;
    if (!pe_read_nt_headers( read_target, &remote->source, image->base, &nt, NULL ) ||
        !pe_function_table( &nt, image->end - image->base, &rva, &count ))
        return;
    if (!(image->functions = RtlAllocateHeap( GetProcessHeap(), 0, count * sizeof(RUNTIME_FUNCTION) ))) return;
    headers = image->base % PAGE_CACHE_PAGE_SIZE ? NULL : page_cache_page( &remote->cache, image->base );
    if (headers && copy_kept_table( remote->pid, image->base, headers, image->functions, count ))
    {
        TRACE( "the .pdata of %I64x was kept\n", image->base );
        image->count = count;
        return;
    }
    TRACE( "reading the .pdata of %I64x\n", image->base );
    if (__wine_read_process_memory( remote->pid, (void *)(ULONG_PTR)(image->base + rva), image->functions,
                                    count * sizeof(RUNTIME_FUNCTION) ))
    {
        RtlFreeHeap( GetProcessHeap(), 0, image->functions );
        image->functions = NULL;
        return;
    }
    image->count = count;
    if (headers) keep_table( remote->pid, image->base, headers, image->functions, count );
}

/* the reader of dynamic_tables.h */
static BOOL read_dynamic( void *ctx, ULONG64 addr, void *buffer, SIZE_T size )
{
    return remote_read( ctx, addr, buffer, size );
}

/* entry 'index' of the dynamic table found, read from the target */
static BOOL read_table_entry( void *ctx, ULONG index, RUNTIME_FUNCTION *func )
{
    struct remote_source *remote = ctx;

    return remote_read( &remote->source, remote->table.table + index * sizeof(*func), func, sizeof(*func) );
}

/* the entry of the target's dynamic function tables for 'pc' */
static BOOL find_dynamic_function( struct remote_source *remote, ULONG64 pc, ULONG64 *base, RUNTIME_FUNCTION *func )
{
    if (!remote->table_list) return FALSE;
    if (!(pc >= remote->table.base && pc < remote->table.end) &&
        !dynamic_table_find( read_dynamic, &remote->source, remote->table_list, pc, &remote->table ))
    {
        remote->table.base = remote->table.end = 0;
        return FALSE;
    }
    if (!remote->table.table)
    {
        TRACE( "%I64x is covered by a function table callback\n", pc );
        return FALSE;
    }
    *base = remote->table.base;
    return pe_find_function( read_table_entry, remote, remote->table.count, *base, pc, func, NULL ) &&
           dynamic_function_ok( &remote->table, func ) &&
           pe_follow_function_links( read_target, &remote->source, *base, func, NULL ) &&
           dynamic_function_ok( &remote->table, func );
}

/* binary search of the target's .pdata, following chained entries */
static BOOL find_function( struct remote_source *remote, ULONG64 pc, ULONG64 *base, RUNTIME_FUNCTION *func )
{
    struct remote_image *image = NULL;
    ULONG i;

    for (i = 0; i < remote->nb_images; i++)
        if (pc >= remote->images[i].base && pc < remote->images[i].end) image = &remote->images[i];
    if (!image) return find_dynamic_function( remote, pc, base, func );
    if (!image->loaded) load_image_functions( remote, image );
    if (!image->count) return FALSE;
    *base = image->base;
    return pe_find_function( read_copied_entry, image, image->count, image->base, pc, func, NULL ) &&
           pe_follow_function_links( read_target, &remote->source, image->base, func, NULL );
}

/* as RtlVirtualUnwind does, whether context->Rip is a return address or not */
static enum unwind_result remote_unwind( struct frame_source *source, CONTEXT *context,
                                         BOOL return_address, ULONG64 *start )
{
    struct remote_source *remote = CONTAINING_RECORD( source, struct remote_source, source );
    RUNTIME_FUNCTION func;
    ULONG64 base;

    if (!find_function( remote, context->Rip, &base, &func )) return NO_UNWIND_DATA;
    if (!unwind_pe_context( &remote->source, base, &func, context )) return UNWIND_FAILED;
    *start = base + func.BeginAddress;
    return UNWOUND;
}

/* Is 'addr' in an executable section of the image, as its headers say? */
static BOOL image_section_is_code( struct remote_source *remote, const struct remote_image *image, ULONG64 addr )
{
    IMAGE_SECTION_HEADER section;
    IMAGE_NT_HEADERS64 nt;
    ULONG64 rva = addr - image->base, table;
    DWORD offset;
    ULONG i;

    if (!pe_read_nt_headers( read_target, &remote->source, image->base, &nt, &offset )) return FALSE;
    table = image->base + offset + FIELD_OFFSET( IMAGE_NT_HEADERS64, OptionalHeader ) +
            nt.FileHeader.SizeOfOptionalHeader;
    for (i = 0; i < nt.FileHeader.NumberOfSections && i < 96; i++)
    {
        if (!remote_read( &remote->source, table + i * sizeof(section), &section, sizeof(section) )) return FALSE;
        if (rva >= section.VirtualAddress && rva < (ULONG64)section.VirtualAddress + section.Misc.VirtualSize)
            return !!(section.Characteristics & IMAGE_SCN_MEM_EXECUTE);
    }
    return FALSE;
}

/* Executable memory of the target: its images' code sections, and the
 * functions of the function tables it registered. Asking the target
 * (NtQueryVirtualMemory) would run an APC in it and wake its threads,
 * which a walk never does; other code outside its images (a JIT's without
 * tables, a callback's range) is therefore not taken for code, and the walk
 * ends there rather than guess. */
static BOOL remote_is_code( struct frame_source *source, ULONG64 addr )
{
    struct remote_source *remote = CONTAINING_RECORD( source, struct remote_source, source );
    RUNTIME_FUNCTION func;
    ULONG64 base;
    ULONG i;

    if (addr < 0x10000 || addr > HIGHEST_USER_ADDRESS) return FALSE;
    for (i = 0; i < remote->nb_images; i++)
        if (addr >= remote->images[i].base && addr < remote->images[i].end)
            return image_section_is_code( remote, &remote->images[i], addr );
    return find_dynamic_function( remote, addr, &base, &func );
}

/* ntdll sits at the same address in every process of a Wine prefix; if the
 * target's does, its dispatchers are ours */
static BOOL same_ntdll( struct remote_source *remote )
{
    LDR_DATA_TABLE_ENTRY *ntdll;
    ULONG i;

    if (LdrFindEntryForAddress( (void *)same_ntdll, &ntdll )) return FALSE;
    for (i = 0; i < remote->nb_images; i++)
        if (remote->images[i].base == (ULONG_PTR)ntdll->DllBase) return TRUE;
    return FALSE;
}

/***********************************************************************
 *           walk_remote_thread
 *
 * Walk a thread of another process, held still by the caller. The reads
 * go through a handle kept from the first walk of the process, but
 * whether the caller may read it was asked for this walk, with its token
 * of the moment, by the query that gave 'info' (__wine_query_walk_target,
 * docs/ACCESS.md).
 */
NTSTATUS walk_remote_thread( const THREAD_BASIC_INFORMATION *info, CONTEXT *context, ULONG skip, ULONG count,
                             void **frames, void **stack_ptrs, ULONG *ret_count )
{
    struct remote_source *remote;
    struct stack_limits limits;
    NTSTATUS status = STATUS_SUCCESS;
    ULONG i;

    /* most of it is never touched: only what marks it empty is cleared */
    if (!(remote = RtlAllocateHeap( GetProcessHeap(), 0, sizeof(*remote) ))) return STATUS_NO_MEMORY;
    remote->source.unwind = remote_unwind;
    remote->source.read = remote_read;
    remote->source.is_dispatcher = NULL;
    remote->source.is_code = remote_is_code;
    remote->pid = HandleToULong( info->ClientId.UniqueProcess );
    remote->nb_images = 0;
    remote->table_list = 0;
    remote->table.base = remote->table.end = 0;
    remote->status = STATUS_SUCCESS;
    page_cache_init( &remote->cache, remote, remote_read_process, remote->page_addrs, &remote->page_data[0][0],
                     CACHED_PAGES );
    read_images( remote, (ULONG_PTR)info->TebBaseAddress );
    if (same_ntdll( remote ))
    {
        /* its list of function tables is where ours is */
        remote->source.is_dispatcher = is_user_dispatcher;
        remote->table_list = (ULONG_PTR)RtlGetFunctionTableListHead();
    }

    if (!read_u64( remote, (ULONG_PTR)info->TebBaseAddress + FIELD_OFFSET( TEB, DeallocationStack ), &limits.low ) ||
        !read_u64( remote, (ULONG_PTR)info->TebBaseAddress + FIELD_OFFSET( TEB, Tib.StackBase ), &limits.high ))
    {
        /* the process may not be read at all (no PROCESS_VM_READ), or not there */
        status = remote->status == STATUS_ACCESS_DENIED ? STATUS_ACCESS_DENIED : STATUS_PARTIAL_COPY;
    }
    else
    {
        TRACE( "%lu images, stack %I64x-%I64x\n", remote->nb_images, limits.low, limits.high );
        *ret_count = walk_stack_frames( &remote->source, context, FALSE, skip, count, frames, stack_ptrs, &limits,
                                        TRUE );
    }
    for (i = 0; i < remote->nb_images; i++) RtlFreeHeap( GetProcessHeap(), 0, remote->images[i].functions );
    RtlFreeHeap( GetProcessHeap(), 0, remote );
    return status;
}

#endif  /* __x86_64__ */

/*
 * Address-sorted table of the loaded images and their function tables
 * (what Windows calls the inverted function table)
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

#if defined(__x86_64__) || defined(__arm__) || defined(__aarch64__)

#include <stdarg.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wine/debug.h"
#include "function_table.h"
#include "pe_image.h"

WINE_DEFAULT_DEBUG_CHANNEL(unwind);

/*
 * Every stack frame and every exception looks up the image of an address.
 * The loader's module list is a linked list, walked without a lock; this
 * table is sorted by address and binary searched instead.
 *
 * Writers hold the loader lock. Readers take no lock: a sequence count, odd
 * while the table changes, tells them to look again. The table lives in one
 * reservation that is committed as it grows and never moves or shrinks, so
 * a reader racing with a writer reads stale entries at worst, never freed
 * memory, and throws them away.
 */

struct image_range
{
    ULONG_PTR             base;
    ULONG_PTR             end;
    RUNTIME_FUNCTION     *functions;
    ULONG                 count;
    LDR_DATA_TABLE_ENTRY *module;
};

#define MAX_IMAGES   16384
#define MAX_RETRIES  1000

static struct image_range *images;
static SIZE_T capacity;        /* entries committed */
static ULONG image_count;
static LONG sequence;          /* odd while a writer changes the table */
LONG function_table_removals;  /* counts the images taken off the table */
static BOOL table_failed;      /* out of space: readers use the module list */

static BOOL reserve_entry(void)
{
    SIZE_T size;
    void *addr;

    if (image_count < capacity) return TRUE;
    if (!images)
    {
        size = MAX_IMAGES * sizeof(*images);
        if (NtAllocateVirtualMemory( GetCurrentProcess(), (void **)&images, 0, &size,
                                     MEM_RESERVE, PAGE_READWRITE ))
            return FALSE;
    }
    if (capacity >= MAX_IMAGES) return FALSE;
    addr = images + capacity;
    size = 0x1000;
    if (NtAllocateVirtualMemory( GetCurrentProcess(), &addr, 0, &size, MEM_COMMIT, PAGE_READWRITE ))
        return FALSE;
    capacity = min( MAX_IMAGES, ((char *)addr + size - (char *)images) / sizeof(*images) );
    return TRUE;
}

/* a loaded image's function table: the loader checked its headers */
static RUNTIME_FUNCTION *image_functions( LDR_DATA_TABLE_ENTRY *module, ULONG *count )
{
    RUNTIME_FUNCTION *functions;
    ULONG size = 0;

    functions = RtlImageDirectoryEntryToData( module->DllBase, TRUE, IMAGE_DIRECTORY_ENTRY_EXCEPTION, &size );
    *count = functions ? size / sizeof(RUNTIME_FUNCTION) : 0;
    return functions;
}

/* index of the first entry whose base is above 'addr' */
static ULONG upper_bound( ULONG_PTR addr, ULONG count )
{
    ULONG lo = 0, hi = count, mid;

    while (lo < hi)
    {
        mid = (lo + hi) / 2;
        if (images[mid].base <= addr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/***********************************************************************
 *           function_table_add
 *
 * A module was added to the loader's lists. The loader lock is held.
 */
void function_table_add( LDR_DATA_TABLE_ENTRY *module )
{
    struct image_range range;
    ULONG pos;

    if (table_failed) return;
    if (!reserve_entry())
    {
        ERR( "no room for %s; look-ups fall back to the module list\n",
             debugstr_w(module->BaseDllName.Buffer) );
        table_failed = TRUE;
        return;
    }
    range.base = (ULONG_PTR)module->DllBase;
    range.end = range.base + module->SizeOfImage;
    range.module = module;
    range.functions = image_functions( module, &range.count );
    pos = upper_bound( range.base, image_count );

    InterlockedIncrement( &sequence );
    memmove( images + pos + 1, images + pos, (image_count - pos) * sizeof(*images) );
    images[pos] = range;
    image_count++;
    InterlockedIncrement( &sequence );
}

/***********************************************************************
 *           function_table_remove
 *
 * A module was taken off the loader's lists. The loader lock is held.
 */
void function_table_remove( LDR_DATA_TABLE_ENTRY *module )
{
    ULONG pos = upper_bound( (ULONG_PTR)module->DllBase, image_count );

    InterlockedIncrement( &function_table_removals );
    if (!pos || images[pos - 1].module != module) return;
    pos--;
    InterlockedIncrement( &sequence );
    memmove( images + pos, images + pos + 1, (image_count - pos - 1) * sizeof(*images) );
    image_count--;
    InterlockedIncrement( &sequence );
}

/* the old way, for when the table cannot answer */
static BOOL find_in_module_list( ULONG_PTR pc, struct image_range *range )
{
    if (LdrFindEntryForAddress( (void *)pc, &range->module )) return FALSE;
    range->base = (ULONG_PTR)range->module->DllBase;
    range->functions = image_functions( range->module, &range->count );
    return TRUE;
}

/***********************************************************************
 *           function_table_find
 *
 * Find the image containing 'pc' and its function table (NULL if it has
 * none). Takes no lock.
 */
BOOL function_table_find( ULONG_PTR pc, LDR_DATA_TABLE_ENTRY **module, ULONG_PTR *base,
                          RUNTIME_FUNCTION **functions, ULONG *count )
{
    struct image_range range;
    unsigned int tries;
    LONG seq;
    ULONG pos, n;
    BOOL found;

    for (tries = 0; !table_failed && tries < MAX_RETRIES; tries++)
    {
        seq = ReadAcquire( &sequence );
        if (seq & 1)
        {
            YieldProcessor();
            continue;
        }
        n = ReadNoFence( (LONG *)&image_count );
        if (n > capacity) continue;
        pos = upper_bound( pc, n );
        found = pos && pc < images[pos - 1].end;
        if (found) range = images[pos - 1];
        __atomic_thread_fence( __ATOMIC_ACQUIRE );
        if (ReadNoFence( &sequence ) != seq) continue;

        if (!found) return FALSE;
        goto done;
    }
    if (!find_in_module_list( pc, &range )) return FALSE;

done:
    *module = range.module;
    *base = range.base;
    *functions = range.functions;
    *count = range.count;
    return TRUE;
}

#ifdef __x86_64__

/* the readers of pe_image.h: the tables of this process are read in place */
static BOOL read_local_entry( void *ctx, ULONG index, RUNTIME_FUNCTION *func )
{
    *func = ((const RUNTIME_FUNCTION *)ctx)[index];
    return TRUE;
}

static BOOL read_local_memory( void *ctx, ULONG_PTR addr, void *buffer, SIZE_T size )
{
    memcpy( buffer, (const void *)addr, size );
    return TRUE;
}

/* the entry of 'pc' in a function table, where the unwinder reads it */
static RUNTIME_FUNCTION *search_functions( ULONG_PTR pc, ULONG_PTR base, RUNTIME_FUNCTION *functions,
                                           ULONG count )
{
    RUNTIME_FUNCTION func;
    ULONG_PTR addr;
    ULONG index;

    if (!pe_find_function( read_local_entry, functions, count, base, pc, &func, &index )) return NULL;
    addr = (ULONG_PTR)&functions[index];
    if (!pe_follow_function_links( read_local_memory, NULL, base, &func, &addr )) return NULL;
    return (RUNTIME_FUNCTION *)addr;
}

/***********************************************************************
 *           function_table_lookup
 *
 * The function entry of 'pc' for the stack walkers, which never run a
 * function table callback: from the .pdata of the image holding 'pc'
 * ('*module', NULL outside the loaded images), and with 'registered',
 * outside the images, from the tables registered with RtlAddFunctionTable
 * or RtlAddGrowableFunctionTable. Faults reading a registered table are
 * the caller's to catch.
 */
RUNTIME_FUNCTION *function_table_lookup( ULONG_PTR pc, BOOL registered, ULONG_PTR *base,
                                         LDR_DATA_TABLE_ENTRY **module )
{
    RUNTIME_FUNCTION *functions;
    ULONG count;

    if (function_table_find( pc, module, base, &functions, &count ))
        return functions ? search_functions( pc, *base, functions, count ) : NULL;
    *module = NULL;
    if (registered && find_registered_function_table( pc, base, &functions, &count ))
        return search_functions( pc, *base, functions, count );
    return NULL;
}

#endif  /* __x86_64__ */

#endif  /* __x86_64__ || __arm__ || __aarch64__ */

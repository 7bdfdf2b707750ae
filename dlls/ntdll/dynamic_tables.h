/*
 * The dynamic function tables of another process, read from its memory
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

#ifndef __WINE_NTDLL_DYNAMIC_TABLES_H
#define __WINE_NTDLL_DYNAMIC_TABLES_H

/*
 * A JIT (V8 in node.exe) gives its generated code's unwind data to
 * RtlAddFunctionTable and RtlAddGrowableFunctionTable, which keep it in a
 * list of ntdll's; RtlGetFunctionTableListHead gives the list's head, as on
 * Windows, where debuggers read the list from the process they debug.
 * ntdll sits at the same address in every process of a Wine prefix, so the
 * head's address is the same in the walker and in the walked process when
 * both run the same ntdll (the caller checks that).
 *
 * The list's entries are Wine's own (docs/INTERNALS.md): a 'struct list'
 * link first, then the table's range, its entries and its callback. The
 * hook that exports the head checks this layout at build time. Another
 * process's list may be corrupt, or change while it is read (the walked
 * thread is held, not the others): every address read is checked, the walk
 * of the list and the search of a table are bounded, and whatever does not
 * hold ends the look-up with nothing found.
 *
 * Static inline, with the reads done by the caller: built into ntdll's
 * remote walker (remote_frames.c) and into wctdump. Nothing of ours is
 * included from here.
 */

#ifdef __x86_64__

/* Wine's entry of the list (exception.c on 8.0, unwind.c on 10.0) */
#define DYNAMIC_ENTRY_OFFSET_BASE      0x10
#define DYNAMIC_ENTRY_OFFSET_END       0x18
#define DYNAMIC_ENTRY_OFFSET_TABLE     0x20
#define DYNAMIC_ENTRY_OFFSET_COUNT     0x28
#define DYNAMIC_ENTRY_OFFSET_MAX_COUNT 0x2c
#define DYNAMIC_ENTRY_OFFSET_CALLBACK  0x30
#define DYNAMIC_ENTRY_SIZE             0x40

struct dynamic_entry_image
{
    ULONG64 next;       /* struct list: next, then prev */
    ULONG64 prev;
    ULONG64 base;       /* the table's RVAs are from here */
    ULONG64 end;        /* the range it covers: [base, end) */
    ULONG64 table;      /* RUNTIME_FUNCTION[count] */
    ULONG   count;
    ULONG   max_count;  /* 0 unless growable */
    ULONG64 callback;   /* RtlInstallFunctionTableCallback's: no table */
    ULONG64 context;
};

C_ASSERT( FIELD_OFFSET( struct dynamic_entry_image, base ) == DYNAMIC_ENTRY_OFFSET_BASE );
C_ASSERT( FIELD_OFFSET( struct dynamic_entry_image, end ) == DYNAMIC_ENTRY_OFFSET_END );
C_ASSERT( FIELD_OFFSET( struct dynamic_entry_image, table ) == DYNAMIC_ENTRY_OFFSET_TABLE );
C_ASSERT( FIELD_OFFSET( struct dynamic_entry_image, count ) == DYNAMIC_ENTRY_OFFSET_COUNT );
C_ASSERT( FIELD_OFFSET( struct dynamic_entry_image, max_count ) == DYNAMIC_ENTRY_OFFSET_MAX_COUNT );
C_ASSERT( FIELD_OFFSET( struct dynamic_entry_image, callback ) == DYNAMIC_ENTRY_OFFSET_CALLBACK );
C_ASSERT( sizeof(struct dynamic_entry_image) == DYNAMIC_ENTRY_SIZE );

/* bounds: entries of the list read, and entries of one table */
#define DYNAMIC_MAX_TABLES    4096
#define DYNAMIC_MAX_FUNCTIONS 0x100000

/* the lowest address and the highest user-mode address (x86-64 Windows') */
#define DYNAMIC_LOWEST_ADDRESS  0x10000ull
#define DYNAMIC_HIGHEST_ADDRESS 0x7ffffffeffffull

typedef BOOL (*dynamic_read_func)( void *ctx, ULONG64 addr, void *buffer, SIZE_T size );

/* a table of the walked process, as found in its list */
struct dynamic_table
{
    ULONG64 base;
    ULONG64 end;
    ULONG64 table;    /* 0 for a callback's range */
    ULONG   count;
};

static inline BOOL dynamic_address_ok( ULONG64 addr, ULONG64 size, ULONG align )
{
    return addr >= DYNAMIC_LOWEST_ADDRESS && !(addr & (align - 1)) && size <= DYNAMIC_HIGHEST_ADDRESS &&
           addr <= DYNAMIC_HIGHEST_ADDRESS + 1 - size;
}

/* Is this entry, read from the list, one a walk may use? */
static inline BOOL dynamic_entry_ok( const struct dynamic_entry_image *entry )
{
    if (entry->base >= entry->end || !dynamic_address_ok( entry->base, entry->end - entry->base, 1 )) return FALSE;
    if (entry->callback) return TRUE;
    /* RVAs are 32-bit; a growable table's count stays within its maximum */
    if (entry->end - entry->base > 0x100000000ull) return FALSE;
    if (entry->count > DYNAMIC_MAX_FUNCTIONS || (entry->max_count && entry->count > entry->max_count)) return FALSE;
    return dynamic_address_ok( entry->table, (ULONG64)entry->count * sizeof(RUNTIME_FUNCTION), 4 );
}

/* The first table of the list at 'head' whose range holds 'pc', as the
 * walked process's own look-up takes it. FALSE when none does, or the list
 * cannot be read, or it ends nowhere within DYNAMIC_MAX_TABLES entries, or
 * the entry found does not hold (a range, a count or an address that
 * cannot be). A callback's range comes back with table 0. */
static inline BOOL dynamic_table_find( dynamic_read_func read, void *ctx, ULONG64 head, ULONG64 pc,
                                       struct dynamic_table *found )
{
    struct dynamic_entry_image entry;
    ULONG64 link;
    ULONG i;

    if (!dynamic_address_ok( head, 2 * sizeof(ULONG64), 8 ) || !read( ctx, head, &link, sizeof(link) ))
        return FALSE;
    for (i = 0; link != head; i++)
    {
        if (i >= DYNAMIC_MAX_TABLES || !dynamic_address_ok( link, sizeof(entry), 8 ) ||
            !read( ctx, link, &entry, sizeof(entry) ))
            return FALSE;
        if (pc >= entry.base && pc < entry.end)
        {
            if (!dynamic_entry_ok( &entry )) return FALSE;
            found->base = entry.base;
            found->end = entry.end;
            found->table = entry.callback ? 0 : entry.table;
            found->count = entry.callback ? 0 : entry.count;
            return TRUE;
        }
        link = entry.next;
    }
    return FALSE;
}

/* Is this entry of a table, read from the walked process, one that can be?
 * It lies in the table's range, and its unwind data inside the range too
 * or anywhere in user space (V8 keeps it in the code range; others next to
 * the table). */
static inline BOOL dynamic_function_ok( const struct dynamic_table *table, const RUNTIME_FUNCTION *func )
{
    return func->BeginAddress < func->EndAddress && table->base + func->EndAddress <= table->end &&
           func->UnwindData && dynamic_address_ok( table->base + (func->UnwindData & ~1), 8, 4 );
}

#endif  /* __x86_64__ */

#endif  /* __WINE_NTDLL_DYNAMIC_TABLES_H */

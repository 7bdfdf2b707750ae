/*
 * Pages of another process, kept across the reads of a walk or a report
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


#ifndef __WINE_NTDLL_PAGE_CACHE_H
#define __WINE_NTDLL_PAGE_CACHE_H

/*
 * The one cache of another process's memory, for the walker of other
 * processes (remote_frames.c) and for wctdump's namer of frames. Each read
 * of another process is a system call (a pread of the file of its memory,
 * memory_file.c, or a server round trip where there is none), and a walk
 * or the naming of a frame reads the same few pages (the loader's list, headers, .pdata,
 * unwind data, the stack) again and again: whole pages are read once and
 * kept, one slot per page address modulo the number of slots. The owner
 * says how long what the cache holds stays true (one walk of a thread held
 * still, one report) and clears it then. It needs windef.h only, includes
 * nothing of ours and allocates nothing.
 */

#define PAGE_CACHE_PAGE_SIZE 0x1000

/* 'size' bytes at 'addr' of the process the owner's 'ctx' reads; TRUE when all were read */
typedef BOOL (*page_cache_read_func)( void *ctx, ULONG64 addr, void *buffer, SIZE_T size );

/* The addresses of the pages held are apart from their data: clearing the
 * cache touches one small array, not every page of a big one. */
struct page_cache
{
    void                *ctx;
    page_cache_read_func read;
    ULONG64             *addrs;   /* of the page in each slot; 0: empty (page 0 is never mapped) */
    BYTE                *data;    /* count slots of PAGE_CACHE_PAGE_SIZE bytes */
    unsigned int         count;
};

static inline void page_cache_init( struct page_cache *cache, void *ctx, page_cache_read_func read,
                                    ULONG64 *addrs, BYTE *data, unsigned int count )
{
    unsigned int i;

    cache->ctx = ctx;
    cache->read = read;
    cache->addrs = addrs;
    cache->data = data;
    cache->count = count;
    for (i = 0; i < count; i++) addrs[i] = 0;
}

/* the whole page at 'addr' (page-aligned), or NULL when it cannot be read */
static inline const BYTE *page_cache_page( struct page_cache *cache, ULONG64 addr )
{
    unsigned int slot = (addr / PAGE_CACHE_PAGE_SIZE) % cache->count;
    BYTE *data = cache->data + (SIZE_T)slot * PAGE_CACHE_PAGE_SIZE;

    if (!addr) return NULL;
    if (cache->addrs[slot] == addr) return data;
    cache->addrs[slot] = 0;
    if (!cache->read( cache->ctx, addr, data, PAGE_CACHE_PAGE_SIZE )) return NULL;
    cache->addrs[slot] = addr;
    return data;
}

static inline BOOL page_cache_read( struct page_cache *cache, ULONG64 addr, void *buffer, SIZE_T size )
{
    SIZE_T done = 0, offset, chunk;
    const BYTE *data;

    if (addr + size < addr) return FALSE;
    while (done < size)
    {
        offset = (addr + done) % PAGE_CACHE_PAGE_SIZE;
        chunk = min( size - done, PAGE_CACHE_PAGE_SIZE - offset );
        if (!(data = page_cache_page( cache, addr + done - offset ))) return FALSE;
        memcpy( (BYTE *)buffer + done, data + offset, chunk );
        done += chunk;
    }
    return TRUE;
}

#endif  /* __WINE_NTDLL_PAGE_CACHE_H */

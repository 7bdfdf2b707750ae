/*
 * Naming stack frames: module!symbol+offset
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

#ifndef __WINE_WALK_NAMES_H
#define __WINE_WALK_NAMES_H

/*
 * One naming rule for every stack dumper of the layer: the deadlock
 * watchdog (inside the hung process, dlls/ntdll/watchdog.c) and wctdump
 * (outside it, programs/wctdump). Both read the target through a reader,
 * so that the same frame gets the same text from either.
 */
struct frame_reader
{
    void *ctx;
    /* 'size' bytes at 'addr' of the target process; TRUE when all were read */
    BOOL (*read_memory)( void *ctx, ULONG_PTR addr, void *buffer, SIZE_T size );
    /* 'size' bytes at 'offset' of the file of the image mapped at 'base';
     * NULL when files cannot be read */
    BOOL (*read_file)( void *ctx, ULONG_PTR base, ULONGLONG offset, void *buffer, SIZE_T size );
};

/* the longest symbol name reported; longer ones are cut */
#define FRAME_SYMBOL_LENGTH 256

/* one address to name, of those frame_symbols names together */
struct frame_name_query
{
    ULONG_PTR addr;                       /* in */
    BOOL      found;                      /* out: named */
    ULONG_PTR displacement;               /* out: of addr from the symbol */
    char      name[FRAME_SYMBOL_LENGTH];  /* out: the symbol */
    struct                                /* frame_symbols' own */
    {
        DWORD rva;
        BOOL  coff, export;               /* a candidate found, at: */
        DWORD coff_rva, export_rva;
        DWORD export_name_rva;
        BYTE  symbol[8];                  /* the COFF symbol's name field */
    } scan;
};

extern void frame_symbols( const struct frame_reader *reader, ULONG_PTR base, struct frame_name_query *queries,
                           DWORD count );
extern BOOL frame_symbol( const struct frame_reader *reader, ULONG_PTR base, ULONG_PTR addr,
                          char *name, DWORD size, ULONG_PTR *displacement );
extern BOOL frame_demangle( const char *name, char *buffer, DWORD size );
extern void frame_format( WCHAR *buffer, DWORD size, const WCHAR *module, const char *symbol,
                          ULONG_PTR offset );

#endif  /* __WINE_WALK_NAMES_H */

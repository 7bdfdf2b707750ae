/*
 * PE images read by the stack walkers: their headers and function tables
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

#ifndef __WINE_NTDLL_PE_IMAGE_H
#define __WINE_NTDLL_PE_IMAGE_H

/*
 * The one check of an image's headers and the one search of its function
 * table (.pdata) for every file of ours that reads images: the inverted
 * function table (function_table.c, this process's images and registered
 * tables), the walker of other processes (remote_frames.c) and the frame
 * namer (walk_names.c, built into wctdump too). Each reads the image its
 * own way (directly, through another process's handle, through a reader),
 * so everything here reads through a callback; the image may be damaged or
 * change under us, so every value read is checked and every loop bounded.
 * It needs winnt.h only, includes nothing of ours and allocates nothing.
 */

/* 'size' bytes at 'addr'; TRUE when all were read */
typedef BOOL (*pe_read_func)( void *ctx, ULONG_PTR addr, void *buffer, SIZE_T size );

/* the NT headers of an image start in its first 64k */
#define PE_MAX_NT_OFFSET 0x10000

/* more entries than any image's function table has: bounds what a damaged
 * header makes us read */
#define PE_MAX_FUNCTIONS 0x100000

/* Read the NT headers of the image at 'base', and say whether they are
 * sane: the DOS and NT signatures, the PE32+ magic (or, with 'pe32', the
 * PE32 magic of 32-bit code) and a data directory with room for the
 * exception table. A PE32 image's headers are given in the PE32+ layout:
 * the file header, AddressOfEntryPoint, SizeOfImage, NumberOfRvaAndSizes
 * and the data directories, with the PE32 magic; its other optional-header
 * fields are 0. '*offset', if given, gets where the NT headers start in
 * the image. */
static inline BOOL pe_read_image_headers( pe_read_func read, void *ctx, ULONG_PTR base, IMAGE_NT_HEADERS64 *nt,
                                          DWORD *offset, BOOL pe32 )
{
    IMAGE_DOS_HEADER dos;
    IMAGE_NT_HEADERS32 nt32;

    if (!read( ctx, base, &dos, sizeof(dos) ) || dos.e_magic != IMAGE_DOS_SIGNATURE ||
        dos.e_lfanew <= 0 || dos.e_lfanew > PE_MAX_NT_OFFSET)
        return FALSE;
    if (offset) *offset = dos.e_lfanew;
    if (!read( ctx, base + dos.e_lfanew, nt, sizeof(*nt) ) || nt->Signature != IMAGE_NT_SIGNATURE) return FALSE;
    if (pe32 && nt->OptionalHeader.Magic == IMAGE_NT_OPTIONAL_HDR32_MAGIC)
    {
        memcpy( &nt32, nt, sizeof(nt32) );
        memset( &nt->OptionalHeader, 0, sizeof(nt->OptionalHeader) );
        nt->OptionalHeader.Magic = IMAGE_NT_OPTIONAL_HDR32_MAGIC;
        nt->OptionalHeader.AddressOfEntryPoint = nt32.OptionalHeader.AddressOfEntryPoint;
        nt->OptionalHeader.SizeOfImage = nt32.OptionalHeader.SizeOfImage;
        nt->OptionalHeader.NumberOfRvaAndSizes = nt32.OptionalHeader.NumberOfRvaAndSizes;
        memcpy( nt->OptionalHeader.DataDirectory, nt32.OptionalHeader.DataDirectory,
                sizeof(nt->OptionalHeader.DataDirectory) );
    }
    else if (nt->OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC) return FALSE;
    return nt->OptionalHeader.NumberOfRvaAndSizes > IMAGE_DIRECTORY_ENTRY_EXCEPTION;
}

/* the headers of a PE32+ image: code with unwind data */
static inline BOOL pe_read_nt_headers( pe_read_func read, void *ctx, ULONG_PTR base, IMAGE_NT_HEADERS64 *nt,
                                       DWORD *offset )
{
    return pe_read_image_headers( read, ctx, base, nt, offset, FALSE );
}

#ifdef __x86_64__

/* entry 'index' of a function table; TRUE when it was read */
typedef BOOL (*pe_entry_func)( void *ctx, ULONG index, RUNTIME_FUNCTION *func );

/* The function table of an image of 'size' bytes whose headers
 * pe_read_nt_headers read: its RVA and its number of entries, when it has
 * one that starts inside the image and is no bigger than any image's. */
static inline BOOL pe_function_table( const IMAGE_NT_HEADERS64 *nt, ULONG64 size, DWORD *rva, ULONG *count )
{
    const IMAGE_DATA_DIRECTORY *dir = &nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXCEPTION];

    *rva = dir->VirtualAddress;
    *count = dir->Size / sizeof(RUNTIME_FUNCTION);
    return dir->VirtualAddress && dir->VirtualAddress < size && *count && *count <= PE_MAX_FUNCTIONS;
}

/* Binary search of a function table sorted by address, whose RVAs are from
 * 'base', for the entry covering 'pc'. Its 'count' entries come from
 * 'entry': one that cannot be read ends the search with nothing found.
 * '*index', if given, gets the entry's index. */
static inline BOOL pe_find_function( pe_entry_func entry, void *ctx, ULONG count, ULONG64 base, ULONG64 pc,
                                     RUNTIME_FUNCTION *func, ULONG *index )
{
    ULONG lo = 0, hi = count, mid;

    while (lo < hi)
    {
        mid = lo + (hi - lo) / 2;
        if (!entry( ctx, mid, func )) return FALSE;
        if (pc < base + func->BeginAddress) hi = mid;
        else if (pc >= base + func->EndAddress) lo = mid + 1;
        else
        {
            if (index) *index = mid;
            return TRUE;
        }
    }
    return FALSE;
}

/* An entry with bit 0 of UnwindData set holds no unwind data but the RVA
 * of the entry that does (a function's parts share their unwind data).
 * Follow such links from 'func', at most 32 of them, to the entry with the
 * unwind data; '*addr', if given, gets the address of each entry read.
 * FALSE when a link cannot be read or the chain goes on. */
static inline BOOL pe_follow_function_links( pe_read_func read, void *ctx, ULONG64 base, RUNTIME_FUNCTION *func,
                                             ULONG_PTR *addr )
{
    unsigned int links;
    ULONG_PTR next;

    for (links = 0; (func->UnwindData & 1) && links < 32; links++)
    {
        next = base + (func->UnwindData & ~1);
        if (!read( ctx, next, func, sizeof(*func) )) return FALSE;
        if (addr) *addr = next;
    }
    return !(func->UnwindData & 1);
}

#endif  /* __x86_64__ */

#endif  /* __WINE_NTDLL_PE_IMAGE_H */

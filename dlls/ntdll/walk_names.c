/*
 * Naming stack frames: module!symbol+offset, from an image's COFF symbol
 * table or its exports
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
#include <string.h>

#include "windef.h"
#include "walk_names.h"
#include "pe_image.h"

/*
 * This file is built into ntdll (for the deadlock watchdog) and into
 * wctdump: it uses nothing but its reader, allocates nothing (the watchdog
 * runs while other threads of its process may hold the heap lock) and
 * bounds every loop by what a sane image holds, as the image may be damaged.
 *
 * A frame is named after the nearest function symbol at or below it in the
 * image's COFF symbol table, which mingw-w64 keeps in every image it links
 * unless stripped, whatever the debug information (DWARF 4 or 5) or none;
 * or after the nearest named export, which is where the function's callers
 * enter it (debug information may start a function after a hot-patch
 * prologue). Either is refused when the unwind data says that another
 * function starts between it and the address.
 */

#define MAX_EXPORTS   65536
#define MAX_SYMBOLS   (1 << 22)
#define MAX_SECTIONS  96
#define SYMBOL_SIZE   18     /* IMAGE_SIZEOF_SYMBOL */
#define SYMBOL_CHUNK  64

struct image
{
    const struct frame_reader *reader;
    ULONG_PTR                  base;
    IMAGE_NT_HEADERS64         nt;
    DWORD                      nt_offset;
};

static BOOL read_rva( const struct image *image, DWORD rva, void *buffer, DWORD size )
{
    if (rva >= image->nt.OptionalHeader.SizeOfImage ||
        size > image->nt.OptionalHeader.SizeOfImage - rva)
        return FALSE;
    return image->reader->read_memory( image->reader->ctx, image->base + rva, buffer, size );
}

/* a NUL-terminated string of the image, cut to 'size' */
static BOOL read_string_rva( const struct image *image, DWORD rva, char *buffer, DWORD size )
{
    DWORD pos;

    for (pos = 0; pos < size - 1; pos++)
    {
        if (!read_rva( image, rva + pos, buffer + pos, 1 )) return FALSE;
        if (!buffer[pos]) return TRUE;
    }
    buffer[pos] = 0;
    return TRUE;
}

static BOOL open_image( struct image *image, const struct frame_reader *reader, ULONG_PTR base )
{
    image->reader = reader;
    image->base = base;
    return pe_read_nt_headers( reader->read_memory, reader->ctx, base, &image->nt, &image->nt_offset );
}

/* entry 'index' of the image's function table, for pe_find_function */
static BOOL read_function_entry( void *ctx, ULONG index, RUNTIME_FUNCTION *func )
{
    const struct image *image = ctx;
    const IMAGE_DATA_DIRECTORY *dir = &image->nt.OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXCEPTION];

    return read_rva( image, dir->VirtualAddress + index * sizeof(*func), func, sizeof(*func) );
}

/* Is there a function entry of the unwind data covering 'rva' that starts
 * after 'start'? Then the symbol at 'start' is another function's. */
static BOOL function_starts_between( const struct image *image, DWORD start, DWORD rva )
{
    RUNTIME_FUNCTION func;
    DWORD table;
    ULONG count;

    return pe_function_table( &image->nt, image->nt.OptionalHeader.SizeOfImage, &table, &count ) &&
           pe_find_function( read_function_entry, (void *)image, count, 0, rva, &func, NULL ) &&
           func.BeginAddress > start;
}

/* the named export with the highest address at or below 'rva' */
static BOOL find_export( const struct image *image, DWORD rva, DWORD *export_rva, char *name, DWORD size )
{
    const IMAGE_DATA_DIRECTORY *dir = &image->nt.OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXPORT];
    IMAGE_EXPORT_DIRECTORY exports;
    DWORD i, func, name_rva = 0;
    WORD ordinal;
    BOOL found = FALSE;

    if (!dir->VirtualAddress || !read_rva( image, dir->VirtualAddress, &exports, sizeof(exports) ) ||
        exports.NumberOfFunctions > MAX_EXPORTS || exports.NumberOfNames > MAX_EXPORTS)
        return FALSE;
    for (i = 0; i < exports.NumberOfNames; i++)
    {
        if (!read_rva( image, exports.AddressOfNameOrdinals + i * sizeof(WORD), &ordinal, sizeof(ordinal) ) ||
            ordinal >= exports.NumberOfFunctions ||
            !read_rva( image, exports.AddressOfFunctions + ordinal * sizeof(DWORD), &func, sizeof(func) ))
            continue;
        /* forwarders point into the export directory, not at code */
        if (func >= dir->VirtualAddress && func - dir->VirtualAddress < dir->Size) continue;
        /* the first name of an address wins: NtXxx before its ZwXxx alias */
        if (func > rva || (found && func <= *export_rva)) continue;
        if (!read_rva( image, exports.AddressOfNames + i * sizeof(DWORD), &name_rva, sizeof(name_rva) )) continue;
        *export_rva = func;
        found = TRUE;
    }
    return found && read_string_rva( image, name_rva, name, size );
}

/* Is the image's file the one mapped? Its headers say the same. */
static BOOL file_matches( const struct image *image )
{
    const struct frame_reader *reader = image->reader;
    IMAGE_NT_HEADERS64 nt;

    return reader->read_file( reader->ctx, image->base, image->nt_offset, &nt, sizeof(nt) ) &&
           nt.FileHeader.TimeDateStamp == image->nt.FileHeader.TimeDateStamp &&
           nt.FileHeader.PointerToSymbolTable == image->nt.FileHeader.PointerToSymbolTable &&
           nt.FileHeader.NumberOfSymbols == image->nt.FileHeader.NumberOfSymbols &&
           nt.OptionalHeader.SizeOfImage == image->nt.OptionalHeader.SizeOfImage &&
           nt.OptionalHeader.AddressOfEntryPoint == image->nt.OptionalHeader.AddressOfEntryPoint;
}

static BOOL section_rva( const struct image *image, SHORT number, DWORD *rva )
{
    IMAGE_SECTION_HEADER section;
    DWORD offset;

    if (number < 1 || number > image->nt.FileHeader.NumberOfSections || number > MAX_SECTIONS) return FALSE;
    offset = image->nt_offset + FIELD_OFFSET( IMAGE_NT_HEADERS64, OptionalHeader ) +
             image->nt.FileHeader.SizeOfOptionalHeader + (number - 1) * sizeof(section);
    if (!read_rva( image, offset, &section, sizeof(section) )) return FALSE;
    *rva = section.VirtualAddress;
    return TRUE;
}

/* the function symbol with the highest address at or below 'rva', from the
 * COFF symbol table of the image's file */
static BOOL find_coff_symbol( const struct image *image, DWORD rva, DWORD *symbol_rva, char *name, DWORD size )
{
    const struct frame_reader *reader = image->reader;
    ULONGLONG table = image->nt.FileHeader.PointerToSymbolTable;
    DWORD count = image->nt.FileHeader.NumberOfSymbols, i, j, n, value, sect_rva, name_offset;
    BYTE symbols[SYMBOL_CHUNK * SYMBOL_SIZE], best[8], skip = 0;
    BOOL found = FALSE;

    if (!table || !count || count > MAX_SYMBOLS || !reader->read_file || !file_matches( image )) return FALSE;

    for (i = 0; i < count; i += n)
    {
        n = min( SYMBOL_CHUNK, count - i );
        if (!reader->read_file( reader->ctx, image->base, table + (ULONGLONG)i * SYMBOL_SIZE, symbols, n * SYMBOL_SIZE ))
            return FALSE;
        for (j = 0; j < n; j++)
        {
            const BYTE *sym = symbols + j * SYMBOL_SIZE;
            SHORT section = sym[12] | (sym[13] << 8);
            WORD type = sym[14] | (sym[15] << 8);
            BYTE class = sym[16];

            /* the auxiliary records that follow a symbol are not symbols */
            if (skip)
            {
                skip--;
                continue;
            }
            skip = sym[17];
            if (class != IMAGE_SYM_CLASS_EXTERNAL && class != IMAGE_SYM_CLASS_STATIC) continue;
            if ((type & 0x30) != IMAGE_SYM_DTYPE_FUNCTION << 4) continue;
            memcpy( &value, sym + 8, sizeof(value) );
            if (!section_rva( image, section, &sect_rva ) || sect_rva + value > rva) continue;
            if (found && sect_rva + value <= *symbol_rva) continue;
            *symbol_rva = sect_rva + value;
            memcpy( best, sym, sizeof(best) );
            found = TRUE;
        }
    }
    if (!found) return FALSE;

    memcpy( &name_offset, best + 4, sizeof(name_offset) );
    if (best[0] || best[1] || best[2] || best[3])
    {
        /* a short name is stored in place, NUL-padded to 8 bytes */
        n = min( size - 1, 8 );
        memcpy( name, best, n );
        name[n] = 0;
        return TRUE;
    }
    /* a long one is in the string table, right after the symbols */
    table += (ULONGLONG)count * SYMBOL_SIZE + name_offset;
    for (i = 0; i < size - 1; i++)
    {
        if (!reader->read_file( reader->ctx, image->base, table + i, name + i, 1 )) return FALSE;
        if (!name[i]) return TRUE;
    }
    name[i] = 0;
    return TRUE;
}

/***********************************************************************
 *           frame_symbol
 *
 * Name 'addr' in the image at 'base': the symbol and the displacement from
 * it. FALSE when neither the symbol table nor the exports name it.
 */
BOOL frame_symbol( const struct frame_reader *reader, ULONG_PTR base, ULONG_PTR addr,
                   char *name, DWORD size, ULONG_PTR *displacement )
{
    char export_name[FRAME_SYMBOL_LENGTH];
    struct image image;
    DWORD rva, coff_rva = 0, export_rva = 0;
    BOOL coff, export;

    if (size < 2 || addr < base || addr - base > MAXDWORD || !open_image( &image, reader, base )) return FALSE;
    rva = addr - base;
    if (rva >= image.nt.OptionalHeader.SizeOfImage) return FALSE;

    coff = find_coff_symbol( &image, rva, &coff_rva, name, size ) &&
           !function_starts_between( &image, coff_rva, rva );
    export = find_export( &image, rva, &export_rva, export_name, sizeof(export_name) ) &&
             !function_starts_between( &image, export_rva, rva );
    /* the nearer name; at the same address, the name callers know */
    if (export && (!coff || export_rva >= coff_rva))
    {
        DWORD i;

        for (i = 0; i < size - 1 && export_name[i]; i++) name[i] = export_name[i];
        name[i] = 0;
        coff_rva = export_rva;
    }
    else if (!coff) return FALSE;
    *displacement = rva - coff_rva;
    return TRUE;
}

static void append( WCHAR *buffer, DWORD size, DWORD *pos, const WCHAR *str )
{
    for (; *str && *pos < size - 1; str++) buffer[(*pos)++] = *str;
    buffer[*pos] = 0;
}

/* UTF-8 to UTF-16; what is not UTF-8 becomes U+FFFD */
static void append_utf8( WCHAR *buffer, DWORD size, DWORD *pos, const char *str )
{
    const unsigned char *p = (const unsigned char *)str;
    unsigned int ch, len, i;

    while (*p && *pos < size - 1)
    {
        if (*p < 0x80) { ch = *p; len = 0; }
        else if ((*p & 0xe0) == 0xc0) { ch = *p & 0x1f; len = 1; }
        else if ((*p & 0xf0) == 0xe0) { ch = *p & 0x0f; len = 2; }
        else if ((*p & 0xf8) == 0xf0) { ch = *p & 0x07; len = 3; }
        else { ch = 0xfffd; len = 0; }
        p++;
        for (i = 0; i < len; i++, p++)
        {
            if ((*p & 0xc0) != 0x80) { ch = 0xfffd; break; }
            ch = (ch << 6) | (*p & 0x3f);
        }
        if (ch >= 0x110000 || (ch >= 0xd800 && ch < 0xe000)) ch = 0xfffd;
        if (ch >= 0x10000)
        {
            if (*pos + 2 >= size) break;
            ch -= 0x10000;
            buffer[(*pos)++] = 0xd800 | (ch >> 10);
            buffer[(*pos)++] = 0xdc00 | (ch & 0x3ff);
        }
        else buffer[(*pos)++] = ch;
    }
    buffer[*pos] = 0;
}

static void append_hex( WCHAR *buffer, DWORD size, DWORD *pos, ULONG_PTR value )
{
    WCHAR digits[2 + 2 * sizeof(value) + 1], *p = digits + ARRAY_SIZE(digits) - 1;

    *p = 0;
    do *--p = L"0123456789abcdef"[value & 0xf]; while (value >>= 4);
    *--p = 'x';
    *--p = '0';
    append( buffer, size, pos, p );
}

/***********************************************************************
 *           frame_format
 *
 * The text of a frame: "module!symbol+0xN" (symbol and displacement),
 * "module+0xN" (no symbol: the offset in the module), or "0xN" (no module:
 * the address). The module is its file name without the extension, as
 * debuggers write it; 'symbol' is UTF-8.
 */
void frame_format( WCHAR *buffer, DWORD size, const WCHAR *module, const char *symbol, ULONG_PTR offset )
{
    const WCHAR *start, *end, *p;
    WCHAR name[MAX_PATH];
    DWORD pos = 0, len;

    if (!size) return;
    buffer[0] = 0;
    if (module)
    {
        for (start = p = module; *p; p++) if (*p == '\\' || *p == '/') start = p + 1;
        for (end = p; p > start; p--) if (p[-1] == '.') { end = p - 1; break; }
        len = min( end - start, ARRAY_SIZE(name) - 1 );
        memcpy( name, start, len * sizeof(WCHAR) );
        name[len] = 0;
        append( buffer, size, &pos, name );
        if (symbol)
        {
            append( buffer, size, &pos, L"!" );
            append_utf8( buffer, size, &pos, symbol );
        }
        append( buffer, size, &pos, L"+" );
    }
    append_hex( buffer, size, &pos, offset );
}

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
    /* a WoW64 process's 32-bit images too */
    return pe_read_image_headers( reader->read_memory, reader->ctx, base, &image->nt, &image->nt_offset, TRUE );
}

#ifdef __x86_64__

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

#else  /* __x86_64__ */

/* An i386 image has no function table (.pdata): nothing says where a
 * function ends, so the nearest symbol or export below is taken. */
static BOOL function_starts_between( const struct image *image, DWORD start, DWORD rva )
{
    return FALSE;
}

#endif  /* __x86_64__ */

/*
 * A report names many frames at once, most of them in the same few images:
 * the names of an image are looked up for all of its frames in one pass
 * over its symbol table and one over its exports. The queries of a pass
 * are sorted by address; a symbol at 's' is a candidate for the first query
 * at or above it, and each query then takes the best of its own candidates
 * and of those of the queries below it.
 */

/* the first of the sorted queries [first, end) at or above 'rva', or 'end' */
static DWORD first_query_above( const struct frame_name_query *queries, DWORD first, DWORD end, DWORD rva )
{
    while (first < end)
    {
        DWORD mid = first + (end - first) / 2;

        if (queries[mid].scan.rva < rva) first = mid + 1;
        else end = mid;
    }
    return first;
}

/* a candidate at 'rva' for the queries from the first at or above it;
 * at the same address, the first one seen wins */
static struct frame_name_query *candidate_query( struct frame_name_query *queries, DWORD first, DWORD end,
                                                 DWORD rva, BOOL export )
{
    DWORD k = first_query_above( queries, first, end, rva );
    struct frame_name_query *query = &queries[k];

    if (k == end) return NULL;
    if (export) return !query->scan.export || rva > query->scan.export_rva ? query : NULL;
    return !query->scan.coff || rva > query->scan.coff_rva ? query : NULL;
}

/* each query takes the nearest candidate of those at or below it */
static void spread_candidates( struct frame_name_query *queries, DWORD first, DWORD end )
{
    DWORD k;

    for (k = first + 1; k < end; k++)
    {
        struct frame_name_query *below = &queries[k - 1], *query = &queries[k];

        if (below->scan.coff && (!query->scan.coff || below->scan.coff_rva > query->scan.coff_rva))
        {
            query->scan.coff = TRUE;
            query->scan.coff_rva = below->scan.coff_rva;
            memcpy( query->scan.symbol, below->scan.symbol, sizeof(query->scan.symbol) );
        }
        if (below->scan.export && (!query->scan.export || below->scan.export_rva > query->scan.export_rva))
        {
            query->scan.export = TRUE;
            query->scan.export_rva = below->scan.export_rva;
            query->scan.export_name_rva = below->scan.export_name_rva;
        }
    }
}

/* the named exports: for each query, the one with the highest address at or below it */
static void scan_exports( const struct image *image, struct frame_name_query *queries, DWORD first, DWORD end )
{
    const IMAGE_DATA_DIRECTORY *dir = &image->nt.OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXPORT];
    struct frame_name_query *query;
    IMAGE_EXPORT_DIRECTORY exports;
    DWORD i, func, name_rva;
    WORD ordinal;

    if (!dir->VirtualAddress || !read_rva( image, dir->VirtualAddress, &exports, sizeof(exports) ) ||
        exports.NumberOfFunctions > MAX_EXPORTS || exports.NumberOfNames > MAX_EXPORTS)
        return;
    for (i = 0; i < exports.NumberOfNames; i++)
    {
        if (!read_rva( image, exports.AddressOfNameOrdinals + i * sizeof(WORD), &ordinal, sizeof(ordinal) ) ||
            ordinal >= exports.NumberOfFunctions ||
            !read_rva( image, exports.AddressOfFunctions + ordinal * sizeof(DWORD), &func, sizeof(func) ))
            continue;
        /* forwarders point into the export directory, not at code */
        if (func >= dir->VirtualAddress && func - dir->VirtualAddress < dir->Size) continue;
        /* the first name of an address wins: NtXxx before its ZwXxx alias */
        if (!(query = candidate_query( queries, first, end, func, TRUE ))) continue;
        if (!read_rva( image, exports.AddressOfNames + i * sizeof(DWORD), &name_rva, sizeof(name_rva) )) continue;
        query->scan.export = TRUE;
        query->scan.export_rva = func;
        query->scan.export_name_rva = name_rva;
    }
}

/* Is the image's file the one mapped? Its headers say the same. */
static BOOL file_matches( const struct image *image )
{
    const struct frame_reader *reader = image->reader;
    IMAGE_NT_HEADERS64 nt;

    /* SizeOfImage and AddressOfEntryPoint are at the same offsets in PE32 */
    return reader->read_file( reader->ctx, image->base, image->nt_offset, &nt, sizeof(nt) ) &&
           nt.FileHeader.TimeDateStamp == image->nt.FileHeader.TimeDateStamp &&
           nt.FileHeader.PointerToSymbolTable == image->nt.FileHeader.PointerToSymbolTable &&
           nt.FileHeader.NumberOfSymbols == image->nt.FileHeader.NumberOfSymbols &&
           nt.OptionalHeader.SizeOfImage == image->nt.OptionalHeader.SizeOfImage &&
           nt.OptionalHeader.AddressOfEntryPoint == image->nt.OptionalHeader.AddressOfEntryPoint;
}

/* where each section is loaded; 'valid' says which headers could be read */
static DWORD read_sections( const struct image *image, DWORD *rvas, BOOL *valid )
{
    IMAGE_SECTION_HEADER section;
    DWORD count = min( image->nt.FileHeader.NumberOfSections, MAX_SECTIONS ), i, offset;

    offset = image->nt_offset + FIELD_OFFSET( IMAGE_NT_HEADERS64, OptionalHeader ) +
             image->nt.FileHeader.SizeOfOptionalHeader;
    for (i = 0; i < count; i++)
    {
        valid[i] = read_rva( image, offset + i * sizeof(section), &section, sizeof(section) );
        rvas[i] = section.VirtualAddress;
    }
    return count;
}

/* the function symbols of the COFF symbol table of the image's file: for
 * each query, the one with the highest address at or below it */
static void scan_coff_symbols( const struct image *image, struct frame_name_query *queries, DWORD first, DWORD end )
{
    const struct frame_reader *reader = image->reader;
    ULONGLONG table = image->nt.FileHeader.PointerToSymbolTable;
    DWORD count = image->nt.FileHeader.NumberOfSymbols, i, j, n, value, sections, rvas[MAX_SECTIONS];
    BYTE symbols[SYMBOL_CHUNK * SYMBOL_SIZE], skip = 0;
    struct frame_name_query *query;
    BOOL valid[MAX_SECTIONS];

    if (!table || !count || count > MAX_SYMBOLS || !reader->read_file || !file_matches( image )) return;
    sections = read_sections( image, rvas, valid );

    for (i = 0; i < count; i += n)
    {
        n = min( SYMBOL_CHUNK, count - i );
        if (!reader->read_file( reader->ctx, image->base, table + (ULONGLONG)i * SYMBOL_SIZE, symbols, n * SYMBOL_SIZE ))
            return;
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
            if (section < 1 || (DWORD)section > sections || !valid[section - 1]) continue;
            memcpy( &value, sym + 8, sizeof(value) );
            if (!(query = candidate_query( queries, first, end, rvas[section - 1] + value, FALSE ))) continue;
            query->scan.coff = TRUE;
            query->scan.coff_rva = rvas[section - 1] + value;
            memcpy( query->scan.symbol, sym, sizeof(query->scan.symbol) );
        }
    }
}

/* the name of the symbol a query found: a short one is stored in place,
 * NUL-padded to 8 bytes, a long one in the string table after the symbols */
static BOOL read_coff_name( const struct image *image, const BYTE *symbol, char *name, DWORD size )
{
    const struct frame_reader *reader = image->reader;
    ULONGLONG table = image->nt.FileHeader.PointerToSymbolTable;
    DWORD name_offset, i, n;

    if (symbol[0] || symbol[1] || symbol[2] || symbol[3])
    {
        n = min( size - 1, 8 );
        memcpy( name, symbol, n );
        name[n] = 0;
        return TRUE;
    }
    memcpy( &name_offset, symbol + 4, sizeof(name_offset) );
    table += (ULONGLONG)image->nt.FileHeader.NumberOfSymbols * SYMBOL_SIZE + name_offset;
    for (i = 0; i < size - 1; i++)
    {
        if (!reader->read_file( reader->ctx, image->base, table + i, name + i, 1 )) return FALSE;
        if (!name[i]) return TRUE;
    }
    name[i] = 0;
    return TRUE;
}

/* x86 C compilers decorate a symbol: a leading underscore, and '@' and the
 * size of the arguments after a stdcall function's name. The name callers
 * know (and the exports give) is without them; a C++ name keeps its own
 * leading underscore ("__Z..." becomes "_Z..."). */
static void undecorate_x86( char *name )
{
    char *at;
    size_t len = strlen( name ), i;

    if (name[0] != '_') return;
    memmove( name, name + 1, len );
    if (!(at = strrchr( name, '@' )) || at == name || !at[1]) return;
    for (i = 1; at[i]; i++) if (at[i] < '0' || at[i] > '9') return;
    *at = 0;
}

/* a query's answer from what the scans found: the nearer name; at the same
 * address, the name callers know (the export's) */
static void answer_query( const struct image *image, struct frame_name_query *query )
{
    char *name = query->name;
    DWORD rva = query->scan.rva;
    BOOL coff, export;

    coff = query->scan.coff && !function_starts_between( image, query->scan.coff_rva, rva ) &&
           read_coff_name( image, query->scan.symbol, name, sizeof(query->name) );
    if (coff && image->nt.FileHeader.Machine == IMAGE_FILE_MACHINE_I386) undecorate_x86( name );
    export = query->scan.export && !function_starts_between( image, query->scan.export_rva, rva );
    if (export && (!coff || query->scan.export_rva >= query->scan.coff_rva) &&
        read_string_rva( image, query->scan.export_name_rva, name, sizeof(query->name) ))
        query->displacement = rva - query->scan.export_rva;
    else if (coff) query->displacement = rva - query->scan.coff_rva;
    else return;
    query->found = TRUE;
}

/***********************************************************************
 *           frame_symbols
 *
 * Name the 'count' addresses of 'queries', sorted by address, in the image
 * at 'base': each query's symbol and displacement from it, or found FALSE
 * when neither the symbol table nor the exports name it (or it is not in
 * the image).
 */
void frame_symbols( const struct frame_reader *reader, ULONG_PTR base, struct frame_name_query *queries,
                    DWORD count )
{
    struct image image;
    DWORD first = 0, end, k;

    for (k = 0; k < count; k++)
    {
        memset( &queries[k].scan, 0, sizeof(queries[k].scan) );
        queries[k].found = FALSE;
        queries[k].displacement = 0;
        queries[k].name[0] = 0;
    }
    if (!count || !open_image( &image, reader, base )) return;
    /* the queries in the image are a run of the sorted ones */
    while (first < count && queries[first].addr < base) first++;
    for (end = first; end < count; end++)
    {
        if (queries[end].addr - base >= image.nt.OptionalHeader.SizeOfImage) break;
        queries[end].scan.rva = queries[end].addr - base;
    }
    if (first == end) return;

    scan_coff_symbols( &image, queries, first, end );
    scan_exports( &image, queries, first, end );
    spread_candidates( queries, first, end );
    for (k = first; k < end; k++) answer_query( &image, &queries[k] );
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
    struct frame_name_query query;
    DWORD i;

    if (size < 2) return FALSE;
    query.addr = addr;
    frame_symbols( reader, base, &query, 1 );
    if (!query.found) return FALSE;
    for (i = 0; i < size - 1 && query.name[i]; i++) name[i] = query.name[i];
    name[i] = 0;
    *displacement = query.displacement;
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

/*
 * C++ names as people write them: Itanium names (g++, clang) demangled and
 * MSVC names undecorated, to the qualified name without its parameters
 * (_ZN4node5StartEiPPc and ?Start@node@@YAHHQEAPEAD@Z both give
 * node::Start), as a report has room for. Our own small parsers of the
 * published manglings: they know the common forms and give up (the name
 * stays as it is) on anything else. No allocation, every loop bounded by
 * the name's length, as the name comes from a file of the hung program.
 */

#define MAX_SUBS    64
#define POOL_SIZE   2048
#define MAX_DEPTH   32

struct demangler
{
    const char *p, *end;
    char       *out;        /* where the current text goes */
    DWORD       size, pos;
    BOOL        failed;
    int         depth;
    char        pool[POOL_SIZE];   /* the text of substitution candidates */
    DWORD       pool_pos;
    DWORD       sub_start[MAX_SUBS], sub_len[MAX_SUBS];
    unsigned    sub_count;
};

static void put( struct demangler *d, const char *str, DWORD len )
{
    if (d->pos + len >= d->size)
    {
        d->failed = TRUE;
        return;
    }
    memcpy( d->out + d->pos, str, len );
    d->pos += len;
    d->out[d->pos] = 0;
}

static void puts_( struct demangler *d, const char *str )
{
    put( d, str, strlen( str ) );
}

static void add_sub( struct demangler *d, DWORD start )
{
    DWORD len = d->pos - start;

    if (d->failed || d->sub_count == MAX_SUBS || d->pool_pos + len > POOL_SIZE) return;
    memcpy( d->pool + d->pool_pos, d->out + start, len );
    d->sub_start[d->sub_count] = d->pool_pos;
    d->sub_len[d->sub_count++] = len;
    d->pool_pos += len;
}

static BOOL next_is( struct demangler *d, const char *str )
{
    DWORD len = strlen( str );

    if ((DWORD)(d->end - d->p) < len || memcmp( d->p, str, len )) return FALSE;
    d->p += len;
    return TRUE;
}

static BOOL parse_number( struct demangler *d, DWORD *value )
{
    DWORD n = 0;

    if (d->p >= d->end || *d->p < '0' || *d->p > '9') return FALSE;
    while (d->p < d->end && *d->p >= '0' && *d->p <= '9')
    {
        n = n * 10 + *d->p++ - '0';
        if (n > 0x10000) return FALSE;
    }
    *value = n;
    return TRUE;
}

/* <seq-id> _ : S_ is 0, S0_ 1, SA_ 11 (base 36) */
static BOOL parse_seq_id( struct demangler *d, DWORD *index )
{
    DWORD n = 0;

    if (d->p < d->end && *d->p == '_')
    {
        d->p++;
        *index = 0;
        return TRUE;
    }
    while (d->p < d->end && *d->p != '_')
    {
        if (*d->p >= '0' && *d->p <= '9') n = n * 36 + *d->p - '0';
        else if (*d->p >= 'A' && *d->p <= 'Z') n = n * 36 + *d->p - 'A' + 10;
        else return FALSE;
        if (n > 0x10000) return FALSE;
        d->p++;
    }
    if (d->p >= d->end) return FALSE;
    d->p++;
    *index = n + 1;
    return TRUE;
}

static void parse_type( struct demangler *d );
static void parse_name( struct demangler *d, BOOL *is_function_template );

static void parse_source_name( struct demangler *d )
{
    DWORD len;

    if (!parse_number( d, &len ) || len > (DWORD)(d->end - d->p)) d->failed = TRUE;
    else if (len >= 10 && !memcmp( d->p, "_GLOBAL__N", 10 ))
    {
        puts_( d, "(anonymous namespace)" );
        d->p += len;
    }
    else
    {
        put( d, d->p, len );
        d->p += len;
    }
}

static const struct { char code[3]; const char *name; } operators[] =
{
    {"nw", "new"}, {"na", "new[]"}, {"dl", "delete"}, {"da", "delete[]"}, {"ps", "+"}, {"ng", "-"},
    {"ad", "&"}, {"de", "*"}, {"co", "~"}, {"pl", "+"}, {"mi", "-"}, {"ml", "*"}, {"dv", "/"},
    {"rm", "%"}, {"an", "&"}, {"or", "|"}, {"eo", "^"}, {"aS", "="}, {"pL", "+="}, {"mI", "-="},
    {"mL", "*="}, {"dV", "/="}, {"rM", "%="}, {"aN", "&="}, {"oR", "|="}, {"eO", "^="}, {"ls", "<<"},
    {"rs", ">>"}, {"lS", "<<="}, {"rS", ">>="}, {"eq", "=="}, {"ne", "!="}, {"lt", "<"}, {"gt", ">"},
    {"le", "<="}, {"ge", ">="}, {"ss", "<=>"}, {"nt", "!"}, {"aa", "&&"}, {"oo", "||"}, {"pp", "++"},
    {"mm", "--"}, {"cm", ","}, {"pm", "->*"}, {"pt", "->"}, {"cl", "()"}, {"ix", "[]"}, {"qu", "?"},
};

/* <template-args> ::= I <template-arg>+ E, printed as <a, b> */
static void parse_template_args( struct demangler *d )
{
    DWORD count = 0;

    puts_( d, "<" );
    while (!d->failed && d->p < d->end && *d->p != 'E')
    {
        if (count++) puts_( d, ", " );
        if (*d->p == 'L')
        {
            /* a literal: L <type> <value> E, printed as its value */
            DWORD keep = d->pos;
            d->p++;
            parse_type( d );
            d->pos = keep;
            if (d->p < d->end && *d->p == 'n') { puts_( d, "-" ); d->p++; }
            while (!d->failed && d->p < d->end && *d->p != 'E') put( d, d->p++, 1 );
            if (d->p >= d->end) d->failed = TRUE;
            else d->p++;
        }
        else if (*d->p == 'J')
        {
            /* a pack */
            d->p++;
            while (!d->failed && d->p < d->end && *d->p != 'E') parse_type( d );
            if (d->p >= d->end) d->failed = TRUE;
            else d->p++;
        }
        else parse_type( d );
        if (d->p - d->end > 0) d->failed = TRUE;
    }
    if (d->p >= d->end) d->failed = TRUE;
    else d->p++;
    if (d->out[d->pos - 1] == '>') puts_( d, " " );
    puts_( d, ">" );
}

/* <unqualified-name>; 'scope' is the text of the enclosing class, for constructors */
static void parse_unqualified_name( struct demangler *d, const char *scope, DWORD scope_len )
{
    unsigned int i;
    DWORD n;
    const char *last;

    if (d->p >= d->end) { d->failed = TRUE; return; }
    if (*d->p == 'L') d->p++;   /* internal linkage */
    if (d->p < d->end && *d->p >= '0' && *d->p <= '9') parse_source_name( d );
    else if (d->p + 1 < d->end && (*d->p == 'C' || *d->p == 'D') && d->p[1] >= '0' && d->p[1] <= '5')
    {
        /* constructors and destructors take the name of their class, without its template arguments */
        if (!scope_len) { d->failed = TRUE; return; }
        for (last = scope + scope_len, n = 0; last > scope && n < scope_len; last--, n++)
            if (last[-1] == ':' && last > scope + 1 && last[-2] == ':') break;
        if (*d->p == 'D') puts_( d, "~" );
        for (n = 0; last + n < scope + scope_len && last[n] != '<'; n++) ;
        put( d, last, n );
        d->p += 2;
    }
    else if (next_is( d, "Ut" ))
    {
        puts_( d, "{unnamed type}" );
        while (d->p < d->end && *d->p != '_') d->p++;
        if (d->p++ >= d->end) d->failed = TRUE;
    }
    else if (next_is( d, "Ul" ))
    {
        DWORD count = 0, number = 0;
        char text[16];

        puts_( d, "{lambda(" );
        while (!d->failed && d->p < d->end && *d->p != 'E')
        {
            if (count++) puts_( d, ", " );
            if (*d->p == 'v' && d->p + 1 < d->end && d->p[1] == 'E') { d->p++; break; }
            parse_type( d );
        }
        if (d->p >= d->end) { d->failed = TRUE; return; }
        d->p++;
        if (parse_number( d, &number )) number++;
        if (d->p >= d->end || *d->p++ != '_') { d->failed = TRUE; return; }
        for (i = 0, n = number + 1; n && i < ARRAY_SIZE(text) - 1; n /= 10) i++;
        text[i] = 0;
        for (n = number + 1; i; n /= 10) text[--i] = '0' + n % 10;
        puts_( d, ")#" );
        puts_( d, text );
        puts_( d, "}" );
    }
    else if (d->p + 1 < d->end && *d->p >= 'a' && *d->p <= 'z')
    {
        if (next_is( d, "cv" ))
        {
            puts_( d, "operator " );
            parse_type( d );
            return;
        }
        for (i = 0; i < ARRAY_SIZE(operators); i++)
            if (d->p[0] == operators[i].code[0] && d->p[1] == operators[i].code[1]) break;
        if (i == ARRAY_SIZE(operators)) { d->failed = TRUE; return; }
        puts_( d, "operator" );
        puts_( d, operators[i].name );
        d->p += 2;
    }
    else d->failed = TRUE;
    /* ABI tags: B <source-name> */
    while (!d->failed && d->p < d->end && *d->p == 'B')
    {
        d->p++;
        puts_( d, "[abi:" );
        parse_source_name( d );
        puts_( d, "]" );
    }
}

static BOOL parse_substitution( struct demangler *d )
{
    static const struct { char code; const char *text; } abbreviations[] =
    {
        {'a', "std::allocator"}, {'b', "std::basic_string"}, {'s', "std::string"},
        {'i', "std::istream"}, {'o', "std::ostream"}, {'d', "std::iostream"},
    };
    unsigned int i;
    DWORD index;

    if (d->p + 1 >= d->end || *d->p != 'S') return FALSE;
    for (i = 0; i < ARRAY_SIZE(abbreviations); i++)
        if (d->p[1] == abbreviations[i].code)
        {
            d->p += 2;
            puts_( d, abbreviations[i].text );
            return TRUE;
        }
    d->p++;
    if (!parse_seq_id( d, &index ) || index >= d->sub_count) d->failed = TRUE;
    else put( d, d->pool + d->sub_start[index], d->sub_len[index] );
    return TRUE;
}

/* <nested-name> ::= N [<CV-qualifiers>] [<ref-qualifier>] <prefix> <unqualified-name> E */
static void parse_nested_name( struct demangler *d, BOOL *is_function_template )
{
    DWORD start = d->pos, component = d->pos, count = 0;

    while (d->p < d->end && (*d->p == 'r' || *d->p == 'V' || *d->p == 'K' || *d->p == 'R' || *d->p == 'O')) d->p++;
    while (!d->failed && d->p < d->end && *d->p != 'E')
    {
        if (count++ > 64) { d->failed = TRUE; return; }
        if (*d->p == 'S' && d->p + 1 < d->end && d->p[1] == 't')
        {
            d->p += 2;
            puts_( d, "std" );
            continue;
        }
        if (d->pos > start) puts_( d, "::" );
        component = d->pos;
        if (*d->p == 'S')
        {
            /* a substitution is a candidate already */
            parse_substitution( d );
            continue;
        }
        else if (*d->p == 'T')
        {
            parse_type( d );
        }
        else if (*d->p == 'I')
        {
            /* template arguments of the name so far */
            if (d->pos >= 2 && d->out[d->pos - 1] == ':') d->pos -= 2, d->out[d->pos] = 0;
            add_sub( d, start );
            d->p++;
            parse_template_args( d );
            if (d->p < d->end && *d->p == 'E')
            {
                if (is_function_template) *is_function_template = TRUE;
                continue;
            }
            add_sub( d, start );
            continue;
        }
        else
        {
            parse_unqualified_name( d, d->out + start, component >= start + 2 ? component - start - 2 : 0 );
            if (is_function_template) *is_function_template = FALSE;
        }
        if (d->p < d->end && *d->p != 'E' && *d->p != 'I') add_sub( d, start );
    }
    if (d->p >= d->end) d->failed = TRUE;
    else d->p++;
}

/* <name> of an encoding or a class type */
static void parse_name( struct demangler *d, BOOL *is_function_template )
{
    DWORD start = d->pos;

    if (++d->depth > MAX_DEPTH || d->p >= d->end) { d->failed = TRUE; return; }
    if (*d->p == 'N')
    {
        d->p++;
        parse_nested_name( d, is_function_template );
    }
    else if (*d->p == 'Z')
    {
        /* a local name: Z <function encoding> E <name>; the function's parameters are skipped */
        DWORD keep;

        d->p++;
        parse_name( d, NULL );
        keep = d->pos;
        while (!d->failed && d->p < d->end && *d->p != 'E') parse_type( d );
        d->pos = keep;
        d->out[d->pos] = 0;
        if (d->p >= d->end) { d->failed = TRUE; return; }
        d->p++;
        puts_( d, "::" );
        if (next_is( d, "s" )) puts_( d, "{string literal}" );
        else parse_name( d, NULL );
        if (d->p < d->end && *d->p == '_')
        {
            /* a discriminator */
            DWORD n;
            d->p++;
            if (d->p < d->end && *d->p == '_') d->p++;
            parse_number( d, &n );
            if (d->p < d->end && *d->p == '_') d->p++;
        }
    }
    else
    {
        BOOL substituted = FALSE;

        if (next_is( d, "St" )) puts_( d, "std::" );
        if (d->p < d->end && *d->p == 'S') substituted = parse_substitution( d );
        else parse_unqualified_name( d, NULL, 0 );
        if (d->p < d->end && *d->p == 'I')
        {
            if (!substituted) add_sub( d, start );
            d->p++;
            parse_template_args( d );
            if (is_function_template) *is_function_template = TRUE;
        }
    }
    d->depth--;
}

static void parse_type( struct demangler *d )
{
    static const struct { char code; const char *name; } builtins[] =
    {
        {'v', "void"}, {'w', "wchar_t"}, {'b', "bool"}, {'c', "char"}, {'a', "signed char"},
        {'h', "unsigned char"}, {'s', "short"}, {'t', "unsigned short"}, {'i', "int"},
        {'j', "unsigned int"}, {'l', "long"}, {'m', "unsigned long"}, {'x', "long long"},
        {'y', "unsigned long long"}, {'n', "__int128"}, {'o', "unsigned __int128"}, {'f', "float"},
        {'d', "double"}, {'e', "long double"}, {'g', "__float128"}, {'z', "..."},
    };
    DWORD start = d->pos, index;
    unsigned int i;
    char c;

    if (++d->depth > MAX_DEPTH || d->p >= d->end) { d->failed = TRUE; return; }
    c = *d->p;
    for (i = 0; i < ARRAY_SIZE(builtins); i++)
        if (c == builtins[i].code)
        {
            d->p++;
            puts_( d, builtins[i].name );
            d->depth--;
            return;
        }
    switch (c)
    {
    case 'P': case 'R': case 'O':
        d->p++;
        parse_type( d );
        puts_( d, c == 'P' ? "*" : c == 'R' ? "&" : "&&" );
        add_sub( d, start );
        break;
    case 'K': case 'V': case 'r':
        d->p++;
        parse_type( d );
        puts_( d, c == 'K' ? " const" : c == 'V' ? " volatile" : " restrict" );
        add_sub( d, start );
        break;
    case 'D':
        if (next_is( d, "Dn" )) puts_( d, "decltype(nullptr)" );
        else if (next_is( d, "Di" )) puts_( d, "char32_t" );
        else if (next_is( d, "Ds" )) puts_( d, "char16_t" );
        else if (next_is( d, "Du" )) puts_( d, "char8_t" );
        else if (next_is( d, "Dp" )) parse_type( d );   /* a pack expansion */
        else d->failed = TRUE;
        break;
    case 'T':
        /* a template parameter: T_ is the first; named by what it stands for where known */
        d->p++;
        if (!parse_seq_id( d, &index )) { d->failed = TRUE; break; }
        puts_( d, "T" );
        add_sub( d, start );
        break;
    case 'S':
        if (d->p + 1 < d->end && d->p[1] == 't')
        {
            parse_name( d, NULL );
            add_sub( d, start );
        }
        else
        {
            parse_substitution( d );
            if (d->p < d->end && *d->p == 'I')
            {
                d->p++;
                parse_template_args( d );
                add_sub( d, start );
            }
        }
        break;
    case 'N': case 'Z':
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        parse_name( d, NULL );
        add_sub( d, start );
        break;
    default:
        d->failed = TRUE;
        break;
    }
    d->depth--;
}

static BOOL demangle_itanium( const char *name, DWORD len, char *buffer, DWORD size )
{
    struct demangler d;

    memset( &d, 0, sizeof(d) );
    d.p = name + 2;
    d.end = name + len;
    d.out = buffer;
    d.size = size;
    buffer[0] = 0;
    parse_name( &d, NULL );
    /* what follows the name is the function's type, which a report leaves out */
    return !d.failed && d.pos;
}

/*
 * MSVC: ?name@scope@...@@<type>. Names are remembered in order for the
 * back-references 0-9; templates ?$name@<args>@ are written name<...>.
 */
struct undecorator
{
    const char *p, *end;
    const char *names[10];
    DWORD       lens[10];
    unsigned    count;
};

static BOOL msvc_fragment( struct undecorator *u, const char **str, DWORD *len, BOOL *is_template )
{
    const char *start;

    *is_template = FALSE;
    if (u->p >= u->end) return FALSE;
    if (*u->p >= '0' && *u->p <= '9')
    {
        unsigned int i = *u->p++ - '0';
        if (i >= u->count) return FALSE;
        *str = u->names[i];
        *len = u->lens[i];
        return TRUE;
    }
    if (u->p + 1 < u->end && u->p[0] == '?' && u->p[1] == '$')
    {
        /* a template: its name, then arguments up to the matching @ (shown as <...>) */
        int depth = 0;
        u->p += 2;
        start = u->p;
        while (u->p < u->end && *u->p != '@') u->p++;
        if (u->p >= u->end) return FALSE;
        *str = start;
        *len = u->p - start;
        u->p++;
        /* skip the arguments: balanced by nested templates (?$ ... @) up to the name's closing @ */
        while (u->p < u->end)
        {
            if (u->p + 1 < u->end && u->p[0] == '?' && u->p[1] == '$') { depth++; u->p += 2; continue; }
            if (*u->p == '@')
            {
                if (!depth) break;
                depth--;
            }
            u->p++;
        }
        if (u->p >= u->end) return FALSE;
        u->p++;
        *is_template = TRUE;
        return TRUE;
    }
    if (u->p + 1 < u->end && u->p[0] == '?' && u->p[1] == 'A')
    {
        /* ?A0x1234abcd@: an anonymous namespace */
        while (u->p < u->end && *u->p != '@') u->p++;
        if (u->p >= u->end) return FALSE;
        u->p++;
        *str = "`anonymous namespace'";
        *len = 21;
        return TRUE;
    }
    start = u->p;
    while (u->p < u->end && *u->p != '@')
    {
        char c = *u->p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$'))
            return FALSE;
        u->p++;
    }
    if (u->p >= u->end || u->p == start) return FALSE;
    *str = start;
    *len = u->p - start;
    u->p++;
    if (u->count < 10)
    {
        u->names[u->count] = *str;
        u->lens[u->count++] = *len;
    }
    return TRUE;
}

static BOOL demangle_msvc( const char *name, DWORD len, char *buffer, DWORD size )
{
    static const struct { char code; const char *name; } specials[] =
    {
        {'2', "operator new"}, {'3', "operator delete"}, {'4', "operator="}, {'5', "operator>>"},
        {'6', "operator<<"}, {'7', "operator!"}, {'8', "operator=="}, {'9', "operator!="},
        {'A', "operator[]"}, {'C', "operator->"}, {'D', "operator*"}, {'E', "operator++"},
        {'F', "operator--"}, {'G', "operator-"}, {'H', "operator+"}, {'I', "operator&"},
        {'K', "operator/"}, {'M', "operator<"}, {'N', "operator<="}, {'O', "operator>"},
        {'P', "operator>="}, {'R', "operator()"},
    };
    struct undecorator u;
    const char *parts[16], *str;
    DWORD part_lens[16], n = 0, pos = 0, i, l;
    BOOL templ[16], is_template;
    int special = -1;   /* 0 constructor, 1 destructor, 2 an operator */
    const char *op = NULL;

    memset( &u, 0, sizeof(u) );
    u.p = name + 1;
    u.end = name + len;
    if (u.p < u.end && *u.p == '?')
    {
        u.p++;
        if (u.p >= u.end) return FALSE;
        if (*u.p == '0') special = 0;
        else if (*u.p == '1') special = 1;
        else
        {
            for (i = 0; i < ARRAY_SIZE(specials); i++) if (specials[i].code == *u.p) op = specials[i].name;
            if (!op) return FALSE;
            special = 2;
        }
        u.p++;
    }
    else
    {
        if (!msvc_fragment( &u, &parts[0], &part_lens[0], &templ[0] )) return FALSE;
        n = 1;
    }
    /* the scopes, innermost first, up to the @ that ends the name */
    while (u.p < u.end && *u.p != '@')
    {
        if (n == ARRAY_SIZE(parts) || !msvc_fragment( &u, &parts[n], &part_lens[n], &templ[n] )) return FALSE;
        n++;
    }
    if (u.p >= u.end || (special >= 0 && special < 2 && !n) || (special < 0 && !n)) return FALSE;
    buffer[0] = 0;
    for (i = n; i > 0; i--)
    {
        str = parts[i - 1];
        l = part_lens[i - 1];
        is_template = templ[i - 1];
        if (pos + l + 8 >= size) return FALSE;
        if (pos) { memcpy( buffer + pos, "::", 2 ); pos += 2; }
        memcpy( buffer + pos, str, l );
        pos += l;
        if (is_template) { memcpy( buffer + pos, "<...>", 5 ); pos += 5; }
    }
    if (special >= 0)
    {
        const char *last = special == 2 ? op : parts[0];
        DWORD last_len = special == 2 ? strlen( op ) : part_lens[0];

        if (pos + last_len + 4 >= size) return FALSE;
        if (pos) { memcpy( buffer + pos, "::", 2 ); pos += 2; }
        if (special == 1) buffer[pos++] = '~';
        memcpy( buffer + pos, last, last_len );
        pos += last_len;
    }
    buffer[pos] = 0;
    return TRUE;
}

/***********************************************************************
 *           frame_demangle
 *
 * The name as a person writes it, in 'buffer'; FALSE when 'name' is not a
 * C++ name this knows, or when it is damaged. A compiler's clone suffix
 * (.constprop.0, .part.0, .cold) stays after the demangled name.
 */
BOOL frame_demangle( const char *name, char *buffer, DWORD size )
{
    DWORD len, suffix;
    const char *dot;

    if (size < 2) return FALSE;
    if (name[0] == '?') return demangle_msvc( name, strlen( name ), buffer, size );
    if (name[0] != '_' || name[1] != 'Z') return FALSE;
    dot = strchr( name, '.' );
    len = dot ? dot - name : strlen( name );
    if (!demangle_itanium( name, len, buffer, size )) return FALSE;
    if (dot)
    {
        suffix = strlen( dot );
        if (strlen( buffer ) + suffix >= size) return FALSE;
        strcat( buffer, dot );
    }
    return TRUE;
}

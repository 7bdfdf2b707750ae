/*
 * wctdump: host locks named by the ELF symbol they are
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

#include <windows.h>
#include <winternl.h>
#include <tlhelp32.h>
#include <wct.h>

#include "wctdump.h"

/*
 * The wineserver names a host lock by its address ("host mutex at
 * 0x7f..."); wctdump names it by what it is in its Linux process: the ELF
 * data symbol that holds it (hostlock.dll.so!mutexes+0x28), else its
 * module and offset (libfoo.so+0x4120), from /proc/PID/maps and the
 * module's symbol table (.symtab, else .dynsym), read as files through
 * Wine's \\?\unix\ names. A lock in memory that no file maps (the heap)
 * keeps its address. Wine only: on Windows there are no host locks.
 */

/* ELF64, as <elf.h> declares it */
struct elf_header
{
    unsigned char e_ident[16];
    WORD          e_type, e_machine;
    DWORD         e_version;
    ULONG64       e_entry, e_phoff, e_shoff;
    DWORD         e_flags;
    WORD          e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
};

struct elf_section
{
    DWORD   sh_name, sh_type;
    ULONG64 sh_flags, sh_addr, sh_offset, sh_size;
    DWORD   sh_link, sh_info;
    ULONG64 sh_addralign, sh_entsize;
};

struct elf_segment
{
    DWORD   p_type, p_flags;
    ULONG64 p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};

struct elf_symbol
{
    DWORD         st_name;
    unsigned char st_info, st_other;
    WORD          st_shndx;
    ULONG64       st_value, st_size;
};

C_ASSERT( sizeof(struct elf_header) == 64 );
C_ASSERT( sizeof(struct elf_section) == 64 );
C_ASSERT( sizeof(struct elf_segment) == 56 );
C_ASSERT( sizeof(struct elf_symbol) == 24 );

#define ELFCLASS64   2
#define ET_DYN       3
#define PT_LOAD      1
#define SHT_SYMTAB   2
#define SHT_DYNSYM   11
#define STT_OBJECT   1
#define MAX_SECTIONS 256
#define SYMBOL_BATCH 2048

/* a Unix file, by its path, through Wine's \\?\unix\ names */
static HANDLE open_unix_file( const char *path )
{
    WCHAR name[MAX_PATH + 16] = L"\\\\?\\unix";
    int len = wcslen( name ), i;

    if (!MultiByteToWideChar( CP_UTF8, 0, path, -1, name + len, ARRAY_SIZE(name) - len ))
        return INVALID_HANDLE_VALUE;
    for (i = len; name[i]; i++) if (name[i] == '/') name[i] = '\\';
    return CreateFileW( name, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                        OPEN_EXISTING, 0, NULL );
}

/* reads up to 'size' bytes at 'offset'; how many */
static DWORD read_some( HANDLE file, ULONG64 offset, void *buffer, DWORD size )
{
    OVERLAPPED ov = { 0 };
    DWORD got = 0;

    ov.Offset = (DWORD)offset;
    ov.OffsetHigh = offset >> 32;
    return ReadFile( file, buffer, size, &got, &ov ) ? got : 0;
}

static BOOL read_at( HANDLE file, ULONG64 offset, void *buffer, DWORD size )
{
    return read_some( file, offset, buffer, size ) == size;
}

/* The mapped file that holds 'addr' in the process, and the address its
 * first mapping (offset 0) starts at, from /proc/PID/maps. */
static BOOL find_mapping( int unix_pid, ULONG64 addr, char *path, size_t path_size, ULONG64 *base )
{
    static char maps[1 << 20];
    ULONG64 start, end, offset;
    char name[64], *line;
    HANDLE handle;
    DWORD size = 0, i;
    int pos;

    snprintf( name, sizeof(name), "/proc/%d/maps", unix_pid );
    if ((handle = open_unix_file( name )) == INVALID_HANDLE_VALUE) return FALSE;
    while (size < sizeof(maps) - 1 && ReadFile( handle, maps + size, sizeof(maps) - 1 - size, &i, NULL ) && i)
        size += i;
    CloseHandle( handle );
    maps[size] = 0;
    for (i = 0; i < size; i++) if (maps[i] == '\n') maps[i] = 0;

    /* "START-END PERMS OFFSET DEV INODE PATH": the file first, then its start */
    *path = 0;
    for (line = maps; line < maps + size && !*path; line += strlen( line ) + 1)
    {
        pos = 0;
        if (sscanf( line, "%I64x-%I64x %*s %I64x %*s %*s %n", &start, &end, &offset, &pos ) < 3 || !pos) continue;
        if (addr < start || addr >= end || line[pos] != '/' || strstr( line + pos, " (deleted)" )) continue;
        lstrcpynA( path, line + pos, path_size );
    }
    for (line = maps; *path && line < maps + size; line += strlen( line ) + 1)
    {
        pos = 0;
        if (sscanf( line, "%I64x-%I64x %*s %I64x %*s %*s %n", &start, &end, &offset, &pos ) < 3 || !pos) continue;
        if (!offset && !strcmp( line + pos, path ))
        {
            *base = start;
            return TRUE;
        }
    }
    return FALSE;
}

/* The data symbol of the file that holds 'addr' (an address of the
 * process less the module's load bias), and where in it: from .symtab,
 * else .dynsym. */
static BOOL find_data_symbol( HANDLE file, const struct elf_header *header, ULONG64 addr, char *name,
                              size_t name_size, ULONG64 *into )
{
    static struct elf_symbol symbols[SYMBOL_BATCH];
    struct elf_section sections[MAX_SECTIONS];
    const struct elf_section *table = NULL;
    ULONG64 i, count, n, j;

    if (!header->e_shnum || header->e_shnum > MAX_SECTIONS || header->e_shentsize != sizeof(sections[0]) ||
        !read_at( file, header->e_shoff, sections, header->e_shnum * sizeof(sections[0]) ))
        return FALSE;
    for (i = 0; i < header->e_shnum; i++)
        if (sections[i].sh_type == SHT_SYMTAB || (sections[i].sh_type == SHT_DYNSYM && !table)) table = &sections[i];
    if (!table || table->sh_link >= header->e_shnum || table->sh_entsize != sizeof(symbols[0])) return FALSE;

    count = table->sh_size / sizeof(symbols[0]);
    for (i = 0; i < count; i += n)
    {
        n = min( count - i, SYMBOL_BATCH );
        if (!read_at( file, table->sh_offset + i * sizeof(symbols[0]), symbols, n * sizeof(symbols[0]) ))
            return FALSE;
        for (j = 0; j < n; j++)
        {
            const struct elf_symbol *sym = &symbols[j];

            if ((sym->st_info & 0xf) != STT_OBJECT || !sym->st_size || addr < sym->st_value ||
                addr - sym->st_value >= sym->st_size)
                continue;
            memset( name, 0, name_size );
            if (!read_some( file, sections[table->sh_link].sh_offset + sym->st_name, name, name_size - 1 ))
                return FALSE;
            *into = addr - sym->st_value;
            return name[0] != 0;
        }
    }
    return FALSE;
}

/* where 'addr' is in its ELF module: "module!symbol+0xN", "module+0xN" */
static BOOL find_host_address( int unix_pid, ULONG64 addr, WCHAR *buffer, DWORD size )
{
    struct elf_header header;
    struct elf_segment segment;
    char path[MAX_PATH], symbol[128];
    const char *module;
    ULONG64 base, bias = 0, into;
    HANDLE file;
    BOOL named = FALSE;
    DWORD i;

    if (!find_mapping( unix_pid, addr, path, sizeof(path), &base )) return FALSE;
    module = strrchr( path, '/' ) + 1;
    if ((file = open_unix_file( path )) == INVALID_HANDLE_VALUE) return FALSE;
    if (read_at( file, 0, &header, sizeof(header) ) && !memcmp( header.e_ident, "\177ELF", 4 ) &&
        header.e_ident[4] == ELFCLASS64)
    {
        /* a shared object is loaded at 'base' less its first segment's address */
        for (i = 0; header.e_type == ET_DYN && i < header.e_phnum && i < MAX_SECTIONS; i++)
        {
            if (header.e_phentsize != sizeof(segment) ||
                !read_at( file, header.e_phoff + i * sizeof(segment), &segment, sizeof(segment) ))
                break;
            if (segment.p_type != PT_LOAD) continue;
            bias = base - (segment.p_vaddr & ~(ULONG64)0xfff);
            break;
        }
        named = find_data_symbol( file, &header, addr - bias, symbol, sizeof(symbol), &into );
    }
    CloseHandle( file );
    if (named && into) _snwprintf( buffer, size, L"%hs!%hs+0x%I64x", module, symbol, into );
    else if (named) _snwprintf( buffer, size, L"%hs!%hs", module, symbol );
    else _snwprintf( buffer, size, L"%hs+0x%I64x", module, addr - base );
    buffer[size - 1] = 0;
    return TRUE;
}

/* The same, kept: the locks of a deadlock are in the chain of each of its
 * threads, and each look-up reads the process's maps and a symbol table. */
#define KEPT_NAMES 32

static struct
{
    int     unix_pid;   /* 0: free */
    ULONG64 addr;
    BOOL    found;      /* a file maps it: named */
    WCHAR   name[ARRAY_SIZE(((struct wait_chain_node *)0)->name)];
} kept_names[KEPT_NAMES];

static BOOL name_host_address( int unix_pid, ULONG64 addr, WCHAR *buffer, DWORD size )
{
    static unsigned int next;
    unsigned int i;

    if (!unix_pid) return FALSE;
    for (i = 0; i < KEPT_NAMES; i++)
    {
        if (kept_names[i].unix_pid != unix_pid || kept_names[i].addr != addr) continue;
        lstrcpynW( buffer, kept_names[i].name, size );
        return kept_names[i].found;
    }
    i = next++ % KEPT_NAMES;
    kept_names[i].unix_pid = unix_pid;
    kept_names[i].addr = addr;
    kept_names[i].name[0] = 0;
    kept_names[i].found = find_host_address( unix_pid, addr, kept_names[i].name, ARRAY_SIZE(kept_names[i].name) );
    lstrcpynW( buffer, kept_names[i].name, size );
    return kept_names[i].found;
}

/* Names each host lock of a thread's chain ("host mutex at 0x..." from the
 * server) by where it is: "host mutex hostlock.dll.so!mutexes+0x28". The
 * lock is in the process of the thread that waits for it, the node before. */
void name_host_locks( struct thread_report *report )
{
    static const WCHAR at[] = L" at 0x";
    WCHAR where[ARRAY_SIZE(report->nodes[0].name)], name[ARRAY_SIZE(report->nodes[0].name) + 1];
    WCHAR *p;
    DWORD i;
    int len;

    for (i = 1; i < report->count; i++)
    {
        struct wait_chain_node *node = &report->nodes[i];

        if (!wait_graph_is_host_lock( node ) || !is_thread_node( &node[-1] )) continue;
        memcpy( name, node->name, node->name_len );
        name[node->name_len / sizeof(WCHAR)] = 0;
        if (!(p = wcsstr( name, at ))) continue;
        if (!name_host_address( unix_pid_of( node[-1].pid ), node->object, where, ARRAY_SIZE(where) )) continue;
        p[1] = 0;   /* "host mutex " */
        len = _snwprintf( node->name, ARRAY_SIZE(node->name), L"%ls%ls", name, where );
        node->name_len = (len < 0 ? ARRAY_SIZE(node->name) : len) * sizeof(WCHAR);
    }
}

/*
 * Helpers shared by the back-trace and call-stack tests: where an address
 * lies.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __TEST_FRAMES_H
#define __TEST_FRAMES_H

#include <string.h>
#include <windows.h>
#if __has_include(<rtlsupportapi.h>)
#include <winternl.h>
#include <rtlsupportapi.h>  /* the function tables' API, outside winnt.h in Wine 10's headers */
#endif

#ifdef __x86_64__

/* is 'addr' inside the function that starts at 'func', by its unwind data? */
static inline BOOL in_function( const void *addr, const void *func )
{
    ULONG64 base;
    RUNTIME_FUNCTION *entry = RtlLookupFunctionEntry( (ULONG64)addr, &base, NULL );
    return entry && base + entry->BeginAddress == (ULONG64)func;
}

#else

/* x86 differs: an i386 image has no function table (Microsoft's "PE Format",
 * section ".pdata": "not used for x86"; RtlLookupFunctionEntry exists for
 * x64 and ARM only), so Windows itself cannot say where a function ends.
 * The tests' own code can: mingw-w64's i686 GCC unwinds C++ exceptions with
 * DWARF-2 tables, and leaves in every image a mapped .eh_frame section
 * whose FDEs give each function's start and length (the LSB's "Exception
 * Frames", refspecs.linuxfoundation.org LSB 5.0 Core "Exception Frames").
 * Its name is longer than 8 characters, kept only in the file's string
 * table: in memory it is the one mapped, read-only section with a long
 * name ("/N") that begins with a CIE. 'addr' is inside 'func' when the FDE
 * covering it starts at 'func', as the x64 helper asks the unwind data. */

static inline HMODULE module_of( const void *addr );

static inline const BYTE *eh_frame_section( HMODULE mod, ULONG *size )
{
    const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)((const BYTE *)mod + ((const IMAGE_DOS_HEADER *)mod)->e_lfanew);
    const IMAGE_SECTION_HEADER *sec = IMAGE_FIRST_SECTION( nt );
    unsigned int i;

    for (i = 0; i < nt->FileHeader.NumberOfSections; i++, sec++)
    {
        const BYTE *data = (const BYTE *)mod + sec->VirtualAddress;

        if (sec->Name[0] != '/' || !(sec->Characteristics & IMAGE_SCN_CNT_INITIALIZED_DATA) ||
            sec->Characteristics & (IMAGE_SCN_MEM_DISCARDABLE | IMAGE_SCN_MEM_WRITE) || sec->Misc.VirtualSize < 12)
            continue;
        if (*(const DWORD *)(data + 4) || data[8] != 1) continue;  /* a CIE: id 0, version 1 */
        *size = sec->Misc.VirtualSize;
        return data;
    }
    return NULL;
}

static inline ULONG eh_uleb128( const BYTE **p )
{
    ULONG value = 0, shift = 0;
    BYTE b;

    do { b = *(*p)++; if (shift < 32) value |= (ULONG)(b & 0x7f) << shift; shift += 7; } while (b & 0x80);
    return value;
}

/* a pointer of DWARF encoding 'enc' at *p (absolute or pc-relative, 4 bytes) */
static inline ULONG eh_pointer( const BYTE **p, BYTE enc )
{
    ULONG value = *(const ULONG *)*p;

    if ((enc & 0x70) == 0x10) value += (ULONG)(ULONG_PTR)*p;  /* DW_EH_PE_pcrel */
    *p += 4;
    return value;
}

/* the FDE pointer encoding of the CIE at 'cie' (its length field) */
static inline BYTE eh_cie_encoding( const BYTE *cie )
{
    const char *aug = (const char *)cie + 9;
    const BYTE *p = (const BYTE *)aug + strlen( aug ) + 1;

    if (aug[0] != 'z') return 0;
    eh_uleb128( &p );  /* code alignment */
    eh_uleb128( &p );  /* data alignment (the bytes of an sleb128 are skipped alike) */
    if (cie[8] == 1) p++; else eh_uleb128( &p );  /* return address column */
    eh_uleb128( &p );  /* augmentation data length */
    for (aug++; *aug; aug++)
    {
        if (*aug == 'R') return *p;
        if (*aug == 'L') p++;
        else if (*aug == 'P') p += 1 + 4;  /* its encoding, a 4-byte pointer */
        else return 0;
    }
    return 0;
}

static inline BOOL in_function( const void *addr, const void *func )
{
    HMODULE mod = module_of( func );
    const BYTE *p, *end;
    ULONG size;

    if (!mod || module_of( addr ) != mod || !(p = eh_frame_section( mod, &size ))) return FALSE;
    for (end = p + size; p + 8 <= end; )
    {
        ULONG len = *(const ULONG *)p, id = *(const ULONG *)(p + 4);
        const BYTE *next = p + 4 + len, *field = p + 8;
        ULONG start, length;
        BYTE enc;

        if (!len || len == 0xffffffff || next > end) break;
        if (id)  /* an FDE: id is the distance back to its CIE */
        {
            enc = eh_cie_encoding( p + 4 - id );
            if ((enc & 0x0f) != 0x00 && (enc & 0x0f) != 0x03 && (enc & 0x0f) != 0x0b) return FALSE;
            start = eh_pointer( &field, enc );
            length = eh_pointer( &field, enc & 0x0f );
            if ((ULONG_PTR)addr >= start && (ULONG_PTR)addr - start < length) return start == (ULONG_PTR)func;
        }
        p = next;
    }
    return FALSE;
}

#endif

/* the module containing 'addr', or NULL */
static inline HMODULE module_of( const void *addr )
{
    HMODULE mod = NULL;
    GetModuleHandleExA( GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                        addr, &mod );
    return mod;
}

#endif  /* __TEST_FRAMES_H */

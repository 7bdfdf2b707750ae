/*
 * wctdump: name code without debug information after the module's exports
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
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "wctdump.h"

/* more than any real module has; bounds what a damaged image makes us read */
#define MAX_EXPORTS 65536

static BOOL read_image( HANDLE process, DWORD64 base, DWORD rva, void *buffer, SIZE_T size )
{
    SIZE_T done;
    return ReadProcessMemory( process, (void *)(ULONG_PTR)(base + rva), buffer, size, &done ) && done == size;
}

/* a string of the image, cut to what 'buffer' holds; read in small pieces,
 * as it may end near the end of the mapping */
static BOOL read_string( HANDLE process, DWORD64 base, DWORD rva, char *buffer, int size )
{
    int pos, chunk;

    for (pos = 0; pos < size - 1; pos += chunk)
    {
        chunk = min( 32, size - 1 - pos );
        if (!read_image( process, base, rva + pos, buffer + pos, chunk )) return FALSE;
        if (memchr( buffer + pos, 0, chunk )) return TRUE;
    }
    buffer[size - 1] = 0;
    return TRUE;
}

/* the named export with the highest address at or below 'rva', if any */
static BOOL find_export( HANDLE process, DWORD64 base, const IMAGE_DATA_DIRECTORY *dir, DWORD rva,
                         DWORD *export_rva, DWORD *name_rva )
{
    IMAGE_EXPORT_DIRECTORY exports;
    DWORD *functions = NULL, *names = NULL, i;
    SIZE_T functions_size, names_size, ordinals_size;
    WORD *ordinals = NULL;
    BOOL found = FALSE;

    *export_rva = 0;
    if (!read_image( process, base, dir->VirtualAddress, &exports, sizeof(exports) ) ||
        exports.NumberOfFunctions > MAX_EXPORTS || exports.NumberOfNames > MAX_EXPORTS)
        return FALSE;
    functions_size = exports.NumberOfFunctions * sizeof(*functions);
    names_size = exports.NumberOfNames * sizeof(*names);
    ordinals_size = exports.NumberOfNames * sizeof(*ordinals);
    functions = malloc( functions_size + 1 );
    names = malloc( names_size + 1 );
    ordinals = malloc( ordinals_size + 1 );
    if (functions && names && ordinals &&
        read_image( process, base, exports.AddressOfFunctions, functions, functions_size ) &&
        read_image( process, base, exports.AddressOfNames, names, names_size ) &&
        read_image( process, base, exports.AddressOfNameOrdinals, ordinals, ordinals_size ))
    {
        for (i = 0; i < exports.NumberOfNames; i++)
        {
            DWORD func;

            if (ordinals[i] >= exports.NumberOfFunctions) continue;
            func = functions[ordinals[i]];
            /* forwarders point into the export directory, not at code */
            if (func >= dir->VirtualAddress && func - dir->VirtualAddress < dir->Size) continue;
            /* the first name of an address wins: NtXxx before its ZwXxx alias */
            if (func > rva || (found && func <= *export_rva)) continue;
            *export_rva = func;
            *name_rva = names[i];
            found = TRUE;
        }
    }
    free( functions );
    free( names );
    free( ordinals );
    return found;
}

/***********************************************************************
 *           export_symbol
 *
 * Name 'addr', in the image at 'base' of 'process', after the nearest
 * export below it: "name" and the displacement from it. For code that the
 * debug information does not cover, such as the system call stubs of ntdll.
 */
BOOL export_symbol( HANDLE process, DWORD64 base, DWORD64 addr, char *name, int size, DWORD64 *displacement )
{
    IMAGE_DOS_HEADER dos;
    IMAGE_NT_HEADERS64 nt;
    const IMAGE_DATA_DIRECTORY *dir;
    DWORD rva = addr - base, export_rva, name_rva;

    if (addr < base || addr - base > MAXDWORD || size < 2) return FALSE;
    if (!read_image( process, base, 0, &dos, sizeof(dos) ) || dos.e_magic != IMAGE_DOS_SIGNATURE) return FALSE;
    if (!read_image( process, base, dos.e_lfanew, &nt, sizeof(nt) ) || nt.Signature != IMAGE_NT_SIGNATURE ||
        nt.OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC ||
        nt.OptionalHeader.NumberOfRvaAndSizes <= IMAGE_DIRECTORY_ENTRY_EXPORT)
        return FALSE;
    dir = &nt.OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXPORT];
    if (!dir->VirtualAddress || rva >= nt.OptionalHeader.SizeOfImage) return FALSE;
    if (!find_export( process, base, dir, rva, &export_rva, &name_rva ) ||
        !read_string( process, base, name_rva, name, size ))
        return FALSE;
    *displacement = rva - export_rva;
    return TRUE;
}

/*
 * back-traces across host ELF (Winelib) frames, both ways:
 * PE -> ELF -> ELF -> PE -> ELF (capture). Wine only: on Windows the
 * Winelib module does not exist and the test skips.
 *
 * 32-bit: not run: a 32-bit program runs in WoW64 mode, where there is no
 * 32-bit Unix side, so no Winelib (ELF) module can be loaded (Wine 8.0's
 * dlls/ntdll/unix/loader.c: the WoW64 entry of load_so_dll refuses it).
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <windows.h>

#define STANDALONE
#include "wine/test.h"

static void (CDECL *p_elf_call)( void (CDECL *)(void **), void ** );
static USHORT (CDECL *p_elf_capture)( void **, ULONG, void ** );

static volatile LONG sink;
static void *frames[64];
static USHORT frame_count;

static void CDECL __attribute__((noinline)) pe_callback( void **rets )
{
    rets[1] = __builtin_return_address(0);
    frame_count = p_elf_capture( frames, 64, rets );
    sink++;
}

static void __attribute__((noinline)) pe_outer( void **rets )
{
    rets[4] = __builtin_return_address(0);
    p_elf_call( pe_callback, rets );
    sink++;
}

START_TEST(backtrace_elf)
{
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" ), last = NULL;
    HMODULE mod = LoadLibraryA( "elfchain.dll" );
    void *rets[5] = { 0 };
    int i;

    if (!mod)
    {
        win_skip( "the Winelib module elfchain.dll is not available\n" );
        return;
    }
    p_elf_call = (void *)GetProcAddress( mod, "elf_call" );
    p_elf_capture = (void *)GetProcAddress( mod, "elf_capture" );

    pe_outer( rets );
    ok( frame_count > 6, "got %u frames\n", frame_count );
    for (i = 0; i < 5 && i + 1 < frame_count; i++)
        ok( frames[i + 1] == rets[i], "frame %d is %p, expected %p\n", i + 1, frames[i + 1], rets[i] );
    for (i = 0; i < frame_count; i++) ok( frames[i] != NULL, "frame %d is NULL\n", i );
    if (frame_count)
        GetModuleHandleExA( GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            frames[frame_count - 1], &last );
    ok( last == ntdll, "the last frame %p is not in ntdll\n", frame_count ? frames[frame_count - 1] : NULL );
    FreeLibrary( mod );
}

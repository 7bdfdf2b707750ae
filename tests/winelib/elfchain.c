/*
 * A Winelib module (host ELF code, no .pdata) for the back-trace tests:
 * PE -> elf_call -> elf_inner -> PE callback -> elf_capture.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdarg.h>
#include <windef.h>
#include <winbase.h>

static volatile LONG sink;

/* rets[k] is the return address recorded by the k-th function below the
 * capture; see tests/conformance/backtrace_elf.c. */
static void __attribute__((noinline)) elf_inner( void (CDECL *callback)(void **), void **rets )
{
    rets[2] = __builtin_return_address(0);
    callback( rets );
    sink++;
}

void CDECL elf_call( void (CDECL *callback)(void **), void **rets )
{
    rets[3] = __builtin_return_address(0);
    elf_inner( callback, rets );
    sink++;
}

USHORT CDECL elf_capture( void **frames, ULONG count, void **rets )
{
    USHORT n;

    rets[0] = __builtin_return_address(0);
    n = CaptureStackBackTrace( 0, count, frames, NULL );
    sink++;
    return n;
}

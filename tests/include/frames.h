/*
 * Helpers shared by the back-trace and call-stack tests: where an address
 * lies.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __TEST_FRAMES_H
#define __TEST_FRAMES_H

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
 * x64 and ARM only), so nothing says where a function ends. The functions
 * the tests check are small: 'addr' is inside 'func' when it is past its
 * start and within FUNCTION_SPAN bytes of it. */
#define FUNCTION_SPAN 0x2000  /* func_d of conformance/backtrace, with its checks, is over 1 KB */
static inline BOOL in_function( const void *addr, const void *func )
{
    return (const char *)addr > (const char *)func && (const char *)addr < (const char *)func + FUNCTION_SPAN;
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

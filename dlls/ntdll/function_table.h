/*
 * Address-sorted table of the loaded images and their function tables
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

#ifndef __WINE_NTDLL_FUNCTION_TABLE_H
#define __WINE_NTDLL_FUNCTION_TABLE_H

#if defined(__x86_64__) || defined(__arm__) || defined(__aarch64__)
extern void function_table_add( LDR_DATA_TABLE_ENTRY *module );
extern void function_table_remove( LDR_DATA_TABLE_ENTRY *module );
extern BOOL function_table_find( ULONG_PTR pc, LDR_DATA_TABLE_ENTRY **module, ULONG_PTR *base,
                                 RUNTIME_FUNCTION **functions, ULONG *count );
extern LONG function_table_removals;

/* in exception.c: the table RtlAddFunctionTable or RtlAddGrowableFunctionTable
 * registered for 'pc', when that can be known without waiting for a lock
 * and without running a function table callback */
extern BOOL find_registered_function_table( ULONG_PTR pc, ULONG_PTR *base, RUNTIME_FUNCTION **functions,
                                            ULONG *count );

#ifdef __x86_64__
extern RUNTIME_FUNCTION *function_table_lookup( ULONG_PTR pc, BOOL registered, ULONG_PTR *base,
                                                LDR_DATA_TABLE_ENTRY **module );
#endif

/* Changes whenever an image is taken off the table: what was learnt about
 * the code at an address holds as long as this stays the same. */
static inline ULONG function_table_generation(void)
{
    return ReadAcquire( &function_table_removals );
}
#else
static inline void function_table_add( LDR_DATA_TABLE_ENTRY *module ) { }
static inline void function_table_remove( LDR_DATA_TABLE_ENTRY *module ) { }
#endif

#endif  /* __WINE_NTDLL_FUNCTION_TABLE_H */

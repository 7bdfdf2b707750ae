/*
 * Cache of unwind recipes for return addresses
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

#ifndef __WINE_NTDLL_UNWIND_CACHE_H
#define __WINE_NTDLL_UNWIND_CACHE_H

/*
 * How to unwind the frame of one return address: at a given instruction of
 * well-formed code, the caller's stack pointer and the saved registers lie
 * at fixed offsets from one of the registers, whatever the unwind data
 * (.pdata/.xdata or DWARF call frame information) that says so. Registers
 * are numbered in CONTEXT order: Rax 0, Rcx 1, Rdx 2, Rbx 3, Rsp 4, Rbp 5,
 * Rsi 6, Rdi 7, R8 8 ... R15 15. Every address is computed from the
 * registers as they are before the unwind.
 */

#define RECIPE_MAX_SAVES 8

struct unwind_recipe
{
    BYTE  rsp_reg;                   /* the caller's Rsp is rsp_reg + rsp_off */
    BYTE  count;                     /* registers restored */
    BYTE  reg[RECIPE_MAX_SAVES];     /* register reg[i] is loaded from */
    BYTE  base[RECIPE_MAX_SAVES];    /* ... base[i] + off[i] */
    LONG  off[RECIPE_MAX_SAVES];
    LONG  rsp_off;
    LONG  rip_off;                   /* the return address is at the caller's Rsp + rip_off */
};

/* unix call: unwind a host (ELF) frame as unwind_builtin_dll does, and say
 * how, in 'recipe', where its call frame information is that simple */
struct unwind_host_frame_params
{
    struct _DISPATCHER_CONTEXT *dispatch;
    CONTEXT                    *context;
    struct unwind_recipe       *recipe;
    BOOL                       *have_recipe;
};

#ifndef WINE_UNIX_LIB

struct frame_source;

enum cache_result
{
    CACHE_MISS,
    CACHE_HIT,      /* the context was unwound */
    CACHE_SLOW      /* known to need the full unwinder */
};

extern enum cache_result unwind_cache_lookup( CONTEXT *context );
extern void unwind_cache_add( ULONG64 pc, ULONG generation, const CONTEXT *before, const CONTEXT *after,
                              const struct unwind_recipe *recipe );
extern BOOL compile_pe_recipe( struct frame_source *source, ULONG64 base, ULONG64 pc, const RUNTIME_FUNCTION *func,
                               struct unwind_recipe *recipe );

#endif

#endif  /* __WINE_NTDLL_UNWIND_CACHE_H */

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

/* The cache is direct-mapped and shared by all threads without a lock:
 * each entry has a sequence count, odd while a writer fills it, that
 * readers check around their copy. Entries carry the generation of the
 * image table; unloading an image starts a new generation, so no recipe
 * outlives the code it was made for. */
#define UNWIND_CACHE_BITS  12
#define UNWIND_CACHE_SIZE  (1 << UNWIND_CACHE_BITS)

struct unwind_cache_entry
{
    LONG                 sequence;     /* odd while written */
    ULONG                generation;
    ULONG64              pc;
    BOOL                 slow;         /* no recipe: use the full unwinder */
    struct unwind_recipe recipe;
};

extern struct unwind_cache_entry *unwind_cache;

static inline struct unwind_cache_entry *unwind_cache_slot( ULONG64 pc )
{
    return &unwind_cache[(pc * 0x9e3779b97f4a7c15ull) >> (64 - UNWIND_CACHE_BITS)];
}

/* The caller's frame of the return address *rip, if its recipe is known:
 * *rip and *rsp are the frame's Rip and Rsp, regs the other registers
 * (CONTEXT's Rax ... R15; its Rsp is not read). Kept inline in the walk's
 * loop with Rip and Rsp in registers: the step's cost is the chain of
 * loads from one return address to the next, and a round trip of Rip and
 * Rsp through memory added a third to it. Faults reading the stack are the
 * caller's to catch. */
static inline __attribute__((always_inline)) BOOL unwind_cache_step( ULONG64 *regs, ULONG64 *rip, ULONG64 *rsp,
                                                                     ULONG generation )
{
    const struct unwind_cache_entry *slot;
    ULONG64 addr[RECIPE_MAX_SAVES], frame, caller;
    BYTE reg[RECIPE_MAX_SAVES];
    unsigned int i, count;
    LONG seq;

    if (!unwind_cache) return FALSE;
    slot = unwind_cache_slot( *rip );
    seq = ReadAcquire( &slot->sequence );
    if ((seq & 1) || slot->pc != *rip || slot->generation != generation || slot->slow) return FALSE;
    count = min( slot->recipe.count, RECIPE_MAX_SAVES );
    frame = (slot->recipe.rsp_reg == 4 ? *rsp : regs[slot->recipe.rsp_reg & 15]) + slot->recipe.rsp_off;
    caller = frame + slot->recipe.rip_off;
    for (i = 0; i < count; i++)
    {
        BYTE base = slot->recipe.base[i] & 15;

        reg[i] = slot->recipe.reg[i] & 15;
        addr[i] = (base == 4 ? *rsp : regs[base]) + slot->recipe.off[i];
    }
    __atomic_thread_fence( __ATOMIC_ACQUIRE );
    if (ReadNoFence( &slot->sequence ) != seq) return FALSE;  /* changed while read */
    *rip = *(ULONG64 *)caller;
    for (i = 0; i < count; i++) regs[reg[i]] = *(ULONG64 *)addr[i];
    *rsp = frame;
    return TRUE;
}

extern enum cache_result unwind_cache_lookup( CONTEXT *context );
extern void unwind_cache_add( ULONG64 pc, ULONG generation, const CONTEXT *before, const CONTEXT *after,
                              const struct unwind_recipe *recipe );
extern BOOL compile_pe_recipe( struct frame_source *source, ULONG64 base, ULONG64 pc, const RUNTIME_FUNCTION *func,
                               struct unwind_recipe *recipe );

#endif

#endif  /* __WINE_NTDLL_UNWIND_CACHE_H */

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

/* A recipe as the cache keeps it: what one step reads, in one pass. Each
 * save is packed in 64 bits, the register restored | its base register
 * << 8 | its offset << 32, and the saves are in an order in which each
 * can be applied in turn: none restores a register that a later one
 * reads its address from (unwind_cache.c makes the order). */
struct cached_recipe
{
    BYTE    rsp_reg;
    BYTE    count;
    LONG    rsp_off;
    LONG    caller_off;   /* the return address is at rsp_reg + caller_off */
    ULONG64 save[RECIPE_MAX_SAVES];
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
    struct cached_recipe recipe;
    BYTE                 pad[24];      /* 128 bytes: a slot's offset is a shift */
};

C_ASSERT( sizeof(struct unwind_cache_entry) == 128 );

extern struct unwind_cache_entry *unwind_cache;

/* The slot of a return address (Fibonacci hashing: the top bits of the
 * product spread addresses that differ in any bits). A fold of the bits
 * above 4 KB into those below was tried: no faster a frame, measured. */
static inline struct unwind_cache_entry *unwind_cache_slot( struct unwind_cache_entry *cache, ULONG64 pc )
{
    return &cache[(pc * 0x9e3779b97f4a7c15ull) >> (64 - UNWIND_CACHE_BITS)];
}

/* Where a packed save is loaded from: its base register as it is now (Rsp
 * is 'rsp', which the registers do not hold during a step) + its offset. */
static inline ULONG64 *cached_save_addr( ULONG64 save, const ULONG64 *regs, ULONG64 rsp )
{
    unsigned int base = (save >> 8) & 15;

    return (ULONG64 *)((base == 4 ? rsp : regs[base]) + (LONG)(save >> 32));
}

/* The caller's frame of the return address *rip, if its recipe is known:
 * *rip and *rsp are the frame's Rip and Rsp, regs the other registers
 * (CONTEXT's Rax ... R15; its Rsp is not read), 'cache' is unwind_cache,
 * not NULL. Kept inline in the walk's loop with Rip and Rsp in registers:
 * the step's cost is the chain of loads from one return address to the
 * next, and a round trip of Rip and Rsp through memory added a third to
 * it. The entry's sequence is checked again once the return address's
 * offset is read, then once the saves are copied; the saves are then
 * applied in one pass. Faults reading the stack are the caller's to
 * catch. */
static inline __attribute__((always_inline)) BOOL unwind_cache_step( struct unwind_cache_entry *cache,
                                                                     ULONG64 *regs, ULONG64 *rip, ULONG64 *rsp,
                                                                     ULONG generation )
{
    const struct unwind_cache_entry *slot = unwind_cache_slot( cache, *rip );
    ULONG64 save[RECIPE_MAX_SAVES], base, frame, caller;
    unsigned int i, count;
    LONG seq;

    seq = ReadAcquire( &slot->sequence );
    if ((seq & 1) || slot->pc != *rip || slot->generation != generation || slot->slow) return FALSE;
    count = min( slot->recipe.count, RECIPE_MAX_SAVES );
    base = slot->recipe.rsp_reg == 4 ? *rsp : regs[slot->recipe.rsp_reg & 15];
    frame = base + slot->recipe.rsp_off;
    caller = base + slot->recipe.caller_off;
    /* the return address first, as soon as its offset is known good: it
     * is the next step's start, and the loads that lead to it are the
     * walk's cost */
    __atomic_thread_fence( __ATOMIC_ACQUIRE );
    if (ReadNoFence( &slot->sequence ) != seq) return FALSE;  /* changed while read */
    caller = *(ULONG64 *)caller;
    /* all the saves: four 16-byte moves, where a copy of 'count' became a
     * slow string move */
    memcpy( save, slot->recipe.save, sizeof(save) );
    __atomic_thread_fence( __ATOMIC_ACQUIRE );
    if (ReadNoFence( &slot->sequence ) != seq) return FALSE;
    for (i = 0; i < count; i++) regs[save[i] & 15] = *cached_save_addr( save[i], regs, *rsp );
    *rip = caller;
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

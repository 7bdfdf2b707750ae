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

/* A recipe as the cache keeps it: what one step reads, in one pass. Every
 * address is an offset from a register as it is before the step: the
 * caller's Rsp, its return address and the first 'split' saves from
 * base_reg, the other saves from Rsp (GCC's frame-pointer functions push
 * registers after setting their frame register). Both are read before
 * any save is applied, so the saves can go in any order, each a load and a
 * store. */
struct cached_recipe
{
    BYTE    base_reg;
    BYTE    count;                    /* saves */
    BYTE    split;                    /* saves from base_reg, the rest from Rsp */
    BYTE    rbp;                      /* for unwind_cache_lazy_step: enum lazy_rbp */
    LONG    rsp_off;                  /* the caller's Rsp is base_reg + rsp_off */
    LONG    caller_off;               /* the return address is at base_reg + caller_off */
    LONG    rbp_off;                  /* Rbp's save, if it has one */
    BYTE    reg[RECIPE_MAX_SAVES];    /* register reg[i] is loaded from */
    LONG    off[RECIPE_MAX_SAVES];    /* ... its base + off[i] */
};

/* What a lazy step does with Rbp, the only frame register it follows */
enum lazy_rbp
{
    LAZY_NONE,        /* base_reg is neither Rsp nor Rbp: no lazy step */
    LAZY_RBP_KEPT,    /* the caller's Rbp is the frame's */
    LAZY_RBP_BASE,    /* it is loaded from base_reg + rbp_off */
    LAZY_RBP_RSP      /* it is loaded from Rsp + rbp_off */
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
};

extern struct unwind_cache_entry *unwind_cache;

/* The slot of a return address (Fibonacci hashing: the top bits of the
 * product spread addresses that differ in any bits). A fold of the bits
 * above 4 KB into those below was tried: no faster a frame, measured. */
static inline struct unwind_cache_entry *unwind_cache_slot( struct unwind_cache_entry *cache, ULONG64 pc )
{
    return &cache[(pc * 0x9e3779b97f4a7c15ull) >> (64 - UNWIND_CACHE_BITS)];
}

/* The caller's frame of the return address *rip, if its recipe is known:
 * *rip and *rsp are the frame's Rip and Rsp, regs the other registers
 * (CONTEXT's Rax ... R15; its Rsp is not read), 'cache' is unwind_cache,
 * not NULL. The step a walk takes where a frame is found from a register
 * other than Rsp and Rbp, and to bring the registers up to date after
 * lazy steps (unwind_cache_lazy_step). The entry's sequence is checked
 * again once the return address's offset is read, then once the saves are
 * copied; the saves are then applied in one pass. Faults reading the
 * stack are the caller's to catch. */
static inline __attribute__((always_inline)) BOOL unwind_cache_step( struct unwind_cache_entry *cache,
                                                                     ULONG64 *regs, ULONG64 *rip, ULONG64 *rsp,
                                                                     ULONG generation )
{
    const struct unwind_cache_entry *slot = unwind_cache_slot( cache, *rip );
    ULONG64 base, frame, caller;
    BYTE reg[RECIPE_MAX_SAVES];
    LONG off[RECIPE_MAX_SAVES];
    unsigned int i, split, count;
    LONG seq;

    seq = ReadAcquire( &slot->sequence );
    if ((seq & 1) || slot->pc != *rip || slot->generation != generation || slot->slow) return FALSE;
    count = min( slot->recipe.count, RECIPE_MAX_SAVES );
    split = min( slot->recipe.split, count );
    base = slot->recipe.base_reg == 4 ? *rsp : regs[slot->recipe.base_reg & 15];
    frame = base + slot->recipe.rsp_off;
    caller = base + slot->recipe.caller_off;
    /* the return address first, as soon as its offset is known good: it
     * is the next step's start, and the loads that lead to it are the
     * walk's cost */
    __atomic_thread_fence( __ATOMIC_ACQUIRE );
    if (ReadNoFence( &slot->sequence ) != seq) return FALSE;  /* changed while read */
    caller = *(ULONG64 *)caller;
    memcpy( reg, slot->recipe.reg, sizeof(reg) );
    memcpy( off, slot->recipe.off, sizeof(off) );
    __atomic_thread_fence( __ATOMIC_ACQUIRE );
    if (ReadNoFence( &slot->sequence ) != seq) return FALSE;
    for (i = 0; i < split; i++) regs[reg[i] & 15] = *(ULONG64 *)(base + off[i]);
    for (; i < count; i++) regs[reg[i] & 15] = *(ULONG64 *)(*rsp + off[i]);
    *rip = caller;
    *rsp = frame;
    return TRUE;
}

/* The caller's Rip, Rsp and Rbp of the frame of the return address *rip,
 * if its recipe is known and its frame is found from Rsp or Rbp: what a
 * walk needs while no other register is asked for, without applying the
 * saves. The entry's fields are all read before its sequence is checked,
 * then the stack. Faults reading the stack are the caller's to catch. */
static inline __attribute__((always_inline)) BOOL unwind_cache_lazy_step( struct unwind_cache_entry *cache,
                                                                          ULONG64 *rip, ULONG64 *rsp,
                                                                          ULONG64 *rbp, ULONG generation )
{
    const struct unwind_cache_entry *slot = unwind_cache_slot( cache, *rip );
    ULONG64 base, caller;
    LONG seq, rsp_off, caller_off, rbp_off;
    BYTE how;

    seq = ReadAcquire( &slot->sequence );
    if ((seq & 1) || slot->pc != *rip || slot->generation != generation || slot->slow) return FALSE;
    how = slot->recipe.rbp;
    base = slot->recipe.base_reg == 4 ? *rsp : *rbp;
    rsp_off = slot->recipe.rsp_off;
    caller_off = slot->recipe.caller_off;
    rbp_off = slot->recipe.rbp_off;
    __atomic_thread_fence( __ATOMIC_ACQUIRE );
    if (ReadNoFence( &slot->sequence ) != seq || how == LAZY_NONE) return FALSE;
    caller = *(ULONG64 *)(base + caller_off);
    if (how == LAZY_RBP_BASE) *rbp = *(ULONG64 *)(base + rbp_off);
    else if (how == LAZY_RBP_RSP) *rbp = *(ULONG64 *)(*rsp + rbp_off);
    *rip = caller;
    *rsp = base + rsp_off;
    return TRUE;
}

extern enum cache_result unwind_cache_lookup( CONTEXT *context );
extern void unwind_cache_add( ULONG64 pc, ULONG generation, const CONTEXT *before, const CONTEXT *after,
                              const struct unwind_recipe *recipe );
extern BOOL compile_pe_recipe( struct frame_source *source, ULONG64 base, ULONG64 pc, const RUNTIME_FUNCTION *func,
                               struct unwind_recipe *recipe );

#endif

#endif  /* __WINE_NTDLL_UNWIND_CACHE_H */

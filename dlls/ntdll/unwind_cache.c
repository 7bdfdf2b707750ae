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

#ifdef __x86_64__

#include <stdarg.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wine/debug.h"
#include "function_table.h"
#include "unwind_codes.h"
#include "unwind_cache.h"

WINE_DEFAULT_DEBUG_CHANNEL(backtrace);

/*
 * A back-trace unwinds the same return addresses again and again. The first
 * time, the full unwinder does it (the image look-up, RtlVirtualUnwind or
 * the host's DWARF unwinder) and the frame's recipe is kept; from then on
 * the recipe is a handful of loads. A recipe is kept only when applying it
 * gives exactly what the full unwinder gave.
 *
 * The cache's layout and its inline step are in unwind_cache.h.
 */

#define CACHE_SIZE UNWIND_CACHE_SIZE

struct unwind_cache_entry *unwind_cache;

/* regs: Rax ... R15 then Rip, as they follow each other in CONTEXT; the
 * same loads as unwind_cache_step's */
static void apply_recipe( const struct cached_recipe *recipe, ULONG64 *regs )
{
    ULONG64 rsp = regs[4], base = regs[recipe->base_reg & 15];
    unsigned int i, count = min( recipe->count, RECIPE_MAX_SAVES );

    regs[16] = *(ULONG64 *)(base + recipe->caller_off);
    for (i = 0; i < count; i++)
        regs[recipe->reg[i] & 15] = *(ULONG64 *)((i < recipe->split ? base : rsp) + recipe->off[i]);
    regs[4] = base + recipe->rsp_off;
}

/***********************************************************************
 *           unwind_cache_lookup
 *
 * Unwind the frame of context->Rip, a return address, if its recipe is
 * known. Faults reading the stack are the caller's to catch.
 */
enum cache_result unwind_cache_lookup( CONTEXT *context )
{
    const struct unwind_cache_entry *slot;
    struct cached_recipe recipe;
    BOOL slow;
    LONG seq;

    if (!unwind_cache) return CACHE_MISS;
    slot = unwind_cache_slot( unwind_cache, context->Rip );
    seq = ReadAcquire( &slot->sequence );
    if ((seq & 1) || slot->pc != context->Rip || slot->generation != function_table_generation())
        return CACHE_MISS;
    slow = slot->slow;
    recipe = slot->recipe;
    __atomic_thread_fence( __ATOMIC_ACQUIRE );
    if (ReadNoFence( &slot->sequence ) != seq) return CACHE_MISS;  /* changed while read */
    if (slow) return CACHE_SLOW;
    apply_recipe( &recipe, &context->Rax );
    return CACHE_HIT;
}

/* Pack save 'i' of 'recipe' as the n-th of 'cached'. */
static BOOL pack_save( const struct unwind_recipe *recipe, unsigned int i, struct cached_recipe *cached,
                       unsigned int n )
{
    if (recipe->reg[i] >= 16 || recipe->reg[i] == 4) return FALSE;
    cached->reg[n] = recipe->reg[i];
    cached->off[n] = recipe->off[i];
    return TRUE;
}

/* The recipe as the cache keeps it: the saves from the register the
 * caller's Rsp is computed from first, then those from Rsp. Fails where a
 * save's address is from any other register (none of the unwinders'
 * recipes does that), a save restores Rsp, or an offset does not fit. */
static BOOL compile_cached_recipe( const struct unwind_recipe *recipe, struct cached_recipe *cached )
{
    LONG64 caller_off = (LONG64)recipe->rsp_off + recipe->rip_off;
    unsigned int i, n = 0;

    if (recipe->rsp_reg >= 16 || recipe->count > RECIPE_MAX_SAVES || caller_off != (LONG)caller_off)
        return FALSE;
    memset( cached, 0, sizeof(*cached) );
    cached->base_reg = recipe->rsp_reg;
    cached->rsp_off = recipe->rsp_off;
    cached->caller_off = caller_off;
    for (i = 0; i < recipe->count; i++)
        if (recipe->base[i] == recipe->rsp_reg && !pack_save( recipe, i, cached, n++ )) return FALSE;
    cached->split = n;
    for (i = 0; i < recipe->count; i++)
    {
        if (recipe->base[i] == recipe->rsp_reg) continue;
        if (recipe->base[i] != 4 || !pack_save( recipe, i, cached, n++ )) return FALSE;
    }
    cached->count = n;
    /* a lazy step follows Rbp alone: the frame is found from Rsp or Rbp */
    if (cached->base_reg == 4 || cached->base_reg == 5)
    {
        cached->rbp = LAZY_RBP_KEPT;
        for (i = 0; i < n; i++)
        {
            if (cached->reg[i] != 5) continue;
            cached->rbp = i < cached->split ? LAZY_RBP_BASE : LAZY_RBP_RSP;
            cached->rbp_off = cached->off[i];
        }
    }
    return TRUE;
}

/* does the recipe give what the full unwinder gave? */
static BOOL recipe_matches( const struct cached_recipe *recipe, const CONTEXT *before, const CONTEXT *after )
{
    ULONG64 regs[17];

    memcpy( regs, &before->Rax, sizeof(regs) );
    apply_recipe( recipe, regs );
    return !memcmp( regs, &after->Rax, sizeof(regs) );
}

static BOOL alloc_cache(void)
{
    SIZE_T size = CACHE_SIZE * sizeof(struct unwind_cache_entry);
    void *ptr = NULL;

    if (unwind_cache) return TRUE;
    if (NtAllocateVirtualMemory( GetCurrentProcess(), &ptr, 0, &size, MEM_COMMIT, PAGE_READWRITE ))
        return FALSE;
    if (InterlockedCompareExchangePointer( (void **)&unwind_cache, ptr, NULL ))
    {
        size = 0;
        NtFreeVirtualMemory( GetCurrentProcess(), &ptr, &size, MEM_RELEASE );
    }
    return TRUE;
}

/***********************************************************************
 *           unwind_cache_add
 *
 * The full unwinder took 'before' to 'after' for the return address 'pc',
 * the image table being at 'generation' when it started. Keep 'recipe' if
 * it does the same, or remember that this address needs the full unwinder.
 */
void unwind_cache_add( ULONG64 pc, ULONG generation, const CONTEXT *before, const CONTEXT *after,
                       const struct unwind_recipe *recipe )
{
    struct unwind_cache_entry *slot;
    struct cached_recipe cached;
    BOOL slow;
    LONG seq;

    slow = !recipe || !compile_cached_recipe( recipe, &cached ) || !recipe_matches( &cached, before, after );
    if (slow) TRACE( "no recipe for %p\n", (void *)pc );
    if (!alloc_cache()) return;
    slot = unwind_cache_slot( unwind_cache, pc );
    seq = ReadNoFence( &slot->sequence );
    if ((seq & 1) || InterlockedCompareExchange( &slot->sequence, seq + 1, seq ) != seq)
        return;  /* another thread is filling it */
    slot->pc = pc;
    slot->generation = generation;
    slot->slow = slow;
    if (!slow) slot->recipe = cached;
    WriteRelease( &slot->sequence, seq + 2 );
}

static BOOL add_save( struct unwind_recipe *recipe, BYTE reg, const struct unwind_value *value )
{
    if (recipe->count == RECIPE_MAX_SAVES || value->kind != VALUE_LOADED || (LONG64)value->off != (LONG)value->off)
        return FALSE;
    recipe->reg[recipe->count] = reg;
    recipe->base[recipe->count] = value->reg;
    recipe->off[recipe->count] = value->off;
    recipe->count++;
    return TRUE;
}

/***********************************************************************
 *           compile_pe_recipe
 *
 * The recipe of RtlVirtualUnwind for 'pc' in 'func', whose code and unwind
 * data 'source' reads: unwind_codes.c runs the same rules over symbols
 * instead of values. Where it cannot say the result as loads at offsets
 * from the registers before the unwind (machine frames, which load the
 * stack pointer; a frame register restored by a chained entry before it is
 * used), there is no recipe.
 */
BOOL compile_pe_recipe( struct frame_source *source, ULONG64 base, ULONG64 pc, const RUNTIME_FUNCTION *func,
                        struct unwind_recipe *recipe )
{
    struct unwind_state state;
    const struct unwind_value *rsp, *rip;
    unsigned int i;

    state.source = source;
    for (i = 0; i < ARRAY_SIZE(state.regs); i++)
    {
        state.regs[i].kind = VALUE_REGISTER;
        state.regs[i].reg = i;
        state.regs[i].off = 0;
    }
    if (!unwind_pe_frame( &state, base, pc, *func )) return FALSE;

    memset( recipe, 0, sizeof(*recipe) );
    rsp = &state.regs[UNWIND_REG_RSP];
    rip = &state.regs[UNWIND_REG_RIP];
    if (rsp->kind != VALUE_REGISTER || rip->kind != VALUE_LOADED || rip->reg != rsp->reg ||
        (LONG64)rsp->off != (LONG)rsp->off || (LONG64)(rip->off - rsp->off) != (LONG)(rip->off - rsp->off))
        return FALSE;
    recipe->rsp_reg = rsp->reg;
    recipe->rsp_off = rsp->off;
    recipe->rip_off = rip->off - rsp->off;

    for (i = 0; i < 16; i++)
    {
        const struct unwind_value *value = &state.regs[i];

        if (i == UNWIND_REG_RSP) continue;
        if (value->kind == VALUE_REGISTER && value->reg == i && !value->off) continue;  /* left as it was */
        if (!add_save( recipe, i, value )) return FALSE;
    }
    return TRUE;
}

#endif  /* __x86_64__ */

/*
 * Unwinding host (ELF) frames for back-traces, with their recipes
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

#if 0
#pragma makedep unix
#endif

#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "unix_private.h"
#include "wine/debug.h"

WINE_DEFAULT_DEBUG_CHANNEL(unwind);

#ifdef __x86_64__

/* dwarf.h defines more helpers than this file uses */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "dwarf.h"
#pragma GCC diagnostic pop

#include "../unwind_cache.h"

#define DWARF_RIP 16

/* DWARF register numbers of x86_64 to CONTEXT order */
static const BYTE context_reg[DWARF_RIP] =
{
    0 /* rax */, 2 /* rdx */, 1 /* rcx */, 3 /* rbx */, 6 /* rsi */, 7 /* rdi */, 5 /* rbp */, 4 /* rsp */,
    8, 9, 10, 11, 12, 13, 14, 15
};

/* The recipe of a frame whose CFA is a register plus an offset and whose
 * registers are saved at offsets from the CFA. */
static BOOL make_recipe( const struct frame_info *info, struct unwind_recipe *recipe )
{
    const struct frame_state *state = &info->state;
    LONG64 cfa_off = state->cfa_offset, off;
    BYTE cfa_reg;
    unsigned int i;

    if (info->signal_frame || info->retaddr_reg != DWARF_RIP) return FALSE;
    if (state->cfa_rule != RULE_CFA_OFFSET || state->cfa_reg >= DWARF_RIP) return FALSE;
    if (state->rules[DWARF_RIP] != RULE_CFA_OFFSET) return FALSE;
    if (cfa_off != (LONG)cfa_off || (LONG64)state->regs[DWARF_RIP] != (LONG)state->regs[DWARF_RIP])
        return FALSE;

    memset( recipe, 0, sizeof(*recipe) );
    cfa_reg = context_reg[state->cfa_reg];
    recipe->rsp_reg = cfa_reg;
    recipe->rsp_off = cfa_off;
    recipe->rip_off = state->regs[DWARF_RIP];
    for (i = 0; i < DWARF_RIP; i++)
    {
        switch (state->rules[i])
        {
        case RULE_UNSET:
        case RULE_UNDEFINED:
        case RULE_SAME:
            continue;
        case RULE_CFA_OFFSET:
            off = cfa_off + (LONG64)state->regs[i];
            if (off != (LONG)off || recipe->count == RECIPE_MAX_SAVES) return FALSE;
            recipe->reg[recipe->count] = context_reg[i];
            recipe->base[recipe->count] = cfa_reg;
            recipe->off[recipe->count] = off;
            recipe->count++;
            continue;
        default:
            return FALSE;
        }
    }
    return TRUE;
}

/***********************************************************************
 *           unwind_host_frame
 *
 * Unwind one host frame as unwind_builtin_dll does, and give its recipe
 * where it has a simple one: the caller keeps it, so that the next walk
 * through this return address needs neither this call nor the unwinder.
 */
NTSTATUS unwind_host_frame( void *args )
{
    struct unwind_host_frame_params *params = args;
    DISPATCHER_CONTEXT *dispatch = params->dispatch;
    CONTEXT *context = params->context;
    struct frame_state state_stack[MAX_SAVED_STATES];
    struct frame_info info;
    struct dwarf_eh_bases bases;
    const struct dwarf_fde *fde = _Unwind_Find_FDE( (void *)(context->Rip - 1), &bases );
    NTSTATUS status;

    *params->have_recipe = FALSE;
    if (!fde)
    {
        /* no DWARF information we can read: libunwind's, if any */
        struct unwind_builtin_dll_params unwind = { UNW_FLAG_NHANDLER, dispatch, context };
        return unwind_builtin_dll( &unwind );
    }
    if ((status = dwarf_get_frame_info( context->Rip, fde, &bases, &info, state_stack,
                                        &dispatch->LanguageHandler, &dispatch->HandlerData )))
        return status;
    *params->have_recipe = make_recipe( &info, params->recipe );
    dispatch->EstablisherFrame = context->Rsp;
    apply_frame_state( context, &info.state, &bases );
    return STATUS_SUCCESS;
}

#else  /* __x86_64__ */

NTSTATUS unwind_host_frame( void *args )
{
    return STATUS_NOT_IMPLEMENTED;
}

#endif  /* __x86_64__ */

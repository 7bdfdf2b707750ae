/*
 * An interpreter of x64 unwind codes, over values or over symbols
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
#include "frame_source.h"
#include "unwind_codes.h"

WINE_DEFAULT_DEBUG_CHANNEL(backtrace);

/*
 * Walks of this process unwind with Wine's RtlVirtualUnwind; walks of
 * another process and the recipes that speed up local walks come from here.
 * All three must agree on every instruction pointer, so this file follows
 * RtlVirtualUnwind's rules, notably for epilogues:
 *
 * - an epilogue is looked for at every pc outside the prologue, return
 *   addresses included, and again for each chained entry (with that entry's
 *   bounds), but only when the unwind information has codes;
 * - it may start with "add $n,%rsp" (exactly 48 81 c4 or 48 83 c4) or
 *   "lea disp(%reg),%rsp" (REX 48 or 49, 8- or 32-bit displacement, no SIB);
 * - then any number of pops, each with an optional REX prefix, and jumps
 *   (jmp rel8/rel32) to code inside the function, which are followed;
 * - it ends with ret, ret $n (which drops n more bytes) or rep ret; a jump
 *   out of the function (a tail call), an indirect jump or anything else
 *   means the pc is not in an epilogue, and the unwind codes apply.
 *
 * Every read goes through the frame source, so the target's memory may be
 * unreadable or change under us, and every loop is bounded.
 */

static struct unwind_value value_add( struct unwind_value value, LONG64 delta )
{
    if (value.kind == VALUE_NUMBER || value.kind == VALUE_REGISTER) value.off += delta;
    else value.kind = VALUE_UNKNOWN;
    return value;
}

/* the 8 bytes at 'addr': read when 'addr' is a number, else named */
static BOOL value_load( struct frame_source *source, struct unwind_value addr, struct unwind_value *ret )
{
    switch (addr.kind)
    {
    case VALUE_NUMBER:
        ret->kind = VALUE_NUMBER;
        return source->read( source, addr.off, &ret->off, sizeof(ret->off) );
    case VALUE_REGISTER:
        ret->kind = VALUE_LOADED;
        ret->reg = addr.reg;
        ret->off = addr.off;
        return TRUE;
    default:
        ret->kind = VALUE_UNKNOWN;
        return TRUE;
    }
}

/* The bytes of one instruction, read as the decoder asks for them: the
 * bytes after a short instruction may lie on a page that is not mapped. */
struct insn
{
    struct frame_source *source;
    ULONG64              addr;
    unsigned int         have;
    BOOL                 unreadable;
    BYTE                 bytes[8];
};

static void insn_start( struct insn *insn, struct frame_source *source, ULONG64 addr )
{
    insn->source = source;
    insn->addr = addr;
    insn->have = 0;
    insn->unreadable = FALSE;
}

static BYTE insn_byte( struct insn *insn, unsigned int i )
{
    if (insn->unreadable || i >= ARRAY_SIZE(insn->bytes)) return 0;
    while (insn->have <= i)
    {
        if (!insn->source->read( insn->source, insn->addr + insn->have, &insn->bytes[insn->have], 1 ))
        {
            insn->unreadable = TRUE;
            return 0;
        }
        insn->have++;
    }
    return insn->bytes[i];
}

static LONG insn_long( struct insn *insn, unsigned int i )
{
    return insn_byte( insn, i ) | (insn_byte( insn, i + 1 ) << 8) | (insn_byte( insn, i + 2 ) << 16) |
           ((ULONG)insn_byte( insn, i + 3 ) << 24);
}

/* an epilogue, decoded into what it does to the registers */
enum epilog_op_type
{
    EPILOG_ADD_RSP,  /* Rsp += n */
    EPILOG_LEA_RSP,  /* Rsp = reg + n */
    EPILOG_POP,      /* reg = [Rsp], Rsp += 8 */
    EPILOG_RET       /* Rip = [Rsp], Rsp += 8 + n */
};

struct epilog_op
{
    BYTE type;
    BYTE reg;
    LONG n;
};

/* Instructions decoded at most: more than any epilogue has, and a bound on
 * jumps that lead back to themselves (where RtlVirtualUnwind would never
 * return; we take such code for a body). */
#define MAX_EPILOG_INSNS 64

enum epilog_result { NOT_EPILOG, IN_EPILOG, EPILOG_UNREADABLE };

/* the optional first instruction; returns its size, 0 if there is none,
 * -1 if the pc cannot be in an epilogue */
static int decode_stack_release( struct insn *insn, struct epilog_op *op )
{
    BYTE rex = insn_byte( insn, 0 ), opcode, modrm;

    if ((rex & 0xf8) != 0x48) return 0;  /* REX.W is needed */
    opcode = insn_byte( insn, 1 );
    if (opcode == 0x81 || opcode == 0x83)  /* add $imm,%rsp */
    {
        if (rex != 0x48 || insn_byte( insn, 2 ) != 0xc4) return -1;
        op->type = EPILOG_ADD_RSP;
        if (opcode == 0x83)
        {
            op->n = (signed char)insn_byte( insn, 3 );
            return 4;
        }
        op->n = insn_long( insn, 3 );
        return 7;
    }
    if (opcode != 0x8d) return 0;  /* the REX belongs to a pop or a ret */

    /* lea disp(%reg),%rsp: no REX.R or REX.X, %rsp as destination, no SIB */
    modrm = insn_byte( insn, 2 );
    if ((rex & 0x06) || ((modrm >> 3) & 7) != 4 || (modrm & 7) == 4) return -1;
    op->type = EPILOG_LEA_RSP;
    op->reg = (modrm & 7) | ((rex & 1) << 3);
    switch (modrm >> 6)
    {
    case 1:
        op->n = (signed char)insn_byte( insn, 3 );
        return 4;
    case 2:
        op->n = insn_long( insn, 3 );
        return 7;
    default:
        return -1;
    }
}

static enum epilog_result decode_epilog( struct frame_source *source, ULONG64 pc, ULONG64 func_start,
                                         ULONG64 func_end, struct epilog_op *ops, unsigned int *count )
{
    struct insn insn;
    unsigned int n = 0, steps, i;
    ULONG64 target;
    BYTE rex, opcode;
    int size;

    insn_start( &insn, source, pc );
    size = decode_stack_release( &insn, &ops[n] );
    if (insn.unreadable) return EPILOG_UNREADABLE;
    if (size < 0) return NOT_EPILOG;
    if (size) n++;
    pc += size;

    for (steps = 0; steps < MAX_EPILOG_INSNS; steps++)
    {
        insn_start( &insn, source, pc );
        rex = insn_byte( &insn, 0 );
        i = (rex & 0xf0) == 0x40;  /* a REX prefix: only its B bit matters */
        if (!i) rex = 0;
        opcode = insn_byte( &insn, i );
        if (insn.unreadable) return EPILOG_UNREADABLE;

        if (opcode >= 0x58 && opcode <= 0x5f)  /* pop %reg */
        {
            ops[n].type = EPILOG_POP;
            ops[n++].reg = (opcode & 7) | ((rex & 1) << 3);
            pc += i + 1;
            continue;
        }
        switch (opcode)
        {
        case 0xc3:  /* ret */
        case 0xc2:  /* ret $imm16 */
            ops[n].type = EPILOG_RET;
            ops[n].n = opcode == 0xc2 ? insn_byte( &insn, i + 1 ) | (insn_byte( &insn, i + 2 ) << 8) : 0;
            break;
        case 0xf3:  /* rep ret */
            if (insn_byte( &insn, i + 1 ) != 0xc3)
                return insn.unreadable ? EPILOG_UNREADABLE : NOT_EPILOG;
            ops[n].type = EPILOG_RET;
            ops[n].n = 0;
            break;
        case 0xe9:  /* jmp rel32 */
        case 0xeb:  /* jmp rel8 */
            if (opcode == 0xe9) target = pc + i + 5 + insn_long( &insn, i + 1 );
            else target = pc + i + 2 + (signed char)insn_byte( &insn, i + 1 );
            if (insn.unreadable) return EPILOG_UNREADABLE;
            if (target < func_start || target >= func_end) return NOT_EPILOG;  /* a tail call */
            pc = target;
            continue;
        default:
            return NOT_EPILOG;
        }
        if (insn.unreadable) return EPILOG_UNREADABLE;
        *count = n + 1;
        return IN_EPILOG;
    }
    return NOT_EPILOG;
}

static BOOL run_epilog( struct unwind_state *state, const struct epilog_op *ops, unsigned int count )
{
    struct unwind_value *regs = state->regs, value;
    unsigned int i;

    for (i = 0; i < count; i++)
    {
        switch (ops[i].type)
        {
        case EPILOG_ADD_RSP:
            regs[UNWIND_REG_RSP] = value_add( regs[UNWIND_REG_RSP], ops[i].n );
            break;
        case EPILOG_LEA_RSP:
            regs[UNWIND_REG_RSP] = value_add( regs[ops[i].reg], ops[i].n );
            break;
        case EPILOG_POP:
            /* a pop of %rsp itself is then moved on like any other */
            if (!value_load( state->source, regs[UNWIND_REG_RSP], &value )) return FALSE;
            regs[ops[i].reg] = value;
            regs[UNWIND_REG_RSP] = value_add( regs[UNWIND_REG_RSP], sizeof(ULONG64) );
            break;
        case EPILOG_RET:
            if (!value_load( state->source, regs[UNWIND_REG_RSP], &regs[UNWIND_REG_RIP] )) return FALSE;
            regs[UNWIND_REG_RSP] = value_add( regs[UNWIND_REG_RSP], sizeof(ULONG64) + (USHORT)ops[i].n );
            break;
        }
    }
    return TRUE;
}

/* A machine frame counts only where RtlVirtualUnwind takes it: as the last
 * code of unwind information that is not chained. */
static BOOL run_machine_frame( struct unwind_state *state, BYTE error_code )
{
    struct unwind_value *regs = state->regs, rsp = regs[UNWIND_REG_RSP];

    if (error_code) rsp = value_add( rsp, sizeof(ULONG64) );
    return value_load( state->source, rsp, &regs[UNWIND_REG_RIP] ) &&
           value_load( state->source, value_add( rsp, 24 ), &regs[UNWIND_REG_RSP] );
}

/***********************************************************************
 *           unwind_pe_frame
 *
 * Unwind the frame of 'pc' in 'func', whose image is at 'base', as
 * RtlVirtualUnwind does, from the registers in 'state' to its caller's.
 * FALSE when what is needed cannot be read or makes no sense.
 */
BOOL unwind_pe_frame( struct unwind_state *state, ULONG64 base, ULONG64 pc, RUNTIME_FUNCTION func )
{
    struct frame_source *source = state->source;
    struct unwind_value *regs = state->regs, frame = regs[UNWIND_REG_RSP], addr;
    struct epilog_op ops[MAX_EPILOG_INSNS + 2];
    struct unwind_info info;
    unsigned int count, prolog_offset, chain;
    ULONG alloc;
    BOOL machine_frame = FALSE;
    int i, size;
    BYTE op, op_info;

    for (chain = 0; chain < 32; chain++)
    {
        ULONG64 start = base + func.BeginAddress, slots;

        if (!source->read( source, base + func.UnwindData, &info, 4 ) || (info.version != 1 && info.version != 2))
            return FALSE;
        slots = (info.count + 1) & ~1;
        if (!source->read( source, base + func.UnwindData + 4, info.codes, slots * sizeof(USHORT) ))
            return FALSE;

        /* the frame register as this entry finds it */
        if (info.frame_reg) frame = value_add( regs[info.frame_reg], -16 * (LONG64)info.frame_offset );

        if (pc >= start && pc < start + info.prolog) prolog_offset = pc - start;
        else
        {
            prolog_offset = ~0u;
            if (info.count)
            {
                switch (decode_epilog( source, pc, start, base + func.EndAddress, ops, &count ))
                {
                case IN_EPILOG: return run_epilog( state, ops, count );
                case EPILOG_UNREADABLE: return FALSE;
                case NOT_EPILOG: break;
                }
            }
        }

        for (i = 0; i < info.count; i += size)
        {
            op = unwind_code_op( info.codes[i] );
            op_info = unwind_code_info( info.codes[i] );
            size = unwind_code_size( op, op_info );
            if (i + size > info.count) return FALSE;
            if (prolog_offset < unwind_code_offset( info.codes[i] )) continue;  /* not executed yet */

            switch (op)
            {
            case UWOP_PUSH_NONVOL:
                if (!value_load( source, regs[UNWIND_REG_RSP], &regs[op_info] )) return FALSE;
                regs[UNWIND_REG_RSP] = value_add( regs[UNWIND_REG_RSP], sizeof(ULONG64) );
                break;
            case UWOP_ALLOC_LARGE:
                alloc = op_info ? unwind_code_long( &info.codes[i] ) : info.codes[i + 1] * 8;
                regs[UNWIND_REG_RSP] = value_add( regs[UNWIND_REG_RSP], alloc );
                break;
            case UWOP_ALLOC_SMALL:
                regs[UNWIND_REG_RSP] = value_add( regs[UNWIND_REG_RSP], op_info * 8 + 8 );
                break;
            case UWOP_SET_FPREG:
                regs[UNWIND_REG_RSP] = frame;
                break;
            case UWOP_SAVE_NONVOL:
            case UWOP_SAVE_NONVOL_FAR:
                addr = value_add( frame, op == UWOP_SAVE_NONVOL ? info.codes[i + 1] * 8
                                                                : unwind_code_long( &info.codes[i] ) );
                if (!value_load( source, addr, &regs[op_info] )) return FALSE;
                break;
            case UWOP_SAVE_XMM128:
            case UWOP_SAVE_XMM128_FAR:
                break;  /* the walk needs no xmm registers */
            case UWOP_PUSH_MACHFRAME:
                if ((info.flags & UNW_FLAG_CHAININFO) || i + size < info.count) break;
                if (!run_machine_frame( state, op_info )) return FALSE;
                machine_frame = TRUE;
                break;
            default:
                /* UWOP_EPILOG says nothing a walk needs either; like
                 * RtlVirtualUnwind, unknown codes are passed over */
                if (op != UWOP_EPILOG) WARN( "unknown unwind code %u\n", op );
                break;
            }
        }
        if (!(info.flags & UNW_FLAG_CHAININFO)) break;
        if (!source->read( source, base + func.UnwindData + 4 + slots * sizeof(USHORT), &func, sizeof(func) ))
            return FALSE;
    }
    if (chain == 32) return FALSE;
    if (machine_frame) return TRUE;
    if (!value_load( source, regs[UNWIND_REG_RSP], &regs[UNWIND_REG_RIP] )) return FALSE;
    regs[UNWIND_REG_RSP] = value_add( regs[UNWIND_REG_RSP], sizeof(ULONG64) );
    return TRUE;
}

/***********************************************************************
 *           unwind_pe_context
 *
 * unwind_pe_frame over the numbers of 'context' (Rip is the pc); it is
 * changed only when the unwind succeeds.
 */
BOOL unwind_pe_context( struct frame_source *source, ULONG64 base, const RUNTIME_FUNCTION *func, CONTEXT *context )
{
    struct unwind_state state;
    ULONG64 *regs = &context->Rax;  /* Rax ... R15 then Rip, as they follow each other in CONTEXT */
    unsigned int i;

    state.source = source;
    for (i = 0; i < ARRAY_SIZE(state.regs); i++)
    {
        state.regs[i].kind = VALUE_NUMBER;
        state.regs[i].off = regs[i];
    }
    if (!unwind_pe_frame( &state, base, context->Rip, *func )) return FALSE;
    for (i = 0; i < ARRAY_SIZE(state.regs); i++) regs[i] = state.regs[i].off;
    return TRUE;
}

#endif  /* __x86_64__ */

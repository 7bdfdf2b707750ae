/*
 * x64 unwind information (the .xdata a RUNTIME_FUNCTION points to)
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

#ifndef __WINE_NTDLL_UNWIND_CODES_H
#define __WINE_NTDLL_UNWIND_CODES_H

/* unwind codes (see RtlVirtualUnwind) */
#define UWOP_PUSH_NONVOL     0
#define UWOP_ALLOC_LARGE     1
#define UWOP_ALLOC_SMALL     2
#define UWOP_SET_FPREG       3
#define UWOP_SAVE_NONVOL     4
#define UWOP_SAVE_NONVOL_FAR 5
#define UWOP_EPILOG          6
#define UWOP_SAVE_XMM128     8
#define UWOP_SAVE_XMM128_FAR 9
#define UWOP_PUSH_MACHFRAME  10

struct unwind_info
{
    BYTE   version : 3;
    BYTE   flags : 5;
    BYTE   prolog;
    BYTE   count;
    BYTE   frame_reg : 4;
    BYTE   frame_offset : 4;
    USHORT codes[256];  /* up to 255, rounded up to an even count */
};

/* each code is a USHORT: the prolog offset it applies from, the operation
 * and its 4-bit argument; some take one or two more slots */
static inline BYTE unwind_code_offset( USHORT code ) { return code & 0xff; }
static inline BYTE unwind_code_op( USHORT code ) { return (code >> 8) & 0x0f; }
static inline BYTE unwind_code_info( USHORT code ) { return code >> 12; }

static inline int unwind_code_size( BYTE op, BYTE info )
{
    switch (op)
    {
    case UWOP_ALLOC_LARGE: return 2 + (info != 0);
    case UWOP_SAVE_NONVOL:
    case UWOP_SAVE_XMM128:
    case UWOP_EPILOG: return 2;
    case UWOP_SAVE_NONVOL_FAR:
    case UWOP_SAVE_XMM128_FAR: return 3;
    default: return 1;
    }
}

/* the 32-bit operand of UWOP_ALLOC_LARGE (info 1) and the _FAR codes */
static inline ULONG unwind_code_long( const USHORT *code )
{
    return code[1] | ((ULONG)code[2] << 16);
}

/*
 * unwind_codes.c: the one interpreter of unwind codes of our own, run by
 * the walks of other processes over numbers and by the recipe compiler over
 * symbols, with the rules of RtlVirtualUnwind (which walks this process) so
 * that a frame unwinds the same from inside its process and from outside.
 */
enum unwind_value_kind
{
    VALUE_NUMBER,     /* 'off' itself */
    VALUE_REGISTER,   /* register 'reg' as it was before the unwind, plus 'off' */
    VALUE_LOADED,     /* the 8 bytes at register 'reg' before the unwind plus 'off' */
    VALUE_UNKNOWN     /* anything else (the recipe compiler cannot say it) */
};

struct unwind_value
{
    BYTE    kind;
    BYTE    reg;
    ULONG64 off;
};

#define UNWIND_REG_RSP 4
#define UNWIND_REG_RIP 16

struct frame_source;

struct unwind_state
{
    struct frame_source *source;    /* reads code, unwind data and the stack */
    struct unwind_value  regs[17];  /* Rax ... R15 in CONTEXT order, then Rip */
};

extern BOOL unwind_pe_frame( struct unwind_state *state, ULONG64 base, ULONG64 pc,
                             RUNTIME_FUNCTION func );
extern BOOL unwind_pe_context( struct frame_source *source, ULONG64 base, const RUNTIME_FUNCTION *func,
                               CONTEXT *context );

#endif  /* __WINE_NTDLL_UNWIND_CODES_H */

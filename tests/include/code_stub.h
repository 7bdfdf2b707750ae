/*
 * A piece of generated code, as a JIT makes it: a function in memory of its
 * own that calls a target, with a RUNTIME_FUNCTION for it that no image
 * holds, ready for RtlAddFunctionTable or a function table callback.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __TEST_CODE_STUB_H
#define __TEST_CODE_STUB_H

#include <windows.h>

#ifdef __x86_64__  /* x86 has no function tables to register (RtlAddFunctionTable) */

struct code_stub
{
    BYTE             *code;        /* void stub(void): calls the target */
    RUNTIME_FUNCTION *func;        /* its entry, relative to 'code' */
    void             *after_call;  /* the return address of its call */
    ULONG_PTR         callback_id; /* for RtlInstallFunctionTableCallback */
};

static inline void make_code_stub( struct code_stub *stub, void (*target)(void) )
{
    static const BYTE code[] =
    {
        0x48, 0x83, 0xec, 0x28,                 /* sub $0x28,%rsp */
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,     /* movabs $target,%rax */
        0xff, 0xd0,                             /* call *%rax */
        0x48, 0x83, 0xc4, 0x28,                 /* add $0x28,%rsp */
        0xc3,                                   /* ret */
    };
    static const BYTE unwind_info[] =
    {
        0x01, 0x04, 0x01, 0x00,                 /* version 1, prologue 4 bytes, 1 code */
        0x04, 0x42, 0x00, 0x00,                 /* at 4: UWOP_ALLOC_SMALL 0x28 */
    };

    stub->code = VirtualAlloc( NULL, 0x1000, MEM_COMMIT, PAGE_EXECUTE_READWRITE );
    memcpy( stub->code, code, sizeof(code) );
    memcpy( stub->code + 6, &target, sizeof(target) );
    memcpy( stub->code + 0x40, unwind_info, sizeof(unwind_info) );
    stub->func = (RUNTIME_FUNCTION *)(stub->code + 0x80);
    stub->func->BeginAddress = 0;
    stub->func->EndAddress = sizeof(code);
    stub->func->UnwindData = 0x40;
    stub->after_call = stub->code + 16;
    /* callback tables are told apart from others by their two low bits */
    stub->callback_id = (ULONG_PTR)stub->code | 3;
    FlushInstructionCache( GetCurrentProcess(), stub->code, 0x1000 );
}

static inline void free_code_stub( struct code_stub *stub )
{
    VirtualFree( stub->code, 0, MEM_RELEASE );
}

#endif  /* __x86_64__ */

#endif  /* __TEST_CODE_STUB_H */

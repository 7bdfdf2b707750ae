/*
 * A test DLL for back-traces through code that changes under the same
 * address: call_back( func, arg ) calls func( arg ) from a frame of 0x30
 * bytes (saved %rbx, 0x20 of locals, the return address). unwind_b.S
 * builds the same code with other SAVED_REG and LOCALS: the same bytes up
 * to the return address, a frame laid out differently.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef SAVED_REG
#define SAVED_REG %rbx
#define LOCALS    0x20
#endif

        .text
        .globl call_back
        .def call_back; .scl 2; .type 32; .endef
        .seh_proc call_back
call_back:
        pushq SAVED_REG
        .seh_pushreg SAVED_REG
        subq $LOCALS, %rsp
        .seh_stackalloc LOCALS
        .seh_endprologue
        movq %rcx, %rax
        movq %rdx, %rcx
        call *%rax
        addq $LOCALS, %rsp
        popq SAVED_REG
        ret
        .seh_endproc

        .globl dll_entry
        .def dll_entry; .scl 2; .type 32; .endef
        .seh_proc dll_entry
dll_entry:
        .seh_endprologue
        movl $1, %eax
        ret
        .seh_endproc

        .section .drectve
        .ascii " -export:call_back"

/*
 * A test DLL for back-traces through code that changes under the same
 * address: call_back( func, arg ) calls func( arg ) from a frame of 0x30
 * bytes. unwind_b.S has the same code bytes up to the return address, with
 * a larger frame.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

        .text
        .globl call_back
        .def call_back; .scl 2; .type 32; .endef
        .seh_proc call_back
call_back:
        pushq %rbx
        .seh_pushreg %rbx
        subq $0x20, %rsp
        .seh_stackalloc 0x20
        .seh_endprologue
        movq %rcx, %rax
        movq %rdx, %rcx
        call *%rax
        addq $0x20, %rsp
        popq %rbx
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

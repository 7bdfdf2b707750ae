/*
 * A test DLL with a TLS directory and no C runtime: loading it makes the
 * loader give every thread of the process a slot for tls_template.
 * tls_index is exported so that a test can find each thread's copy.
 * Built for x86-64 and for i386 (a 32-bit program's, in WoW64 mode: the
 * 32-bit TLS directory, C names with a leading underscore, a stdcall entry).
 *
 * 32-bit: built
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifdef __i386__
#define PTR .long
#define SYM(name) _##name
#else
#define PTR .quad
#define SYM(name) name
#endif

        .section .tls$AAA,"w"
        .p2align 3
tls_template:
        .quad 0x1122334455667788
        .section .tls$ZZZ,"w"
tls_template_end:

        .data
        .p2align 2
        .globl SYM(tls_index)
SYM(tls_index):
        .long 0

/* IMAGE_TLS_DIRECTORY64 (IMAGE_TLS_DIRECTORY32 on i386); the linker points
 * the TLS data directory at _tls_used */
        .section .rdata,"dr"
        .p2align 3
        .globl SYM(_tls_used)
SYM(_tls_used):
        PTR tls_template            /* StartAddressOfRawData */
        PTR tls_template_end        /* EndAddressOfRawData */
        PTR SYM(tls_index)          /* AddressOfIndex */
        PTR 0                       /* AddressOfCallBacks */
        .long 0                     /* SizeOfZeroFill */
        .long 0                     /* Characteristics */

        .text
        .globl SYM(dll_entry)
SYM(dll_entry):
        movl $1, %eax
#ifdef __i386__
        ret $12                     /* DllMain is stdcall: three arguments */
#else
        ret
#endif

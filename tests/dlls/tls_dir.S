/*
 * A test DLL with a TLS directory and no C runtime: loading it makes the
 * loader give every thread of the process a slot for tls_template.
 * tls_index is exported so that a test can find each thread's copy.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

        .section .tls$AAA,"w"
        .p2align 3
tls_template:
        .quad 0x1122334455667788
        .section .tls$ZZZ,"w"
tls_template_end:

        .data
        .p2align 2
        .globl tls_index
tls_index:
        .long 0

/* IMAGE_TLS_DIRECTORY64; the linker points the TLS data directory at _tls_used */
        .section .rdata,"dr"
        .p2align 3
        .globl _tls_used
_tls_used:
        .quad tls_template          /* StartAddressOfRawData */
        .quad tls_template_end      /* EndAddressOfRawData */
        .quad tls_index             /* AddressOfIndex */
        .quad 0                     /* AddressOfCallBacks */
        .long 0                     /* SizeOfZeroFill */
        .long 0                     /* Characteristics */

        .text
        .globl dll_entry
dll_entry:
        movl $1, %eax
        ret

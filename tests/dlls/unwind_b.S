/*
 * unwind_a.S with a frame of 0x50 bytes (saved %rbp, 0x40 of locals, the
 * return address) under the same code bytes up to the return address.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define SAVED_REG %rbp
#define LOCALS    0x40
#include "unwind_a.S"

/*
 * Stack back-traces: the frame-stepping core and this process's frames
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

#ifndef __WINE_NTDLL_BACKTRACE_H
#define __WINE_NTDLL_BACKTRACE_H

#include "frame_source.h"

struct stack_limits
{
    ULONG64 low;
    ULONG64 high;
};

/* the core, and this process's frames for walks of any of its threads */
extern BOOL is_user_dispatcher( ULONG64 start );
extern ULONG walk_stack_frames( struct frame_source *source, CONTEXT *context, BOOL from_call, ULONG skip,
                                ULONG count, void **buffer, void **stack, const struct stack_limits *limits,
                                BOOL buffer_faults );
extern struct frame_source thread_frame_source;

/* 32-bit code: the frame-pointer chain of a stack of this process */
extern ULONG walk_x86_frames( ULONG ebp, ULONG low, ULONG high, ULONG skip, ULONG count, void **buffer,
                              void **frame_ptrs, BOOL buffer_faults );

#endif  /* __WINE_NTDLL_BACKTRACE_H */

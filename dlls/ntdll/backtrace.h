/*
 * Stack back-traces: the frame-stepping core and where frames are read from
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

struct stack_limits
{
    ULONG64 low;
    ULONG64 high;
};

enum unwind_result
{
    UNWIND_FAILED,
    UNWOUND,          /* with PE unwind data */
    UNWOUND_HOST,     /* a host ELF frame */
    NO_UNWIND_DATA    /* the caller decides whether a leaf may stand here */
};

/* The frames of this process, or of another one read through a handle:
 * the walk's rules are the same, only where the data comes from differs. */
struct frame_source
{
    /* unwind the frame of context->Rip, a return address or not; *start
     * gets its function's start */
    enum unwind_result (*unwind)( struct frame_source *source, CONTEXT *context, BOOL return_address,
                                  ULONG64 *start );
    BOOL (*read)( struct frame_source *source, ULONG64 addr, void *buffer, SIZE_T size );
    /* is this the start of a dispatcher entered through a machine frame? */
    BOOL (*is_dispatcher)( ULONG64 start );
};

/* the core, and this process's frames for walks of any of its threads */
extern BOOL is_user_dispatcher( ULONG64 start );
extern ULONG walk_stack( struct frame_source *source, CONTEXT *context, BOOL from_call, ULONG skip, ULONG count,
                         void **buffer, void **stack, const struct stack_limits *limits,
                         BOOL buffer_faults );
extern struct frame_source thread_frame_source;

/* remote_frames.c */
extern NTSTATUS walk_remote_thread( const THREAD_BASIC_INFORMATION *info, CONTEXT *context, ULONG skip,
                                    ULONG count, void **frames, void **stack_ptrs,
                                    ULONG *ret_count );

#endif  /* __WINE_NTDLL_BACKTRACE_H */

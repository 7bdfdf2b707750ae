/*
 * Stack back-traces: where a walk reads frames from
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

#ifndef __WINE_NTDLL_FRAME_SOURCE_H
#define __WINE_NTDLL_FRAME_SOURCE_H

/*
 * The bottom of the back-trace files: the frame-stepping core
 * (backtrace.c), the frame sources above it (backtrace.c, remote_frames.c)
 * and the unwinders below it (unwind_codes.c, unwind_cache.c) all meet
 * here, so that none of them includes the header of a file above it.
 * Nothing of ours is included from here.
 */

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

#endif  /* __WINE_NTDLL_FRAME_SOURCE_H */

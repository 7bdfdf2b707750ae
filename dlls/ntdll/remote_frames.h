/*
 * Stack back-traces of threads of other processes
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

#ifndef __WINE_NTDLL_REMOTE_FRAMES_H
#define __WINE_NTDLL_REMOTE_FRAMES_H

extern NTSTATUS walk_remote_thread( const THREAD_BASIC_INFORMATION *info, CONTEXT *context, ULONG skip,
                                    ULONG count, void **frames, void **stack_ptrs,
                                    ULONG *ret_count );

#endif  /* __WINE_NTDLL_REMOTE_FRAMES_H */

/*
 * GetThreadCallStack of a blocked 32-bit (WoW64) thread, without suspending it
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

#ifndef __WINE_COREDLL_WOW64_WALK_H
#define __WINE_COREDLL_WOW64_WALK_H

/* 'frames' gets the thread's 32-bit Eip then its return addresses (at most
 * 'want' in all), 'frame_ptrs' each frame's EBP */
extern BOOL walk_blocked_wow64_thread( HANDLE thread, const THREAD_BASIC_INFORMATION *info, ULONG want,
                                       void **frames, void **frame_ptrs, ULONG *count, NTSTATUS *status );

/* the same of a thread held still where its 32-bit context is its own */
extern NTSTATUS walk_held_wow64_thread( HANDLE thread, const THREAD_BASIC_INFORMATION *info, ULONG want,
                                        void **frames, void **frame_ptrs, ULONG *count );

#endif  /* __WINE_COREDLL_WOW64_WALK_H */

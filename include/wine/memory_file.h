/*
 * Reading other processes' memory without a server round trip a read
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

#ifndef __WINE_WINE_MEMORY_FILE_H
#define __WINE_WINE_MEMORY_FILE_H

/* ntdll (memory_file.c): read 'size' bytes at 'addr' of process 'pid', all
 * or none, as NtReadVirtualMemory would with a handle of PROCESS_VM_READ
 * access; the process is opened once and kept, and reads are preads of a
 * file of its memory, without a server round trip where the kernel allows */
NTSYSAPI NTSTATUS WINAPI __wine_read_process_memory( ULONG pid, const void *addr, void *buffer, SIZE_T size );

#endif  /* __WINE_WINE_MEMORY_FILE_H */

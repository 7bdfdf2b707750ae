/*
 * Reading a client process's memory without stopping it
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

#ifndef __WINE_SERVER_PROCESS_MEMORY_H
#define __WINE_SERVER_PROCESS_MEMORY_H

/* Reads all of [ptr, ptr + size) or nothing: 1 when read, 0 when the
 * memory is not readable (error set as read_process_memory sets it), -1
 * when the kernel does not let the server read it this way (nothing set:
 * the caller may try another way). */
extern int read_process_memory_unstopped( struct process *process, client_ptr_t ptr, data_size_t size,
                                          void *dest );

/* One piece of a process's memory to read with others. */
struct memory_piece
{
    client_ptr_t addr;
    data_size_t  size;
    void        *dest;
    int          state;     /* PIECE_* */
};

enum piece_state
{
    PIECE_UNREAD,           /* not read: the kernel refused this way */
    PIECE_READ,             /* read whole */
    PIECE_UNREADABLE        /* not mapped or not readable, at least in part */
};

#define MAX_MEMORY_PIECES 256

/* Reads the pieces together where the kernel allows (process_vm_readv:
 * one system call for MAX_MEMORY_PIECES spans of them, a span being pieces
 * close together on one page); says in each piece's state how it went.
 * Sets no error. */
extern void read_process_memory_pieces( struct process *process, struct memory_piece *pieces,
                                        unsigned int count );

#endif  /* __WINE_SERVER_PROCESS_MEMORY_H */

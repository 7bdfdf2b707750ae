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

#include <stdarg.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wine/server.h"
#include "wine/debug.h"
#include "wine/memory_file.h"

WINE_DEFAULT_DEBUG_CHANNEL(backtrace);

/*
 * The walkers of other processes (remote_frames.c, coredll's blocked
 * walks, wctdump) read the same few processes again and again. Each
 * NtReadVirtualMemory is a server round trip; here a process is opened
 * once (PROCESS_VM_READ, checked then), the server gives a read-only file
 * of its memory (server/memory_file.c), and every read is an NtReadFile at
 * the address: a pread in this process, which stops nothing in the target.
 *
 * A few processes are kept, each with its process handle: while it is
 * held the server cannot give its id to another process, so a kept entry
 * is the process of that id for as long as it is kept, and its file reads
 * that process's address space or, once it has exited, nothing. A process
 * found exited (its file reads nothing, the server says it is terminating)
 * is let go at once and not kept again, so that its id is freed with it
 * and the next process of that id is opened anew. Where the server has no
 * file to give (not Linux, the kernel refuses), the reads go through the
 * kept handle and the server, as before.
 */

#define KEPT_PROCESSES 8

struct kept_process
{
    ULONG  pid;       /* 0: empty */
    HANDLE process;
    HANDLE file;      /* NULL: read through the server */
};

static struct kept_process kept[KEPT_PROCESSES];
static unsigned int next_victim;
/* shared while an entry is used, exclusive while one is changed */
static RTL_SRWLOCK kept_lock = RTL_SRWLOCK_INIT;

static struct kept_process *find_kept( ULONG pid )
{
    unsigned int i;

    for (i = 0; i < KEPT_PROCESSES; i++) if (kept[i].pid == pid) return &kept[i];
    return NULL;
}

static void clear_kept( struct kept_process *entry )
{
    if (entry->file) NtClose( entry->file );
    if (entry->process) NtClose( entry->process );
    entry->pid = 0;
    entry->process = entry->file = NULL;
}

/* open 'pid' and its memory file into an entry; the lock is held exclusively */
static NTSTATUS keep_process( ULONG pid )
{
    OBJECT_ATTRIBUTES attr = { sizeof(attr) };
    CLIENT_ID id = { ULongToHandle( pid ), 0 };
    struct kept_process *entry;
    HANDLE process, file = NULL;
    NTSTATUS status;

    if (find_kept( pid )) return STATUS_SUCCESS;  /* another thread was first */
    if ((status = NtOpenProcess( &process, PROCESS_VM_READ, &attr, &id ))) return status;
    SERVER_START_REQ( open_process_memory )
    {
        req->handle = wine_server_obj_handle( process );
        if (!(status = wine_server_call( req ))) file = wine_server_ptr_handle( reply->file );
    }
    SERVER_END_REQ;
    /* an exited process is not kept: the handle would keep its id from
     * being freed, long after the process is gone */
    if (status == STATUS_PROCESS_IS_TERMINATING)
    {
        NtClose( process );
        return status;
    }
    TRACE( "process %04lx: %s\n", pid, file ? "reading its memory file" : "reading through the server" );

    entry = &kept[next_victim++ % KEPT_PROCESSES];
    clear_kept( entry );
    entry->pid = pid;
    entry->process = process;
    entry->file = file;
    return STATUS_SUCCESS;
}

/* the kept file said the address space is gone: the process exited */
static void forget_process( ULONG pid, HANDLE file )
{
    struct kept_process *entry;

    RtlAcquireSRWLockExclusive( &kept_lock );
    if ((entry = find_kept( pid )) && entry->file == file) clear_kept( entry );
    RtlReleaseSRWLockExclusive( &kept_lock );
}

/* one read through a kept entry, the lock held shared; *file gets the file
 * read, if any */
static NTSTATUS read_kept( struct kept_process *entry, ULONG64 addr, void *buffer, SIZE_T size, HANDLE *file )
{
    IO_STATUS_BLOCK io;
    LARGE_INTEGER offset;
    SIZE_T got = 0;
    NTSTATUS status;

    *file = entry->file;
    if (!entry->file)
    {
        status = NtReadVirtualMemory( entry->process, (void *)(ULONG_PTR)addr, buffer, size, &got );
        return !status && got != size ? STATUS_PARTIAL_COPY : status;
    }
    offset.QuadPart = addr;
    status = NtReadFile( entry->file, NULL, NULL, NULL, &io, buffer, size, &offset, NULL );
    if (status == STATUS_END_OF_FILE) return STATUS_PROCESS_IS_TERMINATING;
    if (status) return STATUS_PARTIAL_COPY;  /* not mapped, or not readable */
    return io.Information == size ? STATUS_SUCCESS : STATUS_PARTIAL_COPY;
}

/***********************************************************************
 *           __wine_read_process_memory   (NTDLL.@)
 *
 * Read 'size' bytes at 'addr' of the process whose id is 'pid', all or
 * none, as NtReadVirtualMemory does with a handle of PROCESS_VM_READ
 * access, which the first read of a process opens.
 */
NTSTATUS WINAPI __wine_read_process_memory( ULONG pid, const void *addr, void *buffer, SIZE_T size )
{
    struct kept_process *entry;
    NTSTATUS status;
    HANDLE file;
    int tries;

    if (!size) return STATUS_SUCCESS;
#ifdef _WIN64
    /* the file's offsets are signed, and the top ones mean "where the file
     * pointer is" to NtReadFile: no process maps anything there (a 32-bit
     * caller's addresses and sizes stay far below) */
    if (size > 0x7fffffffffffffffull || (ULONG_PTR)addr > 0x7fffffffffffffffull - size) return STATUS_PARTIAL_COPY;
#endif

    for (tries = 0; tries < 3; tries++)
    {
        RtlAcquireSRWLockShared( &kept_lock );
        if ((entry = find_kept( pid )))
        {
            status = read_kept( entry, (ULONG_PTR)addr, buffer, size, &file );
            RtlReleaseSRWLockShared( &kept_lock );
            if (status != STATUS_PROCESS_IS_TERMINATING) return status;
            /* the process kept has exited; a new one may have its id now */
            forget_process( pid, file );
            continue;
        }
        RtlReleaseSRWLockShared( &kept_lock );

        RtlAcquireSRWLockExclusive( &kept_lock );
        status = keep_process( pid );
        RtlReleaseSRWLockExclusive( &kept_lock );
        if (status) return status;
    }
    return STATUS_PROCESS_IS_TERMINATING;
}

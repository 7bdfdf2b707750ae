/*
 * A file of a process's memory, for readers that read it many times
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

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"

#include "file.h"
#include "handle.h"
#include "object.h"
#include "process.h"
#include "request.h"
#include "thread.h"

/*
 * A stack walker, a profiler or a hang reporter reads the same process
 * hundreds of times a walk, and each NtReadVirtualMemory is a round trip
 * to the server. Instead, a client that may read a process
 * (PROCESS_VM_READ) gets a handle to a read-only file of its memory and
 * reads it with NtReadFile at the address as offset: a pread in the
 * client, no server, nothing stopped. The file is the mem file of a live
 * task of the process, opened by the server, which the kernel lets read
 * it (the client made the server its tracer); the client could not open
 * it itself where Yama restricts ptrace to descendants. An open mem file
 * reads the address space it was opened on and no other: once that is
 * gone (the process exited or exec'd), it reads 0 bytes, whatever became
 * of the pid. Opening it checks the permission; reading it checks none.
 */

#ifdef __linux__

#define MAX_TASKS 64  /* tasks tried: bounds the walk of a big process */

/* the mem file of a live task of 'process', proven to read its address
 * space (its PEB), or -1 */
static int open_mem_file( struct process *process )
{
    struct thread *thread;
    unsigned int tried = 0;
    char path[48], byte;
    ssize_t ret;
    int fd;

    if (process->unix_pid == -1 || !process->peb) return -1;
    LIST_FOR_EACH_ENTRY( thread, &process->thread_list, struct thread, proc_entry )
    {
        if (thread->state == TERMINATED || thread->unix_tid == -1) continue;
        if (tried++ >= MAX_TASKS) break;
        snprintf( path, sizeof(path), "/proc/%d/task/%d/mem", process->unix_pid, thread->unix_tid );
        if ((fd = open( path, O_RDONLY | O_CLOEXEC )) == -1) continue;
        do ret = pread( fd, &byte, 1, process->peb ); while (ret == -1 && errno == EINTR);
        /* 0 bytes: that task has no address space any more (an exited leader) */
        if (ret == 1) return fd;
        close( fd );
    }
    return -1;
}

#else

static int open_mem_file( struct process *process )
{
    return -1;
}

#endif

/* open a file of a process's memory */
DECL_HANDLER(open_process_memory)
{
    struct process *process;
    struct file *file;
    int fd;

    if (!(process = get_process_from_handle( req->handle, PROCESS_VM_READ ))) return;
    /* an exited process is not kept by the client: its id is freed once
     * every handle is closed, and may name another process then */
    if (!process->running_threads) set_error( STATUS_PROCESS_IS_TERMINATING );
    /* where the kernel refuses, the client reads through the server as before */
    else if ((fd = open_mem_file( process )) == -1) set_error( STATUS_NOT_SUPPORTED );
    else if ((file = create_file_for_fd( fd, FILE_READ_DATA | SYNCHRONIZE, FILE_SHARE_READ )))
    {
        reply->file = alloc_handle( current->process, file, FILE_READ_DATA | SYNCHRONIZE, 0 );
        release_object( file );
    }
    release_object( process );
}

/* Where a thread's TEB is and who it is, as get_thread_info tells, and
 * whether the caller may read its process's memory: the access check
 * OpenProcess( PROCESS_VM_READ ) makes, with the caller's token of the
 * moment. A walk of another process's thread needs both; one round trip
 * instead of three (query, open, close). */
DECL_HANDLER(get_thread_walk_info)
{
    struct thread *thread;
    obj_handle_t handle;

    if (!(thread = get_thread_from_handle( req->handle, THREAD_QUERY_LIMITED_INFORMATION ))) return;
    reply->pid       = get_process_id( thread->process );
    reply->tid       = get_thread_id( thread );
    reply->teb       = thread->teb;
    reply->exit_code = thread->state == TERMINATED ? thread->exit_code : STATUS_PENDING;
    reply->read_status = STATUS_SUCCESS;
    if (thread->process != current->process)
    {
        /* a handle made and dropped at once: the check is alloc_handle's */
        if ((handle = alloc_handle( current->process, thread->process, PROCESS_VM_READ, 0 )))
            close_handle( current->process, handle );
        else
        {
            reply->read_status = get_error() ? get_error() : STATUS_ACCESS_DENIED;
            clear_error();
        }
    }
    release_object( thread );
}

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

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/uio.h>
#endif

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"

#include "file.h"
#include "object.h"
#include "process.h"
#include "thread.h"
#include "process_memory.h"

/*
 * Wine's read_process_memory ptrace-stops a thread of the target for every
 * read, even when it then reads /proc/PID/mem: a debugger, a profiler or a
 * hang reporter reading another process thousands of times makes its
 * threads run, stop and run again thousands of times. Windows' reads stop
 * nothing, and neither does the kernel need them to: the mem file of any
 * task of the process reads the address space as it is, with the same
 * permission check as ptrace (the client has made the server its tracer
 * with PR_SET_PTRACER). That of the thread-group leader fails once the
 * leader has exited while the process lives on in its other threads, so a
 * live task's is used.
 *
 * An open mem file refers to the address space, not to the task: it goes on
 * reading after its task exits, and reads nothing (0 bytes) once the address
 * space is gone (the process exited or exec'd). So a file kept open can never
 * read another process's memory, whatever became of the pid; a read of 0
 * bytes says it is stale, and a live task's is opened again. A few are kept
 * open, since a reader reads the same few processes again and again.
 */

#ifdef __linux__

#define KEPT_FILES  8
#define MAX_TASKS   64    /* tasks tried when opening: bounds the walk of a big process */

struct mem_file
{
    struct process *process;
    process_id_t    id;
    int             unix_pid;
    int             fd;      /* -1: empty */
};

static struct mem_file mem_files[KEPT_FILES] = { { NULL, 0, -1, -1 }, { NULL, 0, -1, -1 }, { NULL, 0, -1, -1 },
                                                 { NULL, 0, -1, -1 }, { NULL, 0, -1, -1 }, { NULL, 0, -1, -1 },
                                                 { NULL, 0, -1, -1 }, { NULL, 0, -1, -1 } };
static unsigned int next_victim;

static void close_mem_file( struct mem_file *file )
{
    if (file->fd != -1) close( file->fd );
    file->fd = -1;
    file->process = NULL;
}

/* pread until all is read; the bytes read, or -1 with errno */
static ssize_t read_all( int fd, client_ptr_t ptr, data_size_t size, char *dest )
{
    data_size_t done = 0;
    ssize_t ret;

    while (done < size)
    {
        ret = pread( fd, dest + done, size - done, ptr + done );
        if (ret < 0 && errno == EINTR) continue;
        if (ret < 0) return done ? done : -1;
        if (!ret) break;
        done += ret;
    }
    return done;
}

/* Reads through a task's mem file. Returns the file (kept) when it could
 * read the address space, 0 bytes or not; *result is the pread's. */
static int try_task( struct process *process, int tid, client_ptr_t ptr, data_size_t size, char *dest,
                     ssize_t *result )
{
    char path[48];
    int fd;

    snprintf( path, sizeof(path), "/proc/%d/task/%d/mem", process->unix_pid, tid );
    if ((fd = open( path, O_RDONLY | O_CLOEXEC )) == -1) return -1;
    /* 0 bytes: this task has no address space any more (an exited leader) */
    if (!(*result = read_all( fd, ptr, size, dest )))
    {
        close( fd );
        return -1;
    }
    return fd;
}

int read_process_memory_unstopped( struct process *process, client_ptr_t ptr, data_size_t size, void *dest )
{
    struct mem_file *file = NULL;
    struct thread *thread;
    unsigned int i, tried = 0;
    int fd = -1;
    ssize_t ret = 0;

    if (!size) return 1;
    if (process->unix_pid == -1) return -1;
    /* beyond any address the kernel maps (mem's offsets are signed) */
    if (ptr > 0x7fffffffffffffffull - size)
    {
        errno = EIO;
        file_set_error();
        return 0;
    }

    for (i = 0; i < KEPT_FILES; i++)
        if (mem_files[i].fd != -1 && mem_files[i].process == process && mem_files[i].id == process->id &&
            mem_files[i].unix_pid == process->unix_pid)
            file = &mem_files[i];
    if (file)
    {
        if ((ret = read_all( file->fd, ptr, size, dest ))) goto done;
        close_mem_file( file );  /* stale: the address space it read is gone */
    }

    LIST_FOR_EACH_ENTRY( thread, &process->thread_list, struct thread, proc_entry )
    {
        if (thread->state == TERMINATED || thread->unix_tid == -1) continue;
        if (tried++ >= MAX_TASKS) break;
        if ((fd = try_task( process, thread->unix_tid, ptr, size, (char *)dest, &ret )) != -1) break;
    }
    /* no task to read through (all exiting, or the kernel refuses): the
     * caller's other way says which */
    if (fd == -1) return -1;

    file = &mem_files[next_victim++ % KEPT_FILES];
    close_mem_file( file );
    file->process = process;
    file->id = process->id;
    file->unix_pid = process->unix_pid;
    file->fd = fd;

done:
    if (ret == size) return 1;
    /* a page that is not mapped or not readable, as ptrace reports it */
    if (ret >= 0) errno = EIO;
    if (errno == EPERM || errno == EACCES) return -1;
    file_set_error();
    return 0;
}

/*
 * Many small pieces at once. A wait chain reads the wait record of each
 * thread it passes and the owner of each critical section: 16 and 8 bytes
 * at addresses spread over the process, each a pread of the mem file, one
 * after the other. process_vm_readv reads them all in one system call,
 * with the same permission check as the mem file and nothing stopped. It
 * copies its pieces in order and stops at the first it cannot read whole,
 * saying how many bytes it copied: the pieces before it are read, that one
 * is unreadable, and the next call starts after it, so each call settles at
 * least one piece and the pieces take at most as many calls as there are.
 * It names the process by its pid, that of the thread-group leader, which
 * stays the process's while any of its threads lives (a leader that exited
 * before the others is a zombie holding it) and has no memory to read once
 * it has exited: the kernel then says ESRCH, and the caller reads the pieces
 * through a live task's mem file as before.
 *
 * The kernel's cost is per remote piece (it finds and pins the piece's
 * page), about a fifth of the call's own. So pieces that follow each other
 * on one page, in order and without overlapping, within SPAN_MAX bytes of
 * the first (the owners of critical sections in an array), are read as one
 * span through a buffer: a page is readable whole or not at all, so the
 * bytes between them change nothing of which pieces are read. Pieces at
 * the same address (a record read twice, to see that it did not change)
 * stay apart.
 */
#define SPAN_MAX    512
#define SPAN_PAGE   4096   /* no page is smaller */
#define SPAN_BUFFER 4096

struct span
{
    unsigned int first;    /* its pieces */
    unsigned int count;
    client_ptr_t start;    /* what it reads */
    data_size_t  size;
    char        *buffer;   /* NULL: one piece, read into its own dest */
};

/* Does 'piece' join the span [start, end)? */
static int joins_span( client_ptr_t start, client_ptr_t end, const struct memory_piece *piece )
{
    return piece->state == PIECE_UNREAD && piece->addr >= end && piece->size &&
           piece->addr + piece->size - start <= SPAN_MAX &&
           (piece->addr + piece->size - 1) / SPAN_PAGE == start / SPAN_PAGE;
}

/* Makes the spans of the unread pieces from 'first' on, as many as one
 * call takes; returns their count and sets *next after the last one. */
static unsigned int make_spans( struct memory_piece *pieces, unsigned int count, unsigned int first,
                                struct span *spans, char *buffer, unsigned int *next )
{
    unsigned int i = first, j, n, used = 0;
    client_ptr_t end;

    for (n = 0; n < MAX_MEMORY_PIECES && i < count && pieces[i].state == PIECE_UNREAD; n++)
    {
        struct span *span = &spans[n];

        span->first = i;
        span->start = pieces[i].addr;
        end = pieces[i].addr + pieces[i].size;
        for (j = i + 1; j < count && joins_span( span->start, end, &pieces[j] ); j++)
            end = pieces[j].addr + pieces[j].size;
        span->count = j - i;
        span->size = end - span->start;
        span->buffer = NULL;
        if (span->count > 1 && used + span->size <= SPAN_BUFFER)
        {
            span->buffer = buffer + used;
            used += span->size;
        }
        else
        {
            span->count = 1;
            span->size = pieces[i].size;
        }
        i += span->count;
    }
    *next = i;
    return n;
}

/* Settles a span's pieces: read whole, or all unreadable (one page). */
static void settle_span( struct memory_piece *pieces, const struct span *span, int read )
{
    unsigned int i;

    for (i = span->first; i < span->first + span->count; i++)
    {
        pieces[i].state = read ? PIECE_READ : PIECE_UNREADABLE;
        if (read && span->buffer)
            memcpy( pieces[i].dest, span->buffer + (pieces[i].addr - span->start), pieces[i].size );
    }
}

void read_process_memory_pieces( struct process *process, struct memory_piece *pieces, unsigned int count )
{
    struct iovec local[MAX_MEMORY_PIECES], remote[MAX_MEMORY_PIECES];
    struct span spans[MAX_MEMORY_PIECES];
    char buffer[SPAN_BUFFER];
    unsigned int i, start = 0, next, n;
    ssize_t ret;

    for (i = 0; i < count; i++)
        pieces[i].state = pieces[i].addr > 0x7fffffffffffffffull - pieces[i].size ? PIECE_UNREADABLE : PIECE_UNREAD;
    if (process->unix_pid == -1 || !process->running_threads) return;

    while (start < count)
    {
        if (!(n = make_spans( pieces, count, start, spans, buffer, &next )))
        {
            start++;  /* an address beyond any mapping, settled above */
            continue;
        }
        for (i = 0; i < n; i++)
        {
            local[i].iov_base = spans[i].buffer ? spans[i].buffer : pieces[spans[i].first].dest;
            local[i].iov_len = spans[i].size;
            remote[i].iov_base = (void *)(unsigned long)spans[i].start;
            remote[i].iov_len = spans[i].size;
        }
        ret = process_vm_readv( process->unix_pid, local, n, remote, n, 0 );
        if (ret < 0 && errno != EFAULT) return;  /* ENOSYS, EPERM, ESRCH: the mem file's way */
        if (ret < 0) ret = 0;
        for (i = 0; i < n && (size_t)ret >= spans[i].size; i++)
        {
            settle_span( pieces, &spans[i], 1 );
            ret -= spans[i].size;
        }
        if (i < n)
        {
            settle_span( pieces, &spans[i], 0 );
            next = spans[i].first + spans[i].count;
        }
        start = next;
    }
}

#else  /* __linux__ */

void read_process_memory_pieces( struct process *process, struct memory_piece *pieces, unsigned int count )
{
    unsigned int i;

    for (i = 0; i < count; i++) pieces[i].state = PIECE_UNREAD;
}

int read_process_memory_unstopped( struct process *process, client_ptr_t ptr, data_size_t size, void *dest )
{
    return -1;
}

#endif  /* __linux__ */

/*
 * What Linux says of a thread a wait chain passes: the host system call
 * it sleeps in, and its context switches
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

#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"

#include "file.h"
#include "object.h"
#include "process.h"
#include "request.h"
#include "thread.h"
#include "process_memory.h"
#include "wait_host.h"
#include "wine/host_calls.h"

/*
 * Threads blocked in host system calls.
 *
 * A thread may block where neither the server nor a wait record sees it: in
 * a read() or poll() of a Unix pipe or FIFO behind a synchronous ReadFile
 * (a standard input that is a pipe), or in a poll() of a driver's unix
 * library (winebus, wineusb). Linux says which system call a sleeping
 * thread is in, and with which arguments, in /proc/PID/task/TID/syscall
 * ("running" while it runs), without stopping or waking it. A thread is
 * blocked there when it sleeps in one of the calls of wine/host_calls.h,
 * which wait for something outside the thread; a read or a receive of the
 * thread's own request, reply or wait pipe is the thread waiting for this
 * server, which answers it once it is done with this request: that thread
 * is running, as any thread in a system call that does not wait is on
 * Windows.
 */
enum host_call_args
{
    HOST_CALL_FD,        /* arg 0 is a descriptor */
    HOST_CALL_POLL,      /* arg 0 is a struct pollfd array, arg 1 its size */
    HOST_CALL_NONE       /* nothing to describe */
};

#ifdef __x86_64__
static const struct { int nr; enum host_call_args args; } host_calls[] =
{
#define HOST_CALL( nr, name, args ) { nr, HOST_CALL_##args },
    HOST_CALLS
#undef HOST_CALL
};
#else
static const struct { int nr; enum host_call_args args; } host_calls[1] = { { -1, HOST_CALL_NONE } };
#endif

/* A host call's WaitTime: Linux does not say when a sleep began. The server
 * remembers when it first saw a thread blocked in a call; the thread's
 * context switches do not change while it stays blocked, so the same count
 * in the same call is the same block. A lower bound, counted from the
 * first query that saw it. */
#define HOST_BLOCKS 64

static struct host_block
{
    thread_id_t  tid;           /* 0: free */
    int          unix_tid;
    int          nr;
    unsigned int switches;
    timeout_t    since;
} host_blocks[HOST_BLOCKS];

static timeout_t host_block_since( struct thread *thread, int nr, unsigned int switches )
{
    struct host_block *block = NULL, *oldest = &host_blocks[0];
    unsigned int i;

    for (i = 0; i < HOST_BLOCKS && !block; i++)
    {
        if (host_blocks[i].tid == thread->id) block = &host_blocks[i];
        else if (host_blocks[i].since < oldest->since) oldest = &host_blocks[i];
    }
    if (!block) block = oldest;
    if (block->tid != thread->id || block->unix_tid != thread->unix_tid || block->nr != nr ||
        block->switches != switches)
    {
        block->tid = thread->id;
        block->unix_tid = thread->unix_tid;
        block->nr = nr;
        block->switches = switches;
        block->since = monotonic_time;
    }
    return block->since;
}

/* What descriptor 'fd' of the thread's process is, as /proc links it:
 * "pipe:[N]", "socket:[N]", a file name. readlink() only reads the link:
 * nothing of the file behind it is touched, so a file on a server that does
 * not answer cannot hold up this one. */
static int read_fd_link( struct thread *thread, long long fd, char *target, size_t size )
{
    char path[64];
    ssize_t got;

    if (fd < 0 || fd > INT_MAX) return 0;
    snprintf( path, sizeof(path), "/proc/%d/task/%d/fd/%d", thread->unix_pid, thread->unix_tid, (int)fd );
    if ((got = readlink( path, target, size - 1 )) <= 0) return 0;
    target[got] = 0;
    return 1;
}

/* Is this link one of the pipes the thread talks to the server through, or
 * its process's socket to the server? Pipes and sockets are named by their
 * inode, which fstat() of the server's own ends gives. */
static int is_server_pipe( struct thread *thread, const char *link )
{
    struct fd *pipes[] = { thread->request_fd, thread->reply_fd, thread->wait_fd, thread->process->msg_fd };
    unsigned long long inode;
    struct stat server;
    unsigned int i;
    int unix_fd;
    char end;

    if (sscanf( link, "pipe:[%llu%c", &inode, &end ) != 2 && sscanf( link, "socket:[%llu%c", &inode, &end ) != 2)
        return 0;
    if (end != ']') return 0;
    for (i = 0; i < ARRAY_SIZE(pipes); i++)
    {
        if (!pipes[i] || (unix_fd = get_unix_fd( pipes[i] )) == -1) continue;
        if (fstat( unix_fd, &server ) != -1 && server.st_ino == inode) return 1;
    }
    clear_error();  /* get_unix_fd sets one for a closed fd */
    return 0;
}

/* add one descriptor of a host call to the description; returns 0 if it is
 * the thread's own pipe to the server */
static int describe_fd( struct thread *thread, long long fd, char *what, size_t size )
{
    size_t len = strlen( what );
    char target[96];

    if (!read_fd_link( thread, fd, target, sizeof(target) )) snprintf( target, sizeof(target), "fd %lld", fd );
    else if (is_server_pipe( thread, target )) return 0;
    if (len + 8 >= size) return 1;
    if (len) strcpy( what + len, ", " ), len += 2;
    snprintf( what + len, size - len, "%s", target );
    return 1;
}

/*
 * The owner of a glibc lock a thread sleeps on (docs/HOST_HANGS.md), by
 * glibc's layouts on x86-64 (2.25 and later). Client memory: an owner is
 * taken only when all of it agrees, and the chain follows it only to a
 * thread of the same process (wait_chain.c).
 */
#define FUTEX_CMD_MASK        0x7f  /* without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME */
#define FUTEX_WAIT_CMD        0
#define FUTEX_LOCK_PI_CMD     6
#define FUTEX_WAIT_BITSET_CMD 9
#define FUTEX_LOCK_PI2_CMD    13
#define FUTEX_WAITERS         0x80000000
#define FUTEX_TID_MASK        0x3fffffff

#define MUTEX_KIND_MASK       0x7f  /* without the process-shared bit and elision flags */
#define MUTEX_KIND_TYPE       0x03  /* normal, recursive, error-checking, adaptive */
#define MUTEX_ROBUST          0x10
#define MUTEX_PRIO_INHERIT    0x20
#define MUTEX_PRIO_PROTECT    0x40

#define RWLOCK_WRPHASE        1     /* __readers: in a write phase... */
#define RWLOCK_WRLOCKED       2     /* ... and a writer holds it */
#define RWLOCK_FUTEX_LOCKED   3     /* a futex word's value: locked (1), with waiters (2) */
#define RWLOCK_FLAGS_LAST     2     /* PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP */

static int is_futex_wait( unsigned int cmd )
{
    return cmd == FUTEX_WAIT_CMD || cmd == FUTEX_WAIT_BITSET_CMD;
}

/*
 * pthread_mutex_t: __lock, the futex word, at offset 0, __owner at 8,
 * __kind at 16. A normal, recursive, error-checking or adaptive mutex's
 * waiter sleeps in FUTEX_WAIT for the value 2 (locked, with waiters) and
 * __owner is its owner's Linux thread id; a robust one's waits for the
 * word's value, the owner's thread id with FUTEX_WAITERS (the kernel sets
 * FUTEX_OWNER_DIED instead once the owner exits, and wakes a waiter); a
 * priority-inheriting one's sleeps in FUTEX_LOCK_PI, and its word is its
 * owner's id too. A priority-protected mutex's word holds its ceiling.
 */
static int get_mutex_owner( const int mutex[5], unsigned int cmd, unsigned int value )
{
    unsigned int word = mutex[0], kind = mutex[4] & MUTEX_KIND_MASK, owner = word & FUTEX_TID_MASK;

    if (mutex[2] <= 0 || (kind & MUTEX_PRIO_PROTECT)) return 0;
    if (kind & MUTEX_PRIO_INHERIT)
        return (cmd == FUTEX_LOCK_PI_CMD || cmd == FUTEX_LOCK_PI2_CMD) && owner == mutex[2] ? owner : 0;
    if (!is_futex_wait( cmd ) || value != word) return 0;
    if (kind & MUTEX_ROBUST) return word == (owner | FUTEX_WAITERS) && owner == mutex[2] ? owner : 0;
    return kind <= MUTEX_KIND_TYPE && word == 2 ? mutex[2] : 0;
}

/*
 * pthread_rwlock_t: __readers at 0, __wrphase_futex at 8, __writers_futex
 * at 12, __cur_writer at 24, __shared at 28, __flags at 48. While a writer
 * holds it, __readers has RWLOCK_WRPHASE and RWLOCK_WRLOCKED, and
 * __cur_writer is the writer's Linux thread id; a reader sleeps on
 * __wrphase_futex, a writer on __writers_futex, both in FUTEX_WAIT(_BITSET)
 * for the value 3. The lock is 8-aligned: the word's alignment says which.
 * A read-locked rwlock's readers are not recorded anywhere.
 */
static int get_rwlock_owner( struct thread *thread, client_ptr_t word, unsigned int cmd, unsigned int value,
                             client_ptr_t *address )
{
    unsigned int rwlock[14];  /* up to __flags */
    client_ptr_t base = word - ((word & 4) ? 12 : 8);

    if (!is_futex_wait( cmd ) || value != RWLOCK_FUTEX_LOCKED) return 0;
    if (read_process_memory_unstopped( thread->process, base, sizeof(rwlock), rwlock ) != 1)
    {
        clear_error();
        return 0;
    }
    if (rwlock[(word - base) / 4] != RWLOCK_FUTEX_LOCKED ||
        (rwlock[0] & (RWLOCK_WRPHASE | RWLOCK_WRLOCKED)) != (RWLOCK_WRPHASE | RWLOCK_WRLOCKED) ||
        (int)rwlock[6] <= 0 || rwlock[7] > 1 || rwlock[12] > RWLOCK_FLAGS_LAST)
        return 0;
    *address = base;
    return rwlock[6];
}

static void get_host_lock( struct thread *thread, const unsigned long long *args, struct host_lock *lock )
{
    unsigned int cmd = args[1] & FUTEX_CMD_MASK, value = args[2];
    int mutex[5];  /* __lock, __count, __owner, __nusers, __kind */

    if (args[0] & 3) return;
    if (read_process_memory_unstopped( thread->process, args[0], sizeof(mutex), mutex ) != 1)
    {
        clear_error();
        return;
    }
    if ((lock->owner_tid = get_mutex_owner( mutex, cmd, value )))
    {
        lock->kind = HOST_LOCK_MUTEX;
        lock->address = args[0];
    }
    else if ((lock->owner_tid = get_rwlock_owner( thread, args[0], cmd, value, &lock->address )))
        lock->kind = HOST_LOCK_RWLOCK;
}

/***********************************************************************
 *           is_host_task
 *
 * Is 'tid' a live Linux task of the thread's process? A thread that
 * exited is gone from /proc at once.
 */
int is_host_task( struct thread *thread, int tid )
{
    char path[64];
    struct stat st;

    if (thread->unix_pid == -1 || tid <= 0) return 0;
    snprintf( path, sizeof(path), "/proc/%d/task/%d", thread->unix_pid, tid );
    return !stat( path, &st );
}

/* The system call the thread sleeps in and its arguments, as Linux gives
 * them in /proc/PID/task/TID/syscall without stopping or waking it: FALSE
 * when it runs, or sleeps outside a system call. */
static int read_system_call( struct thread *thread, int *nr, unsigned long long args[6] )
{
    char path[64], buffer[256];
    ssize_t size;
    int fd;

    if (thread->unix_pid == -1 || thread->unix_tid == -1) return 0;
    snprintf( path, sizeof(path), "/proc/%d/task/%d/syscall", thread->unix_pid, thread->unix_tid );
    if ((fd = open( path, O_RDONLY )) == -1) return 0;
    size = read( fd, buffer, sizeof(buffer) - 1 );
    close( fd );
    if (size <= 0) return 0;
    buffer[size] = 0;
    /* "running", "-1 SP PC" (asleep outside a system call), or "NR ARG0..ARG5 SP PC" */
    return sscanf( buffer, "%d %llx %llx %llx %llx %llx %llx", nr, &args[0], &args[1], &args[2], &args[3],
                   &args[4], &args[5] ) == 7;
}

/***********************************************************************
 *           is_same_host_lock
 *
 * Does the thread still sleep on that lock, with the same owner? Its
 * system call and the lock, read again.
 */
int is_same_host_lock( struct thread *thread, const struct host_lock *lock )
{
#ifdef SYS_futex
    unsigned long long args[6];
    struct host_lock now = { HOST_LOCK_NONE };
    int nr;

    if (!read_system_call( thread, &nr, args ) || nr != SYS_futex) return 0;
    get_host_lock( thread, args, &now );
    return now.kind == lock->kind && now.address == lock->address && now.owner_tid == lock->owner_tid;
#else
    return 0;
#endif
}

/***********************************************************************
 *           get_host_call
 *
 * Is the thread asleep in a host system call that waits for something
 * outside it? Gives the call's number, since when the server has seen it
 * there, and what its descriptors refer to (appended to 'what', which
 * holds a NUL-terminated string), if it is.
 */
int get_host_call( struct thread *thread, unsigned int switches, int *call, timeout_t *since,
                   char *what, size_t what_size, struct host_lock *lock )
{
    unsigned long long args[6], pollfds;
    unsigned int i, nfds;
    int nr, n;

    memset( lock, 0, sizeof(*lock) );
    if (!read_system_call( thread, &nr, args )) return 0;
    for (i = 0; i < ARRAY_SIZE(host_calls); i++) if (host_calls[i].nr == nr) break;
    if (i == ARRAY_SIZE(host_calls)) return 0;

    switch (host_calls[i].args)
    {
    case HOST_CALL_FD:
        if (!describe_fd( thread, (int)args[0], what, what_size )) return 0;
        break;
    case HOST_CALL_POLL:
        /* the descriptors polled, read from the thread's memory as far as
         * they fit the description */
        nfds = min( args[1], 16 );
        pollfds = args[0];
        for (n = 0; n < nfds; n++)
        {
            int pollfd[2];  /* struct pollfd: int fd; short events, revents; */
            int got = read_process_memory_unstopped( thread->process, pollfds + n * sizeof(pollfd),
                                                     sizeof(pollfd), pollfd );
            clear_error();
            if (got != 1) break;
            if (pollfd[0] < 0) continue;
            if (!describe_fd( thread, pollfd[0], what, what_size )) return 0;
        }
        break;
    case HOST_CALL_NONE:
        break;
    }
#ifdef SYS_futex
    if (nr == SYS_futex) get_host_lock( thread, args, lock );
#endif
    *call = nr;
    *since = host_block_since( thread, nr, switches );
    return 1;
}
/*
 * Context switches.
 *
 * Linux gives a thread's voluntary and involuntary context switches in
 * /proc/PID/task/TID/status, which it formats whole on every read (memory,
 * signal masks, capabilities, CPU lists): about 12 us, most of what a node
 * of a chain cost. Its schedstat file is three numbers: the time the thread
 * has run and how many times it was given a CPU (about 1 us). A thread that
 * was not switched in or out has the same two numbers: a switch out adds
 * the time it ran, a switch in counts one more. So the count read from
 * status is kept with the two numbers read just before it, and stays the
 * thread's count for as long as schedstat reads the same, which is as long
 * as a blocked thread stays blocked. A kernel without scheduler statistics
 * prints zeros there: status is then read every time.
 *
 * The files of the threads walked last are kept open: opening one costs as
 * much as reading it, and chains are asked for again and again (a watchdog,
 * a hang reporter). An open file refers to its task, never to another one
 * that gets the same tid: once its task is gone it reads nothing and is
 * opened again.
 */
#define KEPT_TASKS 64

enum task_file { TASK_STATUS, TASK_SCHEDSTAT, TASK_FILES };

struct task_files
{
    struct thread     *thread;
    thread_id_t        id;
    int                unix_tid;
    int                used;              /* 0: empty, as the array starts */
    int                fds[TASK_FILES];   /* -1: not open */
    int                known;             /* the count below is the thread's while schedstat says: */
    unsigned long long run_time;          /* ... the time it has run */
    unsigned long long run_count;         /* ... and how many times it got a CPU */
    unsigned int       switches;
};

static struct task_files task_files[KEPT_TASKS];

static struct task_files *get_task_files( struct thread *thread )
{
    struct task_files *files = &task_files[(thread->id / 4) % KEPT_TASKS];
    unsigned int i;

    if (files->used && files->thread == thread && files->id == thread->id && files->unix_tid == thread->unix_tid)
        return files;
    for (i = 0; i < TASK_FILES; i++)
        if (files->used && files->fds[i] != -1) close( files->fds[i] );
    memset( files, 0, sizeof(*files) );
    for (i = 0; i < TASK_FILES; i++) files->fds[i] = -1;
    files->used = 1;
    files->thread = thread;
    files->id = thread->id;
    files->unix_tid = thread->unix_tid;
    return files;
}

/* reads the start of one of the thread's /proc files, NUL-terminated */
static ssize_t read_task_file( struct thread *thread, struct task_files *files, enum task_file which,
                               char *buffer, size_t size )
{
    static const char * const names[TASK_FILES] = { "status", "schedstat" };
    char path[64];
    ssize_t ret = -1;
    unsigned int i;

    for (i = 0; i < 2 && ret <= 0; i++)
    {
        if (files->fds[which] == -1)
        {
            snprintf( path, sizeof(path), "/proc/%d/task/%d/%s", thread->unix_pid, thread->unix_tid, names[which] );
            if ((files->fds[which] = open( path, O_RDONLY | O_CLOEXEC )) == -1) return -1;
        }
        if ((ret = pread( files->fds[which], buffer, size - 1, 0 )) <= 0)
        {
            close( files->fds[which] );  /* its task is gone: open the thread's again */
            files->fds[which] = -1;
        }
    }
    if (ret > 0) buffer[ret] = 0;
    return ret;
}

/* "RUN_TIME RUN_DELAY RUN_COUNT\n": three decimal numbers */
static int parse_schedstat( const char *text, unsigned long long *run_time, unsigned long long *run_count )
{
    char *end;

    *run_time = strtoull( text, &end, 10 );
    if (end == text || *end != ' ') return 0;
    strtoull( end + 1, &end, 10 );
    if (*end != ' ') return 0;
    text = end + 1;
    *run_count = strtoull( text, &end, 10 );
    return end != text && *end == '\n';
}

/***********************************************************************
 *           read_context_switches
 *
 * Voluntary plus involuntary context switches of a thread.
 */
unsigned int read_context_switches( struct thread *thread )
{
    static const char * const fields[] = { "\nvoluntary_ctxt_switches:", "\nnonvoluntary_ctxt_switches:" };
    unsigned long long run_time = 0, run_count = 0;
    struct task_files *files;
    char buffer[4096], *p;
    unsigned int i, total = 0;
    int scheduled;

    if (thread->unix_pid == -1 || thread->unix_tid == -1) return 0;
    files = get_task_files( thread );
    /* a thread that has run at all has been given a CPU: zeros are a kernel without the figures */
    scheduled = read_task_file( thread, files, TASK_SCHEDSTAT, buffer, 128 ) > 0 &&
                parse_schedstat( buffer, &run_time, &run_count ) && run_count;
    if (scheduled && files->known && run_time == files->run_time && run_count == files->run_count)
        return files->switches;
    files->known = 0;
    if (read_task_file( thread, files, TASK_STATUS, buffer, sizeof(buffer) ) <= 0) return 0;
    for (i = 0; i < ARRAY_SIZE(fields); i++)
        if ((p = strstr( buffer, fields[i] ))) total += strtoul( p + strlen( fields[i] ), NULL, 10 );
    if (scheduled)
    {
        files->known = 1;
        files->run_time = run_time;
        files->run_count = run_count;
        files->switches = total;
    }
    return total;
}

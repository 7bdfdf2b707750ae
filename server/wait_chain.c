/*
 * Server-side Wait Chain Traversal
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
#include <sys/types.h>
#include <unistd.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wct.h"

#include "file.h"
#include "handle.h"
#include "object.h"
#include "process.h"
#include "request.h"
#include "security.h"
#include "thread.h"
#include "user.h"
#include "process_memory.h"
#include "wine/wait_chain.h"

/*
 * The server knows who owns each mutex and what each thread waits for on
 * it, and reads the wait records that threads keep for the waits it does
 * not see (critical sections, SRW locks, condition variables, address
 * waits, non-alertable sleeps), so it walks the whole chain in one request.
 * It is single-threaded, so the chain is a consistent snapshot of its own
 * tables. The walk is bounded: it stops after one node more than a chain
 * may hold (which tells the client the chain is too long), and a thread
 * seen twice ends it as a cycle.
 */

#define MAX_WALK (WCT_MAX_NODE_COUNT + 1)

struct chain
{
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT];
    unsigned int           count;      /* nodes walked; only the first ones are stored */
    struct thread         *seen[MAX_WALK];
    unsigned int           seen_count;
    int                    cycle;
};

/* what a thread waits for: a server wait, one it recorded itself, or a
 * host system call the server found it blocked in */
struct wait
{
    struct object *object;     /* server wait: its first object (none for a sleep) */
    unsigned int   kind;       /* recorded wait: WAIT_RECORD_*; or WAIT_HOST_CALL */
    client_ptr_t   address;    /* recorded wait: the object waited for; host call: its number */
    int            wow64;      /* recorded by 32-bit code: the object has the 32-bit layout */
    timeout_t      since;
    char           what[128];  /* host call: what its descriptors refer to */
};

static struct wait_chain_node *add_node( struct chain *chain, unsigned int type, unsigned int status )
{
    struct wait_chain_node *node = NULL;

    if (chain->count < WCT_MAX_NODE_COUNT)
    {
        node = &chain->nodes[chain->count];
        memset( node, 0, sizeof(*node) );
        node->type = type;
        node->status = status;
    }
    chain->count++;
    return node;
}

/* A client process's memory, read without stopping or waking its threads
 * (process_memory.c), through a live task: the process may have lost its
 * main thread. The bytes are the server's own: they never reach a client
 * that could not read them itself. */
static int read_client_memory( struct chain *chain, struct process *process, client_ptr_t addr,
                               void *buffer, size_t size )
{
    int ret = read_process_memory_unstopped( process, addr, size, buffer );

    clear_error();
    return ret == 1;
}

/* The wait a thread recorded, if any. The thread may be changing the record
 * while it is read: two reads that agree are taken, anything else is
 * ignored, as is a record no layer thread could have written. */
static int read_record_at( struct chain *chain, struct thread *thread, client_ptr_t addr, struct wait *wait )
{
    struct wait_record record[2];
    unsigned int kind;
    int i, same = 0;

    for (i = 0; i < 3 && !same; i++)
        same = read_client_memory( chain, thread->process, addr, &record[0], sizeof(record[0]) ) &&
               read_client_memory( chain, thread->process, addr, &record[1], sizeof(record[1]) ) &&
               !memcmp( &record[0], &record[1], sizeof(record[0]) );
    if (!same) return 0;

    kind = record[0].what >> WAIT_RECORD_KIND_SHIFT;
    if (kind == WAIT_RECORD_NONE || kind >= WAIT_RECORD_KIND_COUNT) return 0;
    wait->kind = kind;
    wait->address = record[0].what & WAIT_RECORD_OBJECT_MASK;
    wait->since = min( (timeout_t)record[0].since, monotonic_time );
    return 1;
}

/* Does the process run 32-bit code in WoW64 mode? Its threads' 32-bit
 * ntdll then records its waits in a record of its own. */
static int is_wow64_process( const struct process *process )
{
    return !is_machine_64bit( process->machine ) && is_machine_64bit( native_machine );
}

/* A WoW64 thread's 32-bit code waits outside the 64-bit side's waits (it
 * calls into them): its record, when there is one, is the wait. */
static int read_wait_record( struct chain *chain, struct thread *thread, struct wait *wait )
{
    if (!thread->teb) return 0;
    if (is_wow64_process( thread->process ) &&
        read_record_at( chain, thread, thread->teb + WAIT_RECORD32_TEB_OFFSET, wait ))
    {
        if (wait->address > 0xffffffff) return 0;  /* no 32-bit code wrote that */
        wait->wow64 = 1;
        return 1;
    }
    return read_record_at( chain, thread, thread->teb + WAIT_RECORD_TEB_OFFSET, wait );
}

/*
 * Threads blocked in host system calls.
 *
 * A thread may block where neither the server nor a wait record sees it: in
 * a read() or poll() of a Unix pipe or FIFO behind a synchronous ReadFile
 * (a standard input that is a pipe), or in a poll() of a driver's unix
 * library (winebus, wineusb). Linux says which system call a sleeping
 * thread is in, and with which arguments, in /proc/PID/task/TID/syscall
 * ("running" while it runs), without stopping or waking it. A thread is
 * blocked there when it sleeps in one of the calls below, which wait for
 * something outside the thread; a read or a receive of the thread's own
 * request, reply or wait pipe is the thread waiting for this server, which
 * answers it once it is done with this request: that thread is running, as
 * any thread in a system call that does not wait is on Windows.
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
    {   0 /* read */,            HOST_CALL_FD },
    {   1 /* write */,           HOST_CALL_FD },
    {   7 /* poll */,            HOST_CALL_POLL },
    {  17 /* pread64 */,         HOST_CALL_FD },
    {  18 /* pwrite64 */,        HOST_CALL_FD },
    {  19 /* readv */,           HOST_CALL_FD },
    {  20 /* writev */,          HOST_CALL_FD },
    {  23 /* select */,          HOST_CALL_NONE },
    {  34 /* pause */,           HOST_CALL_NONE },
    {  35 /* nanosleep */,       HOST_CALL_NONE },
    {  42 /* connect */,         HOST_CALL_FD },
    {  43 /* accept */,          HOST_CALL_FD },
    {  44 /* sendto */,          HOST_CALL_FD },
    {  45 /* recvfrom */,        HOST_CALL_FD },
    {  46 /* sendmsg */,         HOST_CALL_FD },
    {  47 /* recvmsg */,         HOST_CALL_FD },
    {  61 /* wait4 */,           HOST_CALL_NONE },
    {  72 /* fcntl (F_SETLKW) */, HOST_CALL_FD },
    {  73 /* flock */,           HOST_CALL_FD },
    { 128 /* rt_sigtimedwait */, HOST_CALL_NONE },
    { 130 /* rt_sigsuspend */,   HOST_CALL_NONE },
    { 202 /* futex */,           HOST_CALL_NONE },
    { 230 /* clock_nanosleep */, HOST_CALL_NONE },
    { 232 /* epoll_wait */,      HOST_CALL_FD },
    { 247 /* waitid */,          HOST_CALL_NONE },
    { 270 /* pselect6 */,        HOST_CALL_NONE },
    { 271 /* ppoll */,           HOST_CALL_POLL },
    { 281 /* epoll_pwait */,     HOST_CALL_FD },
    { 288 /* accept4 */,         HOST_CALL_FD },
    { 295 /* preadv */,          HOST_CALL_FD },
    { 296 /* pwritev */,         HOST_CALL_FD },
    { 299 /* recvmmsg */,        HOST_CALL_FD },
    { 327 /* preadv2 */,         HOST_CALL_FD },
    { 328 /* pwritev2 */,        HOST_CALL_FD },
    { 441 /* epoll_pwait2 */,    HOST_CALL_FD },
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

/* Is the thread asleep in a host system call that waits for something
 * outside it? Fills in the wait if it is. */
static int get_host_call( struct chain *chain, struct thread *thread, struct wait *wait, unsigned int switches )
{
    char path[64], buffer[256];
    unsigned long long args[6], pollfds;
    unsigned int i, nfds;
    ssize_t size;
    int fd, nr, n;

    if (thread->unix_pid == -1 || thread->unix_tid == -1) return 0;
    snprintf( path, sizeof(path), "/proc/%d/task/%d/syscall", thread->unix_pid, thread->unix_tid );
    if ((fd = open( path, O_RDONLY )) == -1) return 0;
    size = read( fd, buffer, sizeof(buffer) - 1 );
    close( fd );
    if (size <= 0) return 0;
    buffer[size] = 0;
    /* "running", "-1 SP PC" (asleep outside a system call), or "NR ARG0..ARG5 SP PC" */
    if (sscanf( buffer, "%d %llx %llx %llx %llx %llx %llx", &nr, &args[0], &args[1], &args[2], &args[3],
                &args[4], &args[5] ) != 7)
        return 0;
    for (i = 0; i < ARRAY_SIZE(host_calls); i++) if (host_calls[i].nr == nr) break;
    if (i == ARRAY_SIZE(host_calls)) return 0;

    switch (host_calls[i].args)
    {
    case HOST_CALL_FD:
        if (!describe_fd( thread, (int)args[0], wait->what, sizeof(wait->what) )) return 0;
        break;
    case HOST_CALL_POLL:
        /* the descriptors polled, read from the thread's memory as far as
         * they fit the description */
        nfds = min( args[1], 16 );
        pollfds = args[0];
        for (n = 0; n < nfds; n++)
        {
            int pollfd[2];  /* struct pollfd: int fd; short events, revents; */
            if (!read_client_memory( chain, thread->process, pollfds + n * sizeof(pollfd), pollfd, sizeof(pollfd) ))
                break;
            if (pollfd[0] < 0) continue;
            if (!describe_fd( thread, pollfd[0], wait->what, sizeof(wait->what) )) return 0;
        }
        break;
    case HOST_CALL_NONE:
        break;
    }
    wait->kind = WAIT_HOST_CALL;
    wait->address = nr;
    wait->since = host_block_since( thread, nr, switches );
    return 1;
}

/* Could a thread in a server wait on this object be inside a recorded wait?
 * The recorded paths wait on a futex, in select(), or through the server on
 * a semaphore (a critical section without debug info), an event (address
 * waits where Linux has no futexes), or on nothing (suspended by a signal);
 * none of them waits on a mutex, a thread, a process, or the thread's
 * message queue, the waits the chain follows. */
static int may_be_recorded( struct thread *thread, struct object *obj )
{
    struct thread *owner;
    int abandoned;

    if (!obj) return 1;
    if (obj->ops->type == &thread_type || obj->ops->type == &process_type) return 0;
    if (obj == (struct object *)thread->queue) return 0;
    return !get_mutex_state( obj, &owner, &abandoned );
}

/* A critical section is the thread's own wait when it waits for one through
 * a semaphore the server sees; the record says which. A server wait that no
 * recorded path makes is the thread's wait without a look at its record. */
static int get_wait( struct chain *chain, struct thread *thread, struct wait *wait, unsigned int switches )
{
    int server;

    memset( wait, 0, sizeof(*wait) );
    if (thread->state == TERMINATED) return 0;
    server = get_thread_wait( thread, &wait->object, &wait->since );
    if ((!server || may_be_recorded( thread, wait->object )) && read_wait_record( chain, thread, wait ))
    {
        wait->object = NULL;
        return 1;
    }
    if (server) return 1;
    return get_host_call( chain, thread, wait, switches );
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

/* voluntary plus involuntary context switches of a thread */
static unsigned int read_context_switches( struct thread *thread )
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

/* may the requesting thread look at this one? */
static int can_query( struct thread *thread )
{
    unsigned int access = thread->obj.ops->map_access( &thread->obj, THREAD_QUERY_LIMITED_INFORMATION );
    int ret = check_object_access( NULL, &thread->obj, &access );

    clear_error();
    return ret;
}

/* may the requesting thread read this process's memory? */
static int can_read_memory( struct process *process )
{
    unsigned int access = process->obj.ops->map_access( &process->obj, PROCESS_VM_READ );
    int ret = check_object_access( NULL, &process->obj, &access );

    clear_error();
    return ret;
}

/* Fills in the thread's wait; returns whether it waits. */
static int add_thread_node( struct chain *chain, struct thread *thread, struct wait *wait )
{
    struct wait_chain_node *node;
    unsigned int switches = read_context_switches( thread );
    int waiting = get_wait( chain, thread, wait, switches );
    size_t i;

    if (!(node = add_node( chain, WctThreadType, waiting ? WctStatusBlocked : WctStatusRunning ))) return waiting;
    node->pid = thread->process->id;
    node->tid = thread->id;
    /* what the thread waits in, for the layer's own tools: the status says
     * Blocked to anyone, the record's details only to who may read it */
    if (wait->kind && (thread->process == current->process || can_read_memory( thread->process )))
    {
        node->wait_kind = wait->kind;
        node->object = wait->address;
        /* /proc's names of descriptors are ASCII but for file names */
        for (i = 0; wait->what[i] && i < ARRAY_SIZE(node->name); i++) node->name[i] = (unsigned char)wait->what[i];
        node->name_len = i * sizeof(WCHAR);
    }
    /* a thread waiting for its own messages (GetMessage) is idle, not stuck:
     * every object's first member is its struct object */
    else if (waiting && wait->object && wait->object == (struct object *)thread->queue &&
             !get_send_message_receiver( thread, wait->object ))
        node->wait_kind = WAIT_MESSAGE_QUEUE;
    node->context_switches = switches;
    node->unanswered_ms = get_queue_unanswered_time( thread ) / 10000;
    if (waiting && monotonic_time > wait->since) node->wait_time = (monotonic_time - wait->since) / 10000;
    return waiting;
}

static struct wait_chain_node *add_object_node( struct chain *chain, unsigned int type, unsigned int status,
                                                struct object *obj )
{
    struct wait_chain_node *node = add_node( chain, type, status );
    data_size_t len = 0;
    WCHAR *name;

    if (!node || !obj) return node;
    if (!(name = obj->ops->get_full_name( obj, &len ))) return node;
    node->name_len = min( len, sizeof(node->name) );
    memcpy( node->name, name, node->name_len );
    free( name );
    return node;
}

static int seen_before( struct chain *chain, struct thread *thread )
{
    unsigned int i;

    for (i = 0; i < chain->seen_count; i++) if (chain->seen[i] == thread) return 1;
    if (chain->seen_count < MAX_WALK) chain->seen[chain->seen_count++] = thread;
    return 0;
}

/* The owner of the critical section a thread waits for. Its OwningThread is
 * read from the thread's process: that of the requester, or another one
 * the requester asked to follow critical sections into and could read. */
static struct thread *follow_critical_section( struct chain *chain, struct thread *thread,
                                               const struct wait *wait, unsigned int flags )
{
    const unsigned int out_of_proc = WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG;
    struct process *process = thread->process;
    struct wait_chain_node *node;
    struct thread *owner = NULL;
    unsigned long long owner_id = 0;

    if (process != current->process && ((flags & out_of_proc) != out_of_proc || !can_read_memory( process )))
        return NULL;
    /* 32-bit code's RTL_CRITICAL_SECTION: DebugInfo, LockCount, RecursionCount,
     * then a 4-byte OwningThread at offset 12 */
    if (wait->wow64 ? !read_client_memory( chain, process, wait->address + 12, &owner_id, 4 )
                    : !read_client_memory( chain, process,
                                           wait->address + FIELD_OFFSET( RTL_CRITICAL_SECTION, OwningThread ),
                                           &owner_id, sizeof(owner_id) ))
        return NULL;
    if ((node = add_object_node( chain, WctCriticalSectionType, owner_id ? WctStatusOwned : WctStatusNotOwned,
                                 NULL )))
        node->object = wait->address;

    /* client memory: only a live thread of the same process is an owner */
    if (!owner_id || owner_id != (thread_id_t)owner_id) return NULL;
    if (!(owner = get_thread_from_id( owner_id ))) return NULL;
    release_object( owner );  /* still referenced by the thread table */
    if (owner->process != process || owner->state == TERMINATED) return NULL;
    return owner;
}

/* The object node a thread's wait leads to, and the thread after it (if any). */
static struct thread *follow_wait( struct chain *chain, struct thread *thread, const struct wait *wait,
                                   unsigned int flags )
{
    struct object *obj = wait->object;
    struct thread *owner, *receiver;
    struct process *process;
    int abandoned;

    /* SRW locks, condition variables, address waits and sleeps have no owner */
    if (wait->kind == WAIT_RECORD_CRITICAL_SECTION) return follow_critical_section( chain, thread, wait, flags );
    if (wait->kind || !obj) return NULL;

    if (get_mutex_state( obj, &owner, &abandoned ))
    {
        add_object_node( chain, WctMutexType, abandoned ? WctStatusAbandoned :
                         owner ? WctStatusOwned : WctStatusNotOwned, obj );
        return owner;
    }
    if (obj->ops->type == &thread_type)
    {
        add_object_node( chain, WctThreadWaitType, WctStatusBlocked, NULL );
        return (struct thread *)obj;
    }
    if (obj->ops->type == &process_type)
    {
        struct wait_chain_node *node;

        process = (struct process *)obj;
        add_object_node( chain, WctProcessWaitType, WctStatusBlocked, NULL );
        if ((node = add_node( chain, WctThreadType, WctStatusPidOnly ))) node->pid = process->id;
        return NULL;
    }
    if ((receiver = get_send_message_receiver( thread, obj )))
    {
        add_object_node( chain, WctSendMessageType, WctStatusBlocked, NULL );
        return receiver;
    }
    return NULL;
}

static void append_name( struct wait_chain_node *node, const WCHAR *str, data_size_t len )
{
    len = min( len, sizeof(node->name) - node->name_len );
    memcpy( (char *)node->name + node->name_len, str, len );
    node->name_len += len;
}

/* An object's type and name; for a synchronous I/O request, "I/O on" and
 * those of its file (its async object has neither). */
static void append_object( struct wait_chain_node *node, struct object *obj )
{
    static const WCHAR space[] = {' '}, io_on[] = {'I','/','O',' ','o','n',' '};
    static const WCHAR unknown[] = {'o','b','j','e','c','t',' ','o','f',' ','u','n','k','n','o','w','n',' ',
                                    't','y','p','e'};
    const struct type_descr *type;
    struct object *file;
    data_size_t len;
    WCHAR *name;

    if ((file = get_async_wait_file( obj )))
    {
        append_name( node, io_on, sizeof(io_on) );
        obj = file;
    }
    type = obj->ops->type;
    if (type && type->name.len) append_name( node, type->name.str, type->name.len );
    else append_name( node, unknown, sizeof(unknown) );
    if (!(name = obj->ops->get_full_name( obj, &len ))) return;
    if (len)
    {
        append_name( node, space, sizeof(space) );
        append_name( node, name, len );
    }
    free( name );
}

/* What a thread at the end of a chain waits on when the walk follows none
 * of it: each object's type and name, for who may read its process. */
static void describe_wait_objects( struct thread *thread, struct wait_chain_node *node )
{
    static const WCHAR separator[] = {',',' '};
    struct object *objects[MAXIMUM_WAIT_OBJECTS];
    unsigned int i, count;

    if (node->wait_kind || node->status != WctStatusBlocked) return;
    if (thread->process != current->process && !can_read_memory( thread->process )) return;
    if (!(count = get_thread_wait_objects( thread, objects, ARRAY_SIZE(objects) ))) return;
    node->wait_kind = WAIT_OBJECTS;
    node->object = count;
    node->name_len = 0;
    for (i = 0; i < min( count, ARRAY_SIZE(objects) ); i++)
    {
        if (i) append_name( node, separator, sizeof(separator) );
        append_object( node, objects[i] );
    }
}

static void walk_chain( struct chain *chain, struct thread *thread, unsigned int flags )
{
    struct process *start = thread->process;
    struct thread *next;
    struct wait wait;
    unsigned int count;

    for (;;)
    {
        if (seen_before( chain, thread ))
        {
            add_thread_node( chain, thread, &wait );
            chain->cycle = 1;
            return;
        }
        if (!add_thread_node( chain, thread, &wait ) || chain->count >= MAX_WALK) return;
        /* the chain leaves the process: only its first thread, unless asked */
        if (thread->process != start && !(flags & WCT_OUT_OF_PROC_FLAG)) return;
        count = chain->count;
        if (!(next = follow_wait( chain, thread, &wait, flags )))
        {
            /* nothing after it: say what it waits on */
            if (chain->count == count && count <= WCT_MAX_NODE_COUNT && !wait.kind)
                describe_wait_objects( thread, &chain->nodes[count - 1] );
            return;
        }
        thread = next;
        if (chain->count >= MAX_WALK) return;
        if (!can_query( thread ))
        {
            struct wait_chain_node *node = add_node( chain, WctThreadType, WctStatusNoAccess );
            if (node) node->tid = thread->id;
            return;
        }
    }
}

/* walk the wait chain of a thread */
DECL_HANDLER(get_wait_chain)
{
    struct chain chain;
    struct thread *thread;

    if (req->flags & ~(WCTP_GETINFO_ALL_FLAGS | WCT_NETWORK_IO_FLAG))
    {
        set_error( STATUS_INVALID_PARAMETER );
        return;
    }
    if (!(thread = get_thread_from_id( req->tid ))) return;
    if (thread->state == TERMINATED)
    {
        set_error( STATUS_INVALID_CID );
        release_object( thread );
        return;
    }
    if (!can_query( thread ))
    {
        set_error( STATUS_ACCESS_DENIED );
        release_object( thread );
        return;
    }

    memset( &chain, 0, sizeof(chain) );
    walk_chain( &chain, thread, req->flags );
    release_object( thread );

    reply->total = chain.count;
    reply->cycle = chain.cycle;
    set_reply_data( chain.nodes, min( get_reply_max_size(),
                                      min( chain.count, WCT_MAX_NODE_COUNT ) * sizeof(chain.nodes[0]) ) );
}

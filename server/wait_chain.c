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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* what a thread waits for: a server wait, or one it recorded itself */
struct wait
{
    struct object *object;     /* server wait: its first object (none for a sleep) */
    unsigned int   kind;       /* recorded wait: WAIT_RECORD_* */
    client_ptr_t   address;    /* recorded wait: the object waited for */
    timeout_t      since;
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
static int read_wait_record( struct chain *chain, struct thread *thread, struct wait *wait )
{
    client_ptr_t addr = thread->teb + WAIT_RECORD_TEB_OFFSET;
    struct wait_record record[2];
    unsigned int kind;
    int i, same = 0;

    if (!thread->teb) return 0;
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

/* A critical section is the thread's own wait when it waits for one through
 * a semaphore the server sees; the record says which. */
static int get_wait( struct chain *chain, struct thread *thread, struct wait *wait )
{
    memset( wait, 0, sizeof(*wait) );
    if (thread->state == TERMINATED) return 0;
    if (read_wait_record( chain, thread, wait )) return 1;
    return get_thread_wait( thread, &wait->object, &wait->since );
}

/* The status files of the threads walked last are kept open: opening one
 * costs as much as reading it, and chains are asked for again and again (a
 * watchdog, a hang reporter). An open file refers to its task, never to
 * another one that gets the same tid: once its task is gone it reads
 * nothing and is opened again. */
#define KEPT_STATUS 64

struct status_file
{
    struct thread *thread;
    thread_id_t    id;
    int            unix_tid;
    int            open;     /* 0: empty, as the array starts */
    int            fd;
};

static struct status_file status_files[KEPT_STATUS];

static struct status_file *get_status_file( struct thread *thread )
{
    struct status_file *file = &status_files[(thread->id / 4) % KEPT_STATUS];
    char path[64];

    if (file->open && file->thread == thread && file->id == thread->id && file->unix_tid == thread->unix_tid)
        return file;
    if (file->open) close( file->fd );
    file->open = 0;
    snprintf( path, sizeof(path), "/proc/%d/task/%d/status", thread->unix_pid, thread->unix_tid );
    if ((file->fd = open( path, O_RDONLY | O_CLOEXEC )) == -1) return NULL;
    file->open = 1;
    file->thread = thread;
    file->id = thread->id;
    file->unix_tid = thread->unix_tid;
    return file;
}

/* voluntary plus involuntary context switches of a thread, from /proc */
static unsigned int read_context_switches( struct thread *thread )
{
    static const char * const fields[] = { "\nvoluntary_ctxt_switches:", "\nnonvoluntary_ctxt_switches:" };
    struct status_file *file;
    char buffer[4096], *p;
    unsigned int i, total = 0;
    ssize_t size = -1;

    if (thread->unix_pid == -1 || thread->unix_tid == -1) return 0;
    for (i = 0; i < 2 && size <= 0; i++)
    {
        if (!(file = get_status_file( thread ))) return 0;
        if ((size = pread( file->fd, buffer, sizeof(buffer) - 1, 0 )) <= 0)
        {
            close( file->fd );  /* its task is gone: open the thread's again */
            file->open = 0;
        }
    }
    if (size <= 0) return 0;
    buffer[size] = 0;
    for (i = 0; i < ARRAY_SIZE(fields); i++)
        if ((p = strstr( buffer, fields[i] ))) total += strtoul( p + strlen( fields[i] ), NULL, 10 );
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
    int waiting = get_wait( chain, thread, wait );

    if (!(node = add_node( chain, WctThreadType, waiting ? WctStatusBlocked : WctStatusRunning ))) return waiting;
    node->pid = thread->process->id;
    node->tid = thread->id;
    /* what the thread waits in, for the layer's own tools: the status says
     * Blocked to anyone, the record's details only to who may read it */
    if (wait->kind && (thread->process == current->process || can_read_memory( thread->process )))
    {
        node->wait_kind = wait->kind;
        node->object = wait->address;
    }
    node->context_switches = read_context_switches( thread );
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
    unsigned long long owner_id;

    if (process != current->process && ((flags & out_of_proc) != out_of_proc || !can_read_memory( process )))
        return NULL;
    if (!read_client_memory( chain, process, wait->address + FIELD_OFFSET( RTL_CRITICAL_SECTION, OwningThread ),
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

static void walk_chain( struct chain *chain, struct thread *thread, unsigned int flags )
{
    struct process *start = thread->process;
    struct wait wait;

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
        if (!(thread = follow_wait( chain, thread, &wait, flags ))) return;
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

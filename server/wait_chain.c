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
#include "wait_chain.h"
#include "wine/wait_chain.h"

/*
 * The server knows who owns each mutex and what each thread waits for, so
 * it walks the whole chain in one request. It is single-threaded, so the
 * chain is a consistent snapshot. The walk is bounded: it stops after one
 * node more than a chain may hold (which tells the client the chain is too
 * long), and a thread seen twice ends it as a cycle.
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

/* voluntary plus involuntary context switches of a thread, from /proc */
static unsigned int read_context_switches( struct thread *thread )
{
    static const char * const fields[] = { "\nvoluntary_ctxt_switches:", "\nnonvoluntary_ctxt_switches:" };
    char path[64], buffer[4096], *p;
    unsigned int i, total = 0;
    ssize_t size;
    int fd;

    if (thread->unix_pid == -1 || thread->unix_tid == -1) return 0;
    snprintf( path, sizeof(path), "/proc/%d/task/%d/status", thread->unix_pid, thread->unix_tid );
    if ((fd = open( path, O_RDONLY )) == -1) return 0;
    size = read( fd, buffer, sizeof(buffer) - 1 );
    close( fd );
    if (size <= 0) return 0;
    buffer[size] = 0;
    for (i = 0; i < ARRAY_SIZE(fields); i++)
        if ((p = strstr( buffer, fields[i] ))) total += strtoul( p + strlen( fields[i] ), NULL, 10 );
    return total;
}

/* A thread blocked in a wait does not run, so its count cannot change
 * before the wait ends: it is read once per wait. The cache is a small
 * fixed table indexed by thread id. */
struct switch_count
{
    thread_id_t  tid;
    timeout_t    since;   /* start of the wait the count was read in */
    unsigned int count;
};

static struct switch_count switch_counts[256];

static unsigned int context_switches( struct thread *thread, int waiting, timeout_t since )
{
    struct switch_count *entry = &switch_counts[(thread->id / 4) % ARRAY_SIZE(switch_counts)];

    if (!waiting) return read_context_switches( thread );
    if (entry->tid != thread->id || entry->since != since)
    {
        entry->tid = thread->id;
        entry->since = since;
        entry->count = read_context_switches( thread );
    }
    return entry->count;
}

/* may the requesting thread look at this one? */
static int can_query( struct thread *thread )
{
    unsigned int access = thread->obj.ops->map_access( &thread->obj, THREAD_QUERY_LIMITED_INFORMATION );
    int ret = check_object_access( NULL, &thread->obj, &access );

    clear_error();
    return ret;
}

/* Returns the first object the thread waits on, or NULL if it does not wait. */
static struct object *add_thread_node( struct chain *chain, struct thread *thread )
{
    struct wait_chain_node *node;
    struct object *obj = NULL;
    timeout_t since = 0;
    int waiting = get_thread_wait_objects( thread, &obj, 1, &since ) > 0;

    if (!(node = add_node( chain, WctThreadType, waiting ? WctStatusBlocked : WctStatusRunning )))
        return waiting ? obj : NULL;
    node->pid = thread->process->id;
    node->tid = thread->id;
    node->teb = thread->teb;
    node->context_switches = context_switches( thread, waiting, since );
    if (waiting && monotonic_time > since) node->wait_time = (monotonic_time - since) / 10000;
    return waiting ? obj : NULL;
}

static void add_object_node( struct chain *chain, unsigned int type, unsigned int status, struct object *obj )
{
    struct wait_chain_node *node = add_node( chain, type, status );
    data_size_t len = 0;
    WCHAR *name;

    if (!node || !obj) return;
    if (!(name = obj->ops->get_full_name( obj, &len ))) return;
    node->name_len = min( len, sizeof(node->name) );
    memcpy( node->name, name, node->name_len );
    free( name );
}

static int seen_before( struct chain *chain, struct thread *thread )
{
    unsigned int i;

    for (i = 0; i < chain->seen_count; i++) if (chain->seen[i] == thread) return 1;
    if (chain->seen_count < MAX_WALK) chain->seen[chain->seen_count++] = thread;
    return 0;
}

/* The object a thread's wait is about, and the thread it leads to (if any). */
static struct thread *follow_wait( struct chain *chain, struct thread *thread, struct object *obj )
{
    struct thread *owner, *receiver;
    struct process *process;
    int abandoned;

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
    struct object *obj;

    for (;;)
    {
        if (seen_before( chain, thread ))
        {
            add_thread_node( chain, thread );
            chain->cycle = 1;
            return;
        }
        if (!(obj = add_thread_node( chain, thread )) || chain->count >= MAX_WALK) return;
        /* the chain leaves the process: only its first thread, unless asked */
        if (thread->process != start && !(flags & WCT_OUT_OF_PROC_FLAG)) return;
        if (!(thread = follow_wait( chain, thread, obj ))) return;
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

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
#include "wait_host.h"
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

#define BATCH_THREADS   64   /* threads of a process whose records are read together */
#define BATCH_PROCESSES 4    /* processes of a chain whose records are read together */

/* a wait a thread recorded */
struct recorded_wait
{
    unsigned int kind;         /* WAIT_RECORD_* */
    client_ptr_t address;      /* the object waited for */
    int          wow64;        /* recorded by 32-bit code: the object has the 32-bit layout */
    timeout_t    since;
};

enum record_state { RECORD_UNREAD, RECORD_NONE, RECORD_SOME };

/* a thread's wait record, read with those of other threads of its process */
struct thread_record
{
    struct thread        *thread;
    enum record_state     state;
    struct recorded_wait  wait;          /* RECORD_SOME: the wait */
    struct wait_record    copies[2][2];  /* as read: the 64-bit record twice, then the 32-bit one */
    int                   owner_state;   /* PIECE_*: the owner of the critical section it waits for */
    unsigned long long    owner;
    client_ptr_t          guess;         /* the section it waited for at the last query (0: none) */
    int                   guess_wow64;
    int                   alone;         /* its record was read alone (not with the others), after the guess */
};

struct process_records
{
    struct process       *process;
    unsigned int          count;
    int                   batched;       /* the threads that may have a record were read */
    struct thread_record  threads[BATCH_THREADS];
};

struct chain
{
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT];
    unsigned int           count;      /* nodes walked; only the first ones are stored */
    struct thread         *seen[MAX_WALK];
    unsigned int           seen_count;
    int                    cycle;
    unsigned int           process_count;
    struct process_records processes[BATCH_PROCESSES];
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
    struct host_lock lock;     /* host call: the glibc lock it sleeps on, if it is one */
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

/* names a node by an ASCII string, as far as it fits */
static void set_ascii_name( struct wait_chain_node *node, const char *name )
{
    size_t i;

    for (i = 0; name[i] && i < ARRAY_SIZE(node->name); i++) node->name[i] = (unsigned char)name[i];
    node->name_len = i * sizeof(WCHAR);
}

/* A client process's memory, read without stopping or waking its threads
 * (process_memory.c), through a live task: the process may have lost its
 * main thread. The bytes are the server's own: they never reach a client
 * that could not read them itself. */
static int read_client_memory( struct process *process, client_ptr_t addr, void *buffer, size_t size )
{
    int ret = read_process_memory_unstopped( process, addr, size, buffer );

    clear_error();
    return ret == 1;
}

/* Does the process run 32-bit code in WoW64 mode? Its threads' 32-bit
 * ntdll then records its waits in a record of its own. */
static int is_wow64_process( const struct process *process )
{
    return !is_machine_64bit( process->machine ) && is_machine_64bit( native_machine );
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

/* Takes the record if it is one a layer thread could have written: the
 * two copies agree (the thread may be changing it while it is read) and
 * its kind is known. */
static int parse_record( const struct wait_record copies[2], struct recorded_wait *wait )
{
    unsigned int kind;

    if (memcmp( &copies[0], &copies[1], sizeof(copies[0]) )) return 0;
    kind = copies[0].what >> WAIT_RECORD_KIND_SHIFT;
    if (kind == WAIT_RECORD_NONE || kind >= WAIT_RECORD_KIND_COUNT) return 0;
    wait->kind = kind;
    wait->address = copies[0].what & WAIT_RECORD_OBJECT_MASK;
    wait->since = min( (timeout_t)copies[0].since, monotonic_time );
    return 1;
}

/* The wait a thread recorded at 'addr', read alone: two reads that agree
 * are taken (three tries), anything else is ignored. */
static int read_record_at( struct process *process, client_ptr_t addr, struct recorded_wait *wait )
{
    struct wait_record copies[2];
    int i;

    for (i = 0; i < 3; i++)
    {
        if (!read_client_memory( process, addr, &copies[0], sizeof(copies[0]) ) ||
            !read_client_memory( process, addr, &copies[1], sizeof(copies[1]) ))
            return 0;
        if (!memcmp( &copies[0], &copies[1], sizeof(copies[0]) )) return parse_record( copies, wait );
    }
    return 0;
}

/* A WoW64 thread's 32-bit code waits outside the 64-bit side's waits (it
 * calls into them): its record, when there is one, is the wait. */
static int choose_record( int wow64, int have32, const struct recorded_wait *wait32, int have64,
                          const struct recorded_wait *wait64, struct recorded_wait *wait )
{
    if (wow64 && have32)
    {
        if (wait32->address > 0xffffffff) return 0;  /* no 32-bit code wrote that */
        *wait = *wait32;
        wait->wow64 = 1;
        return 1;
    }
    if (!have64) return 0;
    *wait = *wait64;
    wait->wow64 = 0;
    return 1;
}

/* the wait record of a thread read alone */
static int read_record_alone( struct thread *thread, struct recorded_wait *wait )
{
    struct recorded_wait wait32, wait64;
    int wow64 = is_wow64_process( thread->process );
    int have32 = wow64 && read_record_at( thread->process, thread->teb + WAIT_RECORD32_TEB_OFFSET, &wait32 );

    if (have32) return choose_record( wow64, have32, &wait32, 0, NULL, wait );
    return choose_record( wow64, 0, NULL,
                          read_record_at( thread->process, thread->teb + WAIT_RECORD_TEB_OFFSET, &wait64 ),
                          &wait64, wait );
}

/* Is this thread's record worth reading: could it be in a recorded wait? */
static int may_have_record( struct thread *thread )
{
    struct object *obj;
    timeout_t since;

    if (thread->state == TERMINATED || !thread->teb) return 0;
    return !get_thread_wait( thread, &obj, &since ) || may_be_recorded( thread, obj );
}

static struct process_records *find_process_records( struct chain *chain, struct process *process )
{
    unsigned int i;

    for (i = 0; i < chain->process_count; i++)
        if (chain->processes[i].process == process) return &chain->processes[i];
    return NULL;
}

static struct process_records *get_process_records( struct chain *chain, struct process *process )
{
    struct process_records *records;

    if ((records = find_process_records( chain, process ))) return records;
    if (chain->process_count == BATCH_PROCESSES) return NULL;
    records = &chain->processes[chain->process_count++];
    records->process = process;
    records->count = 0;
    records->batched = 0;
    return records;
}

static struct thread_record *find_thread_record( struct process_records *records, struct thread *thread )
{
    unsigned int i;

    for (i = 0; i < records->count; i++) if (records->threads[i].thread == thread) return &records->threads[i];
    return NULL;
}

static struct thread_record *add_thread_record( struct process_records *records, struct thread *thread )
{
    struct thread_record *entry;

    if (records->count == BATCH_THREADS) return NULL;
    entry = &records->threads[records->count++];
    memset( entry, 0, sizeof(*entry) );
    entry->thread = thread;
    entry->state = RECORD_UNREAD;
    entry->owner_state = PIECE_UNREAD;
    return entry;
}

/* The pieces that read the records of the entries from 'first' on: each
 * twice in a row, and a WoW64 thread's 32-bit one as well. */
static unsigned int record_pieces( struct process_records *records, unsigned int first,
                                   struct memory_piece *pieces )
{
    unsigned int i, j, n = 0, per_thread = is_wow64_process( records->process ) ? 4 : 2;

    for (i = first; i < records->count; i++)
    {
        struct thread_record *entry = &records->threads[i];

        for (j = 0; j < per_thread; j++)
        {
            pieces[n].addr = entry->thread->teb + (j < 2 ? WAIT_RECORD_TEB_OFFSET : WAIT_RECORD32_TEB_OFFSET);
            pieces[n].size = sizeof(struct wait_record);
            pieces[n].dest = &entry->copies[j / 2][j % 2];
            n++;
        }
    }
    return n;
}

/* Takes the records of the entries from 'first' on that record_pieces' pieces read. */
static void take_records( struct process_records *records, unsigned int first, const struct memory_piece *pieces )
{
    int wow64 = is_wow64_process( records->process );
    unsigned int i, j, n, per_thread = wow64 ? 4 : 2;
    struct recorded_wait wait32, wait64;
    int have32, have64;

    for (i = first, n = 0; i < records->count; i++, n += per_thread)
    {
        struct thread_record *entry = &records->threads[i];

        /* the kernel would not read them this way: read them alone */
        for (j = 0; j < per_thread; j++) if (pieces[n + j].state == PIECE_UNREAD) break;
        if (j < per_thread)
        {
            entry->state = read_record_alone( entry->thread, &entry->wait ) ? RECORD_SOME : RECORD_NONE;
            entry->alone = 1;
            continue;
        }
        have64 = pieces[n].state == PIECE_READ && pieces[n + 1].state == PIECE_READ &&
                 parse_record( entry->copies[0], &wait64 );
        have32 = wow64 && pieces[n + 2].state == PIECE_READ && pieces[n + 3].state == PIECE_READ &&
                 parse_record( entry->copies[1], &wait32 );
        /* copies that differ were being written: read that thread's again alone */
        if ((pieces[n].state == PIECE_READ && pieces[n + 1].state == PIECE_READ &&
             memcmp( &entry->copies[0][0], &entry->copies[0][1], sizeof(struct wait_record) )) ||
            (wow64 && pieces[n + 2].state == PIECE_READ && pieces[n + 3].state == PIECE_READ &&
             memcmp( &entry->copies[1][0], &entry->copies[1][1], sizeof(struct wait_record) )))
        {
            entry->state = read_record_alone( entry->thread, &entry->wait ) ? RECORD_SOME : RECORD_NONE;
            entry->alone = 1;
            continue;
        }
        entry->state = choose_record( wow64, have32, &wait32, have64, &wait64, &entry->wait ) ?
                       RECORD_SOME : RECORD_NONE;
    }
}

/* Where a critical section's OwningThread is, and its size: 32-bit code's
 * RTL_CRITICAL_SECTION has DebugInfo, LockCount, RecursionCount, then a
 * 4-byte OwningThread at offset 12. */
static client_ptr_t section_owner_field( client_ptr_t section, int wow64, data_size_t *size )
{
    *size = wow64 ? 4 : sizeof(ULONGLONG);
    return section + (wow64 ? 12 : FIELD_OFFSET( RTL_CRITICAL_SECTION, OwningThread ));
}

/* The pieces that read the owners of the critical sections that the
 * entries before 'limit' wait for, where not read yet; 'asked' says whose. */
static unsigned int owner_pieces( struct process_records *records, unsigned int limit,
                                  struct memory_piece *pieces, struct thread_record **asked )
{
    unsigned int i, n = 0;

    for (i = 0; i < limit; i++)
    {
        struct thread_record *entry = &records->threads[i];

        if (entry->state != RECORD_SOME || entry->wait.kind != WAIT_RECORD_CRITICAL_SECTION ||
            entry->owner_state != PIECE_UNREAD)
            continue;
        entry->owner = 0;
        pieces[n].addr = section_owner_field( entry->wait.address, entry->wait.wow64, &pieces[n].size );
        pieces[n].dest = &entry->owner;
        asked[n++] = entry;
    }
    return n;
}

/* The thread of an id read from client memory, if it lives: not
 * referenced (the thread table holds it), and no error set for an id that
 * names none (an owner that exited without leaving its section). */
static struct thread *thread_of_id( thread_id_t id )
{
    struct thread *thread = get_thread_from_id( id );

    if (!thread)
    {
        clear_error();
        return NULL;
    }
    release_object( thread );
    return thread->state == TERMINATED ? NULL : thread;
}

/*
 * A chain is asked for again and again (a watchdog, a hang reporter, a
 * test waiting for a chain to form). The section each of the last threads
 * read waited for, and the owner found for it, are kept: the first read of
 * a process reads, with the record of the chain's first thread, the owner
 * of the section it waited for, the record of the thread that owned it,
 * and so on along the chain as it was (after each record, as a later read
 * would). An owner read for a section the thread no longer waits for is
 * dropped, and where the chain no longer goes through a thread read so,
 * the walk reads as it would have. Threads are told apart by pointer and
 * id, never dereferenced.
 */
#define KEPT_SECTIONS 64
#define MAX_PREDICTED (WCT_MAX_NODE_COUNT / 2 + 1)   /* thread nodes of a chain through sections */

static struct kept_section
{
    const struct thread *thread;
    thread_id_t          id;
    client_ptr_t         section;   /* 0: none */
    int                  wow64;
    thread_id_t          owner;     /* the owner found for it (0: none) */
} kept_sections[KEPT_SECTIONS];

static struct kept_section *kept_section_slot( const struct thread *thread )
{
    return &kept_sections[(thread->id / 4) % KEPT_SECTIONS];
}

static int is_kept( const struct kept_section *kept, const struct thread *thread )
{
    return kept->thread == thread && kept->id == thread->id;
}

/* Adds the threads of the chain as it was from the last entry on (its
 * first thread's), as far as MAX_PREDICTED. */
static void add_predicted_threads( struct process_records *records )
{
    struct thread *thread = records->threads[records->count - 1].thread, *next;
    const struct kept_section *kept;

    while (records->count < MAX_PREDICTED)
    {
        kept = kept_section_slot( thread );
        if (!is_kept( kept, thread ) || !kept->section || !kept->owner) return;
        if (!(next = thread_of_id( kept->owner ))) return;
        if (next->process != records->process || next == current || !may_have_record( next ) ||
            find_thread_record( records, next ))
            return;
        add_thread_record( records, next );
        thread = next;
    }
}

/* Remembers the owner found for the section a thread waits for. */
static void keep_owner( const struct thread *thread, client_ptr_t section, unsigned long long owner )
{
    struct kept_section *kept = kept_section_slot( thread );

    if (is_kept( kept, thread ) && kept->section == section)
        kept->owner = owner == (thread_id_t)owner ? owner : 0;
}

/* Guesses the sections of the entries from 'first' on; the pieces that read their owners. */
static unsigned int guess_pieces( struct process_records *records, unsigned int first,
                                  struct memory_piece *pieces )
{
    unsigned int i, n = 0;

    for (i = first; i < records->count; i++)
    {
        struct thread_record *entry = &records->threads[i];
        const struct kept_section *kept = kept_section_slot( entry->thread );

        entry->guess = 0;
        if (!is_kept( kept, entry->thread ) || !kept->section) continue;
        entry->guess = kept->section;
        entry->guess_wow64 = kept->wow64;
        entry->owner = 0;  /* a 32-bit owner fills half of it */
        pieces[n].addr = section_owner_field( kept->section, kept->wow64, &pieces[n].size );
        pieces[n].dest = &entry->owner;
        n++;
    }
    return n;
}

/* Takes the owners that guessed right, read after the record they go with;
 * keeps the sections read for the next query. */
static void take_guesses( struct process_records *records, unsigned int first, const struct memory_piece *pieces )
{
    unsigned int i, n = 0;

    for (i = first; i < records->count; i++)
    {
        struct thread_record *entry = &records->threads[i];
        struct kept_section *kept = kept_section_slot( entry->thread );
        int section = entry->state == RECORD_SOME && entry->wait.kind == WAIT_RECORD_CRITICAL_SECTION;

        if (entry->guess)
        {
            if (section && !entry->alone && entry->wait.address == entry->guess &&
                entry->wait.wow64 == entry->guess_wow64)
                entry->owner_state = pieces[n].state;
            else
                entry->owner = 0;
            n++;
        }
        if (!is_kept( kept, entry->thread ) || !section || kept->section != entry->wait.address) kept->owner = 0;
        kept->thread = entry->thread;
        kept->id = entry->thread->id;
        kept->section = section ? entry->wait.address : 0;
        kept->wow64 = section && entry->wait.wow64;
    }
}

/*
 * One read of the process, one system call where the kernel allows: the
 * owners of the sections that the entries before 'first' wait for, where
 * not read yet, the records of the entries from 'first' on, and the owners
 * of the sections they waited for at the last query.
 */
static void read_process_records( struct process_records *records, unsigned int first )
{
    struct memory_piece pieces[BATCH_THREADS * 6];
    struct thread_record *asked[BATCH_THREADS];
    unsigned int i, owners = owner_pieces( records, first, pieces, asked );
    unsigned int count = owners + record_pieces( records, first, pieces + owners );
    unsigned int guesses = guess_pieces( records, first, pieces + count );

    read_process_memory_pieces( records->process, pieces, count + guesses );
    for (i = 0; i < owners; i++) asked[i]->owner_state = pieces[i].state;
    take_records( records, first, pieces + owners );
    take_guesses( records, first, pieces + count );
}

/* Adds the process's threads that may be in a recorded wait to its
 * entries, as far as BATCH_THREADS, once: not the one that asks for the
 * chain, which runs this request (read_wait_record reads nothing of it). */
static void add_process_threads( struct process_records *records )
{
    struct thread *other;
    unsigned int looked = 0;

    if (records->batched) return;
    records->batched = 1;
    LIST_FOR_EACH_ENTRY( other, &records->process->thread_list, struct thread, proc_entry )
    {
        if (records->count == BATCH_THREADS || looked++ >= 4 * BATCH_THREADS) break;
        if (other == current || !may_have_record( other ) || find_thread_record( records, other )) continue;
        add_thread_record( records, other );
    }
}

/*
 * The wait a thread recorded, if any. A chain through critical sections
 * reads a record at each thread it passes, one after the other; so the
 * first thread of a process a chain asks for is read alone (a chain of one
 * thread reads no more than that), and at the next read of the process (the
 * owner of that thread's section, or the record of a second thread) the
 * records of all the process's threads that may be in a recorded wait (no
 * server wait, or one a recorded path makes) are read with it, in one
 * system call, as far as BATCH_THREADS, with the owners of the sections
 * they waited for at the last query (kept_sections); the chain's other
 * hops in the process then read nothing, or the owners of sections they
 * did not wait for then, all in one more. A chain asked for before reads
 * its threads as they were then with its first one (add_predicted_threads).
 * Threads past the bound, and processes past BATCH_PROCESSES, are read
 * alone.
 */
static int read_wait_record( struct chain *chain, struct thread *thread, struct wait *wait )
{
    struct process *process = thread->process;
    struct process_records *records;
    struct thread_record *entry;
    unsigned int first;
    struct recorded_wait recorded;

    /* the thread asking runs this request: it waits for nothing */
    if (!thread->teb || thread == current) return 0;
    if (!(records = get_process_records( chain, process )))
    {
        if (!read_record_alone( thread, &recorded )) return 0;
        goto found;
    }
    if (!(entry = find_thread_record( records, thread )))
    {
        first = records->count;
        if (!(entry = add_thread_record( records, thread )))
        {
            if (!read_record_alone( thread, &recorded )) return 0;
            goto found;
        }
        if (first) add_process_threads( records );
        else add_predicted_threads( records );
        read_process_records( records, first );
    }
    if (entry->state != RECORD_SOME) return 0;
    recorded = entry->wait;

found:
    wait->kind = recorded.kind;
    wait->address = recorded.address;
    wait->wow64 = recorded.wow64;
    wait->since = recorded.since;
    return 1;
}

/* A critical section is the thread's own wait when it waits for one through
 * a semaphore the server sees; the record says which. A server wait that no
 * recorded path makes is the thread's wait without a look at its record. */
static int get_wait( struct chain *chain, struct thread *thread, struct wait *wait, unsigned int switches )
{
    int server, call;

    memset( wait, 0, sizeof(*wait) );
    if (thread->state == TERMINATED) return 0;
    server = get_thread_wait( thread, &wait->object, &wait->since );
    if ((!server || may_be_recorded( thread, wait->object )) && read_wait_record( chain, thread, wait ))
    {
        wait->object = NULL;
        return 1;
    }
    if (server) return 1;
    if (!get_host_call( thread, switches, &call, &wait->since, wait->what, sizeof(wait->what), &wait->lock ))
        return 0;
    wait->kind = WAIT_HOST_CALL;
    wait->address = call;
    return 1;
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
        set_ascii_name( node, wait->what );
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

/* The owner of the critical section a thread waits for, where it was not
 * read with the thread's record: at the first one a chain asks for in a
 * process, the records of the process's other threads are read with it,
 * and at the next, the owners of the sections that every thread read
 * waits for: the chain's other hops through the process read nothing. */
static int read_section_owner( struct chain *chain, struct thread *thread, const struct wait *wait,
                               unsigned long long *owner )
{
    struct process_records *records = find_process_records( chain, thread->process );
    struct thread_record *entry = records ? find_thread_record( records, thread ) : NULL;
    unsigned int first;
    data_size_t size;
    client_ptr_t addr;

    *owner = 0;
    if (entry && entry->state == RECORD_SOME && entry->wait.kind == WAIT_RECORD_CRITICAL_SECTION &&
        entry->wait.address == wait->address && entry->wait.wow64 == wait->wow64)
    {
        if (entry->owner_state == PIECE_UNREAD)
        {
            first = records->count;
            add_process_threads( records );
            read_process_records( records, first );
        }
        if (entry->owner_state == PIECE_READ)
        {
            *owner = entry->owner;
            keep_owner( thread, wait->address, *owner );
        }
        if (entry->owner_state != PIECE_UNREAD) return entry->owner_state == PIECE_READ;
    }
    /* not read with others, or the kernel would not read them so */
    addr = section_owner_field( wait->address, wait->wow64, &size );
    return read_client_memory( thread->process, addr, owner, size );
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
    if (!read_section_owner( chain, thread, wait, &owner_id )) return NULL;
    if ((node = add_object_node( chain, WctCriticalSectionType, owner_id ? WctStatusOwned : WctStatusNotOwned,
                                 NULL )))
        node->object = wait->address;

    /* client memory: only a live thread of the same process is an owner */
    if (!owner_id || owner_id != (thread_id_t)owner_id) return NULL;
    if (!(owner = thread_of_id( owner_id )) || owner->process != process) return NULL;
    return owner;
}

/* The owner of the glibc lock (a mutex, a write-locked rwlock) a thread
 * sleeps on in a host call (get_host_lock in wait_host.c): a node for the
 * lock, named by it, with its owner's Linux thread id; then that owner,
 * when it is a live Wine thread of the same process. A lock whose owner
 * exited holding it is Abandoned, and the chain ends there, as it does at
 * an owner that is not Wine's (Owned). Read from the process's memory as a
 * critical section's owner is: only for who may read it, and in another
 * process only when asked to follow critical sections there. */
static struct thread *follow_host_lock( struct chain *chain, struct thread *thread, const struct wait *wait,
                                        unsigned int flags )
{
    static const char * const kinds[] = { "lock", "mutex", "rwlock" };
    const unsigned int out_of_proc = WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG;
    const char *kind = kinds[wait->lock.kind < ARRAY_SIZE(kinds) ? wait->lock.kind : 0];
    struct process *process = thread->process;
    struct thread *owner = NULL, *other;
    struct wait_chain_node *node;
    char name[64];
    int exited;

    if (process != current->process && ((flags & out_of_proc) != out_of_proc || !can_read_memory( process )))
        return NULL;
    /* a live thread first: an ended one may have had the id before it */
    LIST_FOR_EACH_ENTRY( other, &process->thread_list, struct thread, proc_entry )
        if (other->unix_tid == wait->lock.owner_tid && (!owner || owner->state == TERMINATED)) owner = other;
    /* a Wine thread that ended, or no task of the process: it exited holding the lock */
    exited = owner ? owner->state == TERMINATED : !is_host_task( thread, wait->lock.owner_tid );
    if (exited) owner = NULL;
    /* ... unless it let the lock go before it exited: then the lock and the
     * wait read now are no longer those read before (an owner that exited
     * lets nothing go any more) */
    if (exited && !is_same_host_lock( thread, &wait->lock )) return NULL;
    if ((node = add_object_node( chain, WctUnknownType, exited ? WctStatusAbandoned : WctStatusOwned, NULL )))
    {
        node->object = wait->lock.address;
        node->tid = wait->lock.owner_tid;
        snprintf( name, sizeof(name), "host %s at 0x%llx", kind, (unsigned long long)wait->lock.address );
        set_ascii_name( node, name );
    }
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
    if (wait->kind == WAIT_HOST_CALL && wait->lock.owner_tid)
        return follow_host_lock( chain, thread, wait, flags );
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

    /* the nodes are cleared as they are added, the records as they are read */
    chain.count = chain.seen_count = chain.process_count = 0;
    chain.cycle = 0;
    walk_chain( &chain, thread, req->flags );
    release_object( thread );

    reply->total = chain.count;
    reply->cycle = chain.cycle;
    set_reply_data( chain.nodes, min( get_reply_max_size(),
                                      min( chain.count, WCT_MAX_NODE_COUNT ) * sizeof(chain.nodes[0]) ) );
}

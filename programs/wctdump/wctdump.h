/*
 * wctdump: what its files share
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

#ifndef __WCTDUMP_H
#define __WCTDUMP_H

#include "wine/wait_chain.h"
#include "page_cache.h"
#include "walk_names.h"
#include "wait_graph.h"

/* the version of the --json output's schema (docs/wctdump.schema.json); a
 * new version when a field changes meaning or goes, not when one is added */
#define WCTDUMP_JSON_SCHEMA 3

enum exit_status
{
    EXIT_CLEAN = 0,
    EXIT_DEADLOCK = 1,
    EXIT_ERROR = 2,
    EXIT_NO_SUCH_PROCESS = 3,
    EXIT_NO_PROGRAM = 4,
    EXIT_UNFOLLOWED = 5,
    EXIT_ORPHANED = 6,
};

/* the options (main.c) */
extern BOOL json, all_stacks, raw_names, other_processes;

/* output.c: text in the user's locale, JSON in UTF-8 */
struct output
{
    HANDLE handle;
    BOOL   console;
    UINT   codepage;
};

extern struct output out, err;
extern void init_output( struct output *output, DWORD std );
extern void __cdecl print_to( struct output *output, const WCHAR *format, ... );
extern void print_json_string( const WCHAR *str );
extern const WCHAR *error_text( DWORD code );

#define print(...) print_to( &out, __VA_ARGS__ )
#define error(...) print_to( &err, L"wctdump: " __VA_ARGS__ )

/*
 * target.c: the modules of a process and the reader that walk_names.c
 * names their frames through: the process's memory, read a page at a time
 * and kept, as naming a frame reads many small pieces, and the modules' files.
 */
#define MAX_MODULES 1024
#define NAME_LENGTH 512

struct module
{
    ULONG_PTR  base;
    DWORD      size;
    WCHAR      path[MAX_PATH];
    HANDLE     file;         /* opened when first read; INVALID_HANDLE_VALUE: cannot be */
    BYTE      *window;       /* FILE_WINDOW bytes of the file read last: the symbol table is read */
    ULONGLONG  window_start; /* in small pieces, one after another */
    DWORD      window_size;
};

/* Threads share most of their frames (the wait functions, the thread
 * start): each address is named once a report. */
struct frame_name
{
    ULONG_PTR addr;          /* 0: empty */
    WCHAR     text[NAME_LENGTH];
};

struct target
{
    HANDLE              process;
    DWORD               pid;
    struct module      *modules;
    DWORD               count;
    struct page_cache   cache;   /* the modules' headers and tables, for one report */
    ULONG64            *page_addrs;
    BYTE               *page_data;
    struct frame_name  *names;   /* NAME_SLOTS of them, or NULL */
    BOOL                symbols; /* dbghelp initialized for it */
};

extern BOOL open_target( struct target *target, DWORD pid );
extern void close_target( struct target *target );
extern BOOL read_target_memory( void *ctx, ULONG_PTR addr, void *buffer, SIZE_T size );
extern BOOL init_symbols( struct target *target );
extern void describe_address( struct target *target, ULONG_PTR addr, WCHAR *buffer, DWORD size );

/*
 * What wctdump learns of each thread, before it prints anything: the
 * summary comes first, each deadlock is printed once, and threads in the
 * same state with the same stack are printed once with their count.
 */
enum thread_state
{
    STATE_FINE,          /* running, sleeping, or its chain ends at something that is not stuck */
    STATE_DEADLOCK,      /* in a cycle */
    STATE_ON_DEADLOCK,   /* its chain leads into a cycle it is not part of */
    STATE_UNFOLLOWED,    /* blocked, and the chain ends at a wait whose owner cannot be followed */
    STATE_OTHER_PROCESS, /* blocked, and the chain goes into another process, not followed */
    STATE_ORPHANED,      /* blocked for ever: the chain ends at a host lock whose owner exited holding it */
    STATE_GONE,          /* ended while it was examined */
    STATE_ERROR,
};

struct thread_report
{
    DWORD                  tid;
    void                  *teb;        /* NULL: not known */
    DWORD                  error;
    DWORD                  count;
    BOOL                   cycle;      /* the chain ends in a cycle */
    enum thread_state      state;
    unsigned int           deadlock;   /* 1-based number of its cycle */
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT];
    ULONG_PTR              stack[WAIT_GRAPH_MAX_FRAMES];
    DWORD                  stack_count;
    BOOL                   printed;    /* in text: printed in a group */
};

struct process_report
{
    DWORD                 pid;
    int                   unix_pid;   /* 0: unknown */
    WCHAR                 name[MAX_PATH];
    struct target         target;
    BOOL                  readable;
    DWORD                 read_error;
    struct thread_report *threads;
    DWORD                 count;
};

extern void name_frames( struct process_report *process );

/* chains.c: the chains, the deadlocks found, each once, as the sorted ids
 * of their threads with the chain of the first thread that showed it, and
 * what the threads' states count to */
struct cycle
{
    DWORD                  tids[WCT_MAX_NODE_COUNT];
    unsigned int           count;
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT];   /* from the thread that starts it */
    DWORD                  node_count;
    DWORD                  pid;
};

/* counted by the kind of wait: the wait records' kinds, then host calls,
 * then host locks held by a thread that is not Wine's */
#define UNFOLLOWED_HOST_CALL  WAIT_RECORD_KIND_COUNT
#define UNFOLLOWED_HOST_OWNER (WAIT_RECORD_KIND_COUNT + 1)

struct findings
{
    struct cycle cycles[WAIT_GRAPH_MAX_CYCLES];
    unsigned int cycle_count;
    unsigned int deadlocked, waiting, unfollowed, other_process, orphaned, gone, errors, not_responding;
    unsigned int unfollowed_kinds[UNFOLLOWED_HOST_OWNER + 1];
};

extern struct findings findings;
extern BOOL init_chains(void);
extern void close_chains(void);
extern void get_chain( struct thread_report *report, DWORD flags );
extern void classify( struct thread_report *report, DWORD pid );
extern BOOL is_blocked( const struct thread_report *report );
extern BOOL is_thread_node( const struct wait_chain_node *node );
extern int verdict(void);

/* host_names.c */
extern void name_host_locks( struct thread_report *report );

/* stacks.c */
extern void init_stack_walks(void);
extern void walk_stack( struct target *target, struct thread_report *report );

/* system.c: every process and thread of the system, taken once */
struct thread_id
{
    DWORD pid;
    DWORD tid;
    void *teb;   /* NULL: not known */
};

extern BOOL grow_array( void **array, DWORD *capacity, DWORD count, size_t size );
extern PROCESSENTRY32W *system_processes;
extern DWORD system_process_count;
extern struct thread_id *all_threads;
extern DWORD all_thread_count;
extern void take_system_snapshot(void);
extern const WCHAR *process_name( DWORD pid );
extern void get_unix_pids(void);
extern int unix_pid_of( DWORD pid );
extern DWORD windows_pid_of_unix( int unix_pid );
extern BOOL is_wine_process( const PROCESSENTRY32W *entry, DWORD parent );

/* the reports */
extern void print_report_text( struct process_report *processes, DWORD count );
extern void print_list( const DWORD *pids, DWORD count );
extern void print_report_json( struct process_report *processes, DWORD count );
extern void print_report_dot( struct process_report *processes, DWORD count );

#endif  /* __WCTDUMP_H */

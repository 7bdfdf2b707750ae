/*
 * wctdump: wait chains and call stacks of every thread, with deadlocks marked
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ntstatus.h>
#define WIN32_NO_STATUS
#include <windows.h>
#include <winternl.h>
#include <tlhelp32.h>
#include <wct.h>

#include "wctdump.h"

static const WCHAR usage[] =
    L"Usage: wctdump [OPTION...] [PROCESS...]\n"
    L"       wctdump --list\n"
    L"\n"
    L"Finds deadlocks: lists the threads of the given processes (of every program\n"
    L"in the prefix without one) with their wait chains, the call stacks of the\n"
    L"blocked ones, and the cycles of waits (deadlocks), each once.\n"
    L"\n"
    L"  PROCESS  a Windows process id in decimal (32), in hex as Wine writes it (0x20,\n"
    L"           00000020), the Linux pid of a Wine process (what ps shows), or an\n"
    L"           executable's name (hang.exe or hang: every process of that name)\n"
    L"  --list             one line per process, and nothing else\n"
    L"  --all              the call stacks of every thread, running ones too (sampled)\n"
    L"  --other-processes  follow chains into other processes (WCT_OUT_OF_PROC_FLAG)\n"
    L"  --wine             Wine's own processes too (services, winedevice, plugplay,\n"
    L"                     svchost, rpcss, explorer, conhost, wineboot, winemenubuilder,\n"
    L"                     wctdump's start.exe)\n"
    L"  --raw              symbol names as the image has them, not demangled\n"
    L"  --json             the report as JSON (UTF-8), for programs\n"
    L"  --dot              the wait graph in Graphviz's language (UTF-8), to draw:\n"
    L"                     wctdump --dot | dot -Tsvg > hang.svg\n"
    L"  --timing           after the report, how long its parts took (on stderr)\n"
    L"  --help             this text\n"
    L"\n"
    L"Exit status:\n"
    L"  0  no deadlock, and every blocked thread's chain was followed to its end\n"
    L"  1  a deadlock\n"
    L"  2  a usage error, or wctdump failed\n"
    L"  3  a process asked for does not exist (nothing is reported)\n"
    L"  4  no program runs in the prefix (only Wine's own processes), or no prefix\n"
    L"  5  no deadlock found, but some blocked threads wait on something whose owner\n"
    L"     cannot be followed (an event, a semaphore, an SRW lock, ...) or in another\n"
    L"     process: a deadlock through them would not show\n"
    L"  6  no deadlock, but a thread waits for ever on a host lock (a glibc mutex or\n"
    L"     rwlock) whose owner exited holding it\n";

BOOL json, dot, all_stacks, raw_names, other_processes;
static BOOL with_wine, list_only, timing;

/* --timing: where a report's time goes, in ms */
enum report_part { PART_MODULES, PART_CHAINS, PART_STACKS, PART_PRINT, PART_COUNT };
static double part_ms[PART_COUNT];

static double now_ms(void)
{
    LARGE_INTEGER freq, counter;

    QueryPerformanceFrequency( &freq );
    QueryPerformanceCounter( &counter );
    return (double)counter.QuadPart * 1000 / (double)freq.QuadPart;
}

/* Collects the report of one process: each thread's chain first (it costs
 * the thread nothing), then the stacks (walking one suspends it). */
static void collect_process( struct process_report *process )
{
    DWORD flags = WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG, i, t, size = 16;
    double start = now_ms(), modules;

    if (!(process->readable = open_target( &process->target, process->pid )))
        process->read_error = GetLastError();
    modules = now_ms();
    part_ms[PART_MODULES] += modules - start;
    process->threads = malloc( size * sizeof(*process->threads) );
    for (t = 0; process->threads && t < all_thread_count; t++)
    {
        struct thread_report *report;

        if (all_threads[t].pid != process->pid) continue;
        if (!grow_array( (void **)&process->threads, &size, process->count, sizeof(*process->threads) )) break;
        report = &process->threads[process->count++];
        memset( report, 0, sizeof(*report) );
        report->tid = all_threads[t].tid;
        report->teb = all_threads[t].teb;
        get_chain( report, flags );
        name_host_locks( report );
    }
    start = now_ms();
    part_ms[PART_CHAINS] += start - modules;
    for (i = 0; i < process->count; i++)
    {
        classify( &process->threads[i], process->pid );
        if (process->readable && (is_blocked( &process->threads[i] ) || all_stacks))
            walk_stack( &process->target, &process->threads[i] );
    }
    part_ms[PART_STACKS] += now_ms() - start;
}


/* a process argument as given, and what it found */
struct wanted
{
    const WCHAR *arg;
    DWORD        pid;        /* a number: the Windows id it names */
    BOOL         number;
    BOOL         found;
};

/*
 * A process argument: a decimal Windows id as wctdump prints it (32), Wine's
 * hex forms (0x20, and 00000020 as winedbg writes it), a Linux pid, or an
 * executable's name. A decimal number with a leading zero other than
 * winedbg's eight digits (0070) is refused: some tools read it as octal.
 */
static BOOL parse_process( const WCHAR *arg, struct wanted *wanted )
{
    ULONGLONG value = 0;
    const WCHAR *p = arg;
    BOOL hex = FALSE, digits = TRUE;

    wanted->arg = arg;
    if (!arg[0])
    {
        error( L"an empty process argument\n" );
        return FALSE;
    }
    if (arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X'))
    {
        hex = TRUE;
        p += 2;
        if (!*p) digits = FALSE;
    }
    else if (wcslen( arg ) == 8 && arg[0] == '0') hex = TRUE;
    for (; *p && digits; p++)
    {
        if (*p >= '0' && *p <= '9') value = value * (hex ? 16 : 10) + *p - '0';
        else if (hex && ((*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
            value = value * 16 + (*p | 0x20) - 'a' + 10;
        else digits = FALSE;
        if (value > MAXDWORD)
        {
            error( L"%ls: not a process id (too large)\n", arg );
            return FALSE;
        }
    }
    if (!digits)
    {
        if (hex)
        {
            error( L"%ls: not a process id (0x is followed by hexadecimal digits)\n", arg );
            return FALSE;
        }
        return TRUE;   /* a name */
    }
    if (!hex && arg[0] == '0' && arg[1])
    {
        error( L"%ls: ambiguous process id: ids are decimal without leading zeros (%I64u), or hexadecimal"
               L" as 0x%I64x or with eight digits as winedbg writes them\n", arg, value, value );
        return FALSE;
    }
    wanted->number = TRUE;
    wanted->pid = value;
    return TRUE;
}

/* does the name (hang.exe or hang) name this executable? */
static BOOL name_matches( const WCHAR *name, const WCHAR *exe )
{
    size_t len = wcslen( name );

    if (!wcsicmp( name, exe )) return TRUE;
    return !wcsnicmp( name, exe, len ) && !wcsicmp( exe + len, L".exe" );
}

/* Resolves the numbers: a Windows id wins when it exists; else the Linux
 * pid of a Wine process. One that is both, for different processes, is refused. */
static BOOL resolve_numbers( struct wanted *wanted, DWORD count )
{
    DWORD i, by_unix;
    BOOL windows;

    for (i = 0; i < count; i++)
    {
        if (!wanted[i].number) continue;
        windows = process_name( wanted[i].pid ) != NULL;
        by_unix = windows_pid_of_unix( wanted[i].pid );
        if (windows && by_unix && by_unix != wanted[i].pid)
        {
            error( L"%ls is both the Windows id of %ls and the Linux pid of %ls (Windows id %lu):"
                   L" give 0x%lx for the first, %lu for the second\n", wanted[i].arg,
                   process_name( wanted[i].pid ), process_name( by_unix ), by_unix, wanted[i].pid, by_unix );
            return FALSE;
        }
        if (!windows && by_unix) wanted[i].pid = by_unix;
    }
    return TRUE;
}


/* the options and the processes asked for; FALSE, said, on a usage error */
static BOOL parse_args( int argc, WCHAR *argv[], struct wanted *wanted, DWORD *count, BOOL *help )
{
    int i;

    for (i = 1; i < argc; i++)
    {
        if (!wcscmp( argv[i], L"--json" )) continue;  /* taken before the output is set up */
        if (!wcscmp( argv[i], L"--all" )) all_stacks = TRUE;
        else if (!wcscmp( argv[i], L"--raw" )) raw_names = TRUE;
        else if (!wcscmp( argv[i], L"--wine" )) with_wine = TRUE;
        else if (!wcscmp( argv[i], L"--other-processes" )) other_processes = TRUE;
        else if (!wcscmp( argv[i], L"--list" )) list_only = TRUE;
        else if (!wcscmp( argv[i], L"--timing" )) timing = TRUE;
        else if (!wcscmp( argv[i], L"--dot" )) dot = TRUE;
        else if (!wcscmp( argv[i], L"--help" ) || !wcscmp( argv[i], L"-h" ) || !wcscmp( argv[i], L"/?" ))
        {
            *help = TRUE;
            return TRUE;
        }
        else if (argv[i][0] == '-' || argv[i][0] == '/')
        {
            error( L"unknown option %ls (wctdump --help lists them)\n", argv[i] );
            return FALSE;
        }
        else if (!parse_process( argv[i], &wanted[(*count)++] )) return FALSE;
    }
    if (json && dot)
    {
        error( L"--json and --dot are two forms of the same report: give one\n" );
        return FALSE;
    }
    return TRUE;
}

/* The processes to report, in 'chosen' (room for every process of the
 * snapshot): those asked for, else every program of the prefix. An exit
 * status when there is none to report, after saying why. */
static int choose_processes( struct wanted *wanted, DWORD nwanted, DWORD *chosen, DWORD *nchosen )
{
    DWORD parent = 0, skipped = 0, j, k;
    int status = EXIT_CLEAN;

    for (k = 0; k < system_process_count; k++)
        if (system_processes[k].th32ProcessID == GetCurrentProcessId())
            parent = system_processes[k].th32ParentProcessID;
    for (k = 0; k < system_process_count; k++)
    {
        const PROCESSENTRY32W *entry = &system_processes[k];
        BOOL want = !nwanted;

        if (entry->th32ProcessID == GetCurrentProcessId()) continue;
        for (j = 0; j < nwanted; j++)
        {
            if (wanted[j].number ? wanted[j].pid == entry->th32ProcessID
                                 : name_matches( wanted[j].arg, entry->szExeFile ))
                want = wanted[j].found = TRUE;
        }
        if (!nwanted && !with_wine && is_wine_process( entry, parent ))
        {
            skipped++;
            continue;
        }
        if (want) chosen[(*nchosen)++] = entry->th32ProcessID;
    }

    /* a process asked for that is not there: no verdict, no report */
    for (j = 0; j < nwanted; j++)
    {
        if (wanted[j].found) continue;
        if (wanted[j].number) error( L"no such process %ls\n", wanted[j].arg );
        else error( L"no process named %ls\n", wanted[j].arg );
        status = EXIT_NO_SUCH_PROCESS;
    }
    if (!status && !*nchosen)
    {
        error( L"no program runs in this prefix%ls (is WINEPREFIX the prefix of the program?)\n",
               skipped ? L", only Wine's own processes (--wine shows them)" : L"" );
        status = EXIT_NO_PROGRAM;
    }
    return status;
}

/* collects, names and prints the report of the processes 'chosen' */
static int report( const DWORD *chosen, DWORD count )
{
    struct process_report *processes = calloc( count, sizeof(*processes) );
    double report_start = now_ms(), start;
    DWORD j, threads = 0;

    if (!processes) return EXIT_ERROR;
    for (j = 0; j < count; j++)
    {
        processes[j].pid = chosen[j];
        processes[j].unix_pid = unix_pid_of( chosen[j] );
        lstrcpynW( processes[j].name, process_name( chosen[j] ), ARRAY_SIZE(processes[j].name) );
        collect_process( &processes[j] );
    }
    close_chains();

    start = now_ms();
    for (j = 0; j < count; j++) if (processes[j].readable) name_frames( &processes[j] );
    if (json) print_report_json( processes, count );
    else if (dot) print_report_dot( processes, count );
    else print_report_text( processes, count );
    part_ms[PART_PRINT] = now_ms() - start;
    if (timing)
    {
        for (j = 0; j < count; j++) threads += processes[j].count;
        error( L"report of %lu threads in %.2f ms: modules %.2f, wait chains %.2f, stacks %.2f, "
               L"naming frames and printing %.2f\n", threads, now_ms() - report_start, part_ms[PART_MODULES],
               part_ms[PART_CHAINS], part_ms[PART_STACKS], part_ms[PART_PRINT] );
    }
    for (j = 0; j < count; j++) close_target( &processes[j].target );
    return verdict();
}

int __cdecl wmain( int argc, WCHAR *argv[] )
{
    struct wanted *wanted;
    DWORD nwanted = 0, *chosen, nchosen = 0;
    BOOL help = FALSE;
    int i, status;

    for (i = 1; i < argc; i++)
        if (!wcscmp( argv[i], L"--json" )) json = TRUE;
    init_output( &out, STD_OUTPUT_HANDLE );
    init_output( &err, STD_ERROR_HANDLE );

    if (!(wanted = calloc( argc, sizeof(*wanted) ))) return EXIT_ERROR;
    if (!parse_args( argc, argv, wanted, &nwanted, &help )) return EXIT_ERROR;
    if (help)
    {
        print_to( &out, L"%ls", usage );
        return EXIT_CLEAN;
    }
    if (!init_chains())
    {
        if (GetLastError() == ERROR_PROC_NOT_FOUND)
            error( L"this system has no Wait Chain Traversal (stock Wine has none: run wctdump on the layer,"
                   L" wine-layer wctdump)\n" );
        else error( L"cannot open a wait chain session: %ls\n", error_text( GetLastError() ) );
        return EXIT_ERROR;
    }
    init_stack_walks();

    take_system_snapshot();
    if (!system_processes || !(chosen = calloc( system_process_count + 1, sizeof(*chosen) ))) return EXIT_ERROR;
    get_unix_pids();
    if (!resolve_numbers( wanted, nwanted )) return EXIT_ERROR;
    if ((status = choose_processes( wanted, nwanted, chosen, &nchosen ))) return status;
    if (list_only)
    {
        print_list( chosen, nchosen );
        return EXIT_CLEAN;
    }
    return report( chosen, nchosen );
}

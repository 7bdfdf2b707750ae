/*
 * Benchmark of wctdump: one report of a process of 30 threads, every one
 * blocked, in a mix of waits (a mutex deadlock, a critical-section
 * deadlock, a critical section, SRW locks, a condition variable,
 * WaitOnAddress, Sleep, an event, an event or a semaphore, a thread, its
 * message queue). Runs wctdump --timing on it (as the layer installs it in
 * system32) and prints the median of the report's time and of its parts.
 * Prints "NAME VALUE UNIT" lines; tools/bench.sh runs it on stock Wine
 * (which has no wctdump) and on the layer.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <tlhelp32.h>
#include <wct.h>

#define THREADS 30
#define RUNS 9

/* the target: its threads, and how each blocks */
static SRWLOCK srw = SRWLOCK_INIT, cv_lock = SRWLOCK_INIT;
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static CRITICAL_SECTION cs, cs_a, cs_b;
static LONG address_value;
static HANDLE event, sem, mutex_a, mutex_b, main_thread;
static volatile LONG stage;
static BOOL (WINAPI *pWaitOnAddress)(volatile void *, void *, SIZE_T, DWORD);

static DWORD WINAPI in_sleep( void *arg ) { Sleep( INFINITE ); return 0; }
static DWORD WINAPI in_srw( void *arg ) { AcquireSRWLockExclusive( &srw ); return 0; }
static DWORD WINAPI in_srw_shared( void *arg ) { AcquireSRWLockShared( &srw ); return 0; }
static DWORD WINAPI in_event( void *arg ) { WaitForSingleObject( event, INFINITE ); return 0; }
static DWORD WINAPI in_cs( void *arg ) { EnterCriticalSection( &cs ); return 0; }
static DWORD WINAPI in_join( void *arg ) { WaitForSingleObject( main_thread, INFINITE ); return 0; }

static DWORD WINAPI in_cv( void *arg )
{
    AcquireSRWLockExclusive( &cv_lock );
    for (;;) SleepConditionVariableSRW( &cv, &cv_lock, INFINITE, 0 );
    return 0;
}

static DWORD WINAPI in_address( void *arg )
{
    LONG zero = 0;
    for (;;) pWaitOnAddress( &address_value, &zero, sizeof(zero), INFINITE );
    return 0;
}

static DWORD WINAPI in_objects( void *arg )
{
    HANDLE objects[2] = { event, sem };
    WaitForMultipleObjects( 2, objects, FALSE, INFINITE );
    return 0;
}

static DWORD WINAPI in_messages( void *arg )
{
    MSG msg;
    while (GetMessageA( &msg, NULL, 0, 0 )) DispatchMessageA( &msg );
    return 0;
}

/* two pairs that deadlock: thread i of a pair holds its own and waits for the other's */
static DWORD WINAPI mutex_pair( void *arg )
{
    BOOL second = !!arg;

    WaitForSingleObject( second ? mutex_b : mutex_a, INFINITE );
    InterlockedIncrement( &stage );
    while (stage < 2) Sleep( 1 );
    WaitForSingleObject( second ? mutex_a : mutex_b, INFINITE );
    return 0;
}

static DWORD WINAPI cs_pair( void *arg )
{
    BOOL second = !!arg;

    EnterCriticalSection( second ? &cs_b : &cs_a );
    InterlockedIncrement( &stage );
    while (stage < 4) Sleep( 1 );
    EnterCriticalSection( second ? &cs_a : &cs_b );
    return 0;
}

static void target(void)
{
    static LPTHREAD_START_ROUTINE kinds[] =
        { in_sleep, in_srw, in_srw_shared, in_cv, in_address, in_event, in_objects, in_cs, in_join, in_messages };
    int i;

    pWaitOnAddress = (void *)GetProcAddress( GetModuleHandleA( "kernelbase.dll" ), "WaitOnAddress" );
    InitializeCriticalSection( &cs );
    InitializeCriticalSection( &cs_a );
    InitializeCriticalSection( &cs_b );
    event = CreateEventA( NULL, TRUE, FALSE, NULL );
    sem = CreateSemaphoreA( NULL, 0, 1, NULL );
    mutex_a = CreateMutexA( NULL, FALSE, NULL );
    mutex_b = CreateMutexA( NULL, FALSE, NULL );
    DuplicateHandle( GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &main_thread, 0, FALSE,
                     DUPLICATE_SAME_ACCESS );
    EnterCriticalSection( &cs );
    AcquireSRWLockExclusive( &srw );
    for (i = 0; i < 2; i++) CloseHandle( CreateThread( NULL, 0, mutex_pair, (void *)(INT_PTR)i, 0, NULL ) );
    while (stage < 2) Sleep( 1 );
    for (i = 0; i < 2; i++) CloseHandle( CreateThread( NULL, 0, cs_pair, (void *)(INT_PTR)i, 0, NULL ) );
    /* the main thread and the four above, and 25 more */
    for (i = 0; i < THREADS - 5; i++) CloseHandle( CreateThread( NULL, 0, kinds[i % ARRAYSIZE(kinds)], NULL, 0, NULL ) );
    WaitForSingleObject( event, INFINITE );
}

/* every thread of the process is Blocked (waits until it is, 20 s at most);
 * the functions are looked up, as stock Wine lacks some */
static BOOL all_blocked( DWORD pid )
{
    HMODULE advapi32 = LoadLibraryA( "advapi32.dll" );
    HWCT (WINAPI *pOpenThreadWaitChainSession)(DWORD, PWAITCHAINCALLBACK) =
        (void *)GetProcAddress( advapi32, "OpenThreadWaitChainSession" );
    BOOL (WINAPI *pGetThreadWaitChain)(HWCT, DWORD_PTR, DWORD, DWORD, DWORD *, WAITCHAIN_NODE_INFO *, BOOL *) =
        (void *)GetProcAddress( advapi32, "GetThreadWaitChain" );
    void (WINAPI *pCloseThreadWaitChainSession)(HWCT) =
        (void *)GetProcAddress( advapi32, "CloseThreadWaitChainSession" );
    DWORD start = GetTickCount();
    HWCT session;
    BOOL ret = FALSE;

    if (!pOpenThreadWaitChainSession || !pGetThreadWaitChain || !pCloseThreadWaitChainSession ||
        !(session = pOpenThreadWaitChainSession( 0, NULL )))
        return FALSE;
    while (!ret && GetTickCount() - start < 20000)
    {
        HANDLE snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPTHREAD, 0 );
        THREADENTRY32 entry = { sizeof(entry) };
        int threads = 0, blocked = 0;

        if (Thread32First( snapshot, &entry ))
        {
            do
            {
                WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
                DWORD count = WCT_MAX_NODE_COUNT;
                BOOL cycle;

                if (entry.th32OwnerProcessID != pid) continue;
                threads++;
                if (pGetThreadWaitChain( session, 0, 0, entry.th32ThreadID, &count, nodes, &cycle ) &&
                    nodes[0].ObjectStatus == WctStatusBlocked)
                    blocked++;
            } while (Thread32Next( snapshot, &entry ));
        }
        CloseHandle( snapshot );
        ret = threads == THREADS && blocked == THREADS;
        if (!ret) Sleep( 20 );
    }
    pCloseThreadWaitChainSession( session );
    return ret;
}

/* one wctdump --timing run: its timing line's figures */
static BOOL run_wctdump( DWORD pid, double *figures )
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_INFORMATION pi;
    HANDLE read_end, write_end, null;
    char cmdline[64], text[1024], *line;
    DWORD got, total = 0, threads;
    BOOL ret = FALSE;

    if (!CreatePipe( &read_end, &write_end, &sa, 0 )) return FALSE;
    SetHandleInformation( read_end, HANDLE_FLAG_INHERIT, 0 );
    null = CreateFileA( "NUL", GENERIC_WRITE, FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, NULL );
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle( STD_INPUT_HANDLE );
    si.hStdOutput = null;
    si.hStdError = write_end;
    sprintf( cmdline, "wctdump.exe --timing %lu", pid );
    if (CreateProcessA( NULL, cmdline, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi ))
    {
        CloseHandle( write_end );
        write_end = NULL;
        while (total < sizeof(text) - 1 && ReadFile( read_end, text + total, sizeof(text) - 1 - total, &got, NULL ) && got)
            total += got;
        text[total] = 0;
        WaitForSingleObject( pi.hProcess, INFINITE );
        CloseHandle( pi.hProcess );
        CloseHandle( pi.hThread );
        if ((line = strstr( text, "report of " )))
            ret = sscanf( line, "report of %lu threads in %lf ms: modules %lf, wait chains %lf, stacks %lf, "
                          "naming frames and printing %lf", &threads, &figures[0], &figures[1], &figures[2],
                          &figures[3], &figures[4] ) == 6 && threads == THREADS;
    }
    if (write_end) CloseHandle( write_end );
    CloseHandle( read_end );
    CloseHandle( null );
    return ret;
}

static int __cdecl compare_double( const void *a, const void *b )
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main( int argc, char **argv )
{
    static const char * const names[] = { "wctdump_30_threads_report", "wctdump_30_threads_modules",
        "wctdump_30_threads_chains", "wctdump_30_threads_stacks", "wctdump_30_threads_names_print" };
    double figures[RUNS][ARRAYSIZE(names)], column[RUNS];
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_INFORMATION pi;
    char cmdline[MAX_PATH + 16];
    int i, j, runs = 0;

    if (argc > 1 && !strcmp( argv[1], "target" ))
    {
        target();
        return 0;
    }
    sprintf( cmdline, "\"%s\" target", argv[0] );
    if (!CreateProcessA( NULL, cmdline, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ))
    {
        printf( "# cannot start the target, error %lu\n", GetLastError() );
        return 0;
    }
    if (!all_blocked( pi.dwProcessId ))
        printf( "# wctdump: not supported (no Wait Chain Traversal to see the threads blocked)\n" );
    else
    {
        for (i = 0; i < RUNS; i++) if (run_wctdump( pi.dwProcessId, figures[runs] )) runs++;
        if (!runs) printf( "# wctdump: not supported (no wctdump --timing)\n" );
        for (j = 0; runs && j < ARRAYSIZE(names); j++)
        {
            for (i = 0; i < runs; i++) column[i] = figures[i][j];
            qsort( column, runs, sizeof(column[0]), compare_double );
            printf( "%s %.2f ms\n", names[j], column[runs / 2] );
        }
        /* issue 19's target: a report of 30 blocked threads in under 20 ms */
        if (runs) printf( "target_wctdump_30_threads_report 20.00 ms\n" );
    }
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    return 0;
}

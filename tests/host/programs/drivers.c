/*
 * Wine's own driver threads that wait in a host poll(): winebus's
 * bus_main_thread and wineusb's event_thread_proc run in a winedevice.exe
 * and wait for devices in their unix libraries, where neither the
 * wineserver nor a wait record sees them. This program finds the threads
 * of every winedevice.exe whose call stack passes through winebus.sys or
 * wineusb.sys, and asks Wait Chain Traversal about each until it has seen
 * it Blocked in a host call (WAIT_HOST_CALL) once, for 60 s at most: a
 * thread that sleeps in short steps may be caught between two of them.
 * Prints "drivers: thread TID MODULE blocked in call N on 'WHAT'" for each,
 * "drivers: thread TID MODULE never blocked" for one that never was, then
 * "drivers: N threads, N never blocked", or "drivers: none" when no
 * winedevice.exe has loaded either driver within 30 s.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <string.h>
/* the wait-chain node is declared in Wine's server protocol, whose header
 * (through Wine 10's ntuser.h) needs the Wine-internal part of winuser.h */
#define __WINESRC__
#include <windows.h>
#include <tlhelp32.h>
#include <psapi.h>
#include <wct.h>
#include <winternl.h>
#include <pkfuncs.h>
#include "wine/server_protocol.h"
#include "wine/wait_chain.h"

static NTSTATUS (WINAPI *p__wine_get_wait_chain)( DWORD, DWORD, struct wait_chain_node *, ULONG, ULONG *, BOOL * );
static ULONG (WINAPI *pGetThreadCallStack)( HANDLE, ULONG, void *, DWORD, DWORD );

struct driver_thread
{
    DWORD       tid;
    const char *module;
    BOOL        blocked;
};

static struct driver_thread threads[64];
static unsigned int count;

/* the range of module 'name' in the process, if it is loaded there */
static BOOL module_range( HANDLE process, const char *name, ULONG_PTR *start, ULONG_PTR *end )
{
    HMODULE modules[512];
    MODULEINFO info;
    char base[MAX_PATH];
    DWORD needed, i;

    if (!K32EnumProcessModules( process, modules, sizeof(modules), &needed )) return FALSE;
    for (i = 0; i < needed / sizeof(HMODULE) && i < ARRAYSIZE(modules); i++)
    {
        if (!K32GetModuleBaseNameA( process, modules[i], base, sizeof(base) ) || _stricmp( base, name )) continue;
        if (!K32GetModuleInformation( process, modules[i], &info, sizeof(info) )) return FALSE;
        *start = (ULONG_PTR)info.lpBaseOfDll;
        *end = *start + info.SizeOfImage;
        return TRUE;
    }
    return FALSE;
}

static void find_driver_threads( DWORD pid )
{
    static const char * const drivers[] = { "winebus.sys", "wineusb.sys" };
    ULONG_PTR start[2], end[2];
    BOOL loaded[2];
    THREADENTRY32 entry = { sizeof(entry) };
    CallSnapshot frames[64];
    HANDLE process, snapshot, thread;
    ULONG n, i, d;

    if (!(process = OpenProcess( PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid ))) return;
    for (d = 0; d < 2; d++) loaded[d] = module_range( process, drivers[d], &start[d], &end[d] );
    CloseHandle( process );
    if (!loaded[0] && !loaded[1]) return;

    snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPTHREAD, 0 );
    for (BOOL more = Thread32First( snapshot, &entry ); more; more = Thread32Next( snapshot, &entry ))
    {
        if (entry.th32OwnerProcessID != pid || count == ARRAYSIZE(threads)) continue;
        if (!(thread = OpenThread( THREAD_ALL_ACCESS, FALSE, entry.th32ThreadID ))) continue;
        n = pGetThreadCallStack( thread, ARRAYSIZE(frames), frames, 0, 0 );
        CloseHandle( thread );
        for (i = 0; i < n; i++)
        {
            for (d = 0; d < 2; d++)
                if (loaded[d] && frames[i].dwReturnAddr >= start[d] && frames[i].dwReturnAddr < end[d]) break;
            if (d == 2) continue;
            threads[count].tid = entry.th32ThreadID;
            threads[count].module = drivers[d];
            count++;
            break;
        }
    }
    CloseHandle( snapshot );
}

int main( void )
{
    PROCESSENTRY32 entry = { sizeof(entry) };
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT];
    HANDLE snapshot;
    unsigned int i, never = 0, left;
    ULONG total;
    BOOL cycle;
    char what[130];
    int round;

    p__wine_get_wait_chain = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ), "__wine_get_wait_chain" );
    pGetThreadCallStack = (void *)GetProcAddress( LoadLibraryA( "coredll.dll" ), "GetThreadCallStack" );
    if (!p__wine_get_wait_chain || !pGetThreadCallStack)
    {
        printf( "drivers: not the layer\n" );
        return 1;
    }

    /* the services start the drivers when the prefix starts: wait for them, 30 s at most */
    for (round = 0; round < 300 && !count; round++)
    {
        if (round) Sleep( 100 );
        snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPPROCESS, 0 );
        for (BOOL more = Process32First( snapshot, &entry ); more; more = Process32Next( snapshot, &entry ))
            if (!_stricmp( entry.szExeFile, "winedevice.exe" )) find_driver_threads( entry.th32ProcessID );
        CloseHandle( snapshot );
    }
    if (!count)
    {
        printf( "drivers: none\n" );
        return 0;
    }

    for (round = 0, left = count; round < 600 && left; round++)
    {
        for (i = 0; i < count; i++)
        {
            ULONG j;

            if (threads[i].blocked) continue;
            if (p__wine_get_wait_chain( threads[i].tid, WCT_OUT_OF_PROC_FLAG, nodes, ARRAYSIZE(nodes), &total, &cycle ))
                continue;
            if (nodes[0].status != WctStatusBlocked || nodes[0].wait_kind != WAIT_HOST_CALL) continue;
            for (j = 0; j < nodes[0].name_len / sizeof(WCHAR) && j < sizeof(what) - 1; j++) what[j] = nodes[0].name[j];
            what[j] = 0;
            printf( "drivers: thread %lu %s blocked in call %I64u on '%s', %u ms\n", threads[i].tid,
                    threads[i].module, nodes[0].object, what, nodes[0].wait_time );
            threads[i].blocked = TRUE;
            left--;
        }
        if (left) Sleep( 100 );
    }
    for (i = 0; i < count; i++)
    {
        if (threads[i].blocked) continue;
        printf( "drivers: thread %lu %s never blocked\n", threads[i].tid, threads[i].module );
        never++;
    }
    printf( "drivers: %u threads, %u never blocked\n", count, never );
    return never != 0;
}

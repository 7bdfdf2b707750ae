/*
 * hostwait.exe EXE WHAT: waits until a thread of the process running EXE
 * is Blocked in a host system call on a descriptor WHAT ("pipe:[N]", a
 * FIFO's file name), as the layer's wait chain says, asking for 60 s at
 * most. Prints "hostwait: thread TID blocked in call N on 'WHAT'" and
 * exits 0, or prints what each thread of the process was last seen in and
 * exits 1. For real programs that read their standard input (7za a -si).
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
#include <wct.h>
#include <winternl.h>
#include "wine/server_protocol.h"
#include "wine/wait_chain.h"

static NTSTATUS (WINAPI *p__wine_get_wait_chain)( DWORD, DWORD, struct wait_chain_node *, ULONG, ULONG *, BOOL * );

static DWORD find_process( const char *exe )
{
    PROCESSENTRY32 entry = { sizeof(entry) };
    HANDLE snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPPROCESS, 0 );
    DWORD pid = 0;

    for (BOOL more = Process32First( snapshot, &entry ); more && !pid; more = Process32Next( snapshot, &entry ))
        if (!_stricmp( entry.szExeFile, exe )) pid = entry.th32ProcessID;
    CloseHandle( snapshot );
    return pid;
}

/* one pass over the process's threads; 'verbose' prints each */
static BOOL found_wait( DWORD pid, const char *what, BOOL verbose )
{
    THREADENTRY32 entry = { sizeof(entry) };
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT];
    HANDLE snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPTHREAD, 0 );
    BOOL found = FALSE, cycle;
    char name[130];
    ULONG total, i;

    for (BOOL more = Thread32First( snapshot, &entry ); more && !found; more = Thread32Next( snapshot, &entry ))
    {
        if (entry.th32OwnerProcessID != pid) continue;
        if (p__wine_get_wait_chain( entry.th32ThreadID, WCT_OUT_OF_PROC_FLAG, nodes, ARRAYSIZE(nodes), &total,
                                    &cycle ))
            continue;
        for (i = 0; i < nodes[0].name_len / sizeof(WCHAR) && i < sizeof(name) - 1; i++) name[i] = nodes[0].name[i];
        name[i] = 0;
        if (verbose)
            printf( "hostwait: thread %lu: status %u, kind %#x, object %#I64x, '%s'\n", entry.th32ThreadID,
                    nodes[0].status, nodes[0].wait_kind, nodes[0].object, name );
        if (nodes[0].status == WctStatusBlocked && nodes[0].wait_kind == WAIT_HOST_CALL && !strcmp( name, what ))
        {
            printf( "hostwait: thread %lu blocked in call %I64u on '%s'\n", entry.th32ThreadID, nodes[0].object,
                    name );
            found = TRUE;
        }
    }
    CloseHandle( snapshot );
    return found;
}

int main( int argc, char **argv )
{
    DWORD pid = 0;
    int i;

    p__wine_get_wait_chain = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ), "__wine_get_wait_chain" );
    if (argc != 3 || !p__wine_get_wait_chain)
    {
        printf( "hostwait: usage: hostwait.exe EXE WHAT, on the layer\n" );
        return 2;
    }
    for (i = 0; i < 600; i++)
    {
        if (pid || (pid = find_process( argv[1] )))
            if (found_wait( pid, argv[2], FALSE )) return 0;
        Sleep( 100 );
    }
    if (!pid) printf( "hostwait: no process runs %s\n", argv[1] );
    else found_wait( pid, argv[2], TRUE );
    return 1;
}

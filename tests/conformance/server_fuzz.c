/*
 * Fuzzing of the wineserver's get_wait_chain request, sent directly: random
 * and boundary thread ids, every flag bit, reply buffers of every size; and
 * of its reads of another process's memory (read_process_memory, which reads
 * without stopping the target): random and boundary addresses and sizes; and
 * of open_process_memory (random handles, a handle without PROCESS_VM_READ)
 * and ntdll's reads through the file it gives (__wine_read_process_memory),
 * which must read what the server reads; and of get_thread_walk_info (random
 * handles; the exact answer for this thread, an exited one, another
 * process's and a handle without the right to query). The
 * server must answer each one sanely and keep serving the prefix. Wine only:
 * skips where there is no wine_server_call.
 *
 * Set WCT_FUZZ_ROUNDS for a longer run (default 100000).
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* wine/server.h is Wine's own: Wine 10's, through ntuser.h, needs the
 * Wine-internal part of winuser.h */
#define __WINESRC__
#include "ntstatus.h"
#define WIN32_NO_STATUS
#include <windows.h>
#include <winternl.h>
#include <wct.h>
#include "wine/server.h"
#include "wine/wait_chain.h"

#define STANDALONE
#include "wine/test.h"

static unsigned int (CDECL *p_wine_server_call)( void *req );

static unsigned int seed = 12345;

static unsigned int next_random(void)
{
    seed = seed * 1103515245 + 12345;
    return (seed >> 8) ^ (seed << 20);
}

/* a raw request of the layer's protocol, as ntdll's SERVER_START_REQ makes it */
static void init_request( struct __server_request_info *info, enum request code )
{
    memset( info, 0, sizeof(*info) );
    info->u.req.request_header.req = code;
}

struct outcome
{
    unsigned int success, not_found, invalid, denied, other;
};

static NTSTATUS send_request( DWORD tid, DWORD flags, void *buffer, unsigned int size,
                              unsigned int *total, unsigned int *returned )
{
    struct __server_request_info __req;
    struct get_wait_chain_request * const req = &__req.u.req.get_wait_chain_request;
    const struct get_wait_chain_reply * const reply = &__req.u.reply.get_wait_chain_reply;
    NTSTATUS status;

    init_request( &__req, REQ_get_wait_chain );
    req->tid = tid;
    req->flags = flags;
    __req.reply_data = buffer;
    __req.u.req.request_header.reply_size = size;
    status = p_wine_server_call( &__req );
    *total = reply->total;
    *returned = reply->__header.reply_size;
    return status;
}

static DWORD WINAPI exit_at_once( void *arg ) { return 0; }

/* Reads of the child: what is mapped reads right, what is not fails with
 * nothing read, and the server survives every address and size. */
static void fuzz_reads( HANDLE process, unsigned int rounds )
{
    static const ULONG64 special[] = { 0, 1, 0xfff, 0x1000, 0x7ffffffeffff, 0x7fffffff0000, 0x7fffffffffff,
                                       0x800000000000, 0x7fffffffffffffff, 0x8000000000000000,
                                       0xfffffffffffff000, ~0ull };
    static BYTE buffer[0x11000];
    PROCESS_BASIC_INFORMATION info;
    ULONG64 image = 0, addr, peb;
    unsigned int i, good = 0, failed = 0, bad = 0;
    SIZE_T size, done;
    NTSTATUS status;
    IMAGE_DOS_HEADER dos;

    ok( !NtQueryInformationProcess( process, ProcessBasicInformation, &info, sizeof(info), NULL ),
        "no process information\n" );
    peb = (ULONG_PTR)info.PebBaseAddress;
    ok( !NtReadVirtualMemory( process, (char *)info.PebBaseAddress + FIELD_OFFSET( PEB, ImageBaseAddress ),
                              &image, sizeof(image), &done ) && done == sizeof(image), "no image base\n" );
    ok( !NtReadVirtualMemory( process, (void *)(ULONG_PTR)image, &dos, sizeof(dos), &done ) &&
        done == sizeof(dos) && dos.e_magic == IMAGE_DOS_SIGNATURE, "the child's image has no DOS header\n" );

    for (i = 0; i < rounds; i++)
    {
        unsigned int r = next_random();

        switch (r % 4)
        {
        case 0: addr = special[(r >> 4) % ARRAY_SIZE(special)]; break;
        case 1: addr = peb + (next_random() % 0x3000) - 0x1000; break;
        case 2: addr = image + next_random() % 0x20000; break;
        default: addr = ((ULONG64)next_random() << 32) ^ next_random(); break;
        }
        switch ((r >> 8) % 4)
        {
        case 0: size = (r >> 12) % 17; break;
        case 1: size = 0x1000 - (addr & 0xfff) + (r >> 12) % 3; break;
        default: size = next_random() % sizeof(buffer); break;
        }
        done = 0xdeadbeef;
        status = NtReadVirtualMemory( process, (void *)(ULONG_PTR)addr, buffer, size, &done );
        if (!status && done == size) good++;
        else if (status && !done) failed++;
        else if (bad++ < 10) ok( 0, "read of %#Ix bytes at %#I64x: status %#lx, %#Ix read\n",
                                 size, addr, status, done );
    }
    /* every round reached the server: the child's memory is still read right */
    ok( !NtReadVirtualMemory( process, (void *)(ULONG_PTR)image, &dos, sizeof(dos), &done ) &&
        done == sizeof(dos) && dos.e_magic == IMAGE_DOS_SIGNATURE, "the child's image reads wrong\n" );
    trace( "figure: reads=%u ok=%u failed=%u\n", rounds, good, failed );
    ok( !bad, "%u malformed reads\n", bad );
    ok( good > 0 && failed > 0, "the reads did not reach every path: %u read, %u failed\n", good, failed );
}

static NTSTATUS (WINAPI *p__wine_read_process_memory)( ULONG, const void *, void *, SIZE_T );

static NTSTATUS open_process_memory( HANDLE process, HANDLE *file )
{
    struct __server_request_info __req;
    struct open_process_memory_request * const req = &__req.u.req.open_process_memory_request;
    const struct open_process_memory_reply * const reply = &__req.u.reply.open_process_memory_reply;
    NTSTATUS status;

    init_request( &__req, REQ_open_process_memory );
    req->handle = (obj_handle_t)(ULONG_PTR)process;
    *file = NULL;
    if (!(status = p_wine_server_call( &__req ))) *file = (HANDLE)(ULONG_PTR)reply->file;
    return status;
}

/* The file of the child's memory: only for a handle of PROCESS_VM_READ
 * access, and what ntdll reads through it is what the server reads. */
static void fuzz_file_reads( PROCESS_INFORMATION *pi, unsigned int rounds )
{
    static BYTE buffer[0x3000], server[0x3000];
    PROCESS_BASIC_INFORMATION info;
    ULONG64 image = 0, addr;
    unsigned int i, good = 0, failed = 0, bad = 0, refused = 0;
    HANDLE file, limited;
    SIZE_T size, done;
    NTSTATUS status;

    ok( !open_process_memory( pi->hProcess, &file ) && file, "no memory file\n" );
    if (file) CloseHandle( file );
    ok( DuplicateHandle( GetCurrentProcess(), pi->hProcess, GetCurrentProcess(), &limited,
                         PROCESS_QUERY_LIMITED_INFORMATION, FALSE, 0 ), "no limited handle\n" );
    ok( open_process_memory( limited, &file ) == STATUS_ACCESS_DENIED && !file,
        "a handle without PROCESS_VM_READ got a memory file\n" );
    CloseHandle( limited );
    for (i = 0; i < rounds; i++)
    {
        status = open_process_memory( (HANDLE)(ULONG_PTR)(next_random() & 0xfffc), &file );
        if (!status && file) CloseHandle( file );  /* a handle of ours that happened to be a process */
        else if (status) refused++;
    }
    ok( refused > 0, "no random handle was refused\n" );

    if (!p__wine_read_process_memory) return;
    NtQueryInformationProcess( pi->hProcess, ProcessBasicInformation, &info, sizeof(info), NULL );
    NtReadVirtualMemory( pi->hProcess, (char *)info.PebBaseAddress + FIELD_OFFSET( PEB, ImageBaseAddress ),
                         &image, sizeof(image), &done );
    for (i = 0; i < rounds; i++)
    {
        unsigned int r = next_random();

        switch (r % 3)
        {
        case 0: addr = (ULONG_PTR)info.PebBaseAddress + (next_random() % 0x3000) - 0x1000; break;
        case 1: addr = image + next_random() % 0x20000; break;
        default: addr = ((ULONG64)next_random() << 32) ^ next_random(); break;
        }
        size = (r >> 8) % 2 ? (r >> 12) % 17 : next_random() % sizeof(buffer);
        status = p__wine_read_process_memory( pi->dwProcessId, (void *)(ULONG_PTR)addr, buffer, size );
        done = 0;
        if (status)
        {
            failed++;
            /* what ntdll could not read, the server cannot read either */
            if (!NtReadVirtualMemory( pi->hProcess, (void *)(ULONG_PTR)addr, server, size, &done ) &&
                done == size && size && bad++ < 10)
                ok( 0, "%#Ix bytes at %#I64x: status %#lx, the server read them\n", size, addr, status );
            continue;
        }
        good++;
        if ((NtReadVirtualMemory( pi->hProcess, (void *)(ULONG_PTR)addr, server, size, &done ) || done != size ||
             memcmp( buffer, server, size )) && bad++ < 10)
            ok( 0, "%#Ix bytes at %#I64x read differently through the file\n", size, addr );
    }
    trace( "figure: file reads=%u ok=%u failed=%u\n", rounds, good, failed );
    ok( !bad, "%u reads differ\n", bad );
    ok( good > 0 && failed > 0, "the file reads did not reach every path: %u read, %u failed\n", good, failed );
}

static DWORD WINAPI exit_with_9( void *arg ) { return 9; }

struct walk_info
{
    ULONG64 teb;
    DWORD   pid, tid, exit_code, read_status;
};

static NTSTATUS get_thread_walk_info( HANDLE thread, struct walk_info *info )
{
    struct __server_request_info __req;
    struct get_thread_walk_info_request * const req = &__req.u.req.get_thread_walk_info_request;
    const struct get_thread_walk_info_reply * const reply = &__req.u.reply.get_thread_walk_info_reply;
    NTSTATUS status;

    init_request( &__req, REQ_get_thread_walk_info );
    req->handle = (obj_handle_t)(ULONG_PTR)thread;
    memset( info, 0xcc, sizeof(*info) );
    if (!(status = p_wine_server_call( &__req )))
    {
        info->teb = reply->teb;
        info->pid = reply->pid;
        info->tid = reply->tid;
        info->exit_code = reply->exit_code;
        info->read_status = reply->read_status;
    }
    return status;
}

/* The query a walk starts with: exact answers, and random handles refused
 * or answered whole. */
static void fuzz_walk_info( PROCESS_INFORMATION *pi, unsigned int rounds )
{
    /* a 32-bit thread's own TEB is its 32-bit one; the server gives the 64-bit one */
    ULONG64 teb = (ULONG_PTR)NtCurrentTeb() + NtCurrentTeb()->WowTebOffset;
    unsigned int i, refused = 0, answered = 0;
    struct walk_info info;
    HANDLE thread, limited;
    NTSTATUS status;
    DWORD tid;

    status = get_thread_walk_info( GetCurrentThread(), &info );
    ok( !status && info.teb == teb && info.pid == GetCurrentProcessId() && info.tid == GetCurrentThreadId() &&
        info.exit_code == STATUS_PENDING && !info.read_status,
        "this thread: %#lx, teb %#I64x (%#I64x), %#lx.%#lx, exit %#lx, read %#lx\n", status, info.teb, teb,
        info.pid, info.tid, info.exit_code, info.read_status );
    status = get_thread_walk_info( pi->hThread, &info );
    ok( !status && info.teb && info.pid == pi->dwProcessId && info.tid == pi->dwThreadId &&
        info.exit_code == STATUS_PENDING && !info.read_status,
        "the child: %#lx, teb %#I64x, %#lx.%#lx, exit %#lx, read %#lx\n", status, info.teb, info.pid, info.tid,
        info.exit_code, info.read_status );
    thread = CreateThread( NULL, 0, exit_with_9, NULL, 0, &tid );
    WaitForSingleObject( thread, INFINITE );
    status = get_thread_walk_info( thread, &info );
    ok( !status && info.tid == tid && info.exit_code == 9 && !info.read_status,
        "an exited thread: %#lx, %#lx, exit %#lx, read %#lx\n", status, info.tid, info.exit_code, info.read_status );
    CloseHandle( thread );
    ok( DuplicateHandle( GetCurrentProcess(), pi->hThread, GetCurrentProcess(), &limited, SYNCHRONIZE, FALSE, 0 ),
        "no limited handle\n" );
    status = get_thread_walk_info( limited, &info );
    ok( status == STATUS_ACCESS_DENIED, "a handle without the right to query: %#lx\n", status );
    CloseHandle( limited );
    status = get_thread_walk_info( pi->hProcess, &info );
    ok( status == STATUS_OBJECT_TYPE_MISMATCH, "a process handle: %#lx\n", status );

    for (i = 0; i < rounds; i++)
    {
        status = get_thread_walk_info( (HANDLE)(ULONG_PTR)(next_random() & 0xfffc), &info );
        if (status) refused++;
        else if (info.exit_code == STATUS_PENDING || info.tid) answered++;
    }
    ok( refused > 0, "no random handle was refused\n" );
    trace( "figure: walk queries=%u refused=%u answered=%u\n", rounds, refused, answered );
}

static HANDLE never_event;

static DWORD WINAPI wait_handle( void *arg )
{
    WaitForSingleObject( arg, INFINITE );
    return 0;
}

START_TEST(server_fuzz)
{
    static const DWORD special_tids[] = { 0, ~0u, 0xfffffffc, 4, 8, 0x7fffffff, 0x80000000 };
    struct wait_chain_node nodes[WCT_MAX_NODE_COUNT + 2];
    struct outcome out = { 0 };
    unsigned int i, rounds = 100000, total, returned, size, bad = 0;
    DWORD tids[8], exited, flags, tid;
    HANDLE threads[4], thread;
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 32], buf[32], **argv;
    NTSTATUS status;
    DWORD start;

    if (winetest_get_mainargs( &argv ) >= 3 && !strcmp( argv[2], "child" ))
    {
        Sleep( 60000 );
        return;
    }
    if (winetest_get_mainargs( &argv ) >= 3 && !strcmp( argv[2], "exit7" )) ExitProcess( 7 );
    p_wine_server_call = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ), "wine_server_call" );
    p__wine_read_process_memory = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ),
                                                          "__wine_read_process_memory" );
    if (!p_wine_server_call)
    {
        win_skip( "not Wine\n" );
        return;
    }
    if (GetEnvironmentVariableA( "WCT_FUZZ_ROUNDS", buf, sizeof(buf) )) rounds = atoi( buf );

    /* live threads in a chain, an exited one, and a thread of another process */
    never_event = CreateEventA( NULL, TRUE, FALSE, NULL );
    threads[0] = CreateThread( NULL, 0, wait_handle, never_event, 0, &tids[0] );
    for (i = 1; i < 4; i++) threads[i] = CreateThread( NULL, 0, wait_handle, threads[i - 1], 0, &tids[i] );
    thread = CreateThread( NULL, 0, exit_at_once, NULL, 0, &exited );
    WaitForSingleObject( thread, INFINITE );
    CloseHandle( thread );
    sprintf( cmd, "\"%s\" server_fuzz child", argv[0] );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ), "no child\n" );
    tids[4] = exited;
    tids[5] = GetCurrentThreadId();
    tids[6] = pi.dwThreadId;
    tids[7] = pi.dwProcessId;  /* a process id is not a thread id */

    start = GetTickCount();
    for (i = 0; i < rounds; i++)
    {
        unsigned int r = next_random();

        switch (r % 3)
        {
        case 0: tid = tids[(r >> 4) % ARRAY_SIZE(tids)]; break;
        case 1: tid = special_tids[(r >> 4) % ARRAY_SIZE(special_tids)]; break;
        default: tid = next_random(); break;
        }
        flags = (i & 1) ? (1u << ((r >> 8) % 32)) : (next_random() & 0xf);
        size = (i < sizeof(nodes)) ? i : next_random() % (sizeof(nodes) + 1);

        memset( nodes, 0xcc, sizeof(nodes) );
        total = returned = 0xdeadbeef;
        status = send_request( tid, flags, nodes, size, &total, &returned );
        switch (status)
        {
        case STATUS_SUCCESS:
            out.success++;
            if (returned > size || (returned % sizeof(nodes[0]) && returned != size) ||
                total < 1 || total > WCT_MAX_NODE_COUNT + 1 ||
                (returned >= sizeof(nodes[0]) && (nodes[0].type != WctThreadType || nodes[0].tid != tid)))
            {
                if (bad++ < 10) ok( 0, "tid %#lx flags %#lx size %u: total %u, returned %u, node 0 %u/%u\n",
                                    tid, flags, size, total, returned, nodes[0].type, nodes[0].tid );
            }
            break;
        case STATUS_INVALID_CID:
        case STATUS_INVALID_PARAMETER:
            if (status == STATUS_INVALID_CID) out.not_found++;
            else out.invalid++;
            break;
        case STATUS_ACCESS_DENIED: out.denied++; break;
        default:
            out.other++;
            if (bad++ < 10) ok( 0, "tid %#lx flags %#lx size %u: status %#lx\n", tid, flags, size, status );
            break;
        }
    }
    trace( "figure: requests=%u ms=%lu ok=%u not_found=%u invalid=%u denied=%u other=%u\n",
           rounds, GetTickCount() - start, out.success, out.not_found, out.invalid, out.denied, out.other );
    ok( !bad, "%u malformed replies\n", bad );
    ok( out.success > 0 && out.not_found > 0 && out.invalid > 0, "the inputs did not reach every path\n" );
    fuzz_reads( pi.hProcess, rounds / 5 );
    fuzz_file_reads( &pi, rounds / 20 );
    fuzz_walk_info( &pi, rounds / 20 );

    /* the server still serves the prefix: a new process starts and ends */
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    /* this program again: a 32-bit one has no cmd.exe unless all of
     * Wine's i386 modules are built (make wow64) */
    sprintf( cmd, "\"%s\" server_fuzz exit7", argv[0] );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ),
        "no new process after fuzzing\n" );
    ok( WaitForSingleObject( pi.hProcess, 30000 ) == WAIT_OBJECT_0, "the new process hangs\n" );
    GetExitCodeProcess( pi.hProcess, &flags );
    ok( flags == 7, "the new process exited with %lu\n", flags );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );

    TerminateThread( threads[0], 0 );
    for (i = 0; i < 4; i++)
    {
        WaitForSingleObject( threads[i], INFINITE );
        CloseHandle( threads[i] );
    }
}

/*
 * wctdump: the processes and threads of the system
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

#include "wine/server.h"
#include "wctdump.h"

/* Every process and thread of the system, taken once: toolhelp maps its
 * snapshot again for each Process32Next and Thread32Next, which costs a
 * few server round trips an entry. */

PROCESSENTRY32W *system_processes;
DWORD system_process_count;
struct thread_id *all_threads;
DWORD all_thread_count;

/* the processes and threads of one SystemProcessInformation answer, or
 * SystemExtendedProcessInformation ('extended', which has each thread's TEB
 * too), each entry checked against the buffer: counted, or stored when the
 * arrays are there */
static BOOL parse_system( const BYTE *buffer, ULONG size, BOOL extended, DWORD *processes, DWORD *threads )
{
    SIZE_T entry_size = extended ? sizeof(SYSTEM_EXTENDED_THREAD_INFORMATION) : sizeof(SYSTEM_THREAD_INFORMATION);
    const SYSTEM_PROCESS_INFORMATION *spi;
    ULONG offset = 0;
    DWORD i;

    *processes = *threads = 0;
    while (size >= sizeof(*spi) && offset <= size - sizeof(*spi))
    {
        spi = (const SYSTEM_PROCESS_INFORMATION *)(buffer + offset);
        if (spi->dwThreadCount > (size - offset - FIELD_OFFSET( SYSTEM_PROCESS_INFORMATION, ti )) / entry_size)
            return FALSE;
        if (system_processes)
        {
            PROCESSENTRY32W *entry = &system_processes[*processes];
            const BYTE *name = (const BYTE *)spi->ProcessName.Buffer;
            DWORD len = min( spi->ProcessName.Length, sizeof(entry->szExeFile) - sizeof(WCHAR) ) / sizeof(WCHAR);

            memset( entry, 0, sizeof(*entry) );
            entry->dwSize = sizeof(*entry);
            entry->th32ProcessID = HandleToULong( spi->UniqueProcessId );
            entry->th32ParentProcessID = HandleToULong( spi->ParentProcessId );
            entry->cntThreads = spi->dwThreadCount;
            if (len && name >= buffer && name < buffer + size && len * sizeof(WCHAR) <= buffer + size - name)
                memcpy( entry->szExeFile, name, len * sizeof(WCHAR) );
        }
        for (i = 0; i < spi->dwThreadCount; i++)
        {
            const SYSTEM_THREAD_INFORMATION *ti = (const void *)((const BYTE *)spi->ti + i * entry_size);

            if (all_threads)
            {
                all_threads[*threads + i].pid = HandleToULong( spi->UniqueProcessId );
                all_threads[*threads + i].tid = HandleToULong( ti->ClientId.UniqueThread );
                all_threads[*threads + i].teb = extended ? ((const SYSTEM_EXTENDED_THREAD_INFORMATION *)ti)->TebBase
                                                         : NULL;
            }
        }
        *threads += spi->dwThreadCount;
        (*processes)++;
        if (!spi->NextEntryOffset) break;
        offset += spi->NextEntryOffset;
    }
    return TRUE;
}

static BOOL query_system( BOOL extended )
{
    NTSTATUS (WINAPI *pNtQuerySystemInformation)(SYSTEM_INFORMATION_CLASS, void *, ULONG, ULONG *);
    ULONG size = 0, next = 0x40000, needed = 0;
    NTSTATUS status = STATUS_INFO_LENGTH_MISMATCH;
    DWORD processes, threads;
    BYTE *buffer = NULL;
    BOOL ret = FALSE;
    int tries;

    pNtQuerySystemInformation = (void *)GetProcAddress( GetModuleHandleW( L"ntdll.dll" ),
                                                        "NtQuerySystemInformation" );
    if (!pNtQuerySystemInformation) return FALSE;
    free( system_processes );
    free( all_threads );
    system_processes = NULL;
    all_threads = NULL;
    system_process_count = all_thread_count = 0;
    for (tries = 0; tries < 8 && status == STATUS_INFO_LENGTH_MISMATCH; tries++)
    {
        free( buffer );
        size = next;
        if (!(buffer = malloc( size ))) return FALSE;
        status = pNtQuerySystemInformation( extended ? SystemExtendedProcessInformation : SystemProcessInformation,
                                            buffer, size, &needed );
        next = max( size * 2, needed + 0x10000 );
    }
    if (!status && parse_system( buffer, size, extended, &processes, &threads ) &&
        (system_processes = calloc( processes + 1, sizeof(*system_processes) )) &&
        (all_threads = calloc( threads + 1, sizeof(*all_threads) )))
    {
        ret = parse_system( buffer, size, extended, &system_process_count, &all_thread_count );
    }
    free( buffer );
    return ret;
}

/* room in '*array', of '*capacity' elements of 'size' bytes, for one more
 * after its 'count': FALSE when there is none */
BOOL grow_array( void **array, DWORD *capacity, DWORD count, size_t size )
{
    void *bigger;

    if (count < *capacity) return TRUE;
    if (!(bigger = realloc( *array, 2 * *capacity * size ))) return FALSE;
    *array = bigger;
    *capacity *= 2;
    return TRUE;
}

/* the same from a toolhelp snapshot, where the system does not answer the above */
static void snapshot_system(void)
{
    HANDLE snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPPROCESS | TH32CS_SNAPTHREAD, 0 );
    PROCESSENTRY32W process = { sizeof(process) };
    THREADENTRY32 thread = { sizeof(thread) };
    DWORD size = 64;

    free( system_processes );
    free( all_threads );
    system_process_count = all_thread_count = 0;
    if ((system_processes = malloc( size * sizeof(*system_processes) )) && Process32FirstW( snapshot, &process ))
    {
        do
        {
            if (!grow_array( (void **)&system_processes, &size, system_process_count, sizeof(*system_processes) ))
                break;
            system_processes[system_process_count++] = process;
        } while (Process32NextW( snapshot, &process ));
    }
    size = 256;
    if ((all_threads = malloc( size * sizeof(*all_threads) )) && Thread32First( snapshot, &thread ))
    {
        do
        {
            if (!grow_array( (void **)&all_threads, &size, all_thread_count, sizeof(*all_threads) )) break;
            all_threads[all_thread_count].pid = thread.th32OwnerProcessID;
            all_threads[all_thread_count].teb = NULL;
            all_threads[all_thread_count++].tid = thread.th32ThreadID;
        } while (Thread32Next( snapshot, &thread ));
    }
    CloseHandle( snapshot );
}

/* every process and thread, once: the extended answer has each thread's
 * TEB, for walks without a handle */
void take_system_snapshot(void)
{
    if (!query_system( TRUE ) && !query_system( FALSE )) snapshot_system();
}

/* the executable of a process of the snapshot, to name the process of a node */
const WCHAR *process_name( DWORD pid )
{
    DWORD i;

    for (i = 0; i < system_process_count; i++)
        if (system_processes[i].th32ProcessID == pid) return system_processes[i].szExeFile;
    return NULL;
}

/*
 * Finding the processes. Wine's own processes are left out unless asked
 * for: they are not the user's program, and they wait forever by design.
 */
BOOL is_wine_process( const PROCESSENTRY32W *entry, DWORD parent )
{
    static const WCHAR * const names[] =
    {
        L"services.exe", L"winedevice.exe", L"plugplay.exe", L"svchost.exe", L"rpcss.exe", L"explorer.exe",
        L"conhost.exe", L"wineboot.exe", L"winemenubuilder.exe",
    };
    unsigned int i;

    /* the start.exe that runs wctdump (wine's way of starting a program) */
    if (entry->th32ProcessID == parent && !wcsicmp( entry->szExeFile, L"start.exe" )) return TRUE;
    for (i = 0; i < ARRAY_SIZE(names); i++) if (!wcsicmp( entry->szExeFile, names[i] )) return TRUE;
    return FALSE;
}

/* Linux pids of Wine's processes, from the wineserver's process list
 * (Wine only: on Windows there are none). */
struct unix_pid
{
    DWORD pid;
    int   unix_pid;
};

static struct unix_pid *unix_pids;
static DWORD unix_pid_count;

void get_unix_pids(void)
{
    struct __server_request_info req;
    struct list_processes_reply *reply = &req.u.reply.list_processes_reply;
    const struct process_info *info;
    data_size_t size = 65536, pos;
    unsigned int status, i;
    char *buffer = NULL;
    unsigned int (CDECL *p_wine_server_call)( void * );

    p_wine_server_call = (void *)GetProcAddress( GetModuleHandleW( L"ntdll.dll" ), "wine_server_call" );
    if (!p_wine_server_call) return;
    for (i = 0; i < 8; i++)
    {
        free( buffer );
        if (!(buffer = malloc( size ))) return;
        memset( &req, 0, sizeof(req) );
        req.u.req.request_header.req = REQ_list_processes;
        wine_server_set_reply( &req, buffer, size );
        status = p_wine_server_call( &req );
        if (status != STATUS_INFO_LENGTH_MISMATCH) break;
        size = max( size * 2, reply->info_size );
    }
    if (status || !(unix_pids = calloc( reply->process_count, sizeof(*unix_pids) )))
    {
        free( buffer );
        return;
    }
    /* each process_info is followed by its name and its threads, 8-aligned */
    for (i = 0, pos = 0; i < reply->process_count; i++)
    {
        pos = (pos + 7) & ~7;
        if (pos + sizeof(*info) > reply->info_size) break;
        info = (const struct process_info *)(buffer + pos);
        pos += sizeof(*info) + info->name_len;
        pos = (pos + 7) & ~7;
        pos += info->thread_count * sizeof(struct thread_info);
        unix_pids[unix_pid_count].pid = info->pid;
        unix_pids[unix_pid_count++].unix_pid = info->unix_pid;
    }
    free( buffer );
}

int unix_pid_of( DWORD pid )
{
    DWORD i;

    for (i = 0; i < unix_pid_count; i++) if (unix_pids[i].pid == pid) return unix_pids[i].unix_pid;
    return 0;
}

/* the Windows id of the Wine process whose Linux pid is 'unix_pid', or 0 */
DWORD windows_pid_of_unix( int unix_pid )
{
    DWORD i;

    for (i = 0; i < unix_pid_count; i++) if (unix_pids[i].unix_pid == unix_pid) return unix_pids[i].pid;
    return 0;
}

/*
 * wctdump: the call stacks of the threads
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
#include <dbghelp.h>
#include <pkfuncs.h>

#include "wctdump.h"
#include "pe_image.h"
#include "dynamic_tables.h"

static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);
static ULONG (WINAPI *p__wine_walk_blocked_thread)(DWORD, DWORD, void *, ULONG, void **);

#ifdef __x86_64__

/*
 * The target's dynamic function tables, for dbghelp's walks: Wine's
 * dbghelp does not read them (Windows' does), so a walk would end at the
 * first frame of a JIT's code (V8's in node.exe). Under the layer, ntdll
 * exports the head of its list (RtlGetFunctionTableListHead) at the same
 * address in every process of the prefix; its entries are read as ntdll's
 * remote walker reads them (dynamic_tables.h), every address checked and
 * every loop bounded.
 */
static ULONG64 dynamic_list_head;

static void init_dynamic_tables(void)
{
    HMODULE ntdll = GetModuleHandleW( L"ntdll.dll" );
    PLIST_ENTRY (WINAPI *get_head)(void) = (void *)GetProcAddress( ntdll, "RtlGetFunctionTableListHead" );

    /* Windows' entries are not Wine's, and its dbghelp reads them itself */
    if (get_head && GetProcAddress( ntdll, "wine_get_version" ))
        dynamic_list_head = (ULONG_PTR)get_head();
}

/* the target of the walk under way: dbghelp's callbacks are given its
 * handle only, and its walks are single-threaded */
static struct target *walked_target;

static BOOL read_walked_target( void *ctx, ULONG64 addr, void *buffer, SIZE_T size )
{
    return read_target_memory( walked_target, addr, buffer, size );
}

static BOOL read_table_function( void *ctx, ULONG index, RUNTIME_FUNCTION *func )
{
    const ULONG64 *table = ctx;

    return read_walked_target( NULL, *table + (ULONG64)index * sizeof(*func), func, sizeof(*func) );
}

/* the entry of the walked target's dynamic function tables for 'pc', and its base */
static BOOL find_target_dynamic_function( DWORD64 pc, ULONG64 *base, RUNTIME_FUNCTION *func )
{
    struct dynamic_table table;

    if (!dynamic_list_head || !walked_target ||
        !dynamic_table_find( read_walked_target, NULL, dynamic_list_head, pc, &table ) || !table.table)
        return FALSE;
    *base = table.base;
    return pe_find_function( read_table_function, &table.table, table.count, table.base, pc, func, NULL ) &&
           dynamic_function_ok( &table, func ) &&
           pe_follow_function_links( read_target_memory, walked_target, table.base, func, NULL ) &&
           dynamic_function_ok( &table, func );
}

/* dbghelp's walk is single-threaded: what it is given lives until the next call */
static RUNTIME_FUNCTION dynamic_function;

static void * CALLBACK table_access( HANDLE process, DWORD64 pc )
{
    void *ret = SymFunctionTableAccess64( process, pc );
    ULONG64 base;

    if (ret || !find_target_dynamic_function( pc, &base, &dynamic_function )) return ret;
    return &dynamic_function;
}

static DWORD64 CALLBACK module_base( HANDLE process, DWORD64 pc )
{
    DWORD64 base = SymGetModuleBase64( process, pc );
    RUNTIME_FUNCTION func;

    if (base || !find_target_dynamic_function( pc, &base, &func )) return base;
    return base;
}

#else
static void init_dynamic_tables(void) { }
#endif

/* Is 'addr' in executable memory of the target? dbghelp takes what is at
 * [rsp] for a return address where it has no unwind data: a value that is
 * no code is never a frame. */
static BOOL is_target_code( HANDLE process, DWORD64 addr )
{
    MEMORY_BASIC_INFORMATION info;

    if (addr < 0x10000 || addr > 0x7ffffffeffffull) return FALSE;
    if (!VirtualQueryEx( process, (void *)(ULONG_PTR)addr, &info, sizeof(info) )) return FALSE;
    return info.State == MEM_COMMIT && !(info.Protect & (PAGE_GUARD | PAGE_NOACCESS)) &&
           (info.Protect & (PAGE_EXECUTE | PAGE_EXECUTE_READ | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY));
}

/* dbghelp's walk of a held thread from its registers, for 'machine' */
static void stack_walk( struct target *target, HANDLE thread, DWORD machine, DWORD64 pc, DWORD64 sp,
                        DWORD64 fp, void *context, struct thread_report *report )
{
    PFUNCTION_TABLE_ACCESS_ROUTINE64 access = SymFunctionTableAccess64;
    PGET_MODULE_BASE_ROUTINE64 base = SymGetModuleBase64;
    STACKFRAME64 frame;

    memset( &frame, 0, sizeof(frame) );
    frame.AddrPC.Offset = pc;
    frame.AddrPC.Mode = AddrModeFlat;
    frame.AddrStack.Offset = sp;
    frame.AddrStack.Mode = AddrModeFlat;
    frame.AddrFrame.Offset = fp;
    frame.AddrFrame.Mode = AddrModeFlat;

#ifdef __x86_64__
    if (machine == IMAGE_FILE_MACHINE_AMD64)
    {
        access = table_access;
        base = module_base;
        walked_target = target;
    }
#endif
    while (report->stack_count < WAIT_GRAPH_MAX_FRAMES &&
           StackWalk64( machine, target->process, thread, &frame, context, NULL, access, base, NULL ) &&
           frame.AddrPC.Offset && is_target_code( target->process, frame.AddrPC.Offset ))
        report->stack[report->stack_count++] = frame.AddrPC.Offset;
#ifdef __x86_64__
    walked_target = NULL;
#endif
}

static void walk_with_dbghelp( struct target *target, HANDLE thread, struct thread_report *report )
{
    CONTEXT context;
#ifdef __x86_64__
    WOW64_CONTEXT wow_context;
    BOOL wow64 = FALSE;
#endif

    if (!init_symbols( target )) return;
    context.ContextFlags = CONTEXT_FULL;
    if (SuspendThread( thread ) == (DWORD)-1) return;
#ifdef __x86_64__
    /* a 32-bit program's frames are its 32-bit ones (WoW64) */
    if (IsWow64Process( target->process, &wow64 ) && wow64)
    {
        wow_context.ContextFlags = WOW64_CONTEXT_FULL;
        if (Wow64GetThreadContext( thread, &wow_context ))
            stack_walk( target, thread, IMAGE_FILE_MACHINE_I386, wow_context.Eip, wow_context.Esp,
                        wow_context.Ebp, &wow_context, report );
    }
    else if (GetThreadContext( thread, &context ))
        stack_walk( target, thread, IMAGE_FILE_MACHINE_AMD64, context.Rip, context.Rsp, context.Rbp,
                    &context, report );
#else
    /* a 32-bit wctdump (syswow64's) sees the 32-bit registers of a thread */
    if (GetThreadContext( thread, &context ))
        stack_walk( target, thread, IMAGE_FILE_MACHINE_I386, context.Eip, context.Esp, context.Ebp, &context,
                    report );
#endif
    ResumeThread( thread );
}

/* the thread's stack: with the layer's walker where there is one (from the
 * registers a blocked thread published, without opening it, else coredll's
 * GetThreadCallStack), else with dbghelp */
void walk_stack( struct target *target, struct thread_report *report )
{
    CallSnapshot frames[WAIT_GRAPH_MAX_FRAMES];
    void *blocked[WAIT_GRAPH_MAX_FRAMES];
    HANDLE thread;
    ULONG i, n = 0;

    if (p__wine_walk_blocked_thread && report->teb &&
        (n = p__wine_walk_blocked_thread( target->pid, report->tid, report->teb, WAIT_GRAPH_MAX_FRAMES, blocked )))
    {
        for (i = 0; i < n; i++) report->stack[i] = (ULONG_PTR)blocked[i];
        report->stack_count = n;
        return;
    }
    if (!(thread = OpenThread( THREAD_GET_CONTEXT | THREAD_SUSPEND_RESUME | THREAD_QUERY_INFORMATION,
                               FALSE, report->tid )))
        return;
    if (pGetThreadCallStack) n = pGetThreadCallStack( thread, WAIT_GRAPH_MAX_FRAMES, frames, 0, 0 );
    for (i = 0; i < n; i++) report->stack[i] = frames[i].dwReturnAddr;
    report->stack_count = n;
    if (!n) walk_with_dbghelp( target, thread, report );
    CloseHandle( thread );
}


/* the layer's walkers where there are (coredll's), else dbghelp's */
void init_stack_walks(void)
{
    HMODULE coredll = LoadLibraryW( L"coredll.dll" );

    if (coredll)
    {
        pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" );
        p__wine_walk_blocked_thread = (void *)GetProcAddress( coredll, "__wine_walk_blocked_thread" );
    }
    init_dynamic_tables();
}

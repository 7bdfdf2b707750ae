/*
 * Benchmark of stack back-traces and function-table look-ups.
 * Prints one line per case: "NAME VALUE UNIT"; tools/bench.sh runs it on
 * stock Wine and on the layer and prints the ratios.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>
#if __has_include(<rtlsupportapi.h>)
#include <rtlsupportapi.h>  /* RtlLookupFunctionEntry, outside winnt.h in Wine 10's headers */
#endif
#include <psapi.h>

#include "bench.h"

static USHORT (WINAPI *pRtlCaptureStackBackTrace)(ULONG, ULONG, void **, ULONG *);
static volatile LONG sink;
static void *frames[4096];

static USHORT last_count;

static void capture_full(void)
{
    last_count = pRtlCaptureStackBackTrace( 0, ARRAYSIZE(frames), frames, NULL );
}

/* Captures of the innermost 'window_frames' frames only: at depth 60, both
 * windows stay inside the recursion, so their difference is what PE frames
 * cost, without the fixed cost of a call and of the thread's start frames. */
#define WINDOW_SHORT 10
#define WINDOW_LONG  50
static ULONG window_frames;

static void capture_window(void)
{
    last_count = pRtlCaptureStackBackTrace( 0, window_frames, frames, NULL );
}

struct depth_case { int depth; double ns, cpu_ns; USHORT frames; double window_ns[2], window_cpu_ns[2]; USHORT window_count[2]; };
static double pe_frame_ns;  /* per frame, from the depth 8 case */

static void __attribute__((noinline)) recurse( struct depth_case *c, int depth )
{
    if (depth > 1)
    {
        recurse( c, depth - 1 );
        sink++;
        return;
    }
    c->ns = measure_best( capture_full, 300 );
    c->frames = last_count;
    /* the one figure the machine's load hardly moves (GetThreadTimes counts
     * 10 ms ticks: a second of captures) */
    if (c->depth == 8) c->cpu_ns = measure_cpu( capture_full, 1000 );
    if (c->depth > WINDOW_LONG)
    {
        window_frames = WINDOW_SHORT;
        c->window_ns[0] = measure_best( capture_window, 300 );
        c->window_count[0] = last_count;
        window_frames = WINDOW_LONG;
        c->window_ns[1] = measure_best( capture_window, 300 );
        c->window_count[1] = last_count;
        /* the same in CPU time, which the load hardly moves (a second each) */
        window_frames = WINDOW_SHORT;
        c->window_cpu_ns[0] = measure_cpu( capture_window, 1000 );
        window_frames = WINDOW_LONG;
        c->window_cpu_ns[1] = measure_cpu( capture_window, 1000 );
    }
}

static DWORD WINAPI depth_thread( void *arg )
{
    struct depth_case *c = arg;
    recurse( c, c->depth );
    return 0;
}

static void bench_depth( int depth )
{
    struct depth_case c = { depth };
    HANDLE thread = CreateThread( NULL, 0, depth_thread, &c, 0, NULL );

    WaitForSingleObject( thread, INFINITE );
    CloseHandle( thread );
    printf( "capture_depth%d_call %.1f ns\n", depth, c.ns );
    printf( "capture_depth%d_frame %.1f ns\n", depth, c.ns / (c.frames ? c.frames : 1) );
    printf( "capture_depth%d_frames %u count\n", depth, c.frames );
    if (c.cpu_ns) printf( "capture_depth%d_cpu %.1f ns\n", depth, c.cpu_ns );
    if (depth == 8) pe_frame_ns = c.ns / (c.frames ? c.frames : 1);
    if (c.window_count[0] == WINDOW_SHORT && c.window_count[1] == WINDOW_LONG)
    {
        printf( "capture_depth%d_first%d_call %.1f ns\n", depth, WINDOW_SHORT, c.window_ns[0] );
        printf( "capture_depth%d_first%d_call %.1f ns\n", depth, WINDOW_LONG, c.window_ns[1] );
        printf( "capture_deep_marginal_frame %.1f ns\n",
                (c.window_ns[1] - c.window_ns[0]) / (WINDOW_LONG - WINDOW_SHORT) );
        printf( "capture_deep_marginal_frame_cpu %.1f ns\n",
                (c.window_cpu_ns[1] - c.window_cpu_ns[0]) / (WINDOW_LONG - WINDOW_SHORT) );
#ifdef _WIN64
        /* issue 19's target: a sixth of stock's (stock/layer at least 6) */
        printf( "target_capture_deep_marginal_frame_stock_over_layer 6.00 ratio\n" );
#else
        /* stock Wine's i386 walk is the bare EBP chain with a bounds check a
         * frame, as the layer's is: no unwind data to save on, so as fast */
        printf( "target_capture_deep_marginal_frame_stock_over_layer 1.00 ratio\n" );
#endif
    }
}

#ifdef _WIN64  /* built for i386 (backtrace_bench32), the EBP-chain walks only:
                * no 32-bit Winelib module, no x86 function tables */

/* Host ELF frames: PE -> elf_call -> elf_inner -> callback -> elf_capture. */
static USHORT (CDECL *p_elf_capture)( void **, ULONG, void ** );
static void (CDECL *p_elf_call)( void (CDECL *)(void **), void ** );
static double elf_ns;
static USHORT elf_frames;

static void elf_capture_full(void)
{
    void *rets[5];
    last_count = p_elf_capture( frames, ARRAYSIZE(frames), rets );
}

static void CDECL elf_callback( void **rets )
{
    elf_ns = measure_best( elf_capture_full, 300 );
    elf_frames = last_count;
}

static void bench_elf(void)
{
    HMODULE mod = LoadLibraryA( "elfchain.dll" );
    void *rets[5];

    if (!mod)
    {
        printf( "# elfchain.dll not available: no ELF case\n" );
        return;
    }
    p_elf_call = (void *)GetProcAddress( mod, "elf_call" );
    p_elf_capture = (void *)GetProcAddress( mod, "elf_capture" );
    p_elf_call( elf_callback, rets );
    printf( "capture_elf_call %.1f ns\n", elf_ns );
    printf( "capture_elf_frame %.1f ns\n", elf_ns / (elf_frames ? elf_frames : 1) );
    printf( "capture_elf_frames %u count\n", elf_frames );
    /* elf_capture, elf_inner and elf_call are ELF frames; charge the other
     * frames what a PE frame costs and the rest to the ELF ones */
    if (elf_frames > 3)
        printf( "capture_elf_cost_per_elf_frame %.1f ns\n", (elf_ns - pe_frame_ns * (elf_frames - 3)) / 3 );
}

/* RtlLookupFunctionEntry for one address in each loaded module, averaged,
 * with few and with many modules loaded. */
static ULONG64 lookup_pcs[1024];
static unsigned int lookup_count;

static void lookup(void)
{
    unsigned int i;
    ULONG64 base;

    for (i = 0; i < lookup_count; i++) if (RtlLookupFunctionEntry( lookup_pcs[i], &base, NULL )) sink++;
}

static double lookup_every_module(void)
{
    HMODULE mods[1024];
    DWORD needed, i, size;

    EnumProcessModules( GetCurrentProcess(), mods, sizeof(mods), &needed );
    lookup_count = 0;
    for (i = 0; i < needed / sizeof(HMODULE) && i < ARRAYSIZE(mods); i++)
    {
        IMAGE_NT_HEADERS *nt = (IMAGE_NT_HEADERS *)((char *)mods[i] + ((IMAGE_DOS_HEADER *)mods[i])->e_lfanew);
        IMAGE_DATA_DIRECTORY *dir = &nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXCEPTION];
        RUNTIME_FUNCTION *funcs = (RUNTIME_FUNCTION *)((char *)mods[i] + dir->VirtualAddress);

        if (!dir->VirtualAddress || !(size = dir->Size / sizeof(*funcs))) continue;
        lookup_pcs[lookup_count++] = (ULONG64)mods[i] + funcs[size / 2].BeginAddress;
    }
    return measure_best( lookup, 300 ) / (lookup_count ? lookup_count : 1);
}

static void bench_lookup(void)
{
    static const char *names[] =
    {
        "msimg32", "psapi", "shlwapi", "comctl32", "comdlg32", "shell32", "ole32", "oleaut32",
        "rpcrt4", "setupapi", "winmm", "ws2_32", "wininet", "urlmon", "crypt32", "secur32", "netapi32",
        "iphlpapi", "dbghelp", "imagehlp", "wintrust", "mpr", "userenv", "uxtheme", "gdiplus",
        "windowscodecs", "d3d9", "d3d11", "dxgi", "dwrite", "d2d1", "dsound", "dinput8", "xinput1_3",
        "msvcp140", "vcruntime140", "ucrtbase", "msvcr100", "msvcr120", "msvcp100", "msvcp120", "mfplat",
        "mf", "winhttp", "wldap32", "dnsapi", "bcrypt", "ncrypt", "credui", "cryptui", "hid", "powrprof",
        "avifil32", "msacm32", "msvfw32", "opengl32", "glu32", "riched20", "riched32", "msftedit",
        "hhctrl.ocx", "mshtml", "jscript", "vbscript", "scrrun", "msxml3", "msxml6", "xmllite", "wbemprox",
        "wevtapi", "wtsapi32", "sxs", "cabinet", "msi", "mscms", "usp10", "t2embed", "fusion", "mscoree",
        "inetcomm", "mapi32", "odbc32", "oledb32", "msdasql", "activeds", "adsldp", "taskschd", "mstask",
        "qmgr", "slc", "sti", "wiaservc", "winscard", "wer", "faultrep", "dwmapi", "propsys", "dxva2",
        "evr", "quartz", "qedit", "amstream", "winspool.drv", "localspl", "spoolss", "compstui",
    };
    HMODULE mods[ARRAYSIZE(names)];
    unsigned int i;
    double few, many;

    few = lookup_every_module();
    printf( "lookup_few_modules_count %u count\n", lookup_count );
    for (i = 0; i < ARRAYSIZE(names); i++) mods[i] = LoadLibraryA( names[i] );
    many = lookup_every_module();
    printf( "lookup_few_modules %.1f ns\n", few );
    printf( "lookup_many_modules %.1f ns\n", many );
    printf( "lookup_many_modules_count %u count\n", lookup_count );
    printf( "lookup_many_over_few %.2f ratio\n", many / few );
    for (i = 0; i < ARRAYSIZE(names); i++) if (mods[i]) FreeLibrary( mods[i] );
}

#endif  /* _WIN64 */

int main( int argc, char **argv )
{
    pRtlCaptureStackBackTrace = (void *)GetProcAddress( GetModuleHandleA( "ntdll.dll" ),
                                                        "RtlCaptureStackBackTrace" );
    bench_depth( 8 );
    bench_depth( 30 );
    bench_depth( 60 );
#ifdef _WIN64
    bench_elf();
    bench_lookup();
#endif
    return 0;
}

/*
 * Conformance tests for RtlCaptureStackBackTrace, RtlWalkFrameChain and
 * RtlGetCallersAddress (x86_64). Test ids (R-nn) refer to the catalogue in
 * the project's stack-backtrace specification.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>

#define STANDALONE
#include "wine/test.h"
#include "frames.h"

#define FILL ((void *)0x5555555555555555)

static USHORT (WINAPI *pRtlCaptureStackBackTrace)(ULONG, ULONG, void **, ULONG *);
static ULONG (WINAPI *pRtlWalkFrameChain)(void **, ULONG, ULONG);
static void (WINAPI *pRtlGetCallersAddress)(void **, void **);

/* Keeps calls from becoming tail calls, so every frame stays on the stack. */
static volatile LONG sink;

static void fill( void **buf, int count )
{
    int i;
    for (i = 0; i < count; i++) buf[i] = FILL;
}

static ULONG sum( void **buf, int count )
{
    ULONG h = 0;
    int i;
    for (i = 0; i < count; i++) h += (ULONG)(ULONG_PTR)buf[i];
    return h;
}

/* A->B->C->D, each recording its own return address. */
static void *ret_addr[4];  /* returns from D, C, B, A */

static void __attribute__((noinline)) func_d(void)
{
    void *buf[8], *buf2[8], *walk[8], *caller, *parent;
    ULONG hash, hash2;
    USHORT n;
    ULONG wn;

    ret_addr[0] = __builtin_return_address(0);

    /* */
    fill( buf, 8 );
    hash = 0xdeadbeef;
    n = pRtlCaptureStackBackTrace( 0, 5, buf, &hash );
    ok( n == 5, "R-01: got %u frames\n", n );
    ok( in_function( buf[0], func_d ), "R-01: buf[0] %p not in func_d\n", buf[0] );
    ok( buf[1] == ret_addr[0], "R-01: buf[1] %p, expected %p\n", buf[1], ret_addr[0] );
    ok( buf[2] == ret_addr[1], "R-01: buf[2] %p, expected %p\n", buf[2], ret_addr[1] );
    ok( buf[3] == ret_addr[2], "R-01: buf[3] %p, expected %p\n", buf[3], ret_addr[2] );
    ok( buf[4] == ret_addr[3], "R-01: buf[4] %p, expected %p\n", buf[4], ret_addr[3] );
    ok( buf[5] == FILL, "R-01: buf[5] overwritten with %p\n", buf[5] );
    ok( hash == sum( buf, 5 ), "R-03: hash %#lx, expected %#lx\n", hash, sum( buf, 5 ) );

    /* */
    fill( buf2, 8 );
    hash2 = 0xdeadbeef;
    n = pRtlCaptureStackBackTrace( 1, 4, buf2, &hash2 );
    ok( n == 4, "R-02: got %u frames\n", n );
    ok( !memcmp( buf2, buf + 1, 4 * sizeof(void *) ), "R-02: frames differ: %p %p %p %p\n",
        buf2[0], buf2[1], buf2[2], buf2[3] );
    ok( buf2[4] == FILL, "R-02: buf[4] overwritten with %p\n", buf2[4] );
    ok( hash2 == sum( buf2, 4 ), "R-03: hash %#lx, expected %#lx\n", hash2, sum( buf2, 4 ) );

    /* */
    fill( buf2, 8 );
    n = pRtlCaptureStackBackTrace( 0, 1, buf2, NULL );
    ok( n == 1, "R-04: got %u frames\n", n );
    ok( in_function( buf2[0], func_d ), "R-04: buf[0] %p not in func_d\n", buf2[0] );
    ok( buf2[1] == FILL, "R-04: buf[1] overwritten with %p\n", buf2[1] );

    /* nothing captured, nothing written. Newer Windows may zero the
     * hash (unknown), so accept that as broken. */
    fill( buf2, 8 );
    hash2 = 0xdeadbeef;
    n = pRtlCaptureStackBackTrace( 0, 0, buf2, &hash2 );
    ok( n == 0, "R-05: got %u frames\n", n );
    ok( buf2[0] == FILL, "R-05: buf[0] overwritten with %p\n", buf2[0] );
    ok( hash2 == 0xdeadbeef || broken( hash2 == 0 ), "R-05: hash set to %#lx\n", hash2 );

    /* */
    fill( buf2, 8 );
    hash2 = 0xdeadbeef;
    n = pRtlCaptureStackBackTrace( 5000, 8, buf2, &hash2 );
    ok( n == 0, "R-06: got %u frames\n", n );
    ok( buf2[0] == FILL, "R-06: buf[0] overwritten with %p\n", buf2[0] );

    /* the walker under the capture reports the same frames. */
    if (pRtlWalkFrameChain)
    {
        fill( walk, 8 );
        wn = pRtlWalkFrameChain( walk, 5, 0 );
        ok( wn == 5, "R-19: got %lu frames\n", wn );
        ok( in_function( walk[0], func_d ), "R-19: walk[0] %p not in func_d\n", walk[0] );
        ok( !memcmp( walk + 1, buf + 1, 4 * sizeof(void *) ), "R-19: frames differ from the capture\n" );
        ok( walk[5] == FILL, "R-19: walk[5] overwritten with %p\n", walk[5] );

        fill( walk, 8 );
        wn = pRtlWalkFrameChain( walk, 4, 1 << 8 );
        ok( wn == 4, "R-19: skip 1: got %lu frames\n", wn );
        ok( !memcmp( walk, buf + 1, 4 * sizeof(void *) ), "R-19: skip 1: frames differ\n" );

        /* a NULL buffer gives 0 frames, not a fault */
        wn = pRtlWalkFrameChain( NULL, 5, 0 );
        ok( wn == 0, "R-15: RtlWalkFrameChain wrote %lu frames to NULL\n", wn );
    }
    else win_skip( "RtlWalkFrameChain is not available\n" );

    /* */
    if (pRtlGetCallersAddress)
    {
        caller = parent = FILL;
        pRtlGetCallersAddress( &caller, &parent );
        ok( caller == buf[1], "R-20: caller %p, expected %p\n", caller, buf[1] );
        ok( parent == buf[2], "R-20: parent %p, expected %p\n", parent, buf[2] );
    }
    else win_skip( "RtlGetCallersAddress is not available\n" );
    sink++;
}

static void __attribute__((noinline)) func_c(void)
{
    ret_addr[1] = __builtin_return_address(0);
    func_d();
    sink++;
}

static void __attribute__((noinline)) func_b(void)
{
    ret_addr[2] = __builtin_return_address(0);
    func_c();
    sink++;
}

static void __attribute__((noinline)) func_a(void)
{
    ret_addr[3] = __builtin_return_address(0);
    func_b();
    sink++;
}

/* the same site twice, and two sites reached through the same
 * call site, so that only the first frame differs. */
static USHORT __attribute__((noinline)) capture_site_a( void **buf, ULONG *hash )
{
    USHORT n = pRtlCaptureStackBackTrace( 0, 8, buf, hash );
    sink++;
    return n;
}

static USHORT __attribute__((noinline)) capture_site_b( void **buf, ULONG *hash )
{
    USHORT n;
    sink += 2;
    n = pRtlCaptureStackBackTrace( 0, 8, buf, hash );
    sink++;
    return n;
}

static void test_hash_sites(void)
{
    USHORT (*sites[3])( void **, ULONG * ) = { capture_site_a, capture_site_a, capture_site_b };
    void *buf[3][8];
    ULONG hash[3];
    USHORT n[3];
    int i;

    for (i = 0; i < 3; i++) n[i] = sites[i]( buf[i], &hash[i] );
    ok( n[0] == n[1] && n[0] == n[2] && n[0] >= 3, "R-08: counts %u %u %u\n", n[0], n[1], n[2] );
    ok( !memcmp( buf[0], buf[1], n[0] * sizeof(void *) ), "R-08: traces of the same site differ\n" );
    ok( hash[0] == hash[1], "R-08: hashes %#lx %#lx differ\n", hash[0], hash[1] );
    ok( in_function( buf[2][0], capture_site_b ), "R-09: first frame %p not in the second site\n", buf[2][0] );
    ok( !memcmp( buf[0] + 1, buf[2] + 1, (n[0] - 1) * sizeof(void *) ), "R-09: callers differ\n" );
    ok( hash[2] - hash[0] == (ULONG)(ULONG_PTR)buf[2][0] - (ULONG)(ULONG_PTR)buf[0][0],
        "R-09: hashes %#lx %#lx do not differ by the first frames %p %p\n",
        hash[0], hash[2], buf[0][0], buf[2][0] );
}

/* the stack of a new thread ends at its start, inside ntdll. */
static DWORD WINAPI end_thread( void *arg )
{
    void *buf[257];
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" ), kernel32 = GetModuleHandleA( "kernel32.dll" );
    USHORT n, i;
    BOOL found = FALSE;

    fill( buf, 257 );
    n = pRtlCaptureStackBackTrace( 0, 256, buf, NULL );
    ok( n >= 3 && n < 256, "R-07: got %u frames\n", n );
    if (n < 3 || n >= 256) return 0;
    for (i = 0; i < n; i++) ok( buf[i] != NULL, "R-07: frame %u is NULL\n", i );
    ok( buf[n] == FILL, "R-07: buf[n] overwritten with %p\n", buf[n] );
    ok( module_of( buf[n - 1] ) == ntdll, "R-07: last frame %p not in ntdll\n", buf[n - 1] );
    for (i = n - 3; i < n; i++) if (module_of( buf[i] ) == kernel32) found = TRUE;
    ok( found, "R-07: no kernel32 frame among the last 3 (%p %p %p)\n", buf[n - 3], buf[n - 2], buf[n - 1] );
    return 0;
}

static void test_thread_end(void)
{
    HANDLE thread = CreateThread( NULL, 0, end_thread, NULL, 0, NULL );
    ok( WaitForSingleObject( thread, 10000 ) == WAIT_OBJECT_0, "thread did not finish\n" );
    CloseHandle( thread );
}

/* deep stacks, no 63-frame cap. */
static USHORT deep_n90, deep_nall;

static void __attribute__((noinline)) recurse( int depth )
{
    static void *big[0x10000];
    void *buf[96];
    ULONG hash;

    if (depth)
    {
        recurse( depth - 1 );
        sink++;
        return;
    }
    fill( buf, 96 );
    deep_n90 = pRtlCaptureStackBackTrace( 0, 90, buf, NULL );
    ok( buf[90] == FILL, "R-10: buf[90] overwritten with %p\n", buf[90] );
    deep_nall = pRtlCaptureStackBackTrace( 0, 0xffff, big, &hash );
    ok( hash == sum( big, deep_nall ), "R-11: hash %#lx, expected %#lx\n", hash, sum( big, deep_nall ) );
}

static void test_deep(void)
{
    recurse( 100 );
    ok( deep_n90 == 90, "R-10: got %u frames\n", deep_n90 );
    ok( deep_nall >= 101 && deep_nall < 200, "R-11: got %u frames\n", deep_nall );
}

/* */
static void test_exports(void)
{
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" ), kernel32 = GetModuleHandleA( "kernel32.dll" );
    static const char * const apisets[] = { "api-ms-win-core-rtlsupport-l1-1-0.dll",
                                            "api-ms-win-core-rtlsupport-l1-2-0.dll" };
    void *from_ntdll = GetProcAddress( ntdll, "RtlCaptureStackBackTrace" );
    HMODULE mod;
    int i;

    ok( from_ntdll != NULL, "R-12: ntdll does not export RtlCaptureStackBackTrace\n" );
    ok( GetProcAddress( kernel32, "RtlCaptureStackBackTrace" ) == from_ntdll,
        "R-12: kernel32's RtlCaptureStackBackTrace is not ntdll's\n" );
    ok( !GetProcAddress( kernel32, "CaptureStackBackTrace" ), "R-13: CaptureStackBackTrace is exported\n" );

    for (i = 0; i < ARRAY_SIZE(apisets); i++)
    {
        winetest_push_context( "%s", apisets[i] );
        mod = LoadLibraryA( apisets[i] );
        ok( mod != NULL, "R-14: not loaded, error %lu\n", GetLastError() );
        if (mod) ok( GetProcAddress( mod, "RtlCaptureStackBackTrace" ) == from_ntdll,
                     "R-14: RtlCaptureStackBackTrace is not ntdll's\n" );
        if (mod) FreeLibrary( mod );
        winetest_pop_context();
    }
}

/* ntoskrnl.exe exports the three functions to drivers. On Windows the
 * kernel's code cannot run in a user process, so there only its export table
 * is read; Wine's ntoskrnl.exe runs in user processes (winedevice), where the
 * functions must walk like ntdll's. */
static void __attribute__((noinline)) compare_kernel_walk( HMODULE ntoskrnl )
{
    ULONG (WINAPI *pKernelWalk)(void **, ULONG, ULONG) = (void *)GetProcAddress( ntoskrnl, "RtlWalkFrameChain" );
    USHORT (WINAPI *pKernelCapture)(ULONG, ULONG, void **, ULONG *) =
        (void *)GetProcAddress( ntoskrnl, "RtlCaptureStackBackTrace" );
    void (WINAPI *pKernelCallers)(void **, void **) = (void *)GetProcAddress( ntoskrnl, "RtlGetCallersAddress" );
    void *kernel[8], *user[8], *caller = FILL, *parent = FILL;
    ULONG kn, un;

    fill( kernel, 8 );
    fill( user, 8 );
    kn = pKernelWalk( kernel, 6, 0 );
    un = pRtlWalkFrameChain( user, 6, 0 );
    ok( kn == 6 && un == 6, "walk: %lu and %lu frames\n", kn, un );
    ok( in_function( kernel[0], compare_kernel_walk ), "walk: frame 0 %p not here\n", kernel[0] );
    ok( !memcmp( kernel + 1, user + 1, 5 * sizeof(void *) ), "walk: frames differ from ntdll's\n" );
    ok( kernel[6] == FILL, "walk: kernel[6] overwritten with %p\n", kernel[6] );

    fill( kernel, 8 );
    kn = pKernelCapture( 1, 5, kernel, NULL );
    ok( kn == 5, "capture: %lu frames\n", kn );
    ok( !memcmp( kernel, user + 1, 5 * sizeof(void *) ), "capture: frames differ from ntdll's walk\n" );

    pKernelCallers( &caller, &parent );
    ok( caller == user[1] && parent == user[2], "callers: %p %p, expected %p %p\n",
        caller, parent, user[1], user[2] );
    sink++;
}

static void test_kernel_exports(void)
{
    static const char * const names[] = { "RtlCaptureStackBackTrace", "RtlGetCallersAddress", "RtlWalkFrameChain" };
    HMODULE mod = LoadLibraryExA( "ntoskrnl.exe", NULL, DONT_RESOLVE_DLL_REFERENCES );
    int i;

    ok( mod != NULL, "ntoskrnl.exe not mapped, error %lu\n", GetLastError() );
    if (!mod) return;
    for (i = 0; i < ARRAY_SIZE(names); i++)
        ok( GetProcAddress( mod, names[i] ) != NULL, "ntoskrnl.exe does not export %s\n", names[i] );
    FreeLibrary( mod );

    if (!GetProcAddress( GetModuleHandleA( "ntdll.dll" ), "wine_get_version" ))
    {
        skip( "the kernel's functions do not run in a user process\n" );
        return;
    }
    mod = LoadLibraryA( "ntoskrnl.exe" );
    ok( mod != NULL, "ntoskrnl.exe not loaded, error %lu\n", GetLastError() );
    if (!mod) return;
    compare_kernel_walk( mod );
    FreeLibrary( mod );
}

/* many threads capture while another loads and frees DLLs. */
static volatile LONG stop_stress;
static LONG bad_traces, good_traces;

static DWORD WINAPI stress_thread( void *arg )
{
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" );
    void *buf[64];
    USHORT n, i;

    while (!stop_stress)
    {
        n = pRtlCaptureStackBackTrace( 0, 64, buf, NULL );
        for (i = 0; i < n; i++) if (!buf[i]) break;
        if (n < 3 || i < n || module_of( buf[n - 1] ) != ntdll) InterlockedIncrement( &bad_traces );
        else InterlockedIncrement( &good_traces );
    }
    return 0;
}

static void test_concurrency(void)
{
    static const char * const dlls[] = { "version.dll", "msimg32.dll", "psapi.dll", "shlwapi.dll" };
    HANDLE threads[64];
    int i, round;

    for (i = 0; i < ARRAY_SIZE(threads); i++) threads[i] = CreateThread( NULL, 0, stress_thread, NULL, 0, NULL );
    for (round = 0; round < 50; round++)
    {
        HMODULE mod = LoadLibraryA( dlls[round % ARRAY_SIZE(dlls)] );
        ok( mod != NULL, "R-22: %s not loaded\n", dlls[round % ARRAY_SIZE(dlls)] );
        if (mod) FreeLibrary( mod );
    }
    stop_stress = 1;
    for (i = 0; i < ARRAY_SIZE(threads); i++)
    {
        WaitForSingleObject( threads[i], INFINITE );
        CloseHandle( threads[i] );
    }
    ok( !bad_traces, "R-22: %ld of %ld traces malformed\n", bad_traces, bad_traces + good_traces );
    ok( good_traces > 0, "R-22: no trace taken\n" );
    trace( "figure: traces=%ld threads=%u loads=50 malformed=%ld\n",
           good_traces + bad_traces, (int)ARRAY_SIZE(threads), bad_traces );
}

/* a NULL buffer. A fault writing the caller's buffer is the caller's:
 * RtlCaptureStackBackTrace raises the access violation, which ends a child
 * process that does not catch it with that exception as its exit code.
 * (RtlWalkFrameChain returns 0: see func_d.) */
static void test_null_buffer( const char *exe )
{
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { sizeof(si) };
    char cmd[MAX_PATH + 32];
    DWORD code = 0xdeadbeef;

    sprintf( cmd, "\"%s\" backtrace null_buffer", exe );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ), "R-15: no child\n" );
    ok( WaitForSingleObject( pi.hProcess, 10000 ) == WAIT_OBJECT_0, "R-15: the child hangs\n" );
    GetExitCodeProcess( pi.hProcess, &code );
    ok( code == STATUS_ACCESS_VIOLATION, "R-15: exit code %#lx, expected an access violation\n", code );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
}

/* a thread whose start routine tail-jumps into RtlCaptureStackBackTrace
 * has no frame of its own on the stack: its trace is kernel32's
 * BaseThreadInitThunk, then ntdll's RtlUserThreadStart, and the count is
 * the thread's exit code. On x86 the thread start in ntdll has two levels
 * with frames (_RtlUserThreadStart calls __RtlUserThreadStart, which calls
 * BaseThreadInitThunk, as x86 Windows' stacks show; Wine's i386 ntdll has
 * call_thread_func and its wrapper): kernel32, then ntdll twice. */
static void *tail_frames[257];

#ifdef _WIN64
#define TAIL_FRAMES 2
#define TAIL_BUFFER_OFFSET 9
#define TAIL_FUNCTION_OFFSET 22
#else
#define TAIL_FRAMES 3
#define TAIL_BUFFER_OFFSET 4
#define TAIL_FUNCTION_OFFSET 17
#endif

static void test_tail_jump_start(void)
{
#ifndef _WIN64
    /* the start routine's stdcall frame, [return][arg], becomes
     * [return][0][256][tail_frames][NULL][arg] for the tail call */
    static const BYTE code[] =
    {
        0x58,                                   /* pop %eax: the return address */
        0x6a, 0x00,                             /* push $0: no hash */
        0x68, 0, 0, 0, 0,                       /* push $tail_frames */
        0x68, 0x00, 0x01, 0x00, 0x00,           /* push $256 */
        0x6a, 0x00,                             /* push $0: skip none */
        0x50,                                   /* push %eax */
        0xb8, 0, 0, 0, 0,                       /* mov $RtlCaptureStackBackTrace,%eax */
        0xff, 0xe0,                             /* jmp *%eax */
    };
#else
    static const BYTE code[] =
    {
        0x31, 0xc9,                             /* xor %ecx,%ecx: skip none */
        0xba, 0x00, 0x01, 0x00, 0x00,           /* mov $256,%edx */
        0x49, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,     /* movabs $tail_frames,%r8 */
        0x45, 0x31, 0xc9,                       /* xor %r9d,%r9d: no hash */
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,     /* movabs $RtlCaptureStackBackTrace,%rax */
        0xff, 0xe0,                             /* jmp *%rax */
    };
#endif
    BYTE *start = VirtualAlloc( NULL, 0x1000, MEM_COMMIT, PAGE_EXECUTE_READWRITE );
    void *buffer = tail_frames;
    HANDLE thread;
    DWORD exit_code = 0xdeadbeef;

    memcpy( start, code, sizeof(code) );
    memcpy( start + TAIL_BUFFER_OFFSET, &buffer, sizeof(buffer) );
    memcpy( start + TAIL_FUNCTION_OFFSET, &pRtlCaptureStackBackTrace, sizeof(pRtlCaptureStackBackTrace) );
    FlushInstructionCache( GetCurrentProcess(), start, 0x1000 );
    fill( tail_frames, 257 );

    thread = CreateThread( NULL, 0, (LPTHREAD_START_ROUTINE)start, NULL, 0, NULL );
    ok( WaitForSingleObject( thread, 10000 ) == WAIT_OBJECT_0, "R-23: the thread did not finish\n" );
    GetExitCodeThread( thread, &exit_code );
    CloseHandle( thread );
    /* only the low 16 bits of a USHORT return value are defined */
    ok( (exit_code & 0xffff) == TAIL_FRAMES, "R-23: got %lu frames\n", exit_code & 0xffff );
    ok( module_of( tail_frames[0] ) == GetModuleHandleA( "kernel32.dll" ),
        "R-23: frame 0 %p not in kernel32\n", tail_frames[0] );
    ok( module_of( tail_frames[1] ) == GetModuleHandleA( "ntdll.dll" ),
        "R-23: frame 1 %p not in ntdll\n", tail_frames[1] );
    ok( module_of( tail_frames[TAIL_FRAMES - 1] ) == GetModuleHandleA( "ntdll.dll" ),
        "R-23: frame %u %p not in ntdll\n", TAIL_FRAMES - 1, tail_frames[TAIL_FRAMES - 1] );
    ok( tail_frames[TAIL_FRAMES] == FILL, "R-23: frame %u written: %p\n", TAIL_FRAMES, tail_frames[TAIL_FRAMES] );
    VirtualFree( start, 0, MEM_RELEASE );
}

START_TEST(backtrace)
{
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" );
    char **argv;
    int argc = winetest_get_mainargs( &argv );

    pRtlCaptureStackBackTrace = (void *)GetProcAddress( ntdll, "RtlCaptureStackBackTrace" );
    pRtlWalkFrameChain = (void *)GetProcAddress( ntdll, "RtlWalkFrameChain" );
    pRtlGetCallersAddress = (void *)GetProcAddress( ntdll, "RtlGetCallersAddress" );
    if (argc >= 3 && !strcmp( argv[2], "null_buffer" ))
    {
        SetErrorMode( SEM_NOGPFAULTERRORBOX );
        ExitProcess( pRtlCaptureStackBackTrace( 0, 5, NULL, NULL ) );
    }

    /* first, as stock Wine 8.0 has no RtlWalkFrameChain and ends the test there */
    test_null_buffer( argv[0] );
    test_tail_jump_start();
    func_a();
    sink++;
    test_hash_sites();
    test_thread_end();
    test_deep();
    test_exports();
    test_kernel_exports();
    test_concurrency();
}

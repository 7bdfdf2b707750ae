/*
 * What a Windows program sees of libwine under Wine: "libwine.exe sym"
 * initialises dbghelp for itself (SymInitialize with the modules loaded),
 * as back-traces, crash reports and winedbg do; "libwine.exe args ..."
 * loads the Winelib module wineargs.dll, linked with -lwine, and prints
 * what libwine got of the command line from ntdll.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <string.h>
#include <windows.h>

int main( int argc, char **argv )
{
    if (argc > 1 && !strcmp( argv[1], "sym" ))
    {
        BOOL (WINAPI *pSymInitialize)( HANDLE, const char *, BOOL );
        BOOL (WINAPI *pSymCleanup)( HANDLE );
        HMODULE dbghelp = LoadLibraryA( "dbghelp.dll" );

        pSymInitialize = (void *)GetProcAddress( dbghelp, "SymInitialize" );
        pSymCleanup = (void *)GetProcAddress( dbghelp, "SymCleanup" );
        if (!pSymInitialize || !pSymCleanup) return 2;
        if (!pSymInitialize( GetCurrentProcess(), NULL, TRUE )) return 3;
        pSymCleanup( GetCurrentProcess() );
        printf( "libwine: sym ok\n" );
        return 0;
    }
    if (argc > 1 && !strcmp( argv[1], "args" ))
    {
        int (CDECL *pwineargs_get)( char *, int );
        HMODULE module = LoadLibraryA( "wineargs.dll" );
        char last[64];
        int n;

        if (!module)
        {
            printf( "libwine: wineargs.dll does not load: error %lu\n", GetLastError() );
            return 4;
        }
        pwineargs_get = (void *)GetProcAddress( module, "wineargs_get" );
        if (!pwineargs_get) return 5;
        n = pwineargs_get( last, sizeof(last) );
        printf( "libwine: argc %d, last %s\n", n, n > 0 ? last : "-" );
        return 0;
    }
    return 1;
}

/*
 * A Winelib module that uses libwine, as older Winelib programs do: it is
 * linked with -lwine and reads the command line that ntdll hands to
 * libwine (__wine_main_argc, __wine_main_argv) when it loads it. ntdll
 * loads libwine.so.1 from its own directory (the build tree's libs/wine);
 * without it this module does not load at all.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdarg.h>
#include <string.h>
#include <windef.h>
#include <winbase.h>

extern int __wine_main_argc;
extern char **__wine_main_argv;

/* the number of arguments libwine got from ntdll, and the last one */
int CDECL wineargs_get( char *last, int size )
{
    if (__wine_main_argc < 1 || !__wine_main_argv || size < 1) return -1;
    lstrcpynA( last, __wine_main_argv[__wine_main_argc - 1], size );
    return __wine_main_argc;
}

/*
 * wctdump: its output
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

#include "wctdump.h"

/*
 * Output. Text follows the user's locale: a console gets wide characters,
 * a file or pipe the locale's code page (on Wine, the Unix locale's). JSON
 * is UTF-8 wherever it goes.
 */
struct output out, err;

void init_output( struct output *output, DWORD std )
{
    DWORD mode;

    output->handle = GetStdHandle( std );
    output->console = GetConsoleMode( output->handle, &mode );
    if (json && std == STD_OUTPUT_HANDLE) output->codepage = CP_UTF8;
    /* CP_UNIXCP: Wine's name for the Unix locale's code page */
    else if (WideCharToMultiByte( CP_UNIXCP, 0, L"a", 1, NULL, 0, NULL, NULL )) output->codepage = CP_UNIXCP;
    else output->codepage = GetConsoleOutputCP();
}

static void write_output( struct output *output, const WCHAR *text, int len )
{
    char buffer[4096];
    DWORD done;
    int chunk, size;

    if (output->console && !(json && output == &out))
    {
        WriteConsoleW( output->handle, text, len, &done, NULL );
        return;
    }
    while (len > 0)
    {
        /* whole characters only: do not split a surrogate pair */
        chunk = min( len, 1000 );
        if (chunk < len && IS_HIGH_SURROGATE( text[chunk - 1] )) chunk--;
        size = WideCharToMultiByte( output->codepage, 0, text, chunk, buffer, sizeof(buffer), NULL, NULL );
        WriteFile( output->handle, buffer, size, &done, NULL );
        text += chunk;
        len -= chunk;
    }
}

void __cdecl print_to( struct output *output, const WCHAR *format, ... )
{
    WCHAR buffer[2048];
    va_list args;
    int len;

    va_start( args, format );
    len = _vsnwprintf( buffer, ARRAY_SIZE(buffer) - 1, format, args );
    va_end( args );
    if (len < 0) len = ARRAY_SIZE(buffer) - 1;
    buffer[len] = 0;
    write_output( output, buffer, len );
}

#define print(...) print_to( &out, __VA_ARGS__ )
#define error(...) print_to( &err, L"wctdump: " __VA_ARGS__ )

/* a JSON string: names come from other processes, escape everything odd */
void print_json_string( const WCHAR *str )
{
    WCHAR buffer[1024];
    int len = 0;

    buffer[len++] = '"';
    for (; *str; str++)
    {
        if (len > ARRAY_SIZE(buffer) - 8)
        {
            write_output( &out, buffer, len );
            len = 0;
        }
        if (*str == '"' || *str == '\\')
        {
            buffer[len++] = '\\';
            buffer[len++] = *str;
        }
        else if (*str < 0x20) len += _snwprintf( buffer + len, 7, L"\\u%04x", *str );
        else buffer[len++] = *str;
    }
    buffer[len++] = '"';
    write_output( &out, buffer, len );
}

/* The system's text for an error, on one line; our own words for those
 * a wait chain query gives where the system has none (Wine's tables lack
 * most of the newer codes). */
const WCHAR *error_text( DWORD code )
{
    static const struct { DWORD code; const WCHAR *text; } words[] =
    {
        { ERROR_OBJECT_NOT_FOUND, L"the thread no longer exists" },
        { ERROR_INVALID_PARAMETER, L"the thread no longer exists" },
        { ERROR_ACCESS_DENIED, L"access denied" },
        { ERROR_TOO_MANY_THREADS, L"the chain is longer than 16 nodes" },
        { ERROR_MORE_DATA, L"the chain is longer than 16 nodes" },
        { ERROR_PARTIAL_COPY, L"part of the process's memory could not be read" },
        { ERROR_NOT_SUPPORTED, L"not supported" },
    };
    static WCHAR buffer[256];
    unsigned int i;
    int len;

    for (i = 0; i < ARRAY_SIZE(words); i++) if (words[i].code == code) return words[i].text;
    len = FormatMessageW( FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0,
                          buffer, ARRAY_SIZE(buffer), NULL );
    while (len && (buffer[len - 1] == '\n' || buffer[len - 1] == '\r' || buffer[len - 1] == ' ' ||
                   buffer[len - 1] == '.'))
        len--;
    if (!len) _snwprintf( buffer, ARRAY_SIZE(buffer), L"system error %lu, which has no text here", code );
    else buffer[len] = 0;
    return buffer;
}

/*
 * A program that imports all four Wait Chain Traversal functions directly.
 * On Wine 8.0 it does not even load (CloseThreadWaitChainSession was not
 * exported); on Windows and on the layer it does.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <windows.h>
#include <wct.h>

#define STANDALONE
#include "wine/test.h"

static HRESULT WINAPI call_state( int unused, ULONG *state )
{
    return E_NOTIMPL;
}

static HRESULT WINAPI activation_state( GUID clsid, DWORD id, DWORD *state )
{
    return E_NOTIMPL;
}

START_TEST(wct_imports)
{
    WAITCHAIN_NODE_INFO node;
    DWORD count = 0;
    BOOL cycle;
    HWCT session;

    RegisterWaitChainCOMCallback( call_state, activation_state );

    session = OpenThreadWaitChainSession( 0, NULL );
    ok( session != NULL, "OpenThreadWaitChainSession failed, error %lu\n", GetLastError() );
    CloseThreadWaitChainSession( session );

    SetLastError( 0xdeadbeef );
    session = OpenThreadWaitChainSession( 0x2, NULL );
    ok( session == NULL, "unknown flag accepted\n" );
    ok( GetLastError() == ERROR_INVALID_PARAMETER, "got error %lu\n", GetLastError() );

    /* The full behaviour of GetThreadWaitChain is tested in wct.c; a zero
     * node count is refused before any session or thread is looked at. */
    session = OpenThreadWaitChainSession( 0, NULL );
    SetLastError( 0xdeadbeef );
    ok( !GetThreadWaitChain( session, 0, 0, GetCurrentThreadId(), &count, &node, &cycle ),
        "GetThreadWaitChain accepted a zero node count\n" );
    ok( GetLastError() == ERROR_INVALID_PARAMETER, "got error %lu\n", GetLastError() );
    CloseThreadWaitChainSession( session );
}

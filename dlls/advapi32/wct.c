/*
 * Wait Chain Traversal
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
#include <stdlib.h>

#include "windef.h"
#include "winbase.h"
#include "winerror.h"
#include "wct.h"

#include "wine/debug.h"
#include "wine/list.h"

WINE_DEFAULT_DEBUG_CHANNEL(wct);

struct wct_session
{
    struct list        entry;
    BOOL               async;
    PWAITCHAINCALLBACK callback;
};

/* Sessions are looked up in this list rather than trusted as pointers, so a
 * stale or made-up HWCT is an error, not a crash. */
static struct list sessions = LIST_INIT( sessions );
static CRITICAL_SECTION wct_cs;
static CRITICAL_SECTION_DEBUG wct_cs_debug =
{
    0, 0, &wct_cs,
    { &wct_cs_debug.ProcessLocksList, &wct_cs_debug.ProcessLocksList },
      0, 0, { (DWORD_PTR)(__FILE__ ": wct_cs") }
};
static CRITICAL_SECTION wct_cs = { &wct_cs_debug, -1, 0, 0, 0, 0 };

static PCOGETCALLSTATE com_call_state;
static PCOGETACTIVATIONSTATE com_activation_state;

/* Returns the session with wct_cs held, or NULL (lock released). */
static struct wct_session *grab_session( HWCT handle )
{
    struct wct_session *session;

    EnterCriticalSection( &wct_cs );
    LIST_FOR_EACH_ENTRY( session, &sessions, struct wct_session, entry )
        if (session == handle) return session;
    LeaveCriticalSection( &wct_cs );
    return NULL;
}

/***********************************************************************
 *      OpenThreadWaitChainSession (ADVAPI32.@)
 */
HWCT WINAPI OpenThreadWaitChainSession( DWORD flags, PWAITCHAINCALLBACK callback )
{
    struct wct_session *session;

    TRACE( "flags %#lx, callback %p\n", flags, callback );

    if ((flags & ~WCTP_OPEN_ALL_FLAGS) || ((flags & WCT_ASYNC_OPEN_FLAG) && !callback))
    {
        SetLastError( ERROR_INVALID_PARAMETER );
        return NULL;
    }
    if (!(session = calloc( 1, sizeof(*session) )))
    {
        SetLastError( ERROR_NOT_ENOUGH_MEMORY );
        return NULL;
    }
    session->async = !!(flags & WCT_ASYNC_OPEN_FLAG);
    session->callback = callback;

    EnterCriticalSection( &wct_cs );
    list_add_tail( &sessions, &session->entry );
    LeaveCriticalSection( &wct_cs );
    return session;
}

/***********************************************************************
 *      CloseThreadWaitChainSession (ADVAPI32.@)
 */
void WINAPI CloseThreadWaitChainSession( HWCT handle )
{
    struct wct_session *session;

    TRACE( "%p\n", handle );

    if (!(session = grab_session( handle )))
    {
        WARN( "invalid session %p\n", handle );
        return;
    }
    list_remove( &session->entry );
    LeaveCriticalSection( &wct_cs );
    free( session );
}

/***********************************************************************
 *      GetThreadWaitChain (ADVAPI32.@)
 */
BOOL WINAPI GetThreadWaitChain( HWCT handle, DWORD_PTR context, DWORD flags, DWORD thread_id,
                                DWORD *count, WAITCHAIN_NODE_INFO *nodes, BOOL *is_cycle )
{
    struct wct_session *session;

    TRACE( "handle %p, context %#Ix, flags %#lx, thread %#lx, count %p, nodes %p, cycle %p\n",
           handle, context, flags, thread_id, count, nodes, is_cycle );

    if (!count || !nodes || !is_cycle || *count < 1 || *count > WCT_MAX_NODE_COUNT ||
        (flags & ~(WCTP_GETINFO_ALL_FLAGS | WCT_NETWORK_IO_FLAG)))
    {
        SetLastError( ERROR_INVALID_PARAMETER );
        return FALSE;
    }
    if (!(session = grab_session( handle )))
    {
        SetLastError( ERROR_INVALID_PARAMETER );
        return FALSE;
    }
    LeaveCriticalSection( &wct_cs );

    FIXME( "chains need the wineserver's wait-chain request\n" );
    SetLastError( ERROR_NOT_SUPPORTED );
    return FALSE;
}

/***********************************************************************
 *      RegisterWaitChainCOMCallback (ADVAPI32.@)
 */
void WINAPI RegisterWaitChainCOMCallback( PCOGETCALLSTATE call_state,
                                          PCOGETACTIVATIONSTATE activation_state )
{
    TRACE( "%p, %p\n", call_state, activation_state );

    com_call_state = call_state;
    com_activation_state = activation_state;
}

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

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winbase.h"
#include "winerror.h"
#include "winternl.h"
#include "wct.h"

#include "wine/debug.h"
#include "wine/list.h"
#include "wine/wait_chain.h"

WINE_DEFAULT_DEBUG_CHANNEL(wct);

struct wct_session
{
    struct list        entry;
    BOOL               async;
    PWAITCHAINCALLBACK callback;
    LONG               outstanding;  /* asynchronous requests not yet called back */
    BOOL               closing;      /* requests not started yet are cancelled */
    BOOL               orphaned;     /* closed from a callback: freed by the last one */
    CONDITION_VARIABLE done;         /* outstanding dropped */
    struct list        running;      /* requests whose callback is running */
};

struct wct_request
{
    struct wct_session  *session;
    DWORD_PTR            context;
    DWORD                flags;
    DWORD                tid;
    DWORD               *count;
    WAITCHAIN_NODE_INFO *nodes;
    BOOL                *cycle;
    HANDLE               token;   /* the requester's impersonation token, or NULL */
    struct list          entry;   /* in the session's running list */
    DWORD                thread;  /* running the callback */
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

/* Stored for COM nodes; Wine cannot yet tell a thread waits on a COM call. */
static PCOGETCALLSTATE com_call_state;
static PCOGETACTIVATIONSTATE com_activation_state;

static DWORD error_from_status( NTSTATUS status )
{
    switch (status)
    {
    case STATUS_ACCESS_DENIED: return ERROR_ACCESS_DENIED;
    case STATUS_INVALID_PARAMETER: return ERROR_INVALID_PARAMETER;
    default: return ERROR_OBJECT_NOT_FOUND;
    }
}

static void fill_node( WAITCHAIN_NODE_INFO *info, const struct wait_chain_node *node )
{
    memset( info, 0, sizeof(*info) );
    info->ObjectType = node->type;
    info->ObjectStatus = node->status;
    if (node->type == WctThreadType)
    {
        info->ThreadObject.ProcessId = node->pid;
        info->ThreadObject.ThreadId = node->tid;
        info->ThreadObject.WaitTime = node->wait_time;
        info->ThreadObject.ContextSwitches = node->context_switches;
    }
    else memcpy( info->LockObject.ObjectName, node->name,
                 min( node->name_len, sizeof(info->LockObject.ObjectName) - sizeof(WCHAR) ));
}

/* Returns the error for GetThreadWaitChain or the callback. */
static DWORD get_wait_chain( DWORD flags, DWORD tid, DWORD *count, WAITCHAIN_NODE_INFO *nodes, BOOL *cycle )
{
    struct wait_chain_node chain[WCT_MAX_NODE_COUNT];
    ULONG i, n, total = 0;
    BOOL is_cycle = FALSE;
    NTSTATUS status;

    if ((status = __wine_get_wait_chain( tid, flags, chain, WCT_MAX_NODE_COUNT, &total, &is_cycle )))
        return error_from_status( status );

    n = min( min( total, WCT_MAX_NODE_COUNT ), *count );
    for (i = 0; i < n; i++) fill_node( &nodes[i], &chain[i] );
    *cycle = is_cycle;

    if (total > WCT_MAX_NODE_COUNT)
    {
        *count = n;
        return ERROR_TOO_MANY_THREADS;
    }
    *count = total;
    return total > n ? ERROR_MORE_DATA : ERROR_SUCCESS;
}

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

static void CALLBACK async_request( TP_CALLBACK_INSTANCE *instance, void *arg )
{
    struct wct_request *request = arg;
    struct wct_session *session = request->session;
    BOOL cancelled, orphaned;
    DWORD error;

    EnterCriticalSection( &wct_cs );
    cancelled = session->closing;
    request->thread = GetCurrentThreadId();
    list_add_tail( &session->running, &request->entry );
    LeaveCriticalSection( &wct_cs );

    if (cancelled) error = ERROR_CANCELLED;
    else
    {
        /* answer for the identity that asked, as a synchronous request does */
        if (request->token) SetThreadToken( NULL, request->token );
        error = get_wait_chain( request->flags, request->tid, request->count, request->nodes, request->cycle );
        if (request->token) SetThreadToken( NULL, NULL );
    }
    if (request->token) CloseHandle( request->token );
    TRACE( "session %p, context %#Ix: error %lu\n", session, request->context, error );
    session->callback( session, request->context, error, request->count, request->nodes, request->cycle );

    EnterCriticalSection( &wct_cs );
    list_remove( &request->entry );
    session->outstanding--;
    WakeAllConditionVariable( &session->done );
    orphaned = session->orphaned && !session->outstanding;
    LeaveCriticalSection( &wct_cs );
    if (orphaned) free( session );
    free( request );
}

/* callbacks of 'session' running on this thread: a callback may close its
 * own session, and must not wait for itself */
static LONG own_callbacks( struct wct_session *session )
{
    struct wct_request *request;
    LONG count = 0;

    LIST_FOR_EACH_ENTRY( request, &session->running, struct wct_request, entry )
        if (request->thread == GetCurrentThreadId()) count++;
    return count;
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
    InitializeConditionVariable( &session->done );
    list_init( &session->running );

    EnterCriticalSection( &wct_cs );
    list_add_tail( &sessions, &session->entry );
    LeaveCriticalSection( &wct_cs );
    return session;
}

/***********************************************************************
 *      CloseThreadWaitChainSession (ADVAPI32.@)
 *
 * Asynchronous requests that have not started are called back with
 * ERROR_CANCELLED; returns once every callback has returned, but for the
 * one calling it, if it is called from a callback of the session.
 */
void WINAPI CloseThreadWaitChainSession( HWCT handle )
{
    struct wct_session *session;
    LONG own;

    TRACE( "%p\n", handle );

    if (!(session = grab_session( handle )))
    {
        WARN( "invalid session %p\n", handle );
        return;
    }
    list_remove( &session->entry );
    session->closing = TRUE;
    own = own_callbacks( session );
    while (session->outstanding > own) SleepConditionVariableCS( &session->done, &wct_cs, INFINITE );
    session->orphaned = own > 0;
    LeaveCriticalSection( &wct_cs );
    if (!own) free( session );
}

/***********************************************************************
 *      GetThreadWaitChain (ADVAPI32.@)
 */
BOOL WINAPI GetThreadWaitChain( HWCT handle, DWORD_PTR context, DWORD flags, DWORD thread_id,
                                DWORD *count, WAITCHAIN_NODE_INFO *nodes, BOOL *is_cycle )
{
    struct wct_session *session;
    struct wct_request *request;
    DWORD error;

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

    if (session->async)
    {
        if (!(request = malloc( sizeof(*request) )))
        {
            LeaveCriticalSection( &wct_cs );
            SetLastError( ERROR_NOT_ENOUGH_MEMORY );
            return FALSE;
        }
        request->session = session;
        request->context = context;
        request->flags = flags;
        request->tid = thread_id;
        request->count = count;
        request->nodes = nodes;
        request->cycle = is_cycle;
        if (!OpenThreadToken( GetCurrentThread(), TOKEN_IMPERSONATE, TRUE, &request->token ))
            request->token = NULL;
        session->outstanding++;
        if (!TrySubmitThreadpoolCallback( async_request, request, NULL ))
        {
            session->outstanding--;
            LeaveCriticalSection( &wct_cs );
            if (request->token) CloseHandle( request->token );
            free( request );
            return FALSE;
        }
        LeaveCriticalSection( &wct_cs );
        SetLastError( ERROR_IO_PENDING );
        return FALSE;
    }
    LeaveCriticalSection( &wct_cs );

    if ((error = get_wait_chain( flags, thread_id, count, nodes, is_cycle )))
    {
        SetLastError( error );
        return FALSE;
    }
    return TRUE;
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

/*
 * Wait Chain Traversal: the server's walk, for advapi32
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

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wine/debug.h"
#include "wine/server.h"
#include "wine/wait_chain.h"

WINE_DEFAULT_DEBUG_CHANNEL(wct);

/***********************************************************************
 *           __wine_get_wait_chain   (NTDLL.@)
 *
 * One round trip: the server walks the chain over its own tables and the
 * threads' wait records, so the answer is one snapshot.
 */
NTSTATUS WINAPI __wine_get_wait_chain( DWORD tid, DWORD flags, struct wait_chain_node *nodes, ULONG max,
                                       ULONG *total, BOOL *cycle )
{
    NTSTATUS status;

    TRACE( "tid %04lx, flags %#lx, nodes %p, max %lu\n", tid, flags, nodes, max );

    SERVER_START_REQ( get_wait_chain )
    {
        req->tid = tid;
        req->flags = flags;
        wine_server_set_reply( req, nodes, max * sizeof(*nodes) );
        if (!(status = wine_server_call( req )))
        {
            *total = reply->total;
            *cycle = reply->cycle;
        }
    }
    SERVER_END_REQ;
    return status;
}

/*
 * A Winelib module with two glibc mutexes, for host/host_locks: a thread
 * that calls hostlock_acquire while another holds that mutex sleeps in the
 * host's futex(), as a thread of a unix library does
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <pthread.h>
#include <stdarg.h>
#include <windef.h>
#include <winbase.h>

static pthread_mutex_t host_mutexes[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };

void CDECL hostlock_acquire( int which )
{
    pthread_mutex_lock( &host_mutexes[which & 1] );
}

void CDECL hostlock_release( int which )
{
    pthread_mutex_unlock( &host_mutexes[which & 1] );
}

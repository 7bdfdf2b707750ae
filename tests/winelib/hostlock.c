/*
 * A Winelib module with glibc locks of each kind, two of each, for
 * host/host_locks: a thread that calls hostlock_acquire while another
 * holds that lock sleeps in the host's futex(), as a thread of a unix
 * library does
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <pthread.h>
#include <stdarg.h>
#include <windef.h>
#include <winbase.h>

/* the kinds, as hostlock_acquire's first argument */
enum lock_kind { NORMAL_MUTEX, ROBUST_MUTEX, PI_MUTEX, RWLOCK_WRITE, RWLOCK_READ };

static pthread_mutex_t mutexes[3][2];
static pthread_rwlock_t rwlocks[2];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_locks(void)
{
    pthread_mutexattr_t attr;
    int i;

    for (i = 0; i < 2; i++)
    {
        pthread_mutexattr_init( &attr );
        pthread_mutex_init( &mutexes[NORMAL_MUTEX][i], &attr );
        pthread_mutexattr_setrobust( &attr, PTHREAD_MUTEX_ROBUST );
        pthread_mutex_init( &mutexes[ROBUST_MUTEX][i], &attr );
        pthread_mutexattr_destroy( &attr );
        pthread_mutexattr_init( &attr );
        pthread_mutexattr_setprotocol( &attr, PTHREAD_PRIO_INHERIT );
        pthread_mutex_init( &mutexes[PI_MUTEX][i], &attr );
        pthread_mutexattr_destroy( &attr );
        pthread_rwlock_init( &rwlocks[i], NULL );
    }
}

/* takes lock 'which' (0 or 1) of that kind; returns 0 or pthread's error */
int CDECL hostlock_acquire( int kind, int which )
{
    pthread_once( &once, init_locks );
    which &= 1;
    switch (kind)
    {
    case RWLOCK_WRITE: return pthread_rwlock_wrlock( &rwlocks[which] );
    case RWLOCK_READ:  return pthread_rwlock_rdlock( &rwlocks[which] );
    default:           return pthread_mutex_lock( &mutexes[kind % 3][which] );
    }
}

/*
 * What Linux says of a thread a wait chain passes
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

#ifndef __WINE_SERVER_WAIT_HOST_H
#define __WINE_SERVER_WAIT_HOST_H

/* voluntary plus involuntary context switches of a thread */
extern unsigned int read_context_switches( struct thread *thread );

/* the kinds of glibc locks whose owner a sleeping waiter leads to */
enum host_lock_kind
{
    HOST_LOCK_NONE,
    HOST_LOCK_MUTEX,    /* pthread_mutex_t of any kind but priority-protected */
    HOST_LOCK_RWLOCK    /* pthread_rwlock_t, write-locked */
};

/* a glibc lock a thread is asleep on in futex(), and its owner's Linux
 * thread id as the lock says it (0: none known) */
struct host_lock
{
    enum host_lock_kind kind;
    client_ptr_t        address;    /* of the lock, not of its futex word */
    int                 owner_tid;
};

/* Is the thread asleep in a host system call that waits for something
 * outside it? The call's number and since when the server saw it there;
 * what its descriptors refer to is appended to 'what'; the glibc lock it
 * waits for, if it is one, in 'lock'. */
extern int get_host_call( struct thread *thread, unsigned int switches, int *call, timeout_t *since,
                          char *what, size_t what_size, struct host_lock *lock );

/* Is 'tid' a live Linux task of the thread's process? */
extern int is_host_task( struct thread *thread, int tid );

/* Does the thread still sleep on that lock, with the same owner? */
extern int is_same_host_lock( struct thread *thread, const struct host_lock *lock );

#endif  /* __WINE_SERVER_WAIT_HOST_H */

/*
 * Server-side Wait Chain Traversal: what it asks of the other objects
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

#ifndef __WINE_SERVER_WAIT_CHAIN_H
#define __WINE_SERVER_WAIT_CHAIN_H

struct msg_queue;
struct object;
struct thread;

/* mutex.c: 0 if obj is not a mutex */
extern int get_mutex_state( struct object *obj, struct thread **owner, int *abandoned );
/* queue.c: the thread whose reply a SendMessage of 'thread' waits for, if it waits on its queue */
extern struct thread *get_send_message_receiver( struct thread *thread, struct object *waited );
/* thread.c: the thread a message queue belongs to */
extern struct thread *get_queue_thread( struct msg_queue *queue );
/* thread.c: the objects of a thread's current wait (at most max), and when it began */
extern int get_thread_wait_objects( struct thread *thread, struct object **objects, int max,
                                    timeout_t *since );

#endif  /* __WINE_SERVER_WAIT_CHAIN_H */

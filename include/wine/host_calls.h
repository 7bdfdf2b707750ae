/*
 * The host system calls a blocked thread may be in, as the wait chain
 * reports them
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

#ifndef __WINE_WINE_HOST_CALLS_H
#define __WINE_WINE_HOST_CALLS_H

/*
 * The Linux x86_64 system calls in which a thread may block with nothing
 * of Wine's recording why (a node of kind WAIT_HOST_CALL carries the
 * number): the wineserver describes what each one waits on (wait_host.c),
 * wctdump names them. One list, so that the two cannot disagree.
 *
 * HOST_CALL( number, name, arguments ): 'arguments' says what the server
 * reads of the call's arguments: FD (arg 0 is a descriptor), POLL (arg 0 is
 * a struct pollfd array, arg 1 its size) or NONE.
 */
#define HOST_CALLS \
    HOST_CALL(   0, read,            FD   ) \
    HOST_CALL(   1, write,           FD   ) \
    HOST_CALL(   7, poll,            POLL ) \
    HOST_CALL(  17, pread64,         FD   ) \
    HOST_CALL(  18, pwrite64,        FD   ) \
    HOST_CALL(  19, readv,           FD   ) \
    HOST_CALL(  20, writev,          FD   ) \
    HOST_CALL(  23, select,          NONE ) \
    HOST_CALL(  34, pause,           NONE ) \
    HOST_CALL(  35, nanosleep,       NONE ) \
    HOST_CALL(  42, connect,         FD   ) \
    HOST_CALL(  43, accept,          FD   ) \
    HOST_CALL(  44, sendto,          FD   ) \
    HOST_CALL(  45, recvfrom,        FD   ) \
    HOST_CALL(  46, sendmsg,         FD   ) \
    HOST_CALL(  47, recvmsg,         FD   ) \
    HOST_CALL(  61, wait4,           NONE ) \
    HOST_CALL(  72, fcntl,           FD   ) /* F_SETLKW */ \
    HOST_CALL(  73, flock,           FD   ) \
    HOST_CALL( 128, rt_sigtimedwait, NONE ) \
    HOST_CALL( 130, rt_sigsuspend,   NONE ) \
    HOST_CALL( 202, futex,           NONE ) \
    HOST_CALL( 230, clock_nanosleep, NONE ) \
    HOST_CALL( 232, epoll_wait,      FD   ) \
    HOST_CALL( 247, waitid,          NONE ) \
    HOST_CALL( 270, pselect6,        NONE ) \
    HOST_CALL( 271, ppoll,           POLL ) \
    HOST_CALL( 281, epoll_pwait,     FD   ) \
    HOST_CALL( 288, accept4,         FD   ) \
    HOST_CALL( 295, preadv,          FD   ) \
    HOST_CALL( 296, pwritev,         FD   ) \
    HOST_CALL( 299, recvmmsg,        FD   ) \
    HOST_CALL( 327, preadv2,         FD   ) \
    HOST_CALL( 328, pwritev2,        FD   ) \
    HOST_CALL( 441, epoll_pwait2,    FD   )

#endif  /* __WINE_WINE_HOST_CALLS_H */

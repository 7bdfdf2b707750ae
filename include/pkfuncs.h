/*
 * Windows Embedded Compact kernel functions: call stacks
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

#ifndef __WINE_PKFUNCS_H
#define __WINE_PKFUNCS_H

#ifdef __cplusplus
extern "C" {
#endif

#define STACKSNAP_FAIL_IF_INCOMPLETE     0x01
#define STACKSNAP_EXTENDED_INFO          0x02
#define STACKSNAP_INPROC_ONLY            0x04
#define STACKSNAP_RETURN_FRAMES_ON_ERROR 0x08
#define STACKSNAP_NEW_VM                 0x10

/* Compact is 32-bit only and declares these fields as DWORDs; here they are
 * pointer-sized, which keeps the Compact layout in 32-bit builds. */
typedef struct _CallSnapshot
{
    DWORD_PTR dwReturnAddr;
} CallSnapshot;

typedef struct _CallSnapshotEx
{
    DWORD_PTR dwReturnAddr;
    DWORD_PTR dwFramePtr;
    DWORD_PTR dwCurProc;
    DWORD_PTR dwParams[4];
} CallSnapshotEx;

typedef struct _CallSnapshot3
{
    DWORD_PTR dwReturnAddr;
    DWORD_PTR dwFramePtr;
    DWORD_PTR dwActvProc;
    DWORD_PTR dwVMProc;
    DWORD_PTR dwParams[4];
} CallSnapshot3;

ULONG WINAPI GetThreadCallStack(HANDLE,ULONG,LPVOID,DWORD,DWORD);
ULONG WINAPI GetCallStackSnapshot(ULONG,CallSnapshot[],DWORD,DWORD);

#ifdef __cplusplus
}
#endif

#endif  /* __WINE_PKFUNCS_H */

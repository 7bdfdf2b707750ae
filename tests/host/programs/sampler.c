/*
 * sampler.exe PID SAMPLES: samples every thread of process PID from outside,
 * SAMPLES rounds, with GetThreadCallStack (coredll), as a sampling profiler
 * does, and prints each walk as one line:
 *
 *   sample ROUND TID FRAMES: ADDR ADDR ...
 *
 * then "sampler: N walks" and exits 0; exits 1 when the process cannot be
 * opened or coredll is missing (stock Wine), 2 on bad usage. Which frames
 * are real is judged outside (tests/host/real_node_check.py), from the
 * process's own memory, while the process still runs.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#include <tlhelp32.h>
#include <pkfuncs.h>

#define MAX_THREADS 256

static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);

int main( int argc, char **argv )
{
    THREADENTRY32 entry = { sizeof(entry) };
    HANDLE threads[MAX_THREADS], snapshot, coredll;
    DWORD tids[MAX_THREADS], count = 0, pid, rounds, round, i, j, walks = 0;
    CallSnapshot frames[64];
    ULONG n;

    if (argc != 3 || !(pid = strtoul( argv[1], NULL, 0 )) || !(rounds = strtoul( argv[2], NULL, 0 )))
    {
        printf( "sampler: usage: sampler.exe PID SAMPLES\n" );
        return 2;
    }
    if (!(coredll = LoadLibraryA( "coredll.dll" )) ||
        !(pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" )))
    {
        printf( "sampler: no GetThreadCallStack (coredll.dll)\n" );
        return 1;
    }
    snapshot = CreateToolhelp32Snapshot( TH32CS_SNAPTHREAD, 0 );
    for (BOOL more = Thread32First( snapshot, &entry ); more && count < MAX_THREADS;
         more = Thread32Next( snapshot, &entry ))
    {
        if (entry.th32OwnerProcessID != pid) continue;
        if (!(threads[count] = OpenThread( THREAD_ALL_ACCESS, FALSE, entry.th32ThreadID ))) continue;
        tids[count++] = entry.th32ThreadID;
    }
    CloseHandle( snapshot );
    if (!count)
    {
        printf( "sampler: no thread of process %lu can be opened (error %lu)\n", pid, GetLastError() );
        return 1;
    }
    for (round = 0; round < rounds; round++)
    {
        for (i = 0; i < count; i++)
        {
            /* a thread that ended gives no walk: the check counts the walks */
            if (!(n = pGetThreadCallStack( threads[i], ARRAYSIZE(frames), frames, 0, 0 ))) continue;
            printf( "sample %lu %lu %lu:", round, tids[i], n );
            for (j = 0; j < n; j++) printf( " %Ix", frames[j].dwReturnAddr );
            printf( "\n" );
            walks++;
        }
    }
    printf( "sampler: %lu walks\n", walks );
    return 0;
}

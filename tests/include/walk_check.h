/*
 * Is a walk of a worker thread right? The worker's functions call each
 * other in a few known orders (its chains, innermost first); a walk is
 * right when the frames in this program are one of them, with nothing of
 * this program before or between them, and the walk goes on into kernel32
 * after the start routine. Shared by the tests that walk such a worker
 * while it runs (conformance/callstack_races C-15, host/programs/hostrace
 * H-1 to H-3).
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __TEST_WALK_CHECK_H
#define __TEST_WALK_CHECK_H

#include <stdio.h>
#include <windows.h>
#include <pkfuncs.h>
#include "frames.h"

#define WALK_CHAIN_LENGTH 4

struct walk_rules
{
    const void *const (*chains)[WALK_CHAIN_LENGTH];  /* a shorter chain ends with NULL */
    unsigned int       chain_count;
    const void *const *functions;                     /* the worker's, each once */
    unsigned int       function_count;
};

/* what check_walk found, besides right or wrong */
enum walk_kind
{
    WALK_CHAIN,           /* one of the chains, its index in 'chain' */
    WALK_IN_NTDLL,        /* a thread held inside ntdll's system call dispatcher: a walk that ends
                           * there, a frame or two of ntdll and nothing else; short, not wrong */
    WALK_SKIPPED_CALLER,  /* i386: held in a prologue or an epilogue of its first function, whose
                           * caller the EBP chain skips (docs/X86_WALKS.md); index in 'chain' */
};

static inline const void *walk_function_of( const struct walk_rules *rules, ULONG_PTR addr )
{
    unsigned int i;

    for (i = 0; i < rules->function_count; i++)
        if (in_function( (void *)addr, rules->functions[i] )) return rules->functions[i];
    return NULL;
}

/* do the 'n' functions 'seen' follow chain 'c' from its entry 'from' to its end? */
static inline BOOL walk_follows( const struct walk_rules *rules, unsigned int c, unsigned int from,
                                 const void *const *seen, ULONG n )
{
    unsigned int j;

    for (j = 0; j < n && j + from < WALK_CHAIN_LENGTH && rules->chains[c][j + from] == seen[j]; j++)
        ;
    return j == n && (j + from == WALK_CHAIN_LENGTH || !rules->chains[c][j + from]);
}

/* TRUE if the walk is right ('kind' and 'chain' say how), else FALSE with why */
static inline BOOL check_walk( const struct walk_rules *rules, const CallSnapshot *frames, ULONG count,
                               enum walk_kind *kind, int *chain, char *why, size_t size )
{
    HMODULE self = GetModuleHandleA( NULL ), kernel32 = GetModuleHandleA( "kernel32.dll" );
    HMODULE ntdll = GetModuleHandleA( "ntdll.dll" );
    const void *seen[8];
    ULONG i, first = count, n = 0;
    unsigned int c;

    *kind = WALK_CHAIN;
    *chain = -1;
    for (i = 0; i < count; i++)
    {
        if (module_of( (void *)frames[i].dwReturnAddr ) != self) continue;
        if (first == count) first = i;
        else if (i != first + n)
        {
            snprintf( why, size, "frame %lu: in this program after a frame outside it", i );
            return FALSE;
        }
        if (n == ARRAYSIZE(seen) || !(seen[n] = walk_function_of( rules, frames[i].dwReturnAddr )))
        {
            snprintf( why, size, "frame %lu: %#Ix is in no function of the worker's", i, frames[i].dwReturnAddr );
            return FALSE;
        }
        n++;
    }
    if (!n)
    {
        for (i = 0; i < count; i++)
        {
            HMODULE mod = module_of( (void *)frames[i].dwReturnAddr );
            if (mod && mod != ntdll) break;
        }
        if (i == count && count <= 3)
        {
            *kind = WALK_IN_NTDLL;
            return TRUE;
        }
    }
    for (c = 0; c < rules->chain_count; c++)
    {
        if (walk_follows( rules, c, 0, seen, n )) break;
#ifdef __i386__
        if (!first && n >= 2 && rules->chains[c][0] == seen[0] && walk_follows( rules, c, 2, seen + 1, n - 1 ))
        {
            *kind = WALK_SKIPPED_CALLER;
            break;
        }
#endif
    }
    if (c == rules->chain_count)
    {
        snprintf( why, size, "%lu frames of this program from frame %lu in no order its code calls", n, first );
        return FALSE;
    }
    if (first + n >= count || module_of( (void *)frames[first + n].dwReturnAddr ) != kernel32)
    {
        snprintf( why, size, "the walk of %lu frames does not reach kernel32 after the start routine", count );
        return FALSE;
    }
    *chain = c;
    return TRUE;
}

#endif  /* __TEST_WALK_CHECK_H */

/*
 * Stack back-traces of threads of other processes, over their memory
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

#ifdef __x86_64__

#include <stdarg.h>

#include "ntstatus.h"
#define WIN32_NO_STATUS
#include "windef.h"
#include "winternl.h"
#include "wine/debug.h"
#include "ntdll_misc.h"
#include "backtrace.h"
#include "unwind_codes.h"

WINE_DEFAULT_DEBUG_CHANNEL(backtrace);

/*
 * The walk's rules are those of backtrace.c; this file supplies the data:
 * the target's modules and their .pdata, read through its process handle,
 * and an interpreter of x64 unwind codes that reads the target's stack.
 * Everything read is checked before use and every loop is bounded, since
 * the target's memory may be corrupt or change under us. Host ELF frames of
 * the target cannot be unwound from here: the walk ends at them.
 */

#define MAX_IMAGES 1024

/* more than any image has: bounds what a damaged header makes us read */
#define MAX_FUNCTIONS 0x100000

struct remote_image
{
    ULONG64           base;
    ULONG64           end;
    BOOL              loaded;     /* its .pdata was looked for */
    RUNTIME_FUNCTION *functions;  /* a copy of its .pdata */
    ULONG             count;
};

/* Each read of the target is a server round trip, and a walk reads the same
 * few pages (the loader's list, .pdata, unwind data, the stack) again and
 * again: it keeps the pages it read. The thread walked is held still, and
 * the cache lives as long as one walk. */
#define CACHE_PAGE_SIZE 0x1000
#define CACHED_PAGES    32

struct cached_page
{
    ULONG64 addr;       /* 0: empty */
    BYTE    data[CACHE_PAGE_SIZE];
};

struct remote_source
{
    struct frame_source source;
    HANDLE              process;
    struct remote_image images[MAX_IMAGES];
    ULONG               nb_images;
    struct cached_page  pages[CACHED_PAGES];
};

static const BYTE *remote_page( struct remote_source *remote, ULONG64 addr )
{
    struct cached_page *page = &remote->pages[(addr / CACHE_PAGE_SIZE) % CACHED_PAGES];
    SIZE_T got = 0;

    if (!addr) return NULL;  /* never mapped, and 0 marks an empty slot */
    if (page->addr == addr) return page->data;
    page->addr = 0;
    TRACE( "reading the page at %I64x\n", addr );
    if (NtReadVirtualMemory( remote->process, (void *)(ULONG_PTR)addr, page->data, CACHE_PAGE_SIZE, &got ) ||
        got != CACHE_PAGE_SIZE)
        return NULL;
    page->addr = addr;
    return page->data;
}

/* read what can be read from 'addr' on, up to 'size' bytes; returns how much */
static SIZE_T remote_read_upto( struct remote_source *remote, ULONG64 addr, void *buffer, SIZE_T size )
{
    SIZE_T done = 0, offset, chunk;
    const BYTE *data;

    if (addr + size < addr) return 0;
    while (done < size)
    {
        offset = (addr + done) % CACHE_PAGE_SIZE;
        chunk = min( size - done, CACHE_PAGE_SIZE - offset );
        if (!(data = remote_page( remote, addr + done - offset ))) break;
        memcpy( (BYTE *)buffer + done, data + offset, chunk );
        done += chunk;
    }
    return done;
}

static BOOL remote_read( struct frame_source *source, ULONG64 addr, void *buffer, SIZE_T size )
{
    struct remote_source *remote = CONTAINING_RECORD( source, struct remote_source, source );

    return remote_read_upto( remote, addr, buffer, size ) == size;
}

static BOOL read_u64( struct remote_source *remote, ULONG64 addr, ULONG64 *value )
{
    return remote_read( &remote->source, addr, value, sizeof(*value) );
}

/* the target's modules, from its loader's list; their .pdata is read when
 * the walk first needs it */
static void read_images( struct remote_source *remote )
{
    PROCESS_BASIC_INFORMATION info;
    ULONG64 ldr, head, entry;
    ULONG i;

    if (NtQueryInformationProcess( remote->process, ProcessBasicInformation, &info, sizeof(info), NULL )) return;
    if (!read_u64( remote, (ULONG_PTR)info.PebBaseAddress + FIELD_OFFSET( PEB, LdrData ), &ldr ) || !ldr) return;
    head = ldr + FIELD_OFFSET( PEB_LDR_DATA, InMemoryOrderModuleList );
    if (!read_u64( remote, head, &entry )) return;

    for (i = 0; entry != head && i < 4 * MAX_IMAGES && remote->nb_images < MAX_IMAGES; i++)
    {
        ULONG64 record = entry - FIELD_OFFSET( LDR_DATA_TABLE_ENTRY, InMemoryOrderLinks ), base, size;
        struct remote_image *image = &remote->images[remote->nb_images];

        if (!read_u64( remote, record + FIELD_OFFSET( LDR_DATA_TABLE_ENTRY, DllBase ), &base ) ||
            !read_u64( remote, record + FIELD_OFFSET( LDR_DATA_TABLE_ENTRY, SizeOfImage ), &size ) ||
            !read_u64( remote, entry, &entry ))
            return;
        size &= 0xffffffff;  /* SizeOfImage is a ULONG */
        if (!size || base + size < base) continue;
        image->base = base;
        image->end = base + size;
        remote->nb_images++;
    }
}

/* a copy of the image's .pdata, in one read */
static void load_functions( struct remote_source *remote, struct remote_image *image )
{
    IMAGE_NT_HEADERS64 nt;
    IMAGE_DOS_HEADER dos;
    IMAGE_DATA_DIRECTORY *dir = &nt.OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXCEPTION];
    ULONG count;

    image->loaded = TRUE;
    if (!remote_read( &remote->source, image->base, &dos, sizeof(dos) ) || dos.e_magic != IMAGE_DOS_SIGNATURE ||
        !remote_read( &remote->source, image->base + dos.e_lfanew, &nt, sizeof(nt) ) ||
        nt.Signature != IMAGE_NT_SIGNATURE || nt.OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC ||
        nt.OptionalHeader.NumberOfRvaAndSizes <= IMAGE_DIRECTORY_ENTRY_EXCEPTION)
        return;
    count = dir->Size / sizeof(RUNTIME_FUNCTION);
    if (!dir->VirtualAddress || dir->VirtualAddress >= image->end - image->base || !count ||
        count > MAX_FUNCTIONS)
        return;
    if (!(image->functions = RtlAllocateHeap( GetProcessHeap(), 0, count * sizeof(RUNTIME_FUNCTION) ))) return;
    if (NtReadVirtualMemory( remote->process, (void *)(ULONG_PTR)(image->base + dir->VirtualAddress),
                             image->functions, count * sizeof(RUNTIME_FUNCTION), NULL ))
    {
        RtlFreeHeap( GetProcessHeap(), 0, image->functions );
        image->functions = NULL;
        return;
    }
    image->count = count;
}

/* binary search of the target's .pdata, following chained entries */
static BOOL find_function( struct remote_source *remote, ULONG64 pc, ULONG64 *base, RUNTIME_FUNCTION *func )
{
    struct remote_image *image = NULL;
    int lo, hi, mid, chain;
    ULONG i;

    for (i = 0; i < remote->nb_images; i++)
        if (pc >= remote->images[i].base && pc < remote->images[i].end) image = &remote->images[i];
    if (!image) return FALSE;
    if (!image->loaded) load_functions( remote, image );
    if (!image->count) return FALSE;
    *base = image->base;

    lo = 0;
    hi = image->count - 1;
    while (lo <= hi)
    {
        mid = (lo + hi) / 2;
        *func = image->functions[mid];
        if (pc < image->base + func->BeginAddress) hi = mid - 1;
        else if (pc >= image->base + func->EndAddress) lo = mid + 1;
        else
        {
            for (chain = 0; (func->UnwindData & 1) && chain < 32; chain++)
                if (!remote_read( &remote->source, image->base + (func->UnwindData & ~1), func, sizeof(*func) ))
                    return FALSE;
            return !(func->UnwindData & 1);
        }
    }
    return FALSE;
}

/*
 * An epilogue, as the x64 calling convention allows them: "add $n,%rsp" or
 * "lea n(%reg),%rsp" (either may be missing), "pop %reg" as often as needed,
 * then a return or a jump out of the function (a tail call). A thread held
 * there has taken part of its frame down already, so the unwind codes no
 * longer describe its stack; what is left of the epilogue is run instead.
 * Only the innermost frame of a held thread can be there: a return address
 * follows a call, in a body whose frame is whole.
 */
enum epilog_result { NOT_EPILOG, EPILOG_UNWOUND, EPILOG_FAILED };

#define MAX_EPILOG_BYTES 64  /* an add or lea, 16 pops and a jump fit */

static enum epilog_result unwind_epilog( struct remote_source *remote, ULONG64 func_start, ULONG64 func_end,
                                         CONTEXT *context )
{
    ULONG64 *regs = &context->Rax, rsp = context->Rsp, target;
    ULONG64 popped[16];
    BYTE code[MAX_EPILOG_BYTES + 8] = { 0 };  /* zeros past what was read stop the decoding */
    BYTE pops[16], rex;
    unsigned int pos = 0, count = 0, i;
    SIZE_T got;

    if (!(got = remote_read_upto( remote, context->Rip, code, MAX_EPILOG_BYTES ))) return NOT_EPILOG;

    if (code[0] == 0x48 && code[1] == 0x83 && code[2] == 0xc4)  /* add $imm8,%rsp */
    {
        rsp += (signed char)code[3];
        pos = 4;
    }
    else if (code[0] == 0x48 && code[1] == 0x81 && code[2] == 0xc4)  /* add $imm32,%rsp */
    {
        rsp += *(LONG *)(code + 3);
        pos = 7;
    }
    else if ((code[0] & 0xfe) == 0x48 && code[1] == 0x8d && ((code[2] >> 3) & 7) == 4 &&
             (code[2] & 7) != 4 && ((code[2] >> 6) == 1 || (code[2] >> 6) == 2))
    {
        /* lea disp(%reg),%rsp: REX.W, REX.B extends the base register, no SIB */
        ULONG64 frame = regs[(code[2] & 7) | ((code[0] & 1) << 3)];

        if ((code[2] >> 6) == 1)
        {
            rsp = frame + (signed char)code[3];
            pos = 4;
        }
        else
        {
            rsp = frame + *(LONG *)(code + 3);
            pos = 7;
        }
    }

    for (;;)
    {
        rex = (code[pos] == 0x41) ? 1 : 0;  /* REX.B: %r8 .. %r15 */
        if ((code[pos + rex] & 0xf8) != 0x58 || count == ARRAY_SIZE(pops)) break;
        pops[count++] = (code[pos + rex] & 7) | (rex << 3);
        pos += rex + 1;
    }

    if (pos >= got) return NOT_EPILOG;
    switch (code[pos])
    {
    case 0xc3:  /* ret */
    case 0xc2:  /* ret $imm16 */
        break;
    case 0xf3:  /* rep ret */
        if (code[pos + 1] != 0xc3) return NOT_EPILOG;
        break;
    case 0xe9:  /* jmp rel32 */
    case 0xeb:  /* jmp rel8 */
        if (code[pos] == 0xe9) target = context->Rip + pos + 5 + *(LONG *)(code + pos + 1);
        else target = context->Rip + pos + 2 + (signed char)code[pos + 1];
        if (target >= func_start && target < func_end) return NOT_EPILOG;  /* a jump inside the body */
        break;
    case 0xff:  /* jmp *disp32(%rip) */
        if (code[pos + 1] != 0x25) return NOT_EPILOG;
        break;
    case 0x48:  /* rex.W jmp *disp32(%rip) */
        if (code[pos + 1] != 0xff || code[pos + 2] != 0x25) return NOT_EPILOG;
        break;
    default:
        return NOT_EPILOG;
    }

    for (i = 0; i < count; i++)
    {
        if (!read_u64( remote, rsp, &popped[i] )) return EPILOG_FAILED;
        rsp += sizeof(ULONG64);
    }
    if (!read_u64( remote, rsp, &context->Rip )) return EPILOG_FAILED;
    for (i = 0; i < count; i++) regs[pops[i]] = popped[i];
    context->Rsp = rsp + sizeof(ULONG64);
    return EPILOG_UNWOUND;
}

/* The x64 unwind of one frame, as RtlVirtualUnwind does it for the frames
 * of a back-trace, reading the target. Unless context->Rip is a return
 * address, it may stand in an epilogue. */
static BOOL virtual_unwind( struct remote_source *remote, ULONG64 base, RUNTIME_FUNCTION func, CONTEXT *context,
                            BOOL return_address )
{
    ULONG64 *regs = &context->Rax, pc = context->Rip, frame = context->Rsp, value;
    struct unwind_info info;
    ULONG prolog_offset, offset;
    int i, size, chain;
    BYTE op, op_info;

    for (chain = 0; chain < 32; chain++)
    {
        if (!remote_read( &remote->source, base + func.UnwindData, &info, 4 ) ||
            (info.version != 1 && info.version != 2) ||
            !remote_read( &remote->source, base + func.UnwindData + 4, info.codes,
                          ((info.count + 1) & ~1) * sizeof(USHORT) ))
            return FALSE;

        if (info.frame_reg) frame = regs[info.frame_reg] - info.frame_offset * 16;
        if (pc >= base + func.BeginAddress && pc < base + func.BeginAddress + info.prolog)
            prolog_offset = pc - base - func.BeginAddress;
        else
        {
            prolog_offset = ~0u;
            if (!chain && !return_address)
            {
                switch (unwind_epilog( remote, base + func.BeginAddress, base + func.EndAddress, context ))
                {
                case EPILOG_UNWOUND: return TRUE;
                case EPILOG_FAILED: return FALSE;
                case NOT_EPILOG: break;
                }
            }
        }

        for (i = 0; i < info.count; i += size)
        {
            BYTE code_offset = unwind_code_offset( info.codes[i] );

            op = unwind_code_op( info.codes[i] );
            op_info = unwind_code_info( info.codes[i] );
            size = unwind_code_size( op, op_info );
            if (i + size > info.count) return FALSE;
            if (prolog_offset < code_offset) continue;  /* not executed yet */

            switch (op)
            {
            case UWOP_PUSH_NONVOL:
                if (!read_u64( remote, context->Rsp, &regs[op_info] )) return FALSE;
                context->Rsp += sizeof(ULONG64);
                break;
            case UWOP_ALLOC_LARGE:
                if (op_info) offset = unwind_code_long( &info.codes[i] );
                else offset = info.codes[i + 1] * 8;
                context->Rsp += offset;
                break;
            case UWOP_ALLOC_SMALL:
                context->Rsp += op_info * 8 + 8;
                break;
            case UWOP_SET_FPREG:
                context->Rsp = frame;
                break;
            case UWOP_SAVE_NONVOL:
                if (!read_u64( remote, frame + info.codes[i + 1] * 8, &regs[op_info] )) return FALSE;
                break;
            case UWOP_SAVE_NONVOL_FAR:
                offset = unwind_code_long( &info.codes[i] );
                if (!read_u64( remote, frame + offset, &regs[op_info] )) return FALSE;
                break;
            case UWOP_EPILOG:
            case UWOP_SAVE_XMM128:
            case UWOP_SAVE_XMM128_FAR:
                break;  /* the walk needs no xmm registers */
            case UWOP_PUSH_MACHFRAME:
                if (op_info) context->Rsp += sizeof(ULONG64);  /* error code */
                if (!read_u64( remote, context->Rsp, &context->Rip ) ||
                    !read_u64( remote, context->Rsp + 24, &value ))
                    return FALSE;
                context->Rsp = value;
                return TRUE;
            default:
                WARN( "unknown unwind code %u\n", op );
                return FALSE;
            }
        }
        if (!(info.flags & UNW_FLAG_CHAININFO)) break;
        if (!remote_read( &remote->source, base + func.UnwindData + 4 + ((info.count + 1) & ~1) * sizeof(USHORT),
                          &func, sizeof(func) ))
            return FALSE;
    }
    if (!read_u64( remote, context->Rsp, &context->Rip )) return FALSE;
    context->Rsp += sizeof(ULONG64);
    return TRUE;
}

static enum unwind_result remote_unwind( struct frame_source *source, CONTEXT *context,
                                         BOOL return_address, ULONG64 *start )
{
    struct remote_source *remote = CONTAINING_RECORD( source, struct remote_source, source );
    RUNTIME_FUNCTION func;
    ULONG64 base;

    if (!find_function( remote, context->Rip, &base, &func )) return NO_UNWIND_DATA;
    if (!virtual_unwind( remote, base, func, context, return_address )) return UNWIND_FAILED;
    *start = base + func.BeginAddress;
    return UNWOUND;
}

/* ntdll sits at the same address in every process of a Wine prefix; if the
 * target's does, its dispatchers are ours */
static BOOL same_ntdll( struct remote_source *remote )
{
    LDR_DATA_TABLE_ENTRY *ntdll;
    ULONG i;

    if (LdrFindEntryForAddress( (void *)same_ntdll, &ntdll )) return FALSE;
    for (i = 0; i < remote->nb_images; i++)
        if (remote->images[i].base == (ULONG_PTR)ntdll->DllBase) return TRUE;
    return FALSE;
}

/***********************************************************************
 *           walk_remote_thread
 *
 * Walk a thread of another process, held still by the caller.
 */
NTSTATUS walk_remote_thread( const THREAD_BASIC_INFORMATION *info, CONTEXT *context, ULONG skip, ULONG count,
                             void **frames, void **stack_ptrs, ULONG *ret_count )
{
    OBJECT_ATTRIBUTES attr = { sizeof(attr) };
    CLIENT_ID process_id = { info->ClientId.UniqueProcess, 0 };
    struct remote_source *remote;
    struct stack_limits limits;
    NTSTATUS status;
    HANDLE process;
    ULONG i;

    if ((status = NtOpenProcess( &process, PROCESS_VM_READ | PROCESS_QUERY_LIMITED_INFORMATION, &attr, &process_id )))
        return status;
    if (!(remote = RtlAllocateHeap( GetProcessHeap(), HEAP_ZERO_MEMORY, sizeof(*remote) )))
    {
        NtClose( process );
        return STATUS_NO_MEMORY;
    }
    remote->source.unwind = remote_unwind;
    remote->source.read = remote_read;
    remote->process = process;
    read_images( remote );
    if (same_ntdll( remote )) remote->source.is_dispatcher = is_user_dispatcher;

    if (!read_u64( remote, (ULONG_PTR)info->TebBaseAddress + FIELD_OFFSET( TEB, DeallocationStack ), &limits.low ) ||
        !read_u64( remote, (ULONG_PTR)info->TebBaseAddress + FIELD_OFFSET( TEB, Tib.StackBase ), &limits.high ))
        status = STATUS_PARTIAL_COPY;
    else
    {
        TRACE( "%lu images, stack %I64x-%I64x\n", remote->nb_images, limits.low, limits.high );
        *ret_count = walk_stack( &remote->source, context, FALSE, skip, count, frames, stack_ptrs, &limits, TRUE );
    }
    for (i = 0; i < remote->nb_images; i++) RtlFreeHeap( GetProcessHeap(), 0, remote->images[i].functions );
    RtlFreeHeap( GetProcessHeap(), 0, remote );
    NtClose( process );
    return status;
}

#endif  /* __x86_64__ */

#!/usr/bin/python3
# Judges the frames the layer gives for a real node.exe, from node.exe's own
# file and the process's own memory, not from the layer:
#
#   trace NODE.EXE MAPS STDERR
#                             node's native back-trace (process.abort(): node
#                             prints CaptureStackBackTrace's frames); MAPS is
#                             /proc/PID/maps of that node, read before it
#                             aborted
#   frames NODE.EXE MAPS STDERR
#                             that back-trace a frame a line: node.exe's by
#                             address, ntdll's by the checker's own name,
#                             the others by the name node printed
#   stacks NODE.EXE JSON      every stack of a wctdump --json report
#   samples NODE.EXE SAMPLES UNIXPID
#                             sampler.exe's walks of a running node, against
#                             /proc/UNIXPID/maps and /proc/UNIXPID/mem
#   threads JSON              a line per thread of the report: its state
#
# A frame after the first is a return address: the bytes before it are one
# call instruction. A frame is never 0, never a non-canonical value, and
# always in executable memory (node.exe's executable sections, or an
# executable mapping of the process). A name wctdump gives a node.exe frame
# is an export of node.exe at that address minus the offset. In a back-trace
# node prints, the checker names ntdll's frames itself, from the ntdll.dll
# the process ran, at the address it was mapped at (both from its memory
# map: Wine 10.0 maps it far from its preferred base): the export where the
# function that holds the return address begins (its .pdata entry), so that
# a trace is judged the same whether dbghelp names that frame (Wine 8.0) or
# not (Wine 10.0's gives no name to RtlUserThreadStart's assembly stub);
# where dbghelp gave a name, it must be that one. Prints one line per
# finding and a summary; exits 1 on any wrong frame.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import bisect
import json
import re
import struct
import sys

IMAGE_SCN_MEM_EXECUTE = 0x20000000
CANONICAL_END = 1 << 47


class PE:
    def __init__(self, path):
        self.data = open(path, 'rb').read()
        lfanew = struct.unpack_from('<I', self.data, 0x3c)[0]
        assert self.data[lfanew:lfanew + 4] == b'PE\0\0', path + ' is no PE file'
        nsections, = struct.unpack_from('<H', self.data, lfanew + 6)
        optsize, = struct.unpack_from('<H', self.data, lfanew + 20)
        opt = lfanew + 24
        assert struct.unpack_from('<H', self.data, opt)[0] == 0x20b, path + ' is not PE32+'
        self.base, = struct.unpack_from('<Q', self.data, opt + 24)
        self.size, = struct.unpack_from('<I', self.data, opt + 56)
        dirs = opt + 112
        self.export_dir = struct.unpack_from('<II', self.data, dirs)
        self.exception_dir = struct.unpack_from('<II', self.data, dirs + 3 * 8)
        self.sections = []
        for i in range(nsections):
            s = opt + optsize + 40 * i
            vsize, va, rawsize, rawptr = struct.unpack_from('<IIII', self.data, s + 8)
            flags, = struct.unpack_from('<I', self.data, s + 36)
            self.sections.append((va, max(vsize, rawsize), rawptr, rawsize, flags))
        self._exports = None

    def read(self, rva, size):
        for va, vsize, rawptr, rawsize, flags in self.sections:
            if va <= rva and rva + size <= va + min(vsize, rawsize):
                return self.data[rawptr + rva - va:rawptr + rva - va + size]
        return None

    def executable(self, rva):
        return any(va <= rva < va + vsize and flags & IMAGE_SCN_MEM_EXECUTE
                   for va, vsize, rawptr, rawsize, flags in self.sections)

    def cstring(self, rva):
        out = b''
        while True:
            c = self.read(rva + len(out), 1)
            if not c or c == b'\0':
                return out.decode('latin-1')
            out += c

    def exports(self):
        """RVA -> names exported there"""
        if self._exports is None:
            self._exports = {}
            rva, size = self.export_dir
            if rva:
                d = self.read(rva, 40)
                nfuncs, nnames, funcs, names, ords = struct.unpack_from('<IIIII', d, 20)
                for i in range(nnames):
                    name_rva, = struct.unpack('<I', self.read(names + 4 * i, 4))
                    ordinal, = struct.unpack('<H', self.read(ords + 2 * i, 2))
                    func, = struct.unpack('<I', self.read(funcs + 4 * ordinal, 4))
                    self._exports.setdefault(func, []).append(self.cstring(name_rva))
        return self._exports

    def contains(self, addr):
        """is this address in the image (at self.base: its preferred base
        unless the caller says where it was mapped)?"""
        return self.base <= addr < self.base + self.size

    def function_start(self, rva):
        """the RVA where the function holding 'rva' begins, from .pdata (a
        chained entry leads to its function's first), or None"""
        rva_start, size = self.exception_dir
        table = self.read(rva_start, size) if rva_start else None
        if not table:
            return None
        for i in range(0, len(table) - 11, 12):
            begin, end, unwind = struct.unpack_from('<III', table, i)
            if begin <= rva < end:
                break
        else:
            return None
        for _ in range(32):              # chains are short; never follow a loop
            info = self.read(unwind, 4)
            if not info or not (info[0] >> 3) & 4:      # UNW_FLAG_CHAININFO
                return begin
            chained = self.read(unwind + 4 + 2 * ((info[2] + 1) & ~1), 12)
            if not chained:
                return None
            begin, end, unwind = struct.unpack('<III', chained)
        return None

    def name(self, addr):
        """'Export+offset' (decimal, as dbghelp prints it) for a return
        address: the export where the function holding the call begins;
        None where no export begins there"""
        start = self.function_start(addr - self.base - 1)
        names = self.exports().get(start) if start is not None else None
        if not names:
            return None
        return '%s+%d' % (sorted(names)[0], addr - self.base - start)


def call_length(code):
    """the length of the call instruction that ends 'code' exactly, or 0"""
    for start in range(len(code) - 2, -1, -1):
        i = start
        if 0x40 <= code[i] <= 0x4f:      # REX
            i += 1
        if i >= len(code):
            continue
        if code[i] == 0xe8:              # call rel32
            if i + 5 == len(code):
                return len(code) - start
            continue
        if code[i] != 0xff or i + 1 >= len(code):
            continue
        modrm = code[i + 1]
        mod, reg, rm = modrm >> 6, (modrm >> 3) & 7, modrm & 7
        if reg != 2:                     # FF /2: call r/m64
            continue
        n = i + 2
        if mod != 3 and rm == 4:         # SIB
            if n >= len(code):
                continue
            sib_base = code[n] & 7
            n += 1
            if mod == 0 and sib_base == 5:
                n += 4
        if mod == 0 and rm == 5:         # RIP-relative
            n += 4
        elif mod == 1:
            n += 1
        elif mod == 2:
            n += 4
        if n == len(code):
            return len(code) - start
    return 0


fails = 0


def bad(text):
    global fails
    fails += 1
    if fails <= 20:
        print('WRONG: ' + text)


def check_return_address(pe, addr, what, module='node.exe'):
    """a frame of the module after the first: in an executable section, after a call"""
    rva = addr - pe.base
    if not pe.executable(rva):
        bad('%s: %#x is not in an executable section of %s' % (what, addr, module))
        return None
    code = pe.read(rva - 16, 16)
    n = call_length(code) if code else 0
    if not n:
        bad('%s: %#x does not follow a call instruction' % (what, addr))
        return None
    return code[16 - n:]


def mapped_ntdll(maps):
    """the ntdll.dll a process ran, from its /proc/PID/maps: a PE at the
    address its file's first page was mapped at"""
    for line in open(maps):
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[5].strip().endswith('/ntdll.dll') and int(fields[2], 16) == 0:
            pe = PE(fields[5].strip())
            pe.base = int(fields[0].split('-')[0], 16)
            return pe
    print('WRONG: no ntdll.dll in %s' % maps)
    return None


def native_trace(stderr):
    """(number, address, name node printed) of each frame of the native
    back-trace; None (said why) if there is none"""
    lines = open(stderr, encoding='utf-8', errors='replace').read().replace('\r', '').split('\n')
    try:
        first = lines.index('----- Native stack trace -----')
    except ValueError:
        print('WRONG: no native stack trace on stderr')
        return None
    frames = []
    for line in lines[first + 1:]:
        if line.startswith('-----'):
            break
        m = re.match(r'^ *(\d+): ([0-9A-Fa-f]+) ?(.*)$', line)
        if m:
            frames.append((int(m.group(1)), int(m.group(2), 16), m.group(3).strip()))
    if not frames:
        print('WRONG: the native stack trace has no frames')
        return None
    return frames


def trace(node, maps, stderr):
    """node's native back-trace, printed by its fatal-error path"""
    pe = PE(node)
    ntdll = mapped_ntdll(maps)
    frames = native_trace(stderr)
    if frames is None or ntdll is None:
        return 1
    print('%d frames, %d in node.exe, %d in ntdll' % (len(frames), sum(pe.contains(a) for _, a, _ in frames),
                                                      sum(ntdll.contains(a) for _, a, _ in frames)))
    names = []
    for i, (number, addr, name) in enumerate(frames):
        what = 'frame %d' % number
        names.append(name)
        if number != i + 1:
            bad('%s: numbered out of order' % what)
        if not addr or addr >= CANONICAL_END:
            bad('%s: %#x is no code address' % (what, addr))
            continue
        if pe.contains(addr):
            check_return_address(pe, addr, what)
        elif ntdll.contains(addr):
            # ntdll's frames by the checker's own name; dbghelp's, if it gave one, must agree
            check_return_address(ntdll, addr, what, 'ntdll')
            names[-1] = ntdll.name(addr) or ''
            if name and name != names[-1]:
                bad('%s: %#x is %s in ntdll, not %s' % (what, addr, names[-1] or 'no export', name))
    # node.exe's frames, then the thread's start, and nothing after it
    innode = [pe.contains(a) for _, a, _ in frames]
    first = innode.index(False) if False in innode else len(frames)
    tail = [name.split('+')[0] for name in names[first:]]
    if tail != ['BaseThreadInitThunk', 'RtlUserThreadStart'] or any(innode[first:]) or \
            not ntdll.contains(frames[-1][1]):
        bad('after node.exe\'s frames, not BaseThreadInitThunk then ntdll\'s RtlUserThreadStart alone: %s' %
            ', '.join('%d: %#x %s' % (n, a, names[i]) for i, (n, a, _) in enumerate(frames) if i >= first)[:400])
    return summary()


def trace_frames(node, maps, stderr):
    """the back-trace a frame a line: node.exe's by address, ntdll's by the
    checker's name (its address where it has none), others as node printed"""
    pe = PE(node)
    ntdll = mapped_ntdll(maps)
    frames = native_trace(stderr)
    if frames is None or ntdll is None:
        return 1
    for number, addr, name in frames:
        if ntdll.contains(addr):
            name = ntdll.name(addr)
        print(name if name and not pe.contains(addr) else '%016X' % addr)
    return 0


def undecorated_matches(name, exported):
    """wctdump's name for a frame and the export it came from: the same, or
    the export is the MSVC decoration of it (?Start@node@@... is node::Start)"""
    if name == exported:
        return True
    parts = name.split('(')[0].split('::')
    return exported.startswith('?' + '@'.join(reversed(parts)) + '@')


def stacks(node, report):
    """every stack of a wctdump --json report of node"""
    pe = PE(node)
    module = node.replace('\\', '/').split('/')[-1].rsplit('.', 1)[0].lower()
    data = json.load(open(report))
    walked = named = 0
    for process in data['processes']:
        for thread in process['threads']:
            stack = thread.get('stack', [])
            if not stack:
                continue
            walked += 1
            what = 'thread %d' % thread['tid']
            if stack[-1]['where'].split('+')[0] != 'ntdll!RtlUserThreadStart':
                bad('%s: the stack does not end at ntdll!RtlUserThreadStart: %s' % (what, stack[-1]['where']))
            for i, frame in enumerate(stack):
                addr = int(frame['address'], 16)
                where = frame['where']
                fwhat = '%s frame %d (%s)' % (what, i, where)
                if not addr or addr >= CANONICAL_END:
                    bad('%s: no code address' % fwhat)
                    continue
                if not pe.base <= addr < pe.base + pe.size:
                    if not re.match(r'^[a-z0-9_]+!\w+\+0x[0-9a-f]+$', where):
                        bad('%s: outside node.exe and not a named function of a module' % fwhat)
                    continue
                m = re.match(r'^([^!+]+)(?:!(.*))?\+0x([0-9a-f]+)$', where)
                if not m or m.group(1).lower() != module:
                    bad('%s: in node.exe but not named as it' % fwhat)
                    continue
                offset = int(m.group(3), 16)
                if m.group(2) is None:
                    if offset != addr - pe.base:
                        bad('%s: the offset is not the address in node.exe' % fwhat)
                else:
                    named += 1
                    names = pe.exports().get(addr - offset - pe.base, [])
                    if not any(undecorated_matches(m.group(2), e) for e in names):
                        bad('%s: node.exe exports %s at %#x, not %s' %
                            (fwhat, names or 'nothing', addr - offset, m.group(2)))
                if i:
                    check_return_address(pe, addr, fwhat)
    print('%d stacks, %d node.exe frames named by its exports' % (walked, named))
    return summary()


def samples(node, path, unix_pid):
    """walks of a running node from outside, judged by its memory now"""
    pe = PE(node)
    maps = []
    for line in open('/proc/%s/maps' % unix_pid):
        fields = line.split()
        start, end = (int(x, 16) for x in fields[0].split('-'))
        # anonymous: no file behind it (inode 0)
        maps.append((start, end, 'x' in fields[1], fields[4] == '0'))
    mem = open('/proc/%s/mem' % unix_pid, 'rb')

    maps.sort()
    starts = [m[0] for m in maps]

    def mapping(addr):
        i = bisect.bisect_right(starts, addr) - 1
        return maps[i] if i >= 0 and addr < maps[i][1] else None

    def executable(addr):
        m = mapping(addr)
        return bool(m and m[2])

    def generated(addr):
        """executable memory of no module: node.exe's image is anonymous
        memory too (its sections are not aligned in the file), so left out"""
        m = mapping(addr)
        return not pe.base <= addr < pe.base + pe.size and bool(m and m[2] and m[3])

    walks = frames = outside = through = 0
    for line in open(path, encoding='utf-8', errors='replace'):
        m = re.match(r'^sample (\d+) (\d+) (\d+):((?: [0-9a-f]+)*)\s*$', line.replace('\r', ''))
        if not m:
            continue
        walks += 1
        addrs = [int(a, 16) for a in m.group(4).split()]
        what = 'sample %s of thread %s' % (m.group(1), m.group(2))
        if len(addrs) != int(m.group(3)):
            bad('%s: %s frames announced, %d printed' % (what, m.group(3), len(addrs)))
        for i, addr in enumerate(addrs):
            frames += 1
            if not addr or addr >= CANONICAL_END:
                bad('%s frame %d: %#x is no code address' % (what, i, addr))
                continue
            if not executable(addr):
                bad('%s frame %d: %#x is not in executable memory of node' % (what, i, addr))
                continue
            if i:
                try:
                    mem.seek(addr - 16)
                    code = mem.read(16)
                except OSError:
                    code = b''
                if len(code) != 16 or not call_length(code):
                    bad('%s frame %d: %#x does not follow a call instruction' % (what, i, addr))
        # where the thread stood: in code V8 generated; and whether the
        # walk went on through V8's frames (its dynamic function tables,
        # read from outside) to node.exe's own
        if addrs and generated(addrs[0]):
            outside += 1
            if any(pe.base <= a < pe.base + pe.size for a in addrs[1:]):
                through += 1
    print('%d walks, %d frames; %d walks stood in generated code, %d of them went on into node.exe'
          % (walks, frames, outside, through))
    if not walks:
        bad('no walks')
    if not outside:
        bad('no walk stood in generated code: the spinning thread was not sampled there')
    result = summary()
    if outside and not through:
        print('WRONG: no walk from generated code went on into node.exe: V8\'s function tables were not read')
        return 1
    return result


def threads(report):
    """one line per thread of a wctdump --json report: tid, status, its own
    wait (what and on what), wait time, context switches; then the verdict"""
    data = json.load(open(report))
    for process in data['processes']:
        for thread in process['threads']:
            node = thread.get('chain', [{}])[-1]
            wait = node.get('wait', '-')
            on = node.get('objects') or node.get('on') or node.get('address') or '-'
            if wait == 'host_call':
                wait += ':' + node.get('call', '?')
            print(thread['tid'], thread.get('status', thread['state']), wait, on, thread.get('wait_time_ms', 0),
                  thread.get('context_switches', 0), 'frames=%d' % len(thread.get('stack', [])))
    print('verdict', data['verdict'], data['exit_status'])
    return 0


def summary():
    if fails:
        print('%d wrong frames' % fails)
        return 1
    print('every frame is real')
    return 0


if __name__ == '__main__':
    modes = {'trace': (trace, 3), 'frames': (trace_frames, 3), 'stacks': (stacks, 2), 'samples': (samples, 3),
             'threads': (threads, 1)}
    if len(sys.argv) < 2 or sys.argv[1] not in modes or len(sys.argv) != 2 + modes[sys.argv[1]][1]:
        print('usage: real_node_check.py trace NODE.EXE MAPS STDERR | frames NODE.EXE MAPS STDERR | '
              'stacks NODE.EXE JSON | samples NODE.EXE SAMPLES UNIXPID | threads JSON')
        sys.exit(2)
    sys.exit(modes[sys.argv[1]][0](*sys.argv[2:]))

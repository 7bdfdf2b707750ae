#!/bin/sh
# A 32-bit program (WoW64) hangs: the deadlock watchdog inside it and
# wctdump outside it (a 64-bit program walking its 32-bit threads from
# their WOW64_CONTEXT) both find the deadlock and name every frame of the
# deadlocked threads, with the same text, from its 32-bit images (PE32
# headers, x86 symbol names without their decoration), none above 4 GB.
# needs: 32-bit code
set -eu
. "$TOP/tools/testlib.sh"
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
[ -f "$STAGED/dlls/ntdll/i386-windows/ntdll.dll" ] || { echo "the layer has no i386 modules"; exit 77; }
dir="$TESTBIN/host/wow64_dumps"
rm -rf "$dir"
mkdir -p "$dir"
src="$TOP/tests/host/programs/hang.c"
i686-w64-mingw32-gcc -O1 -fno-omit-frame-pointer -gdwarf-4 -o "$dir/hang32.exe" "$src"
unset WINEDEBUG

start_program --ready hang hang32 60 WINE_DEADLOCK_WATCHDOG=1 hang32.exe
wait_for_lines "$dir/hang32.err" 'watchdog: end of report' 1 || { "$LAYER" --kill; wait; exit 1; }
"$LAYER" wctdump --json "$pid" >"$dir/report.json" 2>"$dir/wctdump.err" || true
"$LAYER" --kill
wait

python3 - "$dir" <<'PY'
import json, re, sys
dir = sys.argv[1]
report = json.load(open(dir + "/report.json", encoding="utf-8"))
assert report["deadlocks"] == 1 and report["deadlocked_threads"] == 2, report
proc = [p for p in report["processes"] if p["name"] == "hang32.exe"]
assert len(proc) == 1, [p["name"] for p in report["processes"]]
watchdog, tid = {}, None
for line in open(dir + "/hang32.err", encoding="utf-8"):
    m = re.match(r"wine: watchdog:   stack of thread (\d+):", line)
    if m: tid = int(m.group(1)); watchdog[tid] = []; continue
    m = re.match(r"wine: watchdog:     #\d+ (.*)$", line)
    if m and tid is not None: watchdog[tid].append(m.group(1))
dead = [t for t in proc[0]["threads"] if t.get("deadlock")]
assert len(dead) == 2, dead
for t in dead:
    frames = [f["where"] for f in t["stack"]]
    assert all(int(f["address"], 16) < 1 << 32 for f in t["stack"]), t["stack"]
    assert any(f.startswith("hang32!lock_pair+0x") for f in frames), frames
    assert any(f.startswith("hang32!locker+0x") for f in frames), frames
    assert any(f.startswith("kernel32!BaseThreadInitThunk+0x") for f in frames), frames
    assert frames[-1].startswith("ntdll!"), frames
    unnamed = [f for f in frames if not re.match(r"^[^!+]+![^!+@]+\+0x[0-9a-f]+$", f)]
    assert not unnamed, unnamed
    assert watchdog.get(t["tid"]) == frames, (watchdog.get(t["tid"]), frames)
print("both deadlocked 32-bit threads: every frame named, lock_pair and locker among them; the watchdog gives the same text")
PY

#!/bin/sh
# Programs built the way users build them hang, and wctdump names every
# frame of their deadlocked threads, with the same text as the deadlock
# watchdog inside the program: plain -g (DWARF 5, which Wine 8.0's dbghelp
# cannot read), -gdwarf-4, -O1 without -g (only a COFF symbol table), and
# one with a non-ASCII file name, whose JSON report must be valid UTF-8
# and whose text report follows the (UTF-8) locale. wctdump's stderr is
# empty without WINEDEBUG.
set -eu
. "$TOP/tools/testlib.sh"
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
dir="$TESTBIN/host/names"
rm -rf "$dir"
mkdir -p "$dir"
src="$TOP/tests/host/programs/hang.c"
x86_64-w64-mingw32-gcc -g -o "$dir/hang-g.exe" "$src"
x86_64-w64-mingw32-gcc -gdwarf-4 -o "$dir/hang-dwarf4.exe" "$src"
x86_64-w64-mingw32-gcc -O1 -o "$dir/hang-O1.exe" "$src"
x86_64-w64-mingw32-gcc -O1 -o "$dir/hang é.exe" "$src"
# as a user runs it: Wine's messages only if asked for
unset WINEDEBUG
export LC_ALL=C.UTF-8

pids=""
for base in hang-g hang-dwarf4 hang-O1 "hang é"; do
    start_program --ready hang "$base" 60 WINE_DEADLOCK_WATCHDOG=1 "$base.exe"
    wait_for_lines "$dir/$base.err" 'watchdog: end of report' 1 || { "$LAYER" --kill; wait; exit 1; }
    pids="$pids $pid"
done
"$LAYER" wctdump --json $pids >"$dir/report.json" 2>"$dir/wctdump.err" || true
"$LAYER" wctdump $pids >"$dir/report.txt" 2>>"$dir/wctdump.err" || true
"$LAYER" --kill
wait

python3 - "$dir" <<'PY'
import json, re, sys
dir = sys.argv[1]
report = json.loads(open(dir + "/report.json", "rb").read().decode("utf-8"))   # strict UTF-8
assert report["schema_version"] == 3, report["schema_version"]
assert report["deadlocks"] == 4 and report["deadlocked_threads"] == 8, report
text = open(dir + "/report.txt", encoding="utf-8").read()
assert "4 deadlocks involving 8 threads" in text, text[-300:]
for base in ["hang-g", "hang-dwarf4", "hang-O1", "hang é"]:
    proc = [p for p in report["processes"] if p["name"] == base + ".exe"]
    assert len(proc) == 1, [p["name"] for p in report["processes"]]
    assert re.search(r"^process %d %s\.exe \(Linux pid \d+\)$" % (proc[0]["pid"], re.escape(base)), text, re.M), text[:300]
    dead = [t for t in proc[0]["threads"] if t.get("deadlock")]
    assert len(dead) == 2, dead
    # the watchdog's stacks, thread by thread
    watchdog, tid = {}, None
    for line in open("%s/%s.err" % (dir, base), encoding="utf-8"):
        m = re.match(r"wine: watchdog:   stack of thread (\d+):", line)
        if m: tid = int(m.group(1)); watchdog[tid] = []; continue
        m = re.match(r"wine: watchdog:     #\d+ (.*)$", line)
        if m and tid is not None: watchdog[tid].append(m.group(1))
    for t in dead:
        frames = [f["where"] for f in t["stack"]]
        assert any(f.startswith(base + "!lock_pair+0x") for f in frames), frames
        assert any(f.startswith(base + "!locker+0x") for f in frames), frames
        # the export's address, not the debug information's (after the hot-patch prologue)
        assert "kernelbase!WaitForSingleObject+0x2e" in frames, frames
        unnamed = [f for f in frames if not re.match(r"^[^!+]+![^!+]+\+0x[0-9a-f]+$", f)]
        assert not unnamed, unnamed
        assert watchdog.get(t["tid"]) == frames, (watchdog.get(t["tid"]), frames)
    print("%s: every frame named, %s!lock_pair among them; the watchdog gives the same text" % (base, base))
err = open(dir + "/wctdump.err", "rb").read()
assert not err, err[:500]
print("valid UTF-8 JSON, the text report in UTF-8, nothing on wctdump's stderr")
PY

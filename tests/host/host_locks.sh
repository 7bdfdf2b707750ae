#!/bin/sh
# A deadlock through host locks (docs/HOST_HANGS.md): a thread asleep in
# futex() on a glibc lock of a Winelib module is followed to the lock's
# owner, by its Windows id, and a cycle through host locks and critical
# sections, in any mix, is a deadlock: wctdump's verdict (exit 1), the
# cycle of exactly the two threads, each chain through a "host mutex at
# 0x..." or "host rwlock at 0x..." node (Owned, of unknown type, as
# GetThreadWaitChain gives it), in the JSON and the text report.
# programs/hostlock.c: a critical section and a normal or a
# priority-inheriting mutex ("cross", "pi"), and two host locks of one
# kind: normal and robust mutexes, write-locked rwlocks (a reader and a
# writer waiting).
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/host_locks"
mkdir -p "$dir"
build_winelib "$dir"
build_exe "$TOP/tests/host/programs/hostlock.c" "$dir/hostlock.exe"
unset WINEDEBUG
bad=0

# check JSON TIDS NAME: the report has one deadlock, of exactly those
# threads, and both threads' chains go through a host lock named NAME...
check() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
tids = sorted(int(t) for t in sys.argv[2].split())
prefix = sys.argv[3]
cycles = report["deadlock_cycles"]
if len(cycles) != 1 or sorted(t["tid"] for t in cycles[0]["threads"]) != tids:
    print("deadlocks: %s, not one of threads %s" % ([[t["tid"] for t in c["threads"]] for c in cycles], tids))
    sys.exit(1)
for p in report["processes"]:
    for t in p["threads"]:
        if t["tid"] not in tids:
            continue
        hosts = [n for n in t["chain"] if n["type"] == "unknown" and n.get("name", "").startswith(prefix)]
        if not hosts or any(n["status"] != "owned" for n in hosts):
            print("thread %d: no owned %s... in its chain: %s" % (t["tid"], prefix, t["chain"]))
            sys.exit(1)
sys.exit(0)
PY
}

for mode in cross mutex robust pi rwlock; do
    name="host mutex at 0x"
    [ $mode != rwlock ] || name="host rwlock at 0x"
    start_program "$mode" 120 hostlock.exe "$mode"
    tids=$(sed -n 's/^hostlock: threads //p' "$dir/$mode.out" | tr -d '\r')
    # each asks for its second lock a moment after the program says it is
    # ready: until both are in the cycle, every node of it
    status=0
    for i in $(seq 100); do
        status=0
        "$LAYER" wctdump --json "$pid" >"$dir/$mode.json" 2>/dev/null || status=$?
        [ $status = 1 ] && check "$dir/$mode.json" "$tids" "$name" >"$dir/$mode.check" && break
        sleep 0.2
    done
    "$LAYER" wctdump "$pid" >"$dir/$mode.txt" 2>&1 || true
    "$LAYER" --kill
    wait
    if [ $status = 1 ] && check "$dir/$mode.json" "$tids" "$name" && grep -q "$name" "$dir/$mode.txt" &&
       grep -q '^1 deadlock involving 2 threads' "$dir/$mode.txt"; then
        echo "$mode: threads $tids deadlocked through a ${name% at 0x}, found (exit 1)"
    else
        echo "$mode: FAILED (wctdump exit $status)"; cat "$dir/$mode.check" 2>/dev/null; grep hostlock: "$dir/$mode.out"
        head -30 "$dir/$mode.txt"
        bad=1
    fi
done

exit $bad

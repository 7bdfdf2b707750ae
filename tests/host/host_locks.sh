#!/bin/sh
# A deadlock through host locks (docs/HOST_HANGS.md): a thread asleep in
# futex() on a glibc lock of a Winelib module is followed to the lock's
# owner, by its Windows id, and a cycle through host locks and critical
# sections, in any mix, is a deadlock: wctdump's verdict (exit 1), the
# cycle of exactly the two threads, each chain through a host lock node
# (Owned, of unknown type, as GetThreadWaitChain gives it), which wctdump
# names by the ELF data symbol it is in ("host mutex
# hostlock.dll.so!mutexes+0x28"), in the JSON and the text report.
# programs/hostlock.c: a critical section and a normal or a
# priority-inheriting mutex ("cross", "pi"), and two host locks of one
# kind: normal and robust mutexes, write-locked rwlocks (a reader and a
# writer waiting). The same through a copy of the module without
# symbols ("stripped"): the lock is named by its module and offset.
# A host mutex left locked by a thread that was terminated holding it
# ("abandoned") is no deadlock, but its waiter waits for ever: wctdump's
# verdict (exit 6, "orphaned"), the chain through an Abandoned host mutex
# with its owner's Linux id, the text report, and the watchdog's report.
# Every JSON report is valid against docs/wctdump.schema.json.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/host_locks"
mkdir -p "$dir"
rm -f "$dir"/*.json
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

# a lock of a library without symbols is named by its module and offset
mkdir -p "$dir/stripped/x86_64-unix"
strip --strip-all -o "$dir/stripped/x86_64-unix/hostlock.dll.so" "$TESTBIN/winelib/x86_64-unix/hostlock.dll.so"

for mode in cross mutex robust pi rwlock stripped; do
    name="host mutex hostlock.dll.so!mutexes"
    [ $mode != rwlock ] || name="host rwlock hostlock.dll.so!rwlocks"
    args="hostlock.exe $mode"
    [ $mode != stripped ] || { name="host mutex hostlock.dll.so+0x"; args="WINEDLLPATH=$dir/stripped hostlock.exe mutex"; }
    start_program "$mode" 120 $args
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
        echo "$mode: threads $tids deadlocked through a ${name%% hostlock*} ($name), found (exit 1)"
    else
        echo "$mode: FAILED (wctdump exit $status)"; cat "$dir/$mode.check" 2>/dev/null; grep hostlock: "$dir/$mode.out"
        head -30 "$dir/$mode.txt"
        bad=1
    fi
done

# check_orphaned JSON TID: the thread's chain ends at an abandoned host
# mutex with its owner's Linux id, and the verdict says it
check_orphaned() {
    python3 - "$1" "$2" <<'PY'
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
tid = int(sys.argv[2])
if report["verdict"] != "orphaned" or report["exit_status"] != 6 or report["orphaned_threads"] < 1:
    print("verdict %s, exit %s, %s orphaned" % (report["verdict"], report["exit_status"], report["orphaned_threads"]))
    sys.exit(1)
for p in report["processes"]:
    for t in p["threads"]:
        if t["tid"] != tid:
            continue
        chain = t["chain"]
        if t["state"] != "orphaned" or len(chain) != 2 or chain[1]["type"] != "unknown" or \
           not chain[1]["name"].startswith("host mutex hostlock.dll.so!mutexes") or chain[1]["status"] != "abandoned" or \
           chain[1]["owner_unix_tid"] <= 0:
            print("thread %d: %s, chain %s" % (tid, t["state"], chain))
            sys.exit(1)
        sys.exit(0)
print("thread %d is not in the report" % tid)
sys.exit(1)
PY
}

mode=abandoned
start_program "$mode" 120 WINE_DEADLOCK_WATCHDOG=1 hostlock.exe "$mode"
tid=$(sed -n 's/^hostlock: threads [0-9]* //p' "$dir/$mode.out" | tr -d '\r')
# the watchdog suspends the thread to walk its stack: wctdump looks once
# it has reported (once), not while the thread is held. Wine's own
# programs (explorer.exe) have the watchdog too: its report is the one
# that names this process.
watchdog=0
wait_for_lines "$dir/$mode.err" "^wine: watchdog: every thread of the process: wine-layer wctdump $pid\$" 1 \
    >/dev/null && watchdog=1
# orphaned_text: the text report names the waiter and the abandoned mutex
orphaned_text() {
    grep -q "^  thread $tid: .*WAITS FOR EVER" "$dir/$mode.txt" &&
    grep -q "host mutex hostlock.dll.so!mutexes (abandoned: its owner, Linux thread [0-9]*, exited holding it)" \
        "$dir/$mode.txt"
}
# both reports, until each shows the state (a walk of the thread by the
# watchdog or by the report before may hold it a moment)
status=0
for i in $(seq 100); do
    status=0
    "$LAYER" wctdump --json "$pid" >"$dir/$mode.json" 2>/dev/null || status=$?
    "$LAYER" wctdump "$pid" >"$dir/$mode.txt" 2>&1 || true
    [ $status = 6 ] && check_orphaned "$dir/$mode.json" "$tid" >"$dir/$mode.check" && orphaned_text && break
    sleep 0.2
done
"$LAYER" --kill
wait
if [ $status = 6 ] && check_orphaned "$dir/$mode.json" "$tid" && orphaned_text && [ $watchdog = 1 ] && grep -q "^wine: watchdog: hang in hostlock.exe (process [0-9]*): thread $tid has waited" "$dir/$mode.err" &&
   grep -q "^wine: watchdog:   waits for host mutex at 0x[0-9a-f]*: its owner, Linux thread [0-9]*, exited holding it" "$dir/$mode.err"; then
    echo "$mode: thread $tid waits for ever on a host mutex its terminated owner held, found (exit 6, watchdog)"
else
    echo "$mode: FAILED (wctdump exit $status, watchdog $watchdog)"; cat "$dir/$mode.check" 2>/dev/null
    head -30 "$dir/$mode.txt"; grep "watchdog" "$dir/$mode.err" | head -20
    bad=1
fi
# every report above is one the schema describes
if python3 - "$TOP/docs/wctdump.schema.json" "$dir"/*.json <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1], encoding="utf-8"))
for name in sys.argv[2:]:
    try:
        jsonschema.validate(json.load(open(name, encoding="utf-8")), schema)
    except jsonschema.ValidationError as e:
        print("%s: %s" % (name, e.message))
        sys.exit(1)
PY
then echo "every report is valid against docs/wctdump.schema.json"
else bad=1
fi
exit $bad

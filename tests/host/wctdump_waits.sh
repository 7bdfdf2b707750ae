#!/bin/sh
# wctdump says what a blocked thread waits in where the layer knows: Sleep,
# an SRW lock, a condition variable, WaitOnAddress (with their addresses),
# a named event by its name, every object of a wait on several, the
# completion port a thread in GetQueuedCompletionStatus(Ex) waits on, the
# pipe a thread in synchronous ConnectNamedPipe waits for I/O on; and
# identifies a critical section by its address, in text and JSON.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_waits"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/waits.c" "$dir/waits.exe"
fail=0

start_program waits 120 waits.exe

# wait_kind TID: the "wait" of that thread's first node in the JSON report
wait_kind() {
    tr -d '\n' <"$dir/report.json" | sed 's/{"tid": /\n&/g' | grep "^{\"tid\": $1," |
        sed -n 's/[^[]*"chain": \[{[^}]*"wait": "\([a-z_]*\)".*/\1/p'
}

# the threads block a moment after they start: ask until every one reports
# the wait it was started in, for 10 s at most
for i in $(seq 100); do
    "$LAYER" wctdump --json "$pid" >"$dir/report.json" 2>"$dir/report.err" || true
    missing=0
    while read -r _ _ tid kind; do
        case $kind in event|objects|completion*|pipe) kind=objects ;; esac   # the server's wait, described
        [ "$(wait_kind "$tid")" = "$kind" ] || missing=1
    done <<EOT
$(grep '^waits: thread ' "$dir/waits.out" | tr -d '\r')
EOT
    [ $missing = 0 ] && break
    sleep 0.1
done
while read -r _ _ tid kind; do
    case $kind in event|objects|completion*|pipe) kind=objects ;; esac
    got=$(wait_kind "$tid")
    [ "$got" = "$kind" ] && echo "thread $tid: $kind" || { echo "thread $tid: wait '$got', expected $kind"; fail=1; }
done <<EOT
$(grep '^waits: thread ' "$dir/waits.out" | tr -d '\r')
EOT

"$LAYER" wctdump "$pid" >"$dir/report.txt" 2>/dev/null || true
cat "$dir/report.txt"
for text in 'blocked for [0-9]* ms in Sleep$' 'acquiring an SRW lock exclusively at 0x[0-9a-f]*$' \
            'sleeping on a condition variable at 0x[0-9a-f]*$' 'in WaitOnAddress at 0x[0-9a-f]*$' \
            'waits for critical section at 0x[0-9a-f]* (owned)$' \
            'blocked for [0-9]* ms on Event \\Sessions\\1\\BaseNamedObjects\\WineLayerTestWaitsEvent$' \
            'blocked for [0-9]* ms on 2 objects: Event \\Sessions\\1\\BaseNamedObjects\\WineLayerTestWaitsEvent, Semaphore$' \
            'blocked for [0-9]* ms on I/O on File \\Device\\NamedPipe\\WineLayerTestWaitsPipe$'; do
    grep -q "$text" "$dir/report.txt" && echo "text: '$text'" || { echo "text: no line matches '$text'"; fail=1; }
done
# both threads for a completion port wait on it, whichever object Wine has
# them wait on (Wine 10: one of each thread's own)
n=$(grep -c ': blocked for [0-9]* ms on IoCompletion$' "$dir/report.txt" || true)
[ "$n" = 2 ] && echo "text: 2 threads blocked on IoCompletion" ||
    { echo "text: $n threads blocked on IoCompletion, expected 2"; fail=1; }
grep -q '"type": "critical_section", "status": "owned", "name": "", "address": "0x' "$dir/report.json" &&
    echo "json: the critical section's address" || { echo "json: no critical section address"; fail=1; }

"$LAYER" --kill
wait
exit $fail

#!/bin/sh
# A process whose main thread has exited (ExitThread; it lives on in its
# other threads) is read as any other: the server reads its memory through
# a live task, so two threads deadlocked on two critical sections are a
# deadlock, not two Running threads and "no deadlock" (issue 18, defect 1).
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_exited_main"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/exitmain.c" "$dir/exitmain.exe"
fail=0

start_program exitmain 120 exitmain.exe

# the threads block a moment after the line, and the main thread exits a
# moment after it: ask until the report has the deadlock and two threads
# only, for 10 s at most
threads() { grep -c '{"tid": ' "$dir/report.json" || true; }
for i in $(seq 100); do
    "$LAYER" wctdump --json "$pid" >"$dir/report.json" 2>"$dir/report.err" || true
    grep -q '"deadlocks": 1,' "$dir/report.json" && [ "$(threads)" = 2 ] && break
    sleep 0.1
done
[ "$(threads)" = 2 ] && echo "two threads: the main thread has exited" ||
    { echo "$(threads) threads in the report, expected 2"; fail=1; }
grep -q '"deadlocks": 1,' "$dir/report.json" && grep -q '"deadlocked_threads": 2,' "$dir/report.json" &&
    echo "json: one deadlock of two threads" ||
    { echo "json: no deadlock of two threads"; cat "$dir/report.json"; fail=1; }

rc=0
"$LAYER" wctdump "$pid" >"$dir/report.txt" 2>"$dir/report.err" || rc=$?
cat "$dir/report.txt"
[ $rc = 1 ] && echo "exit status 1 (a deadlock)" || { echo "exit status $rc, expected 1"; fail=1; }
n=$(grep -c 'waits for critical section at 0x[0-9a-f]* (owned)' "$dir/report.txt" || true)
[ "$n" -ge 2 ] && echo "text: both threads wait for an owned critical section" ||
    { echo "text: $n threads wait for an owned critical section, expected 2"; fail=1; }
grep -q 'exitmain!locker' "$dir/report.txt" && echo "text: the stacks name the program's locker" ||
    { echo "text: no stack names the program's locker"; fail=1; }

"$LAYER" --kill
wait
exit $fail

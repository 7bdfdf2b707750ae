#!/bin/sh
# Stability of the Wait Chain Traversal tests on a loaded machine: run them
# RUNS times in a row (default 50) through tools/runtests.sh while two busy
# loops keep both cores of a 2-core machine busy, and count the failures.
# Any failure fails the run; the figures go to build/stability/summary.txt
# for RELIABILITY.md.
#
# Usage: tools/stability.sh [RUNS]     (run by 'make stability' and 'make reliability')
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-50}
TESTS="conformance/wct conformance/wct_waits conformance/wct_token conformance/wct_imports"
OUT="$TOP/build/stability"
BUSY=2

case $RUNS in
    ''|*[!0-9]*|0) echo "stability: RUNS must be a positive number, not '$RUNS'" >&2; exit 1 ;;
esac

mkdir -p "$OUT"
rm -f "$OUT"/run-*.txt

busy_pids=""
stop_busy() {
    # shellcheck disable=SC2086
    [ -n "$busy_pids" ] && kill $busy_pids 2>/dev/null
    busy_pids=""
}
trap stop_busy EXIT INT TERM
i=0
while [ $i -lt $BUSY ]; do
    sh -c 'while :; do :; done' &
    busy_pids="$busy_pids $!"
    i=$((i + 1))
done
echo "stability: $RUNS runs of $(echo $TESTS | wc -w) tests beside $BUSY busy loops"

start=$(date +%s)
failed_runs=0
run=1
while [ $run -le "$RUNS" ]; do
    # shellcheck disable=SC2086
    if "$TOP/tools/runtests.sh" $TESTS >"$OUT/run-$run.txt" 2>&1; then
        echo "stability: run $run of $RUNS: $(tail -1 "$OUT/run-$run.txt")"
    else
        failed_runs=$((failed_runs + 1))
        echo "stability: run $run of $RUNS FAILED:"
        grep -E '^(FAIL|    \|)' "$OUT/run-$run.txt" | sed 's/^/  /'
        # keep the logs of a failed run for a look
        mkdir -p "$OUT/failed-$run" && cp -r "$TOP/build/tests/conformance"/*.log "$OUT/failed-$run/" 2>/dev/null
    fi
    run=$((run + 1))
done
stop_busy
seconds=$(( $(date +%s) - start ))

result=PASS
[ $failed_runs = 0 ] || result=FAIL
{
    echo "date=$(date -u '+%Y-%m-%d')"
    echo "runs=$RUNS"
    echo "failed_runs=$failed_runs"
    echo "tests=$TESTS"
    echo "busy_loops=$BUSY"
    echo "cores=$(nproc)"
    echo "seconds=$seconds"
    echo "result=$result"
} >"$OUT/summary.txt"
echo "stability: $((RUNS - failed_runs)) of $RUNS runs passed in ${seconds}s ($result)"
[ $result = PASS ]

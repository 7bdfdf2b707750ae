#!/bin/sh
# The main job's demonstration: a Windows program that deadlocks three ways
# (a mutex cycle, a critical-section cycle, a SendMessage to a thread blocked
# on a lock the sender holds) runs on the layer, and wctdump finds and prints
# each cycle with the call stacks of the threads in it.
#
# Usage: tools/demo.sh          (run by 'make demo')
# Leaves build/demo/report.txt and build/demo/report.json; exits 0 when the
# three deadlocks were found.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/testlib.sh"
DEMO="$TOP/build/demo"
: "${WINEDEBUG:=-all}"
export WINEDEBUG

die() { echo "demo: $*" >&2; "$LAYER" --kill; exit 1; }

mkdir -p "$DEMO"
build_exe "$TOP/demo/deadlocks.c" "$DEMO/deadlocks.exe" >"$DEMO/build.log" 2>&1 ||
    { cat "$DEMO/build.log"; exit 1; }

echo "demo: starting deadlocks.exe on the layer"
: >"$DEMO/deadlocks.out"  # not the lines of an earlier run
"$LAYER" "$DEMO/deadlocks.exe" >"$DEMO/deadlocks.out" 2>&1 &
pid=$(wait_for_ready "$DEMO/deadlocks.out" deadlocks 60) || true
[ -n "$pid" ] || die "deadlocks.exe did not get stuck within a minute: $(cat "$DEMO/deadlocks.out")"

echo "demo: deadlocks.exe (pid $pid) is stuck; running wctdump $pid"
echo
set +e
"$LAYER" wctdump "$pid" >"$DEMO/report.txt" 2>"$DEMO/wctdump.err"
status=$?
"$LAYER" wctdump --json "$pid" >"$DEMO/report.json" 2>>"$DEMO/wctdump.err"
set -e
cat "$DEMO/report.txt"
"$LAYER" --kill
wait 2>/dev/null || true

echo
[ $status = 1 ] || die "wctdump exited with $status, expected 1 (deadlock)"
for kind in 'mutex "' 'critical section' 'SendMessage'; do
    grep -F -- "$kind" "$DEMO/report.txt" | grep -q . || die "no '$kind' cycle in the report"
done
grep -q '^3 deadlocks involving 6 threads$' "$DEMO/report.txt" || die "expected 3 deadlocks involving 6 threads"
echo "demo: wctdump found the three deadlocks (6 threads); reports in build/demo/report.txt and report.json"

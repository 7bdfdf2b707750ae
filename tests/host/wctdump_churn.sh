#!/bin/sh
# Errors are words: a thread that ends while wctdump looks at it is said so
# ("N threads ended while wctdump looked at them", state "gone" in JSON),
# never "no wait chain: error 4312"; the verdict stays one of the documented.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_churn"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/churn.c" "$dir/churn.exe"
unset WINEDEBUG
fail=0

start_program churn 60 churn.exe
gone=0
for i in $(seq 6); do
    rc=0; "$LAYER" wctdump "$pid" >"$dir/report.txt" 2>"$dir/report.err" || rc=$?
    case $rc in 0|5) ;; *) echo "run $i: exit $rc: $(cat "$dir/report.err")"; fail=1 ;; esac
    if grep -q 'error [0-9]\|system error\|no wait chain' "$dir/report.txt" "$dir/report.err"; then
        echo "run $i: an error number:"; grep 'error [0-9]\|system error\|no wait chain' "$dir/report.txt"; fail=1
    fi
    grep -q 'ended while wctdump looked at' "$dir/report.txt" && gone=$((gone + 1))
done
"$LAYER" wctdump --json "$pid" >"$dir/report.json" 2>/dev/null || true
"$LAYER" --kill
wait
[ $gone -gt 0 ] && echo "6 reports of a process whose threads come and go: $gone say a thread ended, none gives an error number" ||
    { echo "no run saw a thread end: the test did not test"; fail=1; }
exit $fail

#!/bin/sh
# Reading wctdump's report: the summary first; each deadlock printed once
# with its threads (the threads in it are not printed with the whole chain
# again); threads in the same state with the same stack printed once with
# their count; C++ names demangled (Itanium, as g++ writes them) and MSVC
# names undecorated (node!?Start@node@@YAHHQEAPEAD@Z -> node::Start), in
# text, JSON and the watchdog's report; --raw gives the image's own names.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_report"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/cxx_names.c" "$dir/cxx_names.exe"
unset WINEDEBUG
fail=0

start_program cxx 120 WINE_DEADLOCK_WATCHDOG=1 cxx_names.exe

# until the deadlock and the six idle threads are all seen, 10 s at most
for i in $(seq 100); do
    rc=0; "$LAYER" wctdump "$pid" >"$dir/report.txt" 2>"$dir/report.err" || rc=$?
    [ $rc = 1 ] && grep -q '^  6 threads in the same state with the same stack:' "$dir/report.txt" && break
    sleep 0.1
done
"$LAYER" wctdump --raw "$pid" >"$dir/raw.txt" 2>/dev/null || true
"$LAYER" wctdump --json "$pid" >"$dir/report.json" 2>/dev/null || true
# the blocked threads are walked by their TEBs (SystemExtendedProcessInformation's
# TebBase, docs/INTERNALS.md), none opened or suspended
WINEDEBUG=+callstack "$LAYER" wctdump "$pid" >/dev/null 2>"$dir/trace.err" || true
wait_for_lines "$dir/cxx.err" 'watchdog: end of report' 1 || fail=1
"$LAYER" --kill
wait
cat "$dir/report.txt"

check() {  # check WHAT CONDITION...
    what=$1; shift
    if "$@"; then echo "$what"; else echo "NOT: $what"; fail=1; fi
}
count() { grep -c -- "$1" "$2" || true; }

check "the summary first" [ "$(sed -n 1p "$dir/report.txt")" = "1 deadlock involving 2 threads; 1 more thread waits on it" ]
check "the deadlock printed once" [ "$(count '^deadlock ' "$dir/report.txt")" = 1 ]
check "each of its threads once in the process, marked, without the chain again" \
    [ "$(count '^  thread [0-9]*: .*\*\* DEADLOCK 1 \*\* (above)$' "$dir/report.txt")" = 2 ]
check "the chain of a deadlocked thread is not printed again" \
    [ "$(sed -n '/^process /,$p' "$dir/report.txt" | grep -c '^    waits for ')" = 1 ]
check "six idle threads printed once, with their count" \
    [ "$(count '^  6 threads in the same state with the same stack:\( [0-9]*\)\{6\}$' "$dir/report.txt")" = 1 ]
check "their stack once" [ "$(count 'cxx_names!app::Pool::idle+0x' "$dir/report.txt")" = 1 ]
check "Itanium names demangled" grep -q '^    #0[0-9] cxx_names!app::Worker::lock_pair+0x[0-9a-f]*$' "$dir/report.txt"
check "MSVC names undecorated" grep -q '^    #0[0-9] cxx_names!node::Start+0x[0-9a-f]*$' "$dir/report.txt"
check "--raw: the image's names" grep -q 'cxx_names!_ZN3app6Worker9lock_pairEi+0x' "$dir/raw.txt"
check "--raw: MSVC's too" grep -q 'cxx_names!?Start@node@@YAHHQEAPEAD@Z+0x' "$dir/raw.txt"
check "JSON: demangled" grep -q '"where": "cxx_names!app::Worker::lock_pair+0x' "$dir/report.json"
check "the watchdog: demangled" grep -q 'watchdog:     #0[0-9] cxx_names!node::Start+0x' "$dir/cxx.err"
# nine threads never leave their waits; the watchdog's own (in Sleep) wakes
# each second, and one that woke between its chain and its walk is walked
# through a handle
blocked=$(count '__wine_walk_blocked_thread (' "$dir/trace.err")
check "the blocked threads walked by their TEBs, without a handle ($blocked)" [ "$blocked" -ge 9 ]
check "at most the watchdog's thread walked through a handle" [ "$(count 'GetThreadCallStack (' "$dir/trace.err")" -le 1 ]
check "the watchdog: Itanium too" grep -q 'watchdog:     #0[0-9] cxx_names!app::Worker::lock_pair+0x' "$dir/cxx.err"
exit $fail

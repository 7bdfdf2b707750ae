#!/bin/sh
# wctdump never reports a clean result it did not check: a prefix that does
# not exist is not created and gets no verdict; nor does a prefix whose
# wineserver is not running, or where only Wine's own processes run;
# threads blocked on waits whose owner cannot be followed (an SRW lock, a
# condition variable, WaitOnAddress, an event, a completion port) are counted and make the
# verdict "not every chain could be followed" (exit 5), not "no deadlock";
# a chain into another process is followed only with --other-processes;
# each outcome has its own exit status; 'wine-layer --stock wctdump' says
# that stock Wine has no Wait Chain Traversal.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_verdicts"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/waits.c" "$dir/waits.exe"
build_exe "$TOP/tests/host/programs/xproc.c" "$dir/xproc.exe"
unset WINEDEBUG
fail=0
prefix=$("$LAYER" --env | sed -n 's/^WINEPREFIX=//p')

# a wrong WINEPREFIX: said, and nothing created
rm -rf "$dir/no-prefix"
expect_launcher --stderr 4 "there is no Wine prefix at $dir/no-prefix" WINEPREFIX="$dir/no-prefix" -- wctdump
[ ! -e "$dir/no-prefix" ] && echo "no prefix created" || { echo "$dir/no-prefix was created"; fail=1; }
expect_launcher --stderr 4 "there is no Wine prefix" WINEPREFIX="$dir/no-prefix" -- wctdump --json 32
[ ! -e "$dir/no-prefix" ] || fail=1

# the prefix exists but nothing runs there
"$LAYER" --kill
expect_launcher --stderr 4 "no program runs in $prefix (its wineserver is not running)" -- wctdump
# only Wine's own processes (a wineserver kept alive, and what wctdump's start brings up)
WINEPREFIX="$prefix" "$TOP/build/wine/server/wineserver" -p
expect_launcher --stderr 4 "no program runs in this prefix, only Wine's own processes" -- wctdump
"$LAYER" --kill

# stock Wine has no wctdump to run
expect_launcher --stderr 2 "stock Wine has no Wait Chain Traversal" -- --stock wctdump

# threads on waits without an owner to follow: counted, exit 5, not "no deadlock"
start_program waits 120 waits.exe
# the threads block a moment after they start: ask until the eight are counted, 10 s at most
for i in $(seq 100); do
    rc=0; "$LAYER" wctdump --json "$pid" >"$dir/report.json" 2>/dev/null || rc=$?
    grep -q '"unfollowed_threads": 8,' "$dir/report.json" && break
    sleep 0.1
done
grep -q '"verdict": "unfollowed", "exit_status": 5,' "$dir/report.json" && [ $rc = 5 ] &&
    echo "json: verdict unfollowed, exit 5, 8 unfollowed threads" ||
    { echo "json: exit $rc"; cat "$dir/report.json"; fail=1; }
rc=0; "$LAYER" wctdump "$pid" >"$dir/report.txt" 2>/dev/null || rc=$?
head -3 "$dir/report.txt"
if [ $rc = 5 ] && [ "$(sed -n 1p "$dir/report.txt")" = "no deadlock found, but not every chain could be followed" ] &&
   [ "$(sed -n 2p "$dir/report.txt")" = "8 blocked threads wait on something whose owner cannot be followed (5 on an event, a semaphore or another object without an owner, 1 on an SRW lock (std::mutex of MSVC's STL), 1 on a condition variable, 1 on WaitOnAddress): a deadlock through them would not show" ]; then
    echo "text: exit 5, the summary counts them by kind"
else
    echo "text: exit $rc"; fail=1
fi
grep -q '^no deadlock$' "$dir/report.txt" && { echo "a bare 'no deadlock'"; fail=1; }
"$LAYER" --kill
wait

# a program whose only thread sleeps: checked, clean
start_program idle 120 waits.exe idle
for i in $(seq 100); do
    rc=0; "$LAYER" wctdump "$pid" >"$dir/idle.txt" 2>/dev/null || rc=$?
    [ $rc = 0 ] && break
    sleep 0.1
done
[ $rc = 0 ] && [ "$(sed -n 1p "$dir/idle.txt")" = "no deadlock" ] && echo "an idle program: no deadlock, exit 0" ||
    { echo "idle: exit $rc"; cat "$dir/idle.txt"; fail=1; }
"$LAYER" --kill
wait

# a deadlock between two processes: not followed by default (exit 5, said), followed with --other-processes
: >"$dir/a.out"; : >"$dir/b.out"
(cd "$dir" && exec "$LAYER" xproc.exe a >"$dir/a.out" 2>"$dir/a.err") &
(cd "$dir" && exec "$LAYER" xproc.exe b >"$dir/b.out" 2>"$dir/b.err") &
a=$(wait_for_ready "$dir/a.out" xproc 120) || true
b=$(wait_for_ready "$dir/b.out" xproc 120) || true
[ -n "$a" ] && [ -n "$b" ] || { echo "xproc did not start"; cat "$dir/a.err" "$dir/b.err"; "$LAYER" --kill; exit 1; }
for i in $(seq 100); do
    rc=0; "$LAYER" wctdump --other-processes "$a" >"$dir/x.txt" 2>/dev/null || rc=$?
    [ $rc = 1 ] && break
    sleep 0.1
done
[ $rc = 1 ] && grep -q "^deadlock 1: 2 threads of several processes" "$dir/x.txt" &&
    echo "--other-processes: the deadlock across two processes, exit 1" || { echo "--other-processes: exit $rc"; cat "$dir/x.txt"; fail=1; }
rc=0; "$LAYER" wctdump "$a" >"$dir/x.txt" 2>/dev/null || rc=$?
[ $rc = 5 ] && grep -q "not followed into that process: --other-processes follows it" "$dir/x.txt" &&
    grep -q "^1 blocked thread waits on another process, not followed" "$dir/x.txt" &&
    echo "without it: not followed, said so, exit 5" || { echo "without --other-processes: exit $rc"; cat "$dir/x.txt"; fail=1; }
"$LAYER" --kill
wait
exit $fail

#!/bin/sh
# WINE_DEADLOCK_WATCHDOG=N: a hung program says once that it is watched
# (name and id) and explains itself on stderr, once per cycle, naming the
# process, with stacks and critical sections' addresses, counting what it
# lists, and ends with a command to paste (wine-layer wctdump PID) that
# works; a cycle through two processes is reported by both; a value that is not a whole number of
# seconds gets a one-line warning and no watchdog; without the variable
# nothing is printed.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/watchdog"
rm -rf "$dir"
mkdir -p "$dir"
build_exe "$TOP/demo/deadlocks.c" "$dir/deadlocks.exe"
build_exe "$TOP/tests/host/programs/xproc.c" "$dir/xproc.exe"
printf 'int main(void) { return 0; }\n' >"$dir/true.c"
x86_64-w64-mingw32-gcc -o "$dir/true.exe" "$dir/true.c"
fail=0

# wait_for FILE PATTERN COUNT: until FILE has COUNT lines matching, a minute at most

# one process, three cycles
: >"$dir/on.out"; : >"$dir/on.err"  # not the lines of an earlier run
WINE_DEADLOCK_WATCHDOG=2 "$LAYER" "$dir/deadlocks.exe" >"$dir/on.out" 2>"$dir/on.err" &
# three cycle reports, and every report begun (Wine's own programs are
# watched too, and a thread of a cycle may also be not responding) ended
wait_for_lines "$dir/on.err" 'watchdog: deadlock in deadlocks.exe' 3 || fail=1
for i in $(seq 600); do
    [ "$(grep -c 'watchdog: end of report' "$dir/on.err")" -ge "$(grep -c 'watchdog: \(deadlock\|not responding\) in ' "$dir/on.err")" ] &&
        break
    sleep 0.1
done
pid=$(sed -n 's/^wine: watchdog: watching deadlocks.exe (process \([0-9]*\)).*/\1/p' "$dir/on.err")
hint=$(sed -n "s/^wine: watchdog: every thread of the process: wine-layer \(wctdump $pid\)\$/\1/p" "$dir/on.err" | sort -u)
rc=0; [ -n "$pid" ] && [ -n "$hint" ] && "$LAYER" $hint >"$dir/hint.txt" 2>&1 || rc=$?
[ -n "$hint" ] && [ $rc = 1 ] && grep -q "^process $pid deadlocks.exe" "$dir/hint.txt" &&
    echo "on: the hint 'wine-layer wctdump $pid' reports deadlocks.exe" || { echo "on: hint '$pid', exit $rc"; fail=1; }
"$LAYER" --kill
wait
started=$(grep -c "^wine: watchdog: watching deadlocks.exe (process $pid) for deadlocks of 2 s or more\$" "$dir/on.err" || true)
[ "$started" = 1 ] && echo "on: said once that it watches deadlocks.exe (process $pid)" ||
    { echo "on: $started start lines"; grep watching "$dir/on.err"; fail=1; }
reports=$(grep -c "watchdog: deadlock in deadlocks.exe (process $pid): 2 threads blocked in a cycle for 2 s" "$dir/on.err" || true)
[ "$reports" = 3 ] && echo "on: 3 cycles reported" || { echo "on: $reports cycle reports, expected 3"; fail=1; }
for kind in 'waits for mutex \Sessions\1\BaseNamedObjects\DemoMutex' 'waits for critical section at 0x14' 'waits for SendMessage'; do
    grep -qF "$kind" "$dir/on.err" || { echo "on: no '$kind'"; fail=1; }
done
# each report lists as many threads as it says, then the first again
awk '/watchdog: not responding / { skip = 1 }
     /watchdog: deadlock in / { skip = 0; sub(/.*\): /, ""); n = $1; listed = 0; again = 0 }
     /watchdog:   thread [0-9]+$/ { listed++ }
     /watchdog:   which is thread [0-9]+ again$/ { again++ }
     /watchdog: end of report/ { if (!skip && (listed != n || again != 1)) { print "said " n ", listed " listed; bad = 1 } }
     END { exit bad }' "$dir/on.err" && echo "on: each report lists the threads it counts" || fail=1
grep -q 'watchdog:     #0[0-9] deadlocks!mutex_thread+0x' "$dir/on.err" || { echo "on: no stack into deadlocks.exe"; fail=1; }
grep -q 'watchdog:     #0[0-9] ntdll!RtlEnterCriticalSection+0x' "$dir/on.err" ||
    { echo "on: no frame named after an export"; fail=1; }
if grep -q 'watchdog:     #.* 0x[0-9a-f]*$' "$dir/on.err"; then echo "on: a frame left unnamed"; fail=1; fi

# two processes, one cycle: each reports it, and where the other thread is
for f in a.out a.err b.out b.err; do : >"$dir/$f"; done
WINE_DEADLOCK_WATCHDOG=2 "$LAYER" "$dir/xproc.exe" a >"$dir/a.out" 2>"$dir/a.err" &
WINE_DEADLOCK_WATCHDOG=2 "$LAYER" "$dir/xproc.exe" b >"$dir/b.out" 2>"$dir/b.err" &
wait_for_lines "$dir/a.err" 'watchdog: end of report' 1 || fail=1
wait_for_lines "$dir/b.err" 'watchdog: end of report' 1 || fail=1
"$LAYER" --kill
wait
for side in a b; do
    other=$([ $side = a ] && echo b || echo a)
    other_pid=$(sed -n 's/^xproc: pid \([0-9]*\) ready.*/\1/p' "$dir/$other.out")
    if grep -q 'watchdog: deadlock in xproc.exe (process [0-9]*): 2 threads of 2 processes blocked in a cycle' "$dir/$side.err" &&
       grep -q "watchdog:   thread [0-9]* of process $other_pid xproc.exe\$" "$dir/$side.err" &&
       grep -q 'watchdog:   waits for mutex .*WineLayerTestXproc' "$dir/$side.err" &&
       grep -q 'watchdog:     #0[0-9] xproc!main+0x' "$dir/$side.err"; then
        echo "two processes: $side reports the cycle through process $other_pid"
    else
        echo "two processes: $side does not report the cycle:"; cat "$dir/$side.err"; fail=1
    fi
done

# a window that stops responding: reported once, with its thread's wait and
# stack; a thread that takes its messages is not
build_exe "$TOP/tests/host/programs/unresponsive.c" "$dir/unresponsive.exe"
: >"$dir/nr.out"; : >"$dir/nr.err"
WINE_DEADLOCK_WATCHDOG=2 "$LAYER" "$dir/unresponsive.exe" >"$dir/nr.out" 2>"$dir/nr.err" &
pid=$(wait_for_ready "$dir/nr.out" unresponsive 60) || true
tid=$(sed -n 's/^unresponsive: thread \([0-9]*\).*/\1/p' "$dir/nr.out")
wait_for_lines "$dir/nr.err" 'watchdog: not responding in unresponsive.exe' 1 || fail=1
# wctdump says "not responding" from 5 s on, as Windows does: ask until it
# does (two more rounds of the watchdog meanwhile: still one report), and
# until the busy thread is caught waiting for its next message (on a loaded
# machine a report may find it taking one, which it rightly calls running)
for i in $(seq 100); do
    rc=0; "$LAYER" wctdump "$pid" >"$dir/nr.txt" 2>&1 || rc=$?
    grep -q "not responding" "$dir/nr.txt" &&
        grep -q "^  thread [0-9]*: blocked for [0-9]* ms waiting for messages\$" "$dir/nr.txt" && break
    sleep 0.1
done
"$LAYER" --kill
wait
# (Wine's own programs started with it, explorer.exe, are watched too, and
# on a loaded machine may be slow to take their messages: only the
# program's report is counted)
if [ "$(grep -c 'watchdog: not responding in unresponsive.exe' "$dir/nr.err")" = 1 ] &&
   grep -q "^wine: watchdog: not responding in unresponsive.exe (process $pid): thread $tid has taken no message for [2-9] s while messages wait for it\$" "$dir/nr.err" &&
   grep -q "^wine: watchdog:   thread $tid is blocked for [0-9]* ms in Sleep\$" "$dir/nr.err" &&
   grep -q 'watchdog:     #0[0-9] unresponsive!stop_pumping+0x' "$dir/nr.err"; then
    echo "not responding: thread $tid reported once, with its wait and stack; the busy thread not"
else
    echo "not responding:"; grep watchdog "$dir/nr.err"; fail=1
fi
grep -q "^  thread $tid: blocked for [0-9]* ms in Sleep; not responding: a message has waited [0-9]* ms\$" "$dir/nr.txt" &&
    grep -q "^  thread [0-9]*: blocked for [0-9]* ms waiting for messages\$" "$dir/nr.txt" && [ $rc = 0 ] &&
    [ "$(sed -n 2p "$dir/nr.txt")" = "1 thread is not responding: messages have waited for it 5 s or more" ] &&
    echo "wctdump: thread $tid is not responding, said in the summary; the busy thread waits for messages, which is no hang (exit 0: no deadlock)" ||
    { echo "wctdump: exit $rc"; cat "$dir/nr.txt"; fail=1; }

# values that are not a whole number of seconds
for value in abc -1 1e9 3.5 0 100000; do
    WINE_DEADLOCK_WATCHDOG=$value "$LAYER" "$dir/true.exe" >/dev/null 2>"$dir/bad.err" || true
    warning=$(grep "watchdog: WINE_DEADLOCK_WATCHDOG=$value is not a whole number of seconds from 1 to 86400; the watchdog is off" "$dir/bad.err" | sort -u | wc -l)
    [ "$warning" = 1 ] && echo "WINE_DEADLOCK_WATCHDOG=$value: warned, off" ||
        { echo "WINE_DEADLOCK_WATCHDOG=$value: $(grep watchdog "$dir/bad.err")"; fail=1; }
done
WINE_DEADLOCK_WATCHDOG= "$LAYER" "$dir/true.exe" >/dev/null 2>"$dir/empty.err" || true
if grep -q watchdog "$dir/empty.err"; then echo "empty value: warned"; fail=1; else echo "empty value: silent (unset)"; fi

# without the variable: silent
timeout 8 "$LAYER" "$dir/deadlocks.exe" >"$dir/off.out" 2>"$dir/off.err" || true
"$LAYER" --kill
grep -q 'ready' "$dir/off.out" || { echo "off: the program did not run"; fail=1; }
if grep -q watchdog "$dir/off.err"; then echo "off: the watchdog spoke"; fail=1; else echo "off: silent"; fi
[ $fail = 0 ] || cat "$dir/on.err"
exit $fail

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
wait_for() {
    for i in $(seq 600); do
        [ "$(grep -c -- "$2" "$1" 2>/dev/null || true)" -ge "$3" ] && return 0
        sleep 0.1
    done
    echo "$1: no $3 lines '$2' within a minute"; return 1
}

# one process, three cycles
: >"$dir/on.out"; : >"$dir/on.err"  # not the lines of an earlier run
WINE_DEADLOCK_WATCHDOG=2 "$LAYER" "$dir/deadlocks.exe" >"$dir/on.out" 2>"$dir/on.err" &
wait_for "$dir/on.err" 'watchdog: end of report' 3 || fail=1
pid=$(sed -n 's/^wine: watchdog: every thread of the process: wine-layer wctdump \([0-9]*\)$/\1/p' "$dir/on.err" | sort -u)
rc=0; [ -n "$pid" ] && "$LAYER" wctdump $pid >"$dir/hint.txt" 2>&1 || rc=$?
[ -n "$pid" ] && [ $rc = 1 ] && grep -q "^process $pid deadlocks.exe" "$dir/hint.txt" &&
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
awk '/watchdog: deadlock in / { sub(/.*\): /, ""); n = $1; listed = 0; again = 0 }
     /watchdog:   thread [0-9]+$/ { listed++ }
     /watchdog:   which is thread [0-9]+ again$/ { again++ }
     /watchdog: end of report/ { if (listed != n || again != 1) { print "said " n ", listed " listed; bad = 1 } }
     END { exit bad }' "$dir/on.err" && echo "on: each report lists the threads it counts" || fail=1
grep -q 'watchdog:     #0[0-9] deadlocks!mutex_thread+0x' "$dir/on.err" || { echo "on: no stack into deadlocks.exe"; fail=1; }
grep -q 'watchdog:     #0[0-9] ntdll!RtlEnterCriticalSection+0x' "$dir/on.err" ||
    { echo "on: no frame named after an export"; fail=1; }
if grep -q 'watchdog:     #.* 0x[0-9a-f]*$' "$dir/on.err"; then echo "on: a frame left unnamed"; fail=1; fi

# two processes, one cycle: each reports it, and where the other thread is
for f in a.out a.err b.out b.err; do : >"$dir/$f"; done
WINE_DEADLOCK_WATCHDOG=2 "$LAYER" "$dir/xproc.exe" a >"$dir/a.out" 2>"$dir/a.err" &
WINE_DEADLOCK_WATCHDOG=2 "$LAYER" "$dir/xproc.exe" b >"$dir/b.out" 2>"$dir/b.err" &
wait_for "$dir/a.err" 'watchdog: end of report' 1 || fail=1
wait_for "$dir/b.err" 'watchdog: end of report' 1 || fail=1
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

#!/bin/sh
# WINE_DEADLOCK_WATCHDOG=N: a hung program explains itself on stderr, once
# per cycle, with stacks; without the variable nothing is printed.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/watchdog"
mkdir -p "$dir"
build_exe "$TOP/demo/deadlocks.c" "$dir/deadlocks.exe"

WINE_DEADLOCK_WATCHDOG=2 timeout 15 "$LAYER" "$dir/deadlocks.exe" >"$dir/on.out" 2>"$dir/on.err" || true
"$LAYER" --kill
timeout 8 "$LAYER" "$dir/deadlocks.exe" >"$dir/off.out" 2>"$dir/off.err" || true
"$LAYER" --kill

fail=0
reports=$(grep -c 'watchdog: deadlock: 2 threads blocked in a cycle' "$dir/on.err" || true)
[ "$reports" = 3 ] && echo "on: 3 cycles reported" || { echo "on: $reports cycle reports, expected 3"; fail=1; }
for kind in 'waits for mutex \Sessions\1\BaseNamedObjects\DemoMutex' 'waits for critical section' 'waits for SendMessage'; do
    grep -qF "$kind" "$dir/on.err" || { echo "on: no '$kind'"; fail=1; }
done
grep -q 'watchdog:     #0[0-9] deadlocks.exe+0x' "$dir/on.err" || { echo "on: no stack into deadlocks.exe"; fail=1; }
grep -q 'watchdog:     #0[0-9] ntdll.dll!RtlEnterCriticalSection+0x' "$dir/on.err" ||
    { echo "on: no frame named after an export"; fail=1; }
grep -q 'ready' "$dir/off.out" || { echo "off: the program did not run"; fail=1; }
if grep -q watchdog "$dir/off.err"; then echo "off: the watchdog spoke"; fail=1; else echo "off: silent"; fi
[ $fail = 0 ] || cat "$dir/on.err"
exit $fail

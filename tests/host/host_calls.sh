#!/bin/sh
# A thread blocked in a host system call is Blocked in Wait Chain Traversal,
# as on Windows, and the layer says what it is in (programs/hostcall.c
# checks each from inside): ReadFile on a standard input that is
#   - a FIFO (read(), with the FIFO's file name),
#   - an anonymous Unix pipe, as `producer | 7za a -si` gives (pipe:[N]);
# then the line written to it reaches the program.
# A thread blocked in that read() is walked without suspending it, unless it
# reads into its own stack, and walks racing its reads are right
# (programs/hostrace.c, H-1 to H-3).
# Also: Wine's own driver threads that wait in their unix libraries
# (winebus's bus_main_thread, wineusb's event_thread_proc, in a
# winedevice.exe) are seen Blocked in a host call (checked where the prefix
# loads either driver).
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/host_calls"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/hostcall.c" "$dir/hostcall.exe"
fail=0

finish() {
    tr -d '\r' <"$dir/$1.out" | grep -v '^hostcall: ok' || true
    if tr -d '\r' <"$dir/$1.out" | grep -q "^hostcall: read $2\$" &&
       tr -d '\r' <"$dir/$1.out" | grep -q '^hostcall: 0 failures$'; then
        echo "$1: passed"
    else
        echo "$1: FAILED"; tail -5 "$dir/$1.err"; fail=1
    fi
}

# a FIFO: a writer is kept open on fd 3 (opening it read-write does not
# block), so the program's read waits for data, not for a writer
rm -f "$dir/fifo"
mkfifo "$dir/fifo"
exec 3<>"$dir/fifo"
: >"$dir/fifo.out"
(cd "$dir" && exec "$LAYER" hostcall.exe "$dir/fifo" <"$dir/fifo" >"$dir/fifo.out" 2>"$dir/fifo.err" 3>&-) &
prog=$!
if wait_for_ready "$dir/fifo.out" hostcall 120 >/dev/null; then echo "fifo line" >&3; fi
exec 3>&-
wait $prog || true
finish fifo "fifo line"

# an anonymous pipe, whose writer writes once the program is ready
: >"$dir/pipe.out"
{ wait_for_ready "$dir/pipe.out" hostcall 120 >/dev/null && echo "pipe line"; } |
    (cd "$dir" && exec "$LAYER" hostcall.exe >"$dir/pipe.out" 2>"$dir/pipe.err") || true
finish pipe "pipe line"

# walks of a thread blocked in read() (programs/hostrace.c): held still
# while it reads into its stack (H-1), not suspended while it reads into a
# static buffer (H-2), and always right while it leaves and re-enters read()
# thousands of times (H-3); the writer writes one byte at H-1's ready, then
# bursts from H-2's until the program is done
# Run again with the pipe made non-blocking ("nonblock"): NtReadFile then
# waits in poll(), which is walked without suspending whatever the buffer.
build_exe "$TOP/tests/host/programs/hostrace.c" "$dir/hostrace.exe"
race() {
    : >"$dir/$1.out"
    {
        if wait_for_ready "$dir/$1.out" hostrace 120 >/dev/null; then
            printf x
            if wait_for_ready "$dir/$1.out" hostrace-race 120 >/dev/null; then
                # bursts of 16 bytes: the reader runs through each and blocks
                while ! grep -q 'failures' "$dir/$1.out" && printf xxxxxxxxxxxxxxxx; do :; done 2>/dev/null
            fi
        fi
    } | (cd "$dir" && if [ "$1" = race_nonblock ]; then
            exec python3 -c 'import fcntl, os, sys
fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK)
os.execvp(sys.argv[1], sys.argv[1:])' "$LAYER" hostrace.exe nonblock >"$dir/$1.out" 2>"$dir/$1.err"
        else
            exec "$LAYER" hostrace.exe >"$dir/$1.out" 2>"$dir/$1.err"
        fi) || true
    tr -d '\r' <"$dir/$1.out" | grep -v 'ready$' || true
    if tr -d '\r' <"$dir/$1.out" | grep -q '^hostrace: 0 failures$'; then
        echo "$1: passed"
    else
        echo "$1: FAILED"; tail -5 "$dir/$1.err"; fail=1
    fi
}
race race
race race_nonblock

# the drivers' threads (programs/drivers.c)
build_exe "$TOP/tests/host/programs/drivers.c" "$dir/drivers.exe"
(cd "$dir" && "$LAYER" drivers.exe >"$dir/drivers.out" 2>"$dir/drivers.err") || true
tr -d '\r' <"$dir/drivers.out"
if grep -q '^drivers: none' "$dir/drivers.out"; then
    echo "drivers: no winedevice.exe loads winebus.sys or wineusb.sys here: not checked"
elif ! grep -q '^drivers: [1-9][0-9]* threads, 0 never blocked' "$dir/drivers.out"; then
    echo "drivers: FAILED"; tail -5 "$dir/drivers.err"; fail=1
fi

"$LAYER" --kill
exit $fail

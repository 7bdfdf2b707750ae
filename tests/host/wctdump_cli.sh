#!/bin/sh
# wctdump's command line: every process id it prints is accepted back
# unchanged (decimal), and so are Wine's hex forms (0x20, 00000020), the
# Linux pid of the process and its executable's name; --list prints one
# line per process; Wine's own processes are left out unless --wine asks
# for them; anything ambiguous or unknown is refused with a message naming
# it, a missing process is named and gets no verdict on stdout; --all shows
# the stacks of running threads too; --timing says on stderr how long the
# report took; Wine's messages reach its stderr only when asked for through
# WINEDEBUG.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_cli"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/hang.c" "$dir/hang.exe"
unset WINEDEBUG
fail=0

# expect STATUS PATTERN ARGS...: wctdump's exit status and a line of its
# stderr; a failure prints no verdict on stdout
expect() {
    status=$1 pattern=$2; shift 2
    rc=0
    "$LAYER" wctdump "$@" >"$dir/out" 2>"$dir/err" || rc=$?
    if [ $rc = "$status" ] && { [ -z "$pattern" ] || grep -qF -- "$pattern" "$dir/err"; } &&
       { [ $rc = 0 ] || [ ! -s "$dir/out" ]; }; then
        echo "wctdump $*: exit $rc, '$(head -1 "$dir/err")'"
    else
        echo "wctdump $*: exit $rc, stderr '$(cat "$dir/err")', stdout '$(head -3 "$dir/out")';" \
             "expected exit $status, '$pattern' and no verdict"
        fail=1
    fi
}

start_program hang 60 hang.exe

# the id as the full listing prints it, given back
"$LAYER" wctdump >"$dir/all.txt" 2>"$dir/all.err" || true
printed=$(sed -n 's/^process \([0-9]*\) hang\.exe (Linux pid [0-9]*)$/\1/p' "$dir/all.txt")
[ "$printed" = "$pid" ] && echo "the full listing prints process $printed hang.exe" ||
    { echo "the full listing shows hang.exe as '$printed', not $pid"; cat "$dir/all.txt"; fail=1; }
unix_pid=$(sed -n 's/^process [0-9]* hang\.exe (Linux pid \([0-9]*\))$/\1/p' "$dir/all.txt")
# the Linux pid it prints is the one ps knows, running hang.exe
case "$(tr '\0' ' ' <"/proc/$unix_pid/cmdline" 2>/dev/null)" in
    *hang.exe*) echo "Linux pid $unix_pid runs hang.exe" ;;
    *) echo "Linux pid '$unix_pid' does not run hang.exe"; fail=1 ;;
esac
# Wine's own processes: not in the full listing, but with --wine and by id
if grep -q '^process [0-9]* \(services\|winedevice\|plugplay\|svchost\|rpcss\|explorer\|start\|conhost\)\.exe' \
        "$dir/all.txt"; then
    echo "the full listing shows Wine's own processes:"; grep '^process' "$dir/all.txt"; fail=1
else
    echo "the full listing leaves Wine's own processes out"
fi
"$LAYER" wctdump --wine --list >"$dir/wine.txt" 2>/dev/null || true
for other in services.exe winedevice.exe; do
    id=$(awk -v n="$other" '$2 == n { print $1; exit }' "$dir/wine.txt")
    [ -n "$id" ] || { echo "--wine --list does not show $other:"; cat "$dir/wine.txt"; fail=1; continue; }
    "$LAYER" wctdump "$id" >"$dir/other.txt" 2>/dev/null || true
    grep -q "^process $id $other" "$dir/other.txt" && echo "wctdump $id reports $other" ||
        { echo "wctdump $id reports '$(grep '^process' "$dir/other.txt")', not $other"; fail=1; }
done

# every way of naming the process reports the same one
hex=$(printf '0x%x' "$pid") winedbg=$(printf '%08x' "$pid")
for arg in "$printed" "$hex" "$winedbg" "$unix_pid" hang.exe hang HANG.EXE; do
    rc=0; "$LAYER" wctdump "$arg" >"$dir/one.txt" 2>"$dir/one.err" || rc=$?
    if [ $rc = 1 ] && [ "$(grep -c '^process ' "$dir/one.txt")" = 1 ] &&
       grep -q "^process $pid hang.exe" "$dir/one.txt"; then
        echo "wctdump $arg reports hang.exe (exit 1: a deadlock)"
    else
        echo "wctdump $arg: exit $rc, '$(grep '^process' "$dir/one.txt")' $(cat "$dir/one.err")"; fail=1
    fi
done

# --list: one line per process, id first
"$LAYER" wctdump --list >"$dir/list.txt" 2>/dev/null || true
if [ "$(awk -v p="$pid" '$1 == p && $2 == "hang.exe"' "$dir/list.txt" | wc -l)" = 1 ] &&
   grep -q "^ *$pid  hang.exe .* 3 threads  Linux pid $unix_pid\$" "$dir/list.txt" &&
   [ "$(wc -l <"$dir/list.txt")" = "$(grep -c '^process ' "$dir/all.txt")" ]; then
    echo "--list: one line per process: $(grep " hang.exe " "$dir/list.txt")"
else
    echo "--list:"; cat "$dir/list.txt"; fail=1
fi

# only its own messages on stderr, Wine's when asked for
[ ! -s "$dir/all.err" ] && echo "stderr: empty" || { echo "stderr: $(head -3 "$dir/all.err")"; fail=1; }
WINEDEBUG=+loaddll "$LAYER" wctdump "$pid" >/dev/null 2>"$dir/debug.err" || true
grep -q 'Loaded L".*dbghelp.dll"\|Loaded L".*advapi32.dll"' "$dir/debug.err" &&
    echo "WINEDEBUG=+loaddll: Wine's messages shown" || { echo "WINEDEBUG=+loaddll showed nothing"; fail=1; }

# --all: the running (here: sleeping in an unmodelled wait) threads too
"$LAYER" wctdump --all "$pid" >"$dir/every.txt" 2>/dev/null || true
frames=$(grep -c '^    #00 ' "$dir/every.txt" || true)
threads=$(grep -c '^  thread [0-9]*: ' "$dir/every.txt" || true)
if [ "$frames" = "$threads" ] && grep -q 'hang!main+0x' "$dir/every.txt"; then
    echo "--all: a stack for each of the $threads threads"
else
    echo "--all: $frames stacks for $threads threads"; cat "$dir/every.txt"; fail=1
fi

# --timing: the same report on stdout, and on stderr how long it took, for
# as many threads as the report has
"$LAYER" wctdump "$pid" >"$dir/plain.txt" 2>/dev/null || true
"$LAYER" wctdump --timing "$pid" >"$dir/timed.txt" 2>"$dir/timed.err" || true
threads=$(grep -c '^  thread [0-9]*: ' "$dir/timed.txt" || true)
if grep -q "^wctdump: report of $threads threads in [0-9.]* ms: modules [0-9.]*, wait chains [0-9.]*, stacks [0-9.]*, naming frames and printing [0-9.]*\$" "$dir/timed.err" &&
   [ "$(grep -c '^  thread [0-9]*: ' "$dir/plain.txt" || true)" = "$threads" ]; then
    echo "--timing: $(cat "$dir/timed.err")"
else
    echo "--timing: stderr '$(cat "$dir/timed.err")' for $threads threads"; fail=1
fi

missing=4000000000
expect 2 "ambiguous process id" 0$pid
expect 2 "0xg: not a process id" 0xg
expect 3 "no such process 0x1f" 0x1f
expect 3 "no process named 12ab" 12ab
expect 2 "99999999999: not a process id" 99999999999
expect 2 "unknown option -x" -x
expect 2 "unknown option --jsn" --jsn "$pid"
expect 3 "no such process $missing" "$missing"
expect 3 "no process named nosuch.exe" "$pid" nosuch.exe
expect 0 "" --help
grep -q 'decimal' "$dir/out" && grep -q '^  5  no deadlock found' "$dir/out" &&
    grep -q '^  6  no deadlock, but a thread waits for ever on a host lock' "$dir/out" &&
    echo "--help says ids are decimal and what each exit status means" || { echo "--help: $(cat "$dir/out")"; fail=1; }

"$LAYER" --kill
wait
exit $fail

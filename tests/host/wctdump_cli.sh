#!/bin/sh
# wctdump's command line: every process id it prints is accepted back
# unchanged (decimal), anything ambiguous or unknown is refused with a
# message naming it, a missing process is named; --all shows the stacks of
# running threads too; Wine's messages reach its stderr only when asked
# for through WINEDEBUG.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_cli"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/hang.c" "$dir/hang.exe"
unset WINEDEBUG
fail=0

# expect STATUS PATTERN ARGS...: wctdump's exit status and a line of its stderr
expect() {
    status=$1 pattern=$2; shift 2
    rc=0
    "$LAYER" wctdump "$@" >"$dir/out" 2>"$dir/err" || rc=$?
    if [ $rc = "$status" ] && { [ -z "$pattern" ] || grep -qF -- "$pattern" "$dir/err"; }; then
        echo "wctdump $*: exit $rc, '$(head -1 "$dir/err")'"
    else
        echo "wctdump $*: exit $rc, stderr '$(cat "$dir/err")'; expected exit $status and '$pattern'"
        fail=1
    fi
}

# a program from an earlier run left its lines here: start from empty files, before the program starts
: >"$dir/hang.out"
(cd "$dir" && exec "$LAYER" hang.exe >"$dir/hang.out" 2>"$dir/hang.err") &
pid=$(wait_for_ready "$dir/hang.out" hang 60) || true
[ -n "$pid" ] || { echo "hang.exe did not start"; cat "$dir/hang.err"; "$LAYER" --kill; exit 1; }

# the id as the full listing prints it, given back
"$LAYER" wctdump >"$dir/all.txt" 2>"$dir/all.err" || true
printed=$(sed -n 's/^process \([0-9]*\) hang\.exe$/\1/p' "$dir/all.txt")
[ "$printed" = "$pid" ] && echo "the full listing prints process $printed hang.exe" ||
    { echo "the full listing shows hang.exe as '$printed', not $pid"; fail=1; }
rc=0; "$LAYER" wctdump "$printed" >"$dir/one.txt" 2>"$dir/one.err" || rc=$?
if [ $rc = 1 ] && [ "$(sed -n 1p "$dir/one.txt")" = "process $pid hang.exe" ]; then
    echo "wctdump $printed reports hang.exe (exit 1: a deadlock)"
else
    echo "wctdump $printed: exit $rc, first line '$(sed -n 1p "$dir/one.txt")'"; fail=1
fi
for other in winedevice.exe services.exe; do
    id=$(sed -n "s/^process \([0-9]*\) $other\$/\1/p" "$dir/all.txt" | head -1)
    [ -n "$id" ] || continue
    "$LAYER" wctdump "$id" >"$dir/other.txt" 2>/dev/null || true
    [ "$(sed -n 1p "$dir/other.txt")" = "process $id $other" ] && echo "wctdump $id reports $other" ||
        { echo "wctdump $id reports '$(sed -n 1p "$dir/other.txt")', not $other"; fail=1; }
done

# only its own messages on stderr, Wine's when asked for
[ ! -s "$dir/all.err" ] && echo "stderr: empty" || { echo "stderr: $(head -3 "$dir/all.err")"; fail=1; }
WINEDEBUG=+loaddll "$LAYER" wctdump "$pid" >/dev/null 2>"$dir/debug.err" || true
grep -q 'Loaded L".*dbghelp.dll"\|Loaded L".*advapi32.dll"' "$dir/debug.err" &&
    echo "WINEDEBUG=+loaddll: Wine's messages shown" || { echo "WINEDEBUG=+loaddll showed nothing"; fail=1; }

# --all: the running (here: sleeping in an unmodelled wait) threads too
"$LAYER" wctdump --all "$pid" >"$dir/every.txt" 2>/dev/null || true
frames=$(grep -c '^    #00 ' "$dir/every.txt" || true)
threads=$(grep -c '^  thread ' "$dir/every.txt" || true)
if [ "$frames" = "$threads" ] && grep -q 'hang!main+0x' "$dir/every.txt"; then
    echo "--all: a stack for each of the $threads threads"
else
    echo "--all: $frames stacks for $threads threads"; cat "$dir/every.txt"; fail=1
fi

missing=4000000000
expect 2 "ambiguous process id" 0$pid
expect 2 "0x1f: not a process id" 0x1f
expect 2 "12ab: not a process id" 12ab
expect 2 "99999999999: not a process id" 99999999999
expect 2 "unknown option -x" -x
expect 2 "unknown option --jsn" --jsn "$pid"
expect 2 "no such process $missing" "$missing"
expect 0 "" --help
grep -q 'decimal' "$dir/out" && echo "--help says ids are decimal" || { echo "--help: $(cat "$dir/out")"; fail=1; }

"$LAYER" --kill
wait
exit $fail

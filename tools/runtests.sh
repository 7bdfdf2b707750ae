#!/bin/sh
# Test driver: builds the Windows test programs with the staged tree's Wine
# tools, runs them on the layer (or on stock Wine), runs the host-side
# checks, prints one line per test and ends with "N passed, N failed".
#
# Usage: tools/runtests.sh [--stock] [TEST...]
#   TEST      a name such as conformance/backtrace or host/patches
#             (default: every test)
#   --stock   run the conformance tests on the installed stock Wine; the
#             failures tests/stock-expected/$WINE_SERIES.txt lists (each
#             with its reason on that Wine) are expected there
#   TEST_RUNNER=CMD  run the test programs with CMD instead of the launcher
#             and leave the wineserver to the caller (tools/valgrind.sh)
#
# Conformance tests are tests/conformance/NAME.c, single-file programs in
# Wine's test framework (#define STANDALONE, START_TEST); their .exe files in
# build/tests run unchanged on Windows. Each is also built for i386 and run
# as a 32-bit program (WoW64 mode), as the test conformance32/NAME, unless
# its header says "32-bit: not run" and why (or "32-bit: not run on
# wine-8.0", for one Wine series only); on the layer, the 32-bit runs
# that tests/i386-expected/$WINE_SERIES.txt lists (each with its reason)
# are expected to fail, and one that passes fails the run until its line
# is removed. Host checks are tests/host/NAME.sh,
# run with LAYER, STOCK, TESTBIN, STAGED and WINE_SOURCE in the environment;
# they pass by exiting 0, are skipped by exiting 77 (the last line of
# their output says why). On a kernel that runs no 32-bit code (wine-layer
# --ia32) the conformance32 runs and the host tests whose header says
# "# needs: 32-bit code" are skipped, and IA32_SKIP tells the other host
# tests why, so they skip their 32-bit parts, each with a line
# "skipped part: WHAT" that is counted. A host test whose header has a line
# "# background: WHY" runs beside the others (is_background). Output of each test: build/tests/NAME.log, and
# build/tests-stock/NAME.log for the run on stock Wine.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/testlib.sh"
TIMEOUT=${TEST_TIMEOUT:-300}
WINE_SOURCE=${WINE_SOURCE:-$TOP/$WINE_SOURCE_DEFAULT}
export STAGED TESTBIN LAYER WINE_SOURCE TOP WINE_SERIES

flavour=layer
[ "${1:-}" = "--stock" ] && { flavour=stock; shift; }
if [ $flavour = stock ]; then STOCK="--stock"; else STOCK=""; fi
export STOCK
# the logs of a run on stock Wine do not replace those of the layer's
if [ $flavour = stock ]; then LOGDIR="$TESTBIN-stock"; else LOGDIR="$TESTBIN"; fi

: "${WINEDEBUG:=-all}"
export WINEDEBUG
# As in Wine's own test runs: broken() answers are Windows' alone, and a
# win_skip() (something missing) is a failure on Wine.
WINETEST_PLATFORM=wine
export WINETEST_PLATFORM

passed=0
failed=0
skipped=0
ia32_skipped=0

# Can this kernel run 32-bit code? (WINE_LAYER_TEST_NO_IA32=1 says it
# cannot, so that the skip paths are tried on any kernel.)
IA32_SKIP=""
"$LAYER" --ia32 >/dev/null 2>&1 ||
    { [ $? != 126 ] || IA32_SKIP="this kernel runs no 32-bit code: 'loader/wine-layer --ia32' says why"; }
export IA32_SKIP

# skip_32 NAME [PART]: a 32-bit test, or PART of a test, not run here
skip_32() {
    skipped=$((skipped + 1))
    ia32_skipped=$((ia32_skipped + 1))
    echo "SKIP $1${2:+: $2} (32-bit code)"
}
failures=""
expected=0

# why a test fails on this stock Wine, if it is expected to
EXPECTED="tests/stock-expected/$WINE_SERIES.txt"
expected_file="$TOP/$EXPECTED"
stock_reason() {
    [ $flavour = stock ] || return 0
    awk -v t="$1" '$1 == t { $1 = ""; sub(/^ +/, ""); print }' "$expected_file"
}
# why a 32-bit run fails on the layer, while its x86 side is being written
I386_EXPECTED="tests/i386-expected/$WINE_SERIES.txt"
i386_reason() {
    [ $flavour = layer ] && [ -f "$TOP/$I386_EXPECTED" ] || return 0
    awk -v t="$1" '!/^#/ && $1 == t { $1 = ""; sub(/^ +/, ""); print }' "$TOP/$I386_EXPECTED"
}
i386_expected=0
if [ $flavour = stock ] && [ ! -f "$expected_file" ]; then
    echo "runtests: $EXPECTED is missing: no failure on stock Wine $WINE_VERSION is expected" >&2
    expected_file=/dev/null
fi

mkdir -p "$TESTBIN/conformance" "$TESTBIN/conformance32" "$TESTBIN/host" "$LOGDIR/conformance" \
    "$LOGDIR/conformance32" "$LOGDIR/host"

report() {
    name=$1 status=$2 detail=$3 log=$4
    if [ "$status" = PASS ] && [ -n "$(i386_reason "$name")" ]; then
        failed=$((failed + 1))
        failures="$failures $name"
        echo "FAIL $name ($detail, but $I386_EXPECTED lists it as failing: remove its line)"
    elif [ -n "$(i386_reason "$name")" ]; then
        i386_expected=$((i386_expected + 1))
        echo "XFAIL $name ($detail; expected: $(i386_reason "$name"))"
    elif [ "$status" = PASS ]; then
        passed=$((passed + 1))
        echo "PASS $name ($detail)"
        [ -z "$(stock_reason "$name")" ] ||
            echo "    (listed in $EXPECTED as failing on stock Wine: it passed)"
    elif [ -n "$(stock_reason "$name")" ]; then
        failed=$((failed + 1))
        expected=$((expected + 1))
        failures="$failures $name"
        echo "FAIL $name ($detail; expected on stock Wine: $(stock_reason "$name"))"
    else
        failed=$((failed + 1))
        failures="$failures $name"
        echo "FAIL $name ($detail)"
        # The failed checks and crashes say most; otherwise show the end.
        key='Test failed|Test succeeded inside todo|Unhandled exception|unimplemented function|error:'
        if grep -aqE "$key" "$log"; then
            grep -aE "$key" "$log" | head -25 | sed 's/^/    | /'
        else
            grep -avE 'tests executed|^ *$' "$log" | tail -25 | sed 's/^/    | /'
        fi
    fi
}

# run_conformance NAME: conformance/X, or conformance32/X (X.c built for i386)
run_conformance() {
    name=$1 arch=x86_64
    case $name in conformance32/*) arch=i386 ;; esac
    src="$TOP/tests/conformance/${name#*/}.c" exe="$TESTBIN/$name.exe" log="$LOGDIR/$name.log"
    start=$(date +%s)
    if ! build_exe "$src" "$exe" $arch >"$log" 2>&1; then
        report "$name" FAIL "does not build" "$log"
        return
    fi
    (cd "$(dirname "$exe")" && timeout "$TIMEOUT" ${TEST_RUNNER:-"$LAYER"} $STOCK "$exe") >"$log" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    # a test's child that crashes on purpose (R-15) writes to the same log:
    # its debugger's dump can leave NUL bytes, so the log is read as text
    summary=$(grep -aE '^[0-9a-f]+:[a-z_0-9]+: [0-9]+ tests executed' "$log" | tail -1)
    checks=$(echo "$summary" | sed -n 's/.*: \([0-9]*\) tests executed.*/\1/p')
    fails=$(echo "$summary" | sed -n "s/.*, \([0-9]*\) failures\{0,1\}).*/\1/p")
    if [ $rc = 124 ]; then
        report "$name" FAIL "timed out after ${TIMEOUT}s" "$log"
    elif [ $rc = 0 ] && [ -n "$summary" ] && [ "$fails" = 0 ]; then
        report "$name" PASS "$checks checks, ${took}s" "$log"
    else
        report "$name" FAIL "exit $rc, ${fails:-no} failures of ${checks:-?} checks" "$log"
    fi
}

# host_exec NAME: run tests/NAME.sh; its exit status and seconds go to
# LOGDIR/NAME.status, for host_judge
host_exec() {
    name=$1
    start=$(date +%s)
    # a host test that needs longer says so in a '# timeout: SECONDS' line
    limit=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "$TOP/tests/$name.sh" | head -1)
    [ -n "$limit" ] && [ "$limit" -gt "$TIMEOUT" ] || limit=$TIMEOUT
    timeout "$limit" sh "$TOP/tests/$name.sh" >"$LOGDIR/$name.log" 2>&1
    echo "$? $(( $(date +%s) - start ))" >"$LOGDIR/$name.status"
}

host_judge() {
    name=$1
    log="$LOGDIR/$name.log"
    read -r rc took <"$LOGDIR/$name.status"
    # the parts a test skipped on a kernel without 32-bit code
    parts=$(sed -n 's/^skipped part: //p' "$log")
    if [ -n "$parts" ]; then
        while IFS= read -r part; do skip_32 "$name" "$part"; done <<EOF
$parts
EOF
    fi
    if [ $rc = 0 ]; then
        report "$name" PASS "${took}s" "$log"
    elif [ $rc = 77 ]; then
        skipped=$((skipped + 1))
        echo "SKIP $name ($(tail -1 "$log"))"
    else
        report "$name" FAIL "exit $rc" "$log"
    fi
}

# A host test whose header has a line '# background: WHY' (a build of
# many minutes, in a prefix of its own) starts before the others, so that
# it uses what they leave of the cores while they wait for Wine, and is
# reported after them. At the same priority: a lower one starves it on a
# machine busy with anything else, up to its timeout.
is_background() {
    [ -f "$TOP/tests/$1.sh" ] && grep -q '^# background: ' "$TOP/tests/$1.sh"
}

# Is the host test NAME one that needs 32-bit code, on a kernel without it?
skipped_host() {
    [ -n "$IA32_SKIP" ] && [ -f "$TOP/tests/$1.sh" ] && grep -q '^# needs: 32-bit code' "$TOP/tests/$1.sh"
}

# Is the test SRC not run as a 32-bit program (here)? Its comment says so:
# " * 32-bit: not run: why", or " * 32-bit: not run on wine-8.0: why".
not_run_32() {
    grep -qE "^ \* 32-bit: not run(:| on $WINE_SERIES:)" "$1"
}

all_tests() {
    (cd "$TOP/tests" && ls conformance/*.c host/*.sh 2>/dev/null) | sed 's/\.[a-z]*$//'
    # stock Wine runs 32-bit programs only with Debian's wine32 (wine-layer --help)
    [ $flavour = stock ] && [ ! -x /usr/lib/wine/wine ] && return 0
    for c in "$TOP"/tests/conformance/*.c; do
        not_run_32 "$c" || echo "conformance32/$(basename "$c" .c)"
    done
}

build_winelib "$TESTBIN/conformance" || exit 1
build_test_dlls "$TESTBIN/conformance" "$TESTBIN/conformance32" >"$TESTBIN/dlls.log" 2>&1 ||
    { cat "$TESTBIN/dlls.log"; echo "the test DLLs do not build" >&2; exit 1; }

tests=${*:-$(all_tests)}
[ $flavour = stock ] && echo "(running on stock Wine: $("$LAYER" --stock --env | grep WINELOADER))"
background="" background_jobs=""
for t in $tests; do
    is_background "$t" || continue
    skipped_host "$t" && continue
    background="$background $t"
    host_exec "$t" &
    background_jobs="$background_jobs $!"
done
# An interrupted run stops what it started beside the others: the timeout
# of each (a child of its job) ends its whole process group.
[ -z "$background_jobs" ] ||
    trap 'for j in $background_jobs; do pkill -TERM -P "$j"; done; exit 130' INT TERM
for t in $tests; do
    if case " $background " in *" $t "*) true ;; *) false ;; esac; then
        continue
    elif [ -f "$TOP/tests/$t.c" ]; then
        run_conformance "$t"
    elif [ "${t%%/*}" = conformance32 ] && [ -f "$TOP/tests/conformance/${t#*/}.c" ]; then
        if [ -n "$IA32_SKIP" ]; then
            skip_32 "$t"
        elif not_run_32 "$TOP/tests/conformance/${t#*/}.c"; then
            failed=$((failed + 1))
            echo "FAIL $t (tests/conformance/${t#*/}.c says it is not run as a 32-bit program here, and why)"
        else
            run_conformance "$t"
        fi
    elif skipped_host "$t"; then
        skip_32 "$t"
    elif [ -f "$TOP/tests/$t.sh" ]; then
        host_exec "$t"
        host_judge "$t"
    else
        failed=$((failed + 1))
        echo "FAIL $t (no such test; see 'ls tests/conformance tests/host')"
    fi
done

if [ -n "$background" ]; then
    echo "waiting for$background"
    wait
    for t in $background; do host_judge "$t"; done
fi
[ -n "${TEST_RUNNER:-}" ] || "$LAYER" $STOCK --kill
[ -n "$failures" ] && echo "failed:$failures"
[ $ia32_skipped = 0 ] || echo "skipped: $ia32_skipped 32-bit tests or parts, as $IA32_SKIP"
if [ $flavour = stock ]; then
    echo "$passed passed, $failed failed ($expected of them expected on stock Wine, $EXPECTED)," \
         "$skipped skipped; logs in $LOGDIR"
else
    echo "$passed passed, $failed failed, $skipped skipped$( [ $i386_expected = 0 ] ||
        echo " ($i386_expected 32-bit runs failed as $I386_EXPECTED expects)")"
fi
# on stock Wine, only an unexpected failure fails the run
[ $((failed - expected)) = 0 ]

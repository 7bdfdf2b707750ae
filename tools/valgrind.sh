#!/bin/sh
# The layer's wineserver under valgrind's memcheck while the wait-chain tests
# run on it (conformance/wct, wct_races and server_fuzz, with fewer rounds);
# fails on any memcheck error not in tools/valgrind.supp (pre-existing Wine
# code, each entry with its reason).
#
# Usage: tools/valgrind.sh          (run by 'make valgrind')
#   WCT_RACE_ROUNDS, WCT_FUZZ_ROUNDS  rounds (default the tests' own, 10^4
#   and 10^5: under memcheck they take about a minute in all)
#
# The prefix build/prefix-valgrind is made once by the plain wineserver; the
# tests run through tools/runtests.sh with the layer's loader directly
# (TEST_RUNNER), since the launcher refuses a prefix served by another
# executable (here valgrind). Output in build/valgrind/: memcheck.log,
# tests.txt (runtests.sh's lines), the tests' logs in conformance/, and
# summary.txt (read by tools/reliability.sh).
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/testlib.sh"
OUT="$TOP/build/valgrind"
TESTS="conformance/wct conformance/wct_races conformance/server_fuzz"
SERVER="$STAGED/server/wineserver"
: "${WCT_RACE_ROUNDS:=10000}" "${WCT_FUZZ_ROUNDS:=100000}"
export WCT_RACE_ROUNDS WCT_FUZZ_ROUNDS

say() { echo "valgrind: $*"; }
die() { echo "valgrind: error: $*" >&2; exit 1; }

command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
mkdir -p "$OUT"
# The launcher's environment (WINEDLLPATH with the installed Wine, ...) for
# its own prefix; the loader is then run directly.
WINEPREFIX="$TOP/build/prefix-valgrind"
export WINEPREFIX
eval "$("$LAYER" --env | sed 's/^\([A-Z]*\)=\(.*\)/export \1="\2"/')"
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="

"$SERVER" -k 2>/dev/null
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    say "creating $WINEPREFIX (once)"
    "$LAYER" cmd /c exit >/dev/null 2>&1 || die "cannot create $WINEPREFIX"
    "$SERVER" -k 2>/dev/null
    "$SERVER" -w
fi

say "starting the wineserver under memcheck"
start=$(date +%s)
valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite --num-callers=30 --error-exitcode=99 \
    --suppressions="$TOP/tools/valgrind.supp" --log-file="$OUT/memcheck.log" \
    "$SERVER" -f -p &
vg=$!
# The server is up once its socket exists in its working directory.
for i in $(seq 300); do
    [ -S "/proc/$vg/cwd/socket" ] && break
    kill -0 $vg 2>/dev/null || die "the wineserver did not start; see $OUT/memcheck.log"
    sleep 0.1
done
[ -S "/proc/$vg/cwd/socket" ] || { kill $vg; die "the wineserver did not open its socket in 30 s"; }

TESTBIN="$OUT" TEST_RUNNER="$WINELOADER" TEST_TIMEOUT=600 "$TOP/tools/runtests.sh" $TESTS |
    sed 's/^/valgrind: /' | tee "$OUT/tests.txt"
failed=$(sed -n 's/^valgrind: FAIL \([^ ]*\) .*/\1/p' "$OUT/tests.txt" | paste -sd' ')
grep -qE '^valgrind: [0-9]+ passed, ' "$OUT/tests.txt" || failed="$failed runtests.sh(no summary)"

kill -0 $vg 2>/dev/null || failed="$failed wineserver(died)"
say "stopping the wineserver"
"$SERVER" -k 2>/dev/null
wait $vg
vgrc=$?
took=$(( $(date +%s) - start ))

line=$(grep -E '== ERROR SUMMARY:' "$OUT/memcheck.log" | tail -1)
errors=$(echo "$line" | sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p')
suppressed=$(echo "$line" | sed -n 's/.*(suppressed: \([0-9]*\) from.*/\1/p')
[ -n "$errors" ] || die "no error summary in $OUT/memcheck.log (memcheck exit $vgrc)"
{
    echo "date=$(date -u '+%Y-%m-%d')"
    echo "seconds=$took"
    echo "tests=$TESTS"
    echo "rounds=WCT_RACE_ROUNDS=$WCT_RACE_ROUNDS WCT_FUZZ_ROUNDS=$WCT_FUZZ_ROUNDS"
    echo "failed=${failed# }"
    echo "errors=$errors"
    echo "suppressed=$suppressed"
    grep -E '== +definitely lost:' "$OUT/memcheck.log" | sed 's/^==[0-9]*== *//; s/ *lost: */_lost=/; s/ in .*//; s/,//g'
    [ "$errors" = 0 ] && [ -z "$failed" ] && echo "result=PASS" || echo "result=FAIL"
} >"$OUT/summary.txt"

if [ "$errors" != 0 ]; then
    say "memcheck found $errors error(s) outside tools/valgrind.supp:"
    grep -E '^==[0-9]+== ( [a-zA-Z]|   (at|by) )' "$OUT/memcheck.log" | head -60 | sed 's/^==[0-9]*==/    |/'
fi
say "$errors memcheck error(s) ($suppressed suppressed) in ${took}s;" \
    "${failed:+failed:$failed;} log in $OUT/memcheck.log"
grep -qx result=PASS "$OUT/summary.txt"

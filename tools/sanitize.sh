#!/bin/sh
# Run the test suites on the sanitizer build (made by 'make sanitize-build':
# the wineserver with AddressSanitizer and UndefinedBehaviorSanitizer, ntdll's
# unix side with UndefinedBehaviorSanitizer) and fail on any sanitizer report.
#
# Usage: tools/sanitize.sh SANTREE [TEST...]     (run by 'make sanitize')
#   SANTREE  the sanitizer build of the staged tree (build/wine-san)
#   TEST     as for tools/runtests.sh (default: every test but those in NOT_SANITIZED)
#
# The tests run with their own prefix (build/prefix-san) and logs
# (build/tests-san). Every process writes its reports to build/sanitize/
# (asan.PID, ubsan.PID), but for the wineserver's UndefinedBehaviorSanitizer
# reports, which end in the test logs; both are read. Reports in
# pre-existing Wine code are suppressed by tools/ubsan.supp and
# tools/lsan.supp, each entry with its reason, so any report left is a
# failure. build/sanitize/summary.txt holds the figures
# tools/reliability.sh puts in RELIABILITY.md.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/config.sh"
WINE_SOURCE=${WINE_SOURCE:-$TOP/$WINE_SOURCE_DEFAULT}
WINE_LAYER_TREE=$(cd "${1:?usage: tools/sanitize.sh SANTREE [TEST...]}" && pwd) || exit 1
shift
REPORTS="$TOP/build/sanitize"
TESTBIN="$TOP/build/tests-san"
WINEPREFIX="$TOP/build/prefix-san"
export WINE_LAYER_TREE TESTBIN WINEPREFIX

say() { echo "sanitize: $*"; }
die() { echo "sanitize: error: $*" >&2; exit 1; }

# The wineserver's memory is not measured here: ASan holds freed blocks in
# quarantine, so its resident size grows by design. Nor are the checks of
# the build, the install and the series, and those that compare with stock
# Wine: they build or install trees of their own and run stock Wine, not the
# sanitized binaries (and stock Wine may not share this run's prefix).
NOT_SANITIZED="host/server_memory host/install host/make_targets host/series host/wct_imports_stock host/patches
host/no_wine_source host/test_map"
default_tests() {
    (cd "$TOP/tests" && ls conformance/*.c host/*.sh) | sed 's/\.[a-z]*$//' |
        grep -vxF "$(echo $NOT_SANITIZED | tr ' ' '\n')"
}

# Every report ends up in a file. UndefinedBehaviorSanitizer goes on after a
# report, so that one run lists them all and suppressions work; an
# AddressSanitizer report ends the wineserver, which fails the tests too.
# Stacks of allocations are unwound with DWARF information: glibc has no
# frame pointers, and a leak's stack must reach the caller to be suppressed.
ASAN_OPTIONS="log_path=$REPORTS/asan:detect_leaks=1:fast_unwind_on_malloc=0"
LSAN_OPTIONS="suppressions=$TOP/tools/lsan.supp"
UBSAN_OPTIONS="log_path=$REPORTS/ubsan:print_stacktrace=1:report_error_type=1:suppressions=$TOP/tools/ubsan.supp"
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS

# checked FILE: is FILE a binary built with sanitizers?
checked() {
    nm -D "$1" 2>/dev/null | grep -qE ' U __(asan|ubsan)_'
}

for f in server/wineserver dlls/ntdll/ntdll.so; do
    checked "$WINE_LAYER_TREE/$f" || die "$WINE_LAYER_TREE/$f is not built with sanitizers (run 'make sanitize')"
done

rm -rf "$REPORTS" "$WINEPREFIX"
mkdir -p "$REPORTS" "$TESTBIN"
# the wineserver's reports are read from the test logs: none of an earlier run
find "$TESTBIN" -name '*.log' -delete
say "running the tests on $WINE_LAYER_TREE (prefix $WINEPREFIX, reports in $REPORTS)"
start=$(date +%s)
"$TOP/tools/runtests.sh" ${*:-$(default_tests)} | tee "$REPORTS/tests.txt"
# tee hides the status of runtests.sh; its last line says it.
tail -1 "$REPORTS/tests.txt" | grep -q ' 0 failed' && tests_ok=0 || tests_ok=1
took=$(( $(date +%s) - start ))

# ours FILE:LINE: is this line of the staged tree one of ours (a file of
# the checkout, or a line our patches add to a Wine file)?
ours() {
    file=${1%%:*} line=${1#*:}
    [ -f "$TOP/$file" ] && return 0
    [ -f "$WINE_SOURCE/$file" ] || return 1
    diff -U0 "$WINE_SOURCE/$file" "$WINE_LAYER_TREE/$file" |
        sed -n 's/^@@ -[0-9,]* +\([0-9]*\),\{0,1\}\([0-9]*\) @@.*/\1 \2/p' |
        awk -v l="$line" '{ n = $2 == "" ? 1 : $2; if (l >= $1 && l < $1 + n) found = 1 } END { exit !found }'
}

# One line per report in the given logs, "FIRST-LINE<TAB>PLACES": its first
# line without addresses and the file:line of its stack frames.
extract() {
    awk -v tree="$WINE_LAYER_TREE" '
        function flush() { if (key != "") print key "\t" places; key = "" }
        /runtime error:|ERROR: (Address|Leak)Sanitizer/ {
            flush(); key = $0; sub("^" tree "/", "", key)
            gsub(/0x[0-9a-f]+/, "X", key); gsub(/==[0-9]+==/, "", key)
            places = ""; if (match(key, /^[^ :]+:[0-9]+/)) places = substr(key, RSTART, RLENGTH)
            next
        }
        key != "" && /^ *#[0-9]+ / {
            if (match($0, / [^ ]+[.][ch]:[0-9]+/)) {
                p = substr($0, RSTART + 1, RLENGTH - 1); sub("^" tree "/", "", p); places = places " " p
            }
        }
        END { flush() }' "$@"
}

# The wineserver's UndefinedBehaviorSanitizer reports ignore log_path (GCC 12,
# with AddressSanitizer) and go to its stderr: the log of the test that
# started it.
extract "$REPORTS"/asan.* "$REPORTS"/ubsan.* $(find "$TESTBIN" -name '*.log') 2>/dev/null >"$REPORTS/reports.txt"
reports=$(wc -l <"$REPORTS/reports.txt")
cut -f1 "$REPORTS/reports.txt" | sort | uniq -c | sort -rn | while read -r n what; do
    places=$(grep -F "$what	" "$REPORTS/reports.txt" | cut -f2 | tr ' ' '\n' | sort -u)
    mine=""
    for p in $places; do ours "$p" && mine="$mine $p"; done
    echo "sanitize: ${n}x $what"
    if [ -n "$mine" ]; then
        echo "    through our code:$mine"
    else
        echo "    in Wine's code: suppress it in tools/*.supp, with the reason"
    fi
    echo "    stack: $(echo $places | cut -c1-300)"
done | tee "$REPORTS/reports-by-kind.txt"
in_ours=$(grep -c 'through our code' "$REPORTS/reports-by-kind.txt")
leaks=$(cat "$REPORTS"/asan.* 2>/dev/null | awk '/Suppressions used/ { s = 1 } /^-+$/ { s = 0 }
                                                 s && $1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }')
rules=$(cat "$TOP/tools/ubsan.supp" "$TOP/tools/lsan.supp" | grep -cE '^[a-z_-]+:')

{
    echo "date=$(date -u '+%Y-%m-%d')"
    echo "seconds=$took"
    echo "tests=$(tail -1 "$REPORTS/tests.txt")"
    echo "reports=$reports"
    echo "kinds_ours=$in_ours"
    echo "suppression_rules=$rules"
    echo "suppressed_leaks=$leaks"
    [ $tests_ok = 0 ] && [ $reports = 0 ] && echo "result=PASS" || echo "result=FAIL"
} >"$REPORTS/summary.txt"

say "$(tail -1 "$REPORTS/tests.txt") in ${took}s; $reports sanitizer report(s), $in_ours kind(s) in our code;" \
    "$rules suppression rule(s) for Wine's code"
grep -qx result=PASS "$REPORTS/summary.txt"

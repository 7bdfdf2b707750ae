#!/bin/sh
# tests/stock-expected/$WINE_SERIES.txt is true of the installed stock Wine:
# every conformance test run on it (make check-stock) either passes or
# fails as that file says, and every test the file lists exists and does
# fail there (a listed test that passes has a reason that is not true).
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/config.sh"
list="$TOP/tests/stock-expected/$WINE_SERIES.txt"
[ -f "$list" ] || { echo "tests/stock-expected/$WINE_SERIES.txt is missing"; exit 1; }
out="$TESTBIN/host/stock_expected.out"
mkdir -p "$(dirname "$out")"
tests=$(cd "$TOP/tests" && ls conformance/*.c | sed 's/\.c$//')
rc=0
sh "$TOP/tools/runtests.sh" --stock $tests >"$out" 2>&1 || rc=$?
cat "$out"
fail=0
[ $rc = 0 ] || { echo "make check-stock: a failure tests/stock-expected/$WINE_SERIES.txt does not list (exit $rc)"; fail=1; }
for t in $(grep -v '^#' "$list" | awk 'NF { print $1 }'); do
    [ -f "$TOP/tests/$t.c" ] || [ -f "$TOP/tests/$t.sh" ] || { echo "$t is listed but does not exist"; fail=1; continue; }
    grep -q "^FAIL $t (.*expected on stock Wine: " "$out" ||
        { echo "$t is listed as failing on stock Wine $WINE_VERSION, but it did not fail"; fail=1; }
done
[ $fail = 0 ] && echo "stock Wine $WINE_VERSION: every failure is listed with its reason, every listed test fails"
exit $fail

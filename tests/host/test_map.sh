#!/bin/sh
# docs/TESTS.md stays true: every catalogue id (R-, W-, C-, A-) used in
# tests/ has its line there, the test that line names exists and mentions
# the id, and no id a test uses is still listed as unchecked.
set -eu
map="$TOP/docs/TESTS.md"
id_re='\b[RWCA]-[0-9]{2}\b'
bad=0

used=$(grep -rhoE "$id_re" "$TOP/tests" | sort -u)
# "| ID | conformance/NAME |" or "| ID | host/NAME |"
mapped=$(sed -n 's/^| \([RWCA]-[0-9][0-9]\) | \(\(conformance\|host\)\/[a-z_0-9]*\) |.*/\1 \2/p' "$map")
unchecked=$(sed -n '/^## Ids no test checks yet/,/^## /s/^| \([RWCA]-[0-9][0-9]\) |.*/\1/p' "$map")

for id in $used; do
    if ! echo "$mapped" | grep -q "^$id "; then
        echo "$id is used in tests/ ($(grep -rlwE "$id" "$TOP/tests" | sed "s|^$TOP/||" | paste -sd' ')) but has no line in docs/TESTS.md"
        bad=1
    fi
    if echo "$unchecked" | grep -qx "$id"; then
        echo "$id is listed as checked by no test in docs/TESTS.md, but tests/ use it"
        bad=1
    fi
done

echo "$mapped" | while read -r id test; do
    [ -n "$id" ] || continue
    src=$(ls "$TOP/tests/$test.c" "$TOP/tests/$test.sh" 2>/dev/null | head -1)
    if [ -z "$src" ]; then
        echo "docs/TESTS.md: $id names $test, which does not exist"
        exit 1
    fi
    grep -qwE "$id" "$src" || { echo "docs/TESTS.md: $id names $test, which does not mention it"; exit 1; }
done || bad=1

[ $bad = 0 ] && echo "$(echo "$used" | wc -w) ids used in tests/, each mapped in docs/TESTS.md"
exit $bad

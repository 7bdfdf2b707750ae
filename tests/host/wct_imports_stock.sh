#!/bin/sh
# On stock Wine 8.0 a program importing the four Wait Chain Traversal
# functions aborts (CloseThreadWaitChainSession is not exported); on the
# layer the same .exe runs and passes (conformance/wct_imports).
set -eu
exe="$TESTBIN/conformance/wct_imports.exe"
[ -f "$exe" ] || { echo "run conformance/wct_imports first"; exit 77; }
out="$TESTBIN/host/wct_imports_stock.out"
"$LAYER" --stock "$exe" >"$out" 2>&1 || true
if grep -q "tests executed" "$out"; then
    echo "stock Wine ran wct_imports.exe to the end: is the installed Wine patched?"
    exit 1
fi
grep -q "unimplemented function advapi32.dll.CloseThreadWaitChainSession" \
    "$out" || { cat "$out"; exit 1; }
echo "stock Wine: aborts at CloseThreadWaitChainSession, as expected"
"$LAYER" --stock --kill

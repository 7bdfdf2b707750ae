#!/bin/sh
# The make targets: make help lists them and each exists, as does every
# one ./configure --help advertises; make check-stock writes its logs apart
# from make check's and marks the failures expected on stock Wine; make
# bench's table says why stock Wine has no figure instead of "failed".
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
dir="$TESTBIN/host/make_targets"
rm -rf "$dir"
mkdir -p "$dir"
fail=0

exists() {
    if make -C "$TOP" -n "$1" >/dev/null 2>&1; then return 0; fi
    echo "$2 lists 'make $1', which does not exist"; fail=1
}
helped=$(make -s -C "$TOP" help | sed -n 's/^make \([a-z0-9-]*\) .*/\1/p')
for t in check check-stock check-debian13 demo bench install uninstall deb patches clean; do
    echo "$helped" | grep -qx "$t" || { echo "make help does not list $t"; fail=1; }
done
for t in $helped; do exists "$t" "make help"; done
echo "make help: $(echo $helped)"
advertised=$(cd "$TOP" && ./configure --help | sed -n 's/^  make \([a-z0-9-]*\) .*/\1/p')
[ -n "$advertised" ] || { echo "./configure --help advertises no target"; fail=1; }
for t in $advertised; do exists "$t" "./configure --help"; done
echo "./configure --help: $(echo $advertised)"

# check-stock's logs, and its expected failures
layer_log="$TESTBIN/conformance/wct.log"
[ -f "$layer_log" ] || { mkdir -p "$(dirname "$layer_log")"; echo "layer" >"$layer_log"; }
before=$(md5sum <"$layer_log")
rc=0
sh "$TOP/tools/runtests.sh" --stock conformance/wct >"$dir/stock.out" 2>&1 || rc=$?
cat "$dir/stock.out"
[ "$(md5sum <"$layer_log")" = "$before" ] && echo "the layer's log is untouched" ||
    { echo "make check-stock overwrote $layer_log"; fail=1; }
grep -q 'Wait Chain Traversal is not available' "$TESTBIN-stock/conformance/wct.log" &&
    echo "the stock log is $TESTBIN-stock/conformance/wct.log" || { echo "no stock log"; fail=1; }
grep -q '^FAIL conformance/wct .*expected on stock Wine: no Wait Chain Traversal' "$dir/stock.out" &&
    grep -q '1 of them expected on stock Wine' "$dir/stock.out" && [ $rc = 0 ] ||
    { echo "the expected failure is not marked so (exit $rc)"; fail=1; }

# the benchmark table, from figures like stock Wine's and the layer's
printf 'mutex_wait_release 50.0 ns\n# Wait Chain Traversal not supported\n' >"$dir/wct.stock"
printf 'mutex_wait_release 40.0 ns\nwct_chain_1_nodes 900.0 ns\n' >"$dir/wct.layer"
BENCHBIN="$dir" sh "$TOP/tools/bench.sh" --table wct >"$dir/table"
cat "$dir/table"
grep -q 'mutex_wait_release .* 1.250x' "$dir/table" && grep -q 'wct_chain_1_nodes  *none ' "$dir/table" &&
    grep -qF "(stock Wine ${WINE_SERIES#wine-}: Wait Chain Traversal not supported)" "$dir/table" &&
    grep -qF "stock ${WINE_SERIES#wine-} " "$dir/table" && ! grep -q failed "$dir/table" ||
    { echo "the table does not say why stock Wine has no figure"; fail=1; }
exit $fail

#!/bin/sh
# The layer loads libwine.so.1 as stock Wine does (from ntdll's own
# directory: the build tree's libs/wine, the installed Wine's library):
#   - SymInitialize prints no fixme line that stock Wine does not print
#     (without libwine, dbghelp printed 33 fixme:dbghelp:elf_search_auxv);
#   - a Winelib module linked with -lwine loads, and libwine has the
#     command line from ntdll, as on stock Wine (where Wine has a libwine:
#     8.0; Wine 10 has none).
set -eu
[ -z "$STOCK" ] || { echo "layer only (it compares with stock Wine itself)"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/libwine"
mkdir -p "$dir"
build_exe "$TOP/tests/host/programs/libwine.c" "$dir/libwine.exe"
build_winelib "$dir"
fail=0

# the fixme lines of a run, without the thread id that starts each
fixmes() { sed -n 's/^[0-9a-f]*:\(fixme:.*\)/\1/p' "$1" | tr -d '\r' | sort -u; }

unset WINEDEBUG
for wine in stock layer; do
    opt=""; [ $wine = stock ] && opt=--stock
    (cd "$dir" && "$LAYER" $opt libwine.exe sym >"$dir/sym.$wine.out" 2>"$dir/sym.$wine.err") || true
    (cd "$dir" && "$LAYER" $opt libwine.exe args one "two words" >"$dir/args.$wine.out" 2>"$dir/args.$wine.err") || true
done
"$LAYER" --stock --kill

for wine in stock layer; do
    grep -q '^libwine: sym ok' "$dir/sym.$wine.out" && echo "$wine: SymInitialize works" ||
        { echo "$wine: SymInitialize failed"; cat "$dir/sym.$wine.out" "$dir/sym.$wine.err"; fail=1; }
done
fixmes "$dir/sym.stock.err" >"$dir/sym.stock.fixme"
fixmes "$dir/sym.layer.err" >"$dir/sym.layer.fixme"
extra=$(comm -13 "$dir/sym.stock.fixme" "$dir/sym.layer.fixme")
if [ -n "$extra" ]; then
    echo "SymInitialize on the layer prints $(grep -c fixme "$dir/sym.layer.err") fixme lines, stock Wine $(grep -c fixme "$dir/sym.stock.err" || true); these only on the layer:"
    echo "$extra" | head -5
    fail=1
else
    echo "SymInitialize: no fixme line that stock Wine does not print"
fi

if [ ! -d "$STAGED/libs/wine" ]; then
    # Wine 10 has no libwine (neither has its stock Wine): no module can link it
    echo "no libwine in this Wine: the Winelib module using it is not built"
else
    stock=$(tr -d '\r' <"$dir/args.stock.out")
    layer=$(tr -d '\r' <"$dir/args.layer.out")
    echo "stock: $stock"
    echo "layer: $layer"
    case $stock in "libwine: argc "*", last two words") ;; *) echo "stock Wine does not load the Winelib module"; fail=1 ;; esac
    [ "$layer" = "$stock" ] && echo "the Winelib module using libwine works as on stock Wine" ||
        { echo "the Winelib module using libwine does not work on the layer"; cat "$dir/args.layer.err" | tail -5; fail=1; }
fi

"$LAYER" --kill
exit $fail

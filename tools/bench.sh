#!/bin/sh
# Benchmark driver: builds tests/bench/NAME.c, runs each on stock Wine 8.0
# and on the layer in one invocation, and prints both figures and their ratio
# (stock / layer: above 1 means the layer is faster, for times).
#
# Usage: tools/bench.sh [NAME...]     (default: every benchmark)
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/testlib.sh"
BENCHBIN="$TESTBIN/bench"
: "${WINEDEBUG:=-all}"
export WINEDEBUG

mkdir -p "$BENCHBIN"
build_winelib "$BENCHBIN"

names=${*:-$(cd "$TOP/tests/bench" && ls *.c | sed 's/\.c$//')}
for name in $names; do
    exe="$BENCHBIN/$name.exe"
    build_exe "$TOP/tests/bench/$name.c" "$exe" >"$BENCHBIN/$name.build.log" 2>&1 ||
        { cat "$BENCHBIN/$name.build.log"; exit 1; }
    for flavour in stock layer; do
        case $flavour in
        stock) opt=--stock label="stock Wine 8.0" ;;
        *)     opt="" label="the layer" ;;
        esac
        echo "bench: $name on $label" >&2
        out="$BENCHBIN/$name.$flavour"
        (cd "$BENCHBIN" && "$LAYER" $opt "$exe") >"$out" 2>"$out.err" || true
        "$LAYER" $opt --kill
        [ -s "$out" ] || echo "bench: $name printed nothing on $flavour; its messages are in $out.err" >&2
    done

    printf '\n%-28s %14s %14s %9s\n' "$name" "stock 8.0" "layer" "stock/layer"
    # the stock figures are read first, and may be none at all
    awk -v stock_file="$BENCHBIN/$name.stock" '
         BEGIN { while ((getline line < stock_file) > 0) {
                     sub(/\r$/, "", line); split(line, f, " ")
                     if (f[1] !~ /^#/) { stock[f[1]] = f[2]; unit[f[1]] = f[3] } } }
         { sub(/\r$/, "") }
         $1 !~ /^#/ {
             s = ($1 in stock) ? sprintf("%.1f %s", stock[$1], unit[$1]) : "failed"
             r = ($1 in stock && $2 > 0 && unit[$1] == "ns") ? sprintf("%.2fx", stock[$1] / $2) : ""
             printf "%-28s %14s %14s %9s\n", $1, s, sprintf("%.1f %s", $2, $3), r
         }' "$BENCHBIN/$name.layer"
done

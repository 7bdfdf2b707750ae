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
    echo "bench: $name on stock Wine 8.0" >&2
    (cd "$BENCHBIN" && "$LAYER" --stock "$exe") >"$BENCHBIN/$name.stock" 2>/dev/null || true
    "$LAYER" --stock --kill
    echo "bench: $name on the layer" >&2
    (cd "$BENCHBIN" && "$LAYER" "$exe") >"$BENCHBIN/$name.layer" 2>/dev/null || true
    "$LAYER" --kill

    printf '\n%-28s %14s %14s %9s\n' "$name" "stock 8.0" "layer" "stock/layer"
    awk '{ sub(/\r$/, "") }
         FNR == NR { if ($1 !~ /^#/) { stock[$1] = $2; unit[$1] = $3 } next }
         $1 !~ /^#/ {
             s = ($1 in stock) ? sprintf("%.1f %s", stock[$1], unit[$1]) : "failed"
             r = ($1 in stock && $2 > 0 && unit[$1] == "ns") ? sprintf("%.2fx", stock[$1] / $2) : ""
             printf "%-28s %14s %14s %9s\n", $1, s, sprintf("%.1f %s", $2, $3), r
         }' "$BENCHBIN/$name.stock" "$BENCHBIN/$name.layer"
done

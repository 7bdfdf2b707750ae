#!/bin/sh
# Benchmark driver: builds tests/bench/NAME.c, runs each on stock Wine 8.0
# and on the layer in one invocation, and prints both figures and their ratio
# (stock / layer: above 1 means the layer is faster, for times).
#
# Usage: tools/bench.sh [NAME...]     (default: every benchmark)
#        tools/bench.sh --table NAME  only the table, from the figures of the
#                                     last run (BENCHBIN/NAME.stock, NAME.layer)
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/testlib.sh"
BENCHBIN="${BENCHBIN:-$TESTBIN/bench}"
: "${WINEDEBUG:=-all}"
export WINEDEBUG

# table NAME: both figures of each line and their ratio
table() {
    printf '\n%-28s %14s %14s %9s\n' "$1" "stock 8.0" "layer" "stock/layer"
    # the stock figures are read first, and may be none at all: then its
    # own words (# lines) say why, under the table
    awk -v stock_file="$BENCHBIN/$1.stock" '
         BEGIN { while ((getline line < stock_file) > 0) {
                     sub(/\r$/, "", line); split(line, f, " ")
                     if (f[1] ~ /^#/) { sub(/^# */, "", line); notes[++n] = line }
                     else if (f[1] != "") { stock[f[1]] = f[2]; unit[f[1]] = f[3]; m++ } } }
         { sub(/\r$/, "") }
         $1 !~ /^#/ {
             s = ($1 in stock) ? sprintf("%.1f %s", stock[$1], unit[$1]) : "none"
             r = ($1 in stock && $2 > 0 && unit[$1] == "ns") ? sprintf("%.2fx", stock[$1] / $2) : ""
             printf "%-28s %14s %14s %9s\n", $1, s, sprintf("%.1f %s", $2, $3), r
         }
         END { for (i = 1; i <= n; i++) printf "  (stock Wine 8.0: %s)\n", notes[i]
               if (!n && !m) printf "  (stock Wine 8.0 printed nothing: see %s.err)\n", stock_file }' "$BENCHBIN/$1.layer"
}

if [ "${1:-}" = --table ]; then
    table "$2"
    exit 0
fi

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

    table "$name"
done

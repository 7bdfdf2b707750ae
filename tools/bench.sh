#!/bin/sh
# Benchmark driver: builds tests/bench/NAME.c, runs each on the installed
# stock Wine (8.0 or 10.0, the one the layer is built for) and on the layer
# in one invocation, and prints both figures and their ratio
# (stock / layer: above 1 means the layer is faster, for times).
#
# Usage: tools/bench.sh [NAME...]     (default: every benchmark)
#   start: a program's start through the launcher and through the loader
#   alone, with another prefix's wineserver running (tools/bench_start.sh)
#   NAME32 (backtrace_bench32): tests/bench/NAME.c built for i386, a 32-bit
#   program in WoW64 mode; stock Wine runs it with its own i386 modules,
#   built from the pristine source by tools/stock_i386.sh (make
#   stock-i386), which this runs first when they are not built
#        tools/bench.sh --table NAME  only the table, from the figures of the
#                                     last run (BENCHBIN/NAME.stock, NAME.layer)
#   BENCH_RUNS=N   runs of each flavour, interleaved (stock, layer, stock,
#                  ...); each figure is the median of its runs (default 5)
#
# Each benchmark run writes its table, with the method, the machine and
# the date, into docs/BENCHMARKS.md, in place of that benchmark's table
# for the same Wine (BENCH_RECORD=no: not).
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/testlib.sh"
BENCHBIN="${BENCHBIN:-$TESTBIN/bench}"
RUNS=${BENCH_RUNS:-5}
: "${WINEDEBUG:=-all}"
export WINEDEBUG
# the stock Wine the layer is compared with: "8.0", "10.0"
STOCK_NAME=${WINE_SERIES#wine-}

# table NAME [md]: both figures of each line and their ratio, as text or
# as a markdown table
table() {
    md=${2:-}
    if [ -n "$md" ]; then
        printf '| %s | stock %s | layer | stock/layer |\n|---|---|---|---|\n' "$1" "$STOCK_NAME"
    else
        printf '\n%-28s %14s %14s %11s   (medians of %s interleaved runs)\n' "$1" "stock $STOCK_NAME" "layer" "stock/layer" "$RUNS"
    fi
    # the stock figures are read first, and may be none at all: then its
    # own words (# lines) say why, under the table
    awk -v stock_file="$BENCHBIN/$1.stock" -v wine="$STOCK_NAME" -v md="$md" '
         BEGIN { while ((getline line < stock_file) > 0) {
                     sub(/\r$/, "", line); split(line, f, " ")
                     if (f[1] ~ /^#/) { sub(/^# */, "", line); notes[++n] = line }
                     else if (f[1] != "") { stock[f[1]] = f[2]; unit[f[1]] = f[3]; m++ } } }
         { sub(/\r$/, "") }
         $1 !~ /^#/ {
             s = ($1 in stock) ? sprintf("%.1f %s", stock[$1], unit[$1]) : "none"
             r = ($1 in stock && $2 > 0 && (unit[$1] == "ns" || unit[$1] == "ms")) ? sprintf("%.3fx", stock[$1] / $2) : ""
             if (md) printf "| %s | %s | %s | %s |\n", $1, s, sprintf("%.1f %s", $2, $3), r
             else printf "%-28s %14s %14s %11s\n", $1, s, sprintf("%.1f %s", $2, $3), r
         }
         END { if (md && n) print ""
               for (i = 1; i <= n; i++) printf md ? "Stock Wine %s: %s\n" : "  (stock Wine %s: %s)\n", wine, notes[i]
               if (!n && !m) printf "  (stock Wine %s printed nothing: see %s.N.err)\n", wine, stock_file }' "$BENCHBIN/$1.layer"
}

# record NAME: the table of NAME, in markdown with how and where it was
# measured, in place of the one docs/BENCHMARKS.md holds for NAME on this
# Wine (between its two marker lines), or after the others
record() {
    [ "${BENCH_RECORD:-yes}" != no ] || return 0
    doc="$TOP/docs/BENCHMARKS.md" key="$1 on stock Wine $STOCK_NAME"
    [ -f "$doc" ] || printf '%s\n' "# Benchmarks" "" \
        "Written by \`make bench\` (tools/bench.sh): one table a benchmark and Wine," \
        "each replaced when that benchmark runs again there; not edited by hand." \
        "Stock Wine against the layer, each figure the median of interleaved runs;" \
        "stock/layer above 1: the layer is faster. How each is measured and what" \
        "it means: docs/DEVELOPER_GUIDE.md, \"Benchmarks\"." >"$doc"
    block="$BENCHBIN/$1.record.md"
    {
        echo "<!-- begin $key -->"
        echo "## $key"
        echo
        echo "$(date -u +%Y-%m-%d), Debian $(cat /etc/debian_version), $(nproc) cores" \
             "($(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1)), Linux $(uname -r)," \
             "load average $LOAD_BEFORE before and $(cut -d' ' -f1 /proc/loadavg) after;" \
             "medians of $RUNS interleaved runs."
        echo
        table "$1" md
        echo "<!-- end $key -->"
    } >"$block"
    awk -v key="$key" -v block="$block" '
        $0 == "<!-- begin " key " -->" { skip = 1; while ((getline line < block) > 0) print line; done = 1; next }
        skip && $0 == "<!-- end " key " -->" { skip = 0; next }
        !skip { print }
        END { if (!done) { print ""; while ((getline line < block) > 0) print line } }' "$doc" >"$doc.tmp"
    mv "$doc.tmp" "$doc"
}

case $RUNS in
    ''|*[!0-9]*|0) echo "bench: BENCH_RUNS must be a positive number, not '$RUNS'" >&2; exit 1 ;;
esac

if [ "${1:-}" = --table ]; then
    table "$2"
    exit 0
fi

mkdir -p "$BENCHBIN"
build_winelib "$BENCHBIN"
LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)

# run_once NAME FLAVOUR RUN: one run, its "NAME VALUE UNIT" lines in
# $BENCHBIN/NAME.FLAVOUR.RUN and its messages in the same name with .err
run_once() {
    name=$1 flavour=$2 run=$3
    case $flavour in
    stock) opt=--stock ;;
    *)     opt="" ;;
    esac
    out="$BENCHBIN/$name.$flavour.$run"
    (cd "$BENCHBIN" && WINE_LAYER_STOCK_I386="$STOCK_I386" "$LAYER" $opt "$BENCHBIN/$name.exe") >"$out" 2>"$out.err" ||
        true
    "$LAYER" $opt --kill
    [ -s "$out" ] || echo "bench: $name printed nothing on $flavour (run $run); its messages are in $out.err" >&2
}

# median NAME FLAVOUR: the median of each figure over the runs, into
# $BENCHBIN/NAME.FLAVOUR; comment lines of the first run are kept
median() {
    name=$1 flavour=$2
    i=1 files=""
    while [ $i -le "$RUNS" ]; do files="$files $BENCHBIN/$name.$flavour.$i"; i=$((i + 1)); done
    # shellcheck disable=SC2086
    awk '{ sub(/\r$/, "") }
         /^#/ { if (FNR == NR) comments[++nc] = $0; next }
         NF >= 3 { if (!($1 in unit)) { order[++n] = $1; unit[$1] = $3 }
                   v[$1, ++count[$1]] = $2 }
         END {
             for (c = 1; c <= nc; c++) print comments[c]
             for (k = 1; k <= n; k++) {
                 m = order[k]; c = count[m]
                 for (i = 1; i <= c; i++) s[i] = v[m, i] + 0
                 for (i = 2; i <= c; i++) for (j = i; j > 1 && s[j - 1] > s[j]; j--) {
                     t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
                 med = c % 2 ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2
                 printf "%s %.2f %s\n", m, med, unit[m]
             }
         }' $files >"$BENCHBIN/$name.$flavour"
}

# stock Wine's i386 modules, for the 32-bit benchmarks (tools/stock_i386.sh),
# unless Debian's wine32 is there to run them
: "${WINE_SOURCE:=$TOP/$WINE_SOURCE_DEFAULT}"
STOCK_I386_DIR="$TOP/build/stock-i386"
names=${*:-"$(cd "$TOP/tests/bench" && ls *.c | sed 's/\.c$//') backtrace_bench32 start"}
for name in $names; do
    if [ "$name" = start ]; then
        # a program's start, timed from outside (tools/bench_start.sh)
        run=1
        while [ $run -le "$RUNS" ]; do
            echo "bench: start, run $run of $RUNS (stock Wine $STOCK_NAME, then the layer)" >&2
            for flavour in stock layer; do
                opt=""; [ $flavour = layer ] || opt=--stock
                "$TOP/tools/bench_start.sh" $opt "$BENCHBIN/start" >"$BENCHBIN/start.$flavour.$run" \
                    2>"$BENCHBIN/start.$flavour.$run.err" || cat "$BENCHBIN/start.$flavour.$run.err" >&2
            done
            run=$((run + 1))
        done
        median start stock
        median start layer
        table start
        record start
        continue
    fi
    exe="$BENCHBIN/$name.exe" src="$TOP/tests/bench/$name.c" arch=x86_64 STOCK_I386=""
    if [ ! -f "$src" ] && [ "${name%32}" != "$name" ] && [ -f "$TOP/tests/bench/${name%32}.c" ]; then
        src="$TOP/tests/bench/${name%32}.c" arch=i386
        rc=0; "$LAYER" --ia32 >/dev/null 2>&1 || rc=$?
        if [ $rc = 126 ]; then
            echo "bench: $name skipped: this kernel runs no 32-bit code ('loader/wine-layer --ia32' says why)" >&2
            continue
        fi
        if [ ! -x /usr/lib/wine/wine ]; then
            "$TOP/tools/stock_i386.sh" "$WINE_SOURCE" "$STAGED" "$STOCK_I386_DIR" "$(nproc)" >&2
            STOCK_I386="$STOCK_I386_DIR/lib"
        fi
    fi
    [ -f "$src" ] || { echo "bench: no benchmark $name (tests/bench/$name.c)" >&2; exit 1; }
    build_exe "$src" "$exe" $arch >"$BENCHBIN/$name.build.log" 2>&1 ||
        { cat "$BENCHBIN/$name.build.log"; exit 1; }
    run=1
    while [ $run -le "$RUNS" ]; do
        echo "bench: $name, run $run of $RUNS (stock Wine $STOCK_NAME, then the layer)" >&2
        run_once "$name" stock $run
        run_once "$name" layer $run
        run=$((run + 1))
    done
    median "$name" stock
    median "$name" layer

    table "$name"
    record "$name"
done

#!/bin/sh
# The start benchmark (tools/bench.sh start): how long a program that does
# nothing takes to start and exit, through the launcher and through the
# loader alone with the launcher's environment, while the wineserver of
# another prefix runs (a user with a second Wine program open: the
# launcher looks at every wineserver of the machine). The prefix's own
# wineserver is started first and kept, as it is between a user's
# programs. Prints "NAME VALUE ms" lines, as the benchmark programs do.
#
# Usage: tools/bench_start.sh [--stock] DIR   (DIR: scratch files and prefixes)
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/testlib.sh"
opt=""
[ "${1:-}" = --stock ] && { opt=--stock; shift; }
dir=$(mkdir -p "$1" && cd "$1" && pwd)
STARTS=${BENCH_STARTS:-20}

mkdir -p "$dir"
[ -f "$dir/empty.exe" ] || {
    printf 'int main(void) { return 0; }\n' >"$dir/empty.c"
    x86_64-w64-mingw32-gcc -o "$dir/empty.exe" "$dir/empty.c"
}
export WINEPREFIX="$dir/prefix${opt:+-stock}"
other="$dir/other-prefix${opt:+-stock}"

# the other prefix's wineserver, kept running for the whole benchmark
server=$("$LAYER" $opt --env | sed -n 's/^WINESERVER=//p')
mkdir -p "$other"
WINEPREFIX="$other" "$server" -p 2>/dev/null || true  # (or it runs already)
"$LAYER" $opt "$dir/empty.exe"  # makes the prefix (once), starts its wineserver

# the loader alone runs in the environment the launcher gives it
loader_env=$("$LAYER" $opt --env | sed 's/^/export /')
run_loader() (
    eval "$loader_env"
    export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml=}"
    exec "$WINELOADER" "$dir/empty.exe"
)
now() { date +%s%N; }

# STARTS of each, interleaved, so that both see the same machine (the
# prefix's services may still be starting at first)
launcher=0 loader=0 i=0
while [ $i -lt "$STARTS" ]; do
    t0=$(now); "$LAYER" $opt "$dir/empty.exe" >/dev/null 2>&1 || true
    t1=$(now); run_loader >/dev/null 2>&1 || true
    t2=$(now)
    launcher=$((launcher + t1 - t0)) loader=$((loader + t2 - t1)) i=$((i + 1))
done
ms() { echo "$1" | awk -v n="$STARTS" '{ printf "%.1f", $1 / n / 1e6 }'; }
echo "start_launcher $(ms $launcher) ms"
echo "start_loader $(ms $loader) ms"

"$server" -k 2>/dev/null || true
WINEPREFIX="$other" "$server" -k 2>/dev/null || true

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
dir=$1
STARTS=${BENCH_STARTS:-20}

mkdir -p "$dir"
[ -f "$dir/empty.exe" ] || {
    printf 'int main(void) { return 0; }\n' >"$dir/empty.c"
    x86_64-w64-mingw32-gcc -o "$dir/empty.exe" "$dir/empty.c"
}
export WINEPREFIX="$dir/prefix${opt:+-stock}"
other="$dir/other-prefix${opt:+-stock}"

# the other prefix's wineserver, kept running for the whole benchmark
mkdir -p "$other"
WINEPREFIX="$other" "$("$LAYER" $opt --env | sed -n 's/^WINESERVER=//p')" -p
"$LAYER" $opt "$dir/empty.exe"  # makes the prefix (once), starts its wineserver

# ms_per_start CMD...: the mean wall time of STARTS runs of CMD
ms_per_start() {
    t0=$(date +%s%N)
    i=0
    while [ $i -lt "$STARTS" ]; do "$@" >/dev/null 2>&1 || true; i=$((i + 1)); done
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / STARTS / 1000 )) | awk '{ printf "%.1f\n", $1 / 1000 }'
}

echo "start_launcher $(ms_per_start "$LAYER" $opt "$dir/empty.exe") ms"
# the loader alone, in the environment the launcher gives it
eval "$("$LAYER" $opt --env | sed 's/^/export /')"
export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml=}"
echo "start_loader $(ms_per_start "$WINELOADER" "$dir/empty.exe") ms"

"$WINESERVER" -k 2>/dev/null || true
WINEPREFIX="$other" "$WINESERVER" -k 2>/dev/null || true

#!/bin/sh
# make stock-i386: stock Wine's own i386 modules, the baseline of the 32-bit
# benchmarks. Debian's wine64 has no i386 modules and its wine32 cannot be
# installed here (docs/USER_GUIDE.md, "32-bit programs"), so stock Wine runs
# a 32-bit program in WoW64 mode only with i386 modules built from its source: this
# builds them from the pristine Debian source, with no patch of ours, into
# DEST/wine, and gathers them in DEST/lib/i386-windows, which the launcher
# takes for stock Wine's with WINE_LAYER_STOCK_I386=DEST/lib (wine-layer
# --help). Done once (DEST/.complete); again when the source is newer.
#
# Usage: tools/stock_i386.sh PRISTINE STAGED DEST JOBS
#   PRISTINE  Debian's unpacked Wine source (tools/setup.sh fetches it)
#   STAGED    the layer's staged tree, whose built tools (winebuild,
#             winegcc, widl...) build this one too
#   DEST      where the tree and the modules go (build/stock-i386)
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
PRISTINE=$(cd "${1:?usage: tools/stock_i386.sh PRISTINE STAGED DEST JOBS}" && pwd)
STAGED=$(cd "${2:?missing STAGED}" && pwd)
DEST=${3:?missing DEST}
JOBS=${4:-2}
TREE=$DEST/wine
LOG=$DEST/build.log
# what a 32-bit benchmark needs to start and run: ntdll (the walker under
# test), kernel32 and kernelbase, and the C runtime
MODULES="ntdll kernel32 kernelbase msvcrt"

say() { echo "stock-i386: $*"; }
die() { echo "stock-i386: error: $*" >&2; exit 1; }

[ -f "$PRISTINE/.complete" ] || die "$PRISTINE is not a complete Wine source (run tools/setup.sh)"
[ -x "$STAGED/tools/winebuild/winebuild" ] || die "the layer is not built in $STAGED (run make)"

if [ -f "$DEST/.complete" ] && [ "$DEST/.complete" -nt "$PRISTINE/.complete" ]; then
    exit 0
fi

mkdir -p "$DEST"
rm -rf "$TREE" "$DEST/lib" "$DEST/.complete"
say "copying the pristine Wine source to $TREE (no patch of the layer)"
mkdir -p "$TREE"
(cd "$PRISTINE" && tar cf - --exclude=./debian/.pc .) | (cd "$TREE" && tar xf -) &&
    [ -f "$TREE/configure.ac" ] || die "copying $PRISTINE to $TREE failed"
say "generating and configuring it (a few minutes; log in $DEST/stage.log)"
"$TOP/tools/stage.sh" --prepare "$TREE" --with-wine-tools="$STAGED" >"$DEST/stage.log" 2>&1 ||
    { tail -20 "$DEST/stage.log" >&2; die "generating or configuring $TREE failed (the end of $DEST/stage.log is above)"; }

dirs=""
targets=""
for m in $MODULES; do
    dirs="$dirs dlls/$m"
    targets="$targets dlls/$m/i386-windows/$m.dll"
done
# shellcheck disable=SC2086
"$TOP/tools/images.sh" "$TREE" $dirs
say "building stock Wine's i386$(echo "$MODULES" | sed 's/^/ /') (a few minutes on 2 cores; log in $LOG)"
start=$(date +%s)
# shellcheck disable=SC2086
if ! make -C "$TREE" -j"$JOBS" $targets >"$LOG" 2>&1; then
    tail -30 "$LOG" >&2
    die "the build failed (the end of $LOG is above)"
fi
say "built in $(( $(date +%s) - start ))s"

mkdir -p "$DEST/lib/i386-windows"
for m in $MODULES; do
    cp -p "$TREE/dlls/$m/i386-windows/$m.dll" "$DEST/lib/i386-windows/"
done
touch "$DEST/.complete"
say "stock Wine's i386 modules are in $DEST/lib (WINE_LAYER_STOCK_I386=$(cd "$DEST/lib" && pwd))"

#!/bin/sh
# make wow64: the rest of Wine's i386 PE modules, for users' 32-bit
# programs (WoW64 mode: i386 modules in a 64-bit process). 'make' builds
# only the i386 modules the layer replaces and those its tests need; this
# builds every module of Wine that has an i386 side, in steps of about 50,
# one progress line each, then the launcher puts them into each prefix's
# syswow64 at its next start.
#
# Usage: tools/wow64.sh STAGED JOBS
# A module that does not build is named at the end (exit 1); the others are
# kept. Compiler output: STAGED/wow64.log.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

STAGED=$1
JOBS=$2
LOG="$STAGED/wow64.log"
STEP=50

say() { echo "wow64: $*"; }
die() { echo "wow64: error: $*" >&2; exit 1; }

[ -f "$STAGED/Makefile" ] && grep -q '^PE_ARCHS = .*i386' "$STAGED/Makefile" ||
    die "$STAGED is not a tree configured with i386 modules: run 'make' first"

"$(dirname "$0")/../loader/wine-layer" --ia32 >/dev/null 2>&1 || [ $? != 126 ] ||
    say "note: this kernel runs no 32-bit code ('loader/wine-layer --ia32' says more): the modules" \
        "build, but no 32-bit program can run on this machine"

start=$(date +%s)
elapsed() { echo "$(( ($(date +%s) - start) / 60 ))m$(( ($(date +%s) - start) % 60 ))s"; }

# every module directory with an i386 side: "DIR FILE" lines. wow64,
# wow64cpu and wow64win are the 64-bit side of WoW64 itself: Wine 10's
# makedep gives them no i386 target, Wine 8.0's does, and they do not build
# for i386 (nothing would load them there)
modules=$(sed -n 's|^\(dlls/[^/ ]*\)/all: .*|\1|p; s|^\(programs/[^/ ]*\)/all: .*|\1|p' "$STAGED/Makefile" |
    grep -v '^dlls/wow64\(cpu\|win\)\?$' |
    while read -r d; do
        t=$(sed -n "s|^$d/all: ||p" "$STAGED/Makefile" | tr ' ' '\n' | grep '/i386-windows/' | head -1)
        [ -n "$t" ] && echo "$d $t"
    done)
total=$(echo "$modules" | wc -l)
todo=$(echo "$modules" | while read -r d t; do [ -f "$STAGED/$t" ] || echo "$d $t"; done)
left=$(echo "$todo" | grep -c . || true)
say "$total modules of Wine have an i386 side; $((total - left)) are built, $left to build with $JOBS jobs"
[ "$left" = 0 ] && { say "nothing to do"; exit 0; }

say "icons, cursors and bitmaps from their SVG sources"
"$(dirname "$0")/images.sh" "$STAGED" $(echo "$todo" | cut -d' ' -f1)
"$(dirname "$0")/tables.sh" "$STAGED" $(echo "$todo" | cut -d' ' -f1)

: >"$LOG"
done_count=$((total - left)) failed=""
echo "$todo" | split -l $STEP - "$STAGED/.wow64-step."
for chunk in "$STAGED"/.wow64-step.*; do
    targets=$(cut -d' ' -f2 "$chunk")
    make -C "$STAGED" -k -j"$JOBS" $targets >>"$LOG" 2>&1 || true
    while read -r d t; do
        if [ -f "$STAGED/$t" ]; then done_count=$((done_count + 1)); else failed="$failed ${d#*/}"; fi
    done <"$chunk"
    rm -f "$chunk"
    date +%s.%N >"$STAGED/i386.stamp"  # the launcher's cue (tools/build.sh)
    say "$done_count of $total modules built ($(elapsed))"
done

if [ -n "$failed" ]; then
    say "these did not build (see $LOG):$failed"
    exit 1
fi
say "all $total i386 modules built in $(elapsed); 32-bit programs find them in their prefix's syswow64 from their next start"

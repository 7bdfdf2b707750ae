#!/bin/sh
# Build the modules the layer replaces in the staged Wine tree, plus the
# import libraries that the Windows test programs link with.
#
# Usage: tools/build.sh [--i386] STAGED JOBS "MODULES" "TEST_LIBS" "WINELIB_LIBS" ["SANITIZED"]
#   MODULES    built for x86_64 (and the Unix side)
#   --i386     build the i386 side instead (WoW64 mode, 32-bit programs):
#              those of MODULES that tools/config.sh lists in
#              I386_MODULES, the import libraries of TEST_LIBS and, where
#              the kernel runs 32-bit code, the modules of I386_RUNTIME
#              (make i386, which make check runs)
#   SANITIZED  TARGET=CHECKS words (make sanitize-build), for example
#              server/wineserver=address,undefined: TARGET and its objects
#              are compiled and linked with -fsanitize=CHECKS, through
#              target-specific flags in STAGED/sanitize.mk, read with Wine's
#              Makefile; changing them rebuilds those objects.
#   BUILD_CFLAGS=FLAGS (environment): compile the Unix side and both PE
#              sides with FLAGS instead of the configured "-g -O2" (the
#              series test builds each patch with -O0)
# The full compiler output goes to STAGED/build.log; on a failure its end is
# shown.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

# I386_MODULES, I386_RUNTIME; read first, as it also sets MODULES and the
# other lists, which the arguments give here
. "$(dirname "$0")/config.sh"

I386=""
[ "${1:-}" = --i386 ] && { I386=1; shift; }
STAGED=$1
JOBS=$2
MODULES=$3
TEST_LIBS=$4
WINELIB_LIBS=$5
SANITIZED=${6:-}
LOG="$STAGED/build.log"
MAKEFILES_USED=""

step() {
    what=$1 jobs=$2; shift 2
    start=$(date +%s)
    [ -z "${BUILD_CFLAGS:-}" ] ||
        set -- CFLAGS="$BUILD_CFLAGS" x86_64_CFLAGS="$BUILD_CFLAGS" i386_CFLAGS="$BUILD_CFLAGS" "$@"
    if ! make -C "$STAGED" $MAKEFILES_USED -j"$jobs" "$@" >>"$LOG" 2>&1; then
        echo "build: $what failed; the end of $LOG:" >&2
        tail -30 "$LOG" >&2
        exit 1
    fi
    took=$(( $(date +%s) - start ))
    [ "$took" -ge 5 ] && echo "build: $what (${took}s)"
    return 0
}

sanitize_mk() {
    for s in $SANITIZED; do
        target=${s%%=*} checks=${s#*=}
        objects=$(sed -n "s|^$target: ||p" "$STAGED/Makefile")
        [ -n "$objects" ] || { echo "build: no rule for $target in $STAGED/Makefile" >&2; exit 1; }
        echo "$objects: sanitize.mk"
        echo "$target: CFLAGS += -fno-omit-frame-pointer -fsanitize=$checks"
        echo "$target: LDFLAGS += -fsanitize=$checks"
    done
}

if [ -n "$SANITIZED" ]; then
    sanitize_mk >"$STAGED/sanitize.mk.new"
    if cmp -s "$STAGED/sanitize.mk.new" "$STAGED/sanitize.mk"; then
        rm "$STAGED/sanitize.mk.new"
    else
        mv "$STAGED/sanitize.mk.new" "$STAGED/sanitize.mk"
    fi
    MAKEFILES_USED="-f Makefile -f sanitize.mk"
fi

: >"$LOG"
# One bison run writes both X.tab.c and X.tab.h, but make may start it twice
# in a parallel build and compile a half-written header: make them one by one.
# A tree configured --with-wine-tools=DIR uses the tools built in DIR.
if grep -q '^toolsdir = $' "$STAGED/Makefile"; then
    parsers=$(cd "$STAGED" && ls tools/*/*.y | sed 's/\.y$/.tab.c/')
    step "parsers" 1 $parsers
    [ -x "$STAGED/tools/winebuild/winebuild" ] || echo "build: Wine's build tools (about half a minute, once)"
    # those that build modules (not winedump, sfnt2fon and winemaker, which
    # Wine's __tooldeps__ adds)
    step "Wine's build tools" "$JOBS" tools/all tools/widl/all tools/winebuild/all tools/winegcc/all tools/wmc/all \
        tools/wrc/all
fi

# What MODULE/all makes in the staged tree for one architecture: the PE
# files of i386-windows, or (x86_64) every other file, Unix side included.
arch_targets() {
    sed -n "s|^$1/all: ||p" "$STAGED/Makefile" | tr ' ' '\n' | case $2 in
        i386) grep '/i386-windows/' ;;
        *) grep -v '/i386-windows/' ;;
    esac || true  # none: said by the caller
}

build_x86_64() {
    targets=""
    for m in $MODULES; do targets="$targets $(arch_targets "$m" x86_64)"; done
    for l in $TEST_LIBS; do targets="$targets dlls/$l/x86_64-windows/lib$l.a"; done
    for l in $WINELIB_LIBS; do targets="$targets dlls/$l/lib$l.a"; done
    step "modules:$(echo "$MODULES" | tr -s ' ' | sed 's/^/ /')" "$JOBS" $targets
}

# i386: of MODULES, those the layer builds for i386 too (I386_MODULES); in
# the layer's own build (TEST_LIBS given), also the import libraries the
# 32-bit test programs link with and, where the kernel runs 32-bit code,
# the few modules of Wine that such a program needs to start (the rest:
# make wow64). A tree configured without i386 (--enable-archs) has none.
build_i386() {
    grep -q '^PE_ARCHS = .*i386' "$STAGED/Makefile" ||
        { echo "build: $STAGED is configured without i386 PE modules" >&2; exit 1; }
    build_i386=""
    for m in $MODULES; do
        case " $I386_MODULES " in *" $m "*) build_i386="$build_i386 $m" ;; esac
    done
    if [ -n "$TEST_LIBS" ]; then
        ia32=0
        "$(dirname "$0")/../loader/wine-layer" --ia32 >/dev/null 2>&1 || ia32=$?
        if [ $ia32 = 126 ]; then
            echo "build: this kernel runs no 32-bit code ('loader/wine-layer --ia32' says more): the layer's" \
                "i386 modules are built, so that no change leaves them broken; the 32-bit tests, and the" \
                "modules of Wine only they would load, are skipped"
        else
            build_i386="$build_i386 $I386_RUNTIME"
        fi
    fi
    if [ -n "$build_i386" ]; then
        "$(dirname "$0")/images.sh" "$STAGED" $build_i386
        "$(dirname "$0")/tables.sh" "$STAGED" $build_i386
        targets=""
        for m in $build_i386; do
            t=$(arch_targets "$m" i386)
            [ -n "$t" ] || { echo "build: $STAGED has no i386 side of $m" >&2; exit 1; }
            targets="$targets $t"
        done
        for l in $TEST_LIBS; do targets="$targets dlls/$l/i386-windows/lib$l.a"; done
        step "i386 modules (WoW64):$(echo "$build_i386" | tr -s ' ' | sed 's|dlls/||g; s|programs/||g; s/^ */ /')" \
            "$JOBS" $targets
    fi
    # what the launcher fills a prefix's syswow64 from has changed
    date +%s.%N >"$STAGED/i386.stamp"
}

if [ -n "$I386" ]; then build_i386; else build_x86_64; fi

# Stock Wine's ntdll loads libwine.so.1 from its own directory, and hands it
# the command line; Winelib modules linked with -lwine find it loaded. The
# layer's ntdll runs from the build tree and looks in libs/wine, which the
# layer does not build: link the installed Wine's libwine there, the very
# library stock Wine loads (none if that Wine has none). Without it every
# SymInitialize prints fixmes stock Wine does not, and those modules do not load.
wine_libdir=$(sed -n 's/^WINE_LIBDIR="\(.*\)"$/\1/p' "$(dirname "$0")/../loader/wine-layer" 2>/dev/null || true)
libwine="${wine_libdir:-/usr/lib/x86_64-linux-gnu/wine}/x86_64-unix/libwine.so.1"
if [ -f "$libwine" ]; then
    mkdir -p "$STAGED/libs/wine"
    ln -sf "$libwine" "$STAGED/libs/wine/libwine.so.1"
    ln -sf libwine.so.1 "$STAGED/libs/wine/libwine.so"  # what -lwine links with
fi

# Debian builds Wine with the system's zlib (its patch system/zlib.patch):
# modules such as user32 import zlib1.dll, and Debian's wine64 carries the
# x86_64 one among its modules. The i386 one (libz-mingw-w64) goes where the
# launcher finds the layer's i386 modules, for the prefix's syswow64.
zlib_i386=/usr/i686-w64-mingw32/lib/zlib1.dll
if [ -f "$zlib_i386" ]; then
    mkdir -p "$STAGED/dlls/zlib1/i386-windows"
    ln -sf "$zlib_i386" "$STAGED/dlls/zlib1/i386-windows/zlib1.dll"
fi

# Our own files must compile without a single warning (Wine builds with -Werror).
ours=$(cd "$(dirname "$0")/.." && . tools/config.sh && find $OVERLAY_DIRS -name '*.[ch]' 2>/dev/null | sed 's/[.]/[.]/g' | paste -sd'|')
if [ -n "$ours" ] && grep -E "^($ours):[0-9]+:[0-9]+: warning:" "$LOG" >&2; then
    echo "build: our files have warnings (above); fix them" >&2
    exit 1
fi

#!/bin/sh
# Stage the Wine tree the layer is built from:
#   pristine Debian source  ->  patches/$WINE_SERIES/series applied  ->  our overlay files
# then generate what Debian's repack strips and configure it (once).
#
# Usage: tools/stage.sh SRCDIR PRISTINE STAGED
#   SRCDIR    this project's checkout
#   PRISTINE  Debian's unpacked wine source (tools/setup.sh fetches it)
#   STAGED    the tree to build in
#        tools/stage.sh --prepare TREE [CONFIGURE-OPTION...]
#   only the generation and configure steps, for a tree that already holds
#   the layer's sources (host/series: the series applied with git am)
#
# Re-running is cheap: the tree is copied and patched again only when the
# pristine source or the patch series changed; overlay files are copied when
# they differ from the staged copy, so make rebuilds only what they touch,
# and removed from the staged tree when they are deleted from the checkout.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOOLS=$(cd "$(dirname "$0")" && pwd)
say() { echo "stage: $*"; }
die() { echo "stage: error: $*" >&2; exit 1; }

if [ "${1:-}" = "--prepare" ]; then
    PREPARE=1 STAGED=${2:?usage: tools/stage.sh --prepare TREE [CONFIGURE-OPTION...]}
    shift 2
else
    PREPARE="" SRC=$(cd "${1:?usage: tools/stage.sh SRCDIR PRISTINE STAGED}" && pwd)
    PRISTINE=$(cd "${2:?missing PRISTINE}" && pwd)
    STAGED=${3:?missing STAGED}
    shift 3
    . "$SRC/tools/config.sh"
    [ -f "$PRISTINE/.complete" ] || die "$PRISTINE is not a complete Wine source (run tools/setup.sh)"
    [ -n "$WINE_SERIES" ] ||
        die "the installed wine64 is ${WINE_VERSION:-none}; the layer supports Debian's Wine $WINE_SUPPORTED_TEXT"
    [ -f "$SRC/patches/$WINE_SERIES/series" ] ||
        die "no patch series for Wine $WINE_VERSION in this checkout (patches/$WINE_SERIES/series)"
    pristine_version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$PRISTINE/debian/changelog")
    [ "$pristine_version" = "$WINE_VERSION" ] ||
        die "$PRISTINE is Wine ${pristine_version:-of no known version}, but the installed wine64 is $WINE_VERSION: run tools/setup.sh"
fi


# The series, and this script: what it generates or how it configures may
# have changed since the tree was staged.
series_stamp() {
    (cat "$SRC/tools/stage.sh"; cat "$SRC/patches/$WINE_SERIES/series"; grep -v '^#' "$SRC/patches/$WINE_SERIES/series" | while read -r p; do
        [ -n "$p" ] && cat "$SRC/patches/$WINE_SERIES/$p"; done) | md5sum | cut -d' ' -f1
}

copy_pristine() {
    say "copying the pristine Wine tree"
    rm -rf "$STAGED"
    mkdir -p "$STAGED"
    (cd "$PRISTINE" && tar cf - --exclude=./debian/.pc .) | (cd "$STAGED" && tar xf -)
}

apply_patches() {
    grep -v '^#' "$SRC/patches/$WINE_SERIES/series" | while read -r p; do
        [ -n "$p" ] || continue
        say "applying patches/$WINE_SERIES/$p"
        patch -s -p1 -d "$STAGED" --no-backup-if-mismatch <"$SRC/patches/$WINE_SERIES/$p" ||
            die "patches/$WINE_SERIES/$p does not apply to the pristine tree"
    done
}

# What debian/rules regenerates, except tools/make_unicode: its C tables
# (gdi32's Uniscribe, dwrite, win32u, wineps) serve only i386 modules, and
# tools/tables.sh makes them before those are built (here it checks that
# it can); its NLS files, timezones and kernelbase's registry script are
# not made at all (the installed NLS files are linked instead, empty
# placeholders keep makedep satisfied: no module that uses them is built
# for 64 bits, and the i386 kernelbase registers nothing, the prefix being
# set up by the 64-bit one). Debian's 8.0 pins the server
# protocol with debian/scripts/generate; its 10.0 has no such script and
# also needs tools/make_specfiles (ntdll's system call table) and the Vulkan
# video registry: each step is taken when the tree has what it needs.
generate() {
    say "generating server requests, spec files, OpenGL and Vulkan tables"
    cd "$STAGED"
    if [ -x debian/scripts/generate ]; then
        debian/scripts/generate server/trace.generated make_requests
        debian/scripts/generate server/request.generated make_requests
    fi
    tools/make_requests
    "$TOOLS/tables.sh" .
    (cd dlls/dsound && ./make_fir >/dev/null 2>&1) || die "dlls/dsound/make_fir failed"
    if [ -x tools/make_specfiles ]; then
        tools/make_specfiles
    fi
    (cd dlls/opengl32 && ./make_opengl >/dev/null)
    vulkan_video=""
    if grep -q 'make_vulkan .*-X ' debian/rules; then
        vulkan_video="-X /usr/share/vulkan/registry/video.xml"
    fi
    # shellcheck disable=SC2086
    (cd dlls/winevulkan && ./make_vulkan -x /usr/share/vulkan/registry/vk.xml $vulkan_video >/dev/null)
    ln -sf /usr/share/misc/config.sub tools
    ln -sf /usr/share/misc/config.guess tools
    sed -n '/override_dh_auto_configure/,/configure/p' debian/rules |
        grep -E '^\s+ln -sf .*\.svg ' | sed 's/^\s*//' | sh
    for f in dlls/gdi32/uniscribe/direction.c dlls/gdi32/uniscribe/mirror.c \
             dlls/gdi32/uniscribe/bracket.c dlls/gdi32/uniscribe/shaping.c \
             dlls/gdi32/uniscribe/linebreak.c dlls/gdi32/uniscribe/indicsyllable.c \
             dlls/dwrite/direction.c dlls/dwrite/mirror.c dlls/dwrite/bracket.c \
             dlls/dwrite/linebreak.c dlls/dwrite/scripts.c dlls/dwrite/scripts.h \
             dlls/dwrite/shapers/arabic_table.c dlls/win32u/vertical.c \
             dlls/wineps.drv/vertical.c dlls/wineps.drv/direction.c dlls/dsound/fir.h \
             dlls/tzres/tzres.rc dlls/kernelbase/kernelbase.rgs; do
        [ -e "$f" ] || [ ! -d "$(dirname "$f")" ] || : >"$f"
    done
    for f in /usr/share/wine/nls/*.nls; do
        ln -sf "$f" nls/
    done
    cd - >/dev/null
}

# WoW64 mode: PE modules for i386 beside x86_64 (i686-w64-mingw32-gcc), no
# 32-bit Unix side. A 32-bit program then runs in the 64-bit process of the
# loader, which Wine names "wine" in such a tree (not "wine64"). Only the
# modules asked for are built for i386 (tools/build.sh, make wow64).
WINE_ARCHS="--enable-archs=i386,x86_64"

configure_wine() {
    say "configuring Wine (64-bit with i386 PE modules, headless, no tests${*:+; $*})"
    cd "$STAGED"
    autoreconf -fi >/dev/null 2>&1 || die "autoreconf failed"
    command -v i686-w64-mingw32-gcc >/dev/null ||
        die "i686-w64-mingw32-gcc is missing (the i386 PE modules): run tools/setup.sh"
    ./configure -q --enable-win64 "$WINE_ARCHS" --with-mingw --without-x --without-freetype \
        --disable-tests "$@" >configure.log 2>&1 ||
        { tail -20 configure.log; die "Wine's configure failed (see $STAGED/configure.log)"; }
    cd - >/dev/null
}

# Our files, as the checkout has them now; STAGED/.overlay lists those
# copied last time.
overlay_files() {
    (cd "$SRC" && find $OVERLAY_DIRS -type f ! -name '.*' 2>/dev/null | sort)
}

# Files staged from the checkout before and deleted from it since.
deleted_files() {
    [ -f "$STAGED/.overlay" ] || return 0
    overlay_files | comm -13 - "$STAGED/.overlay"
}

overlay() {
    for f in $(deleted_files); do
        say "removing $f (deleted from the checkout)"
        rm -f "$STAGED/$f"
    done
    overlay_files >"$STAGED/.overlay"
    cd "$SRC"
    while read -r f; do
        if [ ! -e "$STAGED/$f" ] || ! cmp -s "$f" "$STAGED/$f"; then
            mkdir -p "$STAGED/$(dirname "$f")"
            cp "$f" "$STAGED/$f"
        fi
    done <"$STAGED/.overlay"
    cd - >/dev/null
}

# A deleted file of ours that stood in for one of Wine's: only a new copy
# of the tree brings Wine's (patched) version back.
hid_wine_file() {
    for f in $(deleted_files); do
        [ -e "$PRISTINE/$f" ] && { say "$f was deleted from the checkout and hid Wine's own"; return 0; }
    done
    return 1
}

if [ -n "$PREPARE" ]; then
    generate
    configure_wine "$@"
    exit 0
fi

stamp=$(series_stamp)
if [ ! -f "$STAGED/.staged" ] || [ "$(cat "$STAGED/.staged")" != "$stamp" ] ||
   [ "$PRISTINE/.complete" -nt "$STAGED/.staged" ] || hid_wine_file; then
    copy_pristine
    apply_patches
    overlay
    generate
    configure_wine
    echo "$stamp" >"$STAGED/.staged"
else
    overlay
    # A new request in protocol.def must reach the generated files.
    if [ "$STAGED/server/protocol.def" -nt "$STAGED/include/wine/server_protocol.h" ]; then
        (cd "$STAGED" && tools/make_requests)
    fi
fi

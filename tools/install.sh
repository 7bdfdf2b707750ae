#!/bin/sh
# Install the layer like software, or package it for Debian.
#
# Usage: tools/install.sh install STAGED "MODULES" DIR     (make install)
#        tools/install.sh uninstall DIR                    (make uninstall)
#        tools/install.sh deb STAGED "MODULES" OUTDIR VERSION WINE_VERSION   (make deb)
#
# install puts the launcher in DIR/bin/wine-layer and what the layer
# replaces or adds (the loader, the wineserver, the modules of MODULES,
# wctdump) in DIR/lib/wine-layer, laid out as in the build tree, which is
# how Wine's loader finds its modules there. The launcher finds that
# directory beside itself, so the installed tree may be moved (DESTDIR, or
# a package unpacked anywhere). Every other module comes from the installed
# Wine, as in the build tree.
#
# deb installs into OUTDIR/root/usr and makes OUTDIR/wine-layer_VERSION_amd64.deb
# with dpkg-deb; it depends on exactly the wine64 it was built against.
# WINE_LAYER_HOMEPAGE=URL gives it a Homepage field (none by default: the
# project has no published page yet).
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)

say() { echo "install: $*"; }
die() { echo "install: $*" >&2; exit 1; }

# the files of one module of the build tree, relative to it
module_files() {
    staged=$1 m=$2
    case $m in
        loader) echo loader/wine loader/wine-preloader loader/wine.inf ;;
        server) echo server/wineserver ;;
        *) (cd "$staged" && ls "$m"/x86_64-windows/*.dll "$m"/x86_64-windows/*.exe "$m"/*.so 2>/dev/null) || true ;;
    esac
}

# the i386 modules built (make: the layer's and its tests'; make wow64: all
# of Wine's), laid out as in the build tree, where the launcher finds them
i386_files() {
    (cd "$1" && for d in dlls/*/i386-windows programs/*/i386-windows; do
        [ -d "$d" ] || continue
        m=${d%/i386-windows}; m=${m##*/}
        case "$m:$d" in
            *.*:*) f=$m ;;
            *:programs/*) f=$m.exe ;;
            *) f=$m.dll ;;
        esac
        [ -f "$d/$f" ] && echo "$d/$f"
    done) || true
}

do_install() {
    staged=$1 modules=$2 dir=$3
    [ -x "$staged/loader/wine" ] || die "the layer is not built in $staged: run make"
    [ -x "$TOP/loader/wine-layer" ] || die "loader/wine-layer is missing: run ./configure"
    lib="$dir/lib/wine-layer"
    say "installing the launcher in $dir/bin and the layer in $lib"
    rm -rf "$lib"
    mkdir -p "$dir/bin" "$lib"
    for m in $modules; do
        files=$(module_files "$staged" "$m")
        [ -n "$files" ] || die "nothing of $m is built in $staged"
        for f in $files; do
            mkdir -p "$lib/$(dirname "$f")"
            # -p: the prefix records wine.inf's time; keep it the build tree's
            cp -p "$staged/$f" "$lib/$f"
        done
    done
    # the launcher asks it whether the kernel runs 32-bit code
    [ -x "$TOP/build/ia32-probe" ] || die "build/ia32-probe is missing: run make"
    cp -p "$TOP/build/ia32-probe" "$lib/ia32-probe"
    [ ! -f "$staged/i386.stamp" ] || cp -p "$staged/i386.stamp" "$lib/i386.stamp"
    i386=$(i386_files "$staged")
    for f in $i386; do
        mkdir -p "$lib/$(dirname "$f")"
        cp -pL "$staged/$f" "$lib/$f"
    done
    # the loader of a build tree looks for the NLS files there: the
    # installed Wine's, linked as in the build tree
    mkdir -p "$lib/nls"
    cp -P "$staged"/nls/*.nls "$lib/nls/"
    # ntdll loads libwine.so.1 from libs/wine of its tree: the installed
    # Wine's, linked there by tools/build.sh, as stock Wine loads it
    if [ -e "$staged/libs/wine/libwine.so.1" ]; then
        mkdir -p "$lib/libs/wine"
        cp -P "$staged/libs/wine/libwine.so.1" "$lib/libs/wine/"
    fi
    sed 's|^BUILDDIR=.*|BUILDDIR=""|' "$TOP/loader/wine-layer" >"$dir/bin/wine-layer"
    chmod 755 "$dir/bin/wine-layer"
    # the manual pages, the user's guide, and the schema of wctdump --json
    # that wctdump(1) names
    mkdir -p "$dir/share/man/man1" "$dir/share/doc/wine-layer"
    cp "$TOP/docs/man/wine-layer.1" "$TOP/docs/man/wctdump.1" "$dir/share/man/man1/"
    cp "$TOP/docs/wctdump.schema.json" "$TOP/docs/USER_GUIDE.md" "$dir/share/doc/wine-layer/"
    say "done: $(find "$lib" -type f | wc -l) files ($(echo "$i386" | grep -c .) of them i386 modules) and the NLS links; run programs with $dir/bin/wine-layer PROGRAM"
}

do_uninstall() {
    dir=$1
    say "removing $dir/bin/wine-layer and $dir/lib/wine-layer"
    rm -f "$dir/bin/wine-layer" "$dir/share/man/man1/wine-layer.1" "$dir/share/man/man1/wctdump.1"
    rm -rf "$dir/lib/wine-layer" "$dir/share/doc/wine-layer"
}

# debian/copyright (DEP-5) of the package: our files, and Wine's, from
# which the modules are built
copyright() {
    cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: wine-backtrace-wct (wine-layer)
Comment: The layer's modules are built from Debian's wine source package
 ($1) with the patch series and the files of this project.

Files: *
Copyright: 2026 The wine-backtrace-wct authors
License: LGPL-2.1+

Files: usr/lib/wine-layer/*
Copyright: 1993-2026 the Wine project authors (see Debian's wine packages)
           2026 The wine-backtrace-wct authors
License: LGPL-2.1+

License: LGPL-2.1+
 This library is free software; you can redistribute it and/or
 modify it under the terms of the GNU Lesser General Public
 License as published by the Free Software Foundation; either
 version 2.1 of the License, or (at your option) any later version.
 .
 This library is distributed in the hope that it will be useful,
 but WITHOUT ANY WARRANTY; without even the implied warranty of
 MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 Lesser General Public License for more details.
 .
 On Debian systems, the complete text of the GNU Lesser General Public
 License version 2.1 can be found in /usr/share/common-licenses/LGPL-2.1.
EOF
}

do_deb() {
    staged=$1 modules=$2 out=$3 version=$4 wine_version=$5
    root="$out/root"
    deb="$out/wine-layer_${version}_amd64.deb"
    command -v dpkg-deb >/dev/null || die "dpkg-deb not found"
    # The Homepage field is the project's own page, never Wine's (this
    # package is not Wine). The project has no published page of its own
    # yet, so there is no default: whoever publishes it names the page
    # ('make deb WINE_LAYER_HOMEPAGE=https://...'); without one the package
    # has no Homepage field, which Debian's policy allows.
    homepage=""
    if [ -n "${WINE_LAYER_HOMEPAGE:-}" ]; then
        case $WINE_LAYER_HOMEPAGE in
            *[[:space:]]*|*winehq.org*) ;;
            http://?*|https://?*) homepage="Homepage: $WINE_LAYER_HOMEPAGE
" ;;
        esac
        [ -n "$homepage" ] ||
            die "WINE_LAYER_HOMEPAGE='$WINE_LAYER_HOMEPAGE' is not the project's own page: give its http:// or" \
                "https:// URL, without spaces, and not Wine's (winehq.org), or leave it unset for no Homepage field"
    fi
    rm -rf "$root"
    do_install "$staged" "$modules" "$root/usr"
    mkdir -p "$root/DEBIAN" "$root/usr/share/doc/wine-layer"
    cp "$TOP/README.md" "$root/usr/share/doc/wine-layer/"
    # Debian's way: manual pages compressed, a machine-readable copyright file
    gzip -9n "$root/usr/share/man/man1/wine-layer.1" "$root/usr/share/man/man1/wctdump.1"
    copyright "$wine_version" >"$root/usr/share/doc/wine-layer/copyright"
    size=$(du -sk "$root/usr" | cut -f1)
    cat >"$root/DEBIAN/control" <<EOF
Package: wine-layer
Version: $version
Architecture: amd64
Maintainer: wine-backtrace-wct <layer@localhost>
Installed-Size: $size
Depends: wine64 (= $wine_version), libc6, libunwind8
Section: otherosfs
Priority: optional
${homepage}Description: stack back-traces and wait chains for Wine $wine_version
 Replacement ntdll, advapi32, ntoskrnl.exe, coredll and wineserver for
 Debian's Wine, run by the wine-layer launcher, with Windows' stack
 back-trace functions, Wait Chain Traversal and GetThreadCallStack, and
 wctdump, a hang and deadlock reporter.
EOF
    say "building $deb"
    dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
    say "done: $deb ($(dpkg-deb -f "$deb" Depends))"
}

case "${1:-}" in
    install) shift; do_install "$@" ;;
    uninstall) shift; do_uninstall "$@" ;;
    deb) shift; do_deb "$@" ;;
    *) die "usage: tools/install.sh install|uninstall|deb ..." ;;
esac

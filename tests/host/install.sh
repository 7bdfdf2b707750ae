#!/bin/sh
# make install (prefix and DESTDIR honoured) and make deb (a package that
# depends on exactly the wine64 it was built for, unpacked with dpkg-deb
# into a scratch root, as dpkg would install it): each installed launcher
# runs Windows programs from another directory with the user's own
# WINEPREFIX, on the installed layer (wctdump finds a deadlock, the
# prefix's wineserver is the installed one); then both are removed.
# Nothing outside the scratch directories changes.
# It builds four packages, each carrying the i386 modules too (xz): on a
# loaded 2-core machine that takes minutes.
# timeout: 900
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
scratch=$(mktemp -d)
trap '"$LAYER" --kill; rm -rf "$scratch"' EXIT
build_exe "$TOP/tests/host/programs/hang.c" "$scratch/hang.exe"
# the user's own prefix: the one the layer's tests use
WINEPREFIX=$("$LAYER" --env | sed -n "s/^WINEPREFIX=//p")
export WINEPREFIX
unset WINEDEBUG
fail=0

# try LAUNCHER: a deadlocked program through it, reported by its wctdump
try() {
    launcher=$1 tree=$2
    "$LAYER" --kill
    (cd / && exec "$launcher" "$scratch/hang.exe" >"$scratch/hang.out" 2>"$scratch/hang.err") &
    pid=$(wait_for_ready "$scratch/hang.out" hang 60) || true
    rc=0
    [ -n "$pid" ] && (cd / && "$launcher" wctdump "$pid") >"$scratch/report" 2>&1 || rc=$?
    server=$(p=$(prefix_server) && [ -n "$p" ] && readlink "/proc/$p/exe" | grep -x "$tree/server/wineserver" || true)
    "$launcher" --kill
    wait
    if [ -n "$pid" ] && [ $rc = 1 ] && grep -q '^1 deadlock involving 2 threads' "$scratch/report" && [ -n "$server" ]; then
        echo "$launcher: hang.exe ran, wctdump found its deadlock, the server was $server"
    else
        echo "$launcher: pid '$pid', wctdump exit $rc, server '$server':"
        cat "$scratch/hang.err" "$scratch/report" | tail -20; fail=1
    fi
}

echo "make install DESTDIR=$scratch/destdir prefix=/opt/wine-layer"
make -s -C "$TOP" install DESTDIR="$scratch/destdir" prefix=/opt/wine-layer >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; exit 1; }
root="$scratch/destdir/opt/wine-layer"
[ -x "$root/bin/wine-layer" ] && [ -x "$root/lib/wine-layer/loader/wine" ] &&
    [ -f "$root/lib/wine-layer/programs/wctdump/x86_64-windows/wctdump.exe" ] ||
    { echo "make install did not install under DESTDIR/prefix:"; find "$scratch/destdir" | head -20; exit 1; }
try "$root/bin/wine-layer" "$root/lib/wine-layer"
for page in wine-layer wctdump; do
    [ -f "$root/share/man/man1/$page.1" ] && man -l "$root/share/man/man1/$page.1" 2>&1 | grep -q "^NAME" &&
        echo "make install: $page(1) installed and readable" || { echo "make install: no $page(1)"; fail=1; }
done
make -s -C "$TOP" uninstall DESTDIR="$scratch/destdir" prefix=/opt/wine-layer >>"$scratch/install.log" 2>&1
left=$(find "$scratch/destdir" -type f | wc -l)
[ "$left" = 0 ] && echo "make uninstall removed it" || { echo "make uninstall left $left files"; fail=1; }

echo "make deb"
make -s -C "$TOP" deb >"$scratch/deb.log" 2>&1 || { cat "$scratch/deb.log"; exit 1; }
deb=$(ls "$TOP"/build/deb/wine-layer_*_amd64.deb)
depends=$(dpkg-deb -f "$deb" Depends)
wine_version=$(sed -n 's/^WINE_VERSION="\(.*\)"$/\1/p' "$TOP/loader/wine-layer")
installed=$(dpkg-query -W -f='${Version}' wine64)
[ "$wine_version" = "$installed" ] ||
    { echo "the launcher was configured for wine64 $wine_version, but $installed is installed"; fail=1; }
case "$depends" in
    *"wine64 (= $wine_version)"*) echo "$(basename "$deb"): Depends: $depends" ;;
    *) echo "$(basename "$deb") depends on '$depends', not wine64 (= $wine_version)"; fail=1 ;;
esac
dpkg-deb -x "$deb" "$scratch/debroot"
try "$scratch/debroot/usr/bin/wine-layer" "$scratch/debroot/usr/lib/wine-layer"
for page in wine-layer wctdump; do
    [ -f "$scratch/debroot/usr/share/man/man1/$page.1.gz" ] &&
        man -l "$scratch/debroot/usr/share/man/man1/$page.1.gz" 2>&1 | grep -q "^NAME" &&
        echo "the package: $page(1) compressed and readable" || { echo "the package: no $page(1).gz"; fail=1; }
done
copyright="$scratch/debroot/usr/share/doc/wine-layer/copyright"
grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/$' "$copyright" &&
    grep -q '^License: LGPL-2.1+$' "$copyright" && echo "the package: a copyright file (DEP-5, LGPL-2.1+)" ||
    { echo "the package: no copyright file"; fail=1; }
# the Homepage field: none by default (the project has no published page),
# the page given with WINE_LAYER_HOMEPAGE, never Wine's or a non-URL
[ -z "$(dpkg-deb -f "$deb" Homepage)" ] && echo "the package has no Homepage field by default" ||
    { echo "the package has Homepage '$(dpkg-deb -f "$deb" Homepage)' though none was given"; fail=1; }
version=$(dpkg-deb -f "$deb" Version)
for page in https://example.org/wine-layer "not a page" https://www.winehq.org/; do
    rm -rf "$scratch/homepage"
    rc=0
    WINE_LAYER_HOMEPAGE="$page" "$TOP/tools/install.sh" deb "$STAGED" "$MODULES" "$scratch/homepage" "$version" \
        "$wine_version" >"$scratch/homepage.log" 2>&1 || rc=$?
    field=$(dpkg-deb -f "$scratch/homepage/wine-layer_${version}_amd64.deb" Homepage 2>/dev/null || true)
    case "$page:$rc:$field" in
        "https://example.org/wine-layer:0:https://example.org/wine-layer") echo "WINE_LAYER_HOMEPAGE=$page: Homepage: $field" ;;
        "not a page:1:"|"https://www.winehq.org/:1:") echo "WINE_LAYER_HOMEPAGE=$page: refused, '$(head -1 "$scratch/homepage.log")'" ;;
        *) echo "WINE_LAYER_HOMEPAGE=$page: exit $rc, Homepage '$field'"; cat "$scratch/homepage.log"; fail=1 ;;
    esac
done
rm -rf "$scratch/homepage"
listing=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | grep -c '^./usr/lib/wine-layer/.*[^/]$')
[ "$listing" -gt 10 ] && echo "the package holds $listing files of the layer" || { echo "the package holds $listing files"; fail=1; }
rm -rf "$scratch/debroot"
exit $fail

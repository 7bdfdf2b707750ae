# The layer's constants, each in one place. Sourced by tools/*.sh and by
# configure; the Makefile reads the lists from here too, so a module added
# here is staged, built and tested with no other change.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

# The Debian Wines the layer is built for, VERSION:SERIES:CODENAME each:
# Debian's wine64 version, the layer's patch series for it (patches/SERIES:
# its series file lists the patches in the order they apply, its manifest
# says which patch carries each file of ours, tools/series.sh), and the
# Debian release whose own Wine it is.
WINE_SUPPORTED="8.0~repack-4:wine-8.0:bookworm 10.0~repack-6:wine-10.0:trixie"

# wine_field VERSION N: field N of VERSION's entry above (nothing if none)
wine_field() {
    for _w in $WINE_SUPPORTED; do
        [ "${_w%%:*}" = "$1" ] && { echo "$_w" | cut -d: -f"$2"; return 0; }
    done
    return 0
}

# The supported versions, for messages.
WINE_SUPPORTED_TEXT="8.0~repack-4 (Debian 12, bookworm) and 10.0~repack-6 (Debian 13, trixie)"

# The wine64 installed on this machine ("" when none is), and this
# machine's Debian release.
WINE_INSTALLED=$(dpkg-query -W -f='${db:Status-Status} ${Version}' wine64 2>/dev/null | sed -n 's/^installed //p')
DEBIAN_CODENAME=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")

# The Debian Wine the layer is built from and runs with: the installed
# wine64, or with none the distribution's own (which tools/setup.sh
# installs); WINE_SERIES is empty when that Wine is not supported.
if [ -n "$WINE_INSTALLED" ]; then
    WINE_VERSION=$WINE_INSTALLED
else
    WINE_VERSION=""
    for _w in $WINE_SUPPORTED; do
        [ "${_w##*:}" = "$DEBIAN_CODENAME" ] && WINE_VERSION=${_w%%:*}
    done
fi
WINE_SERIES=$(wine_field "$WINE_VERSION" 2)

# Where tools/setup.sh unpacks its source, relative to the checkout
# (configure --with-wine-source=DIR builds from another tree).
WINE_SOURCE_DEFAULT="build/cache/wine-source"

# Directories of the checkout that mirror Wine's tree (staged over it).
OVERLAY_DIRS="dlls include server programs"

# Wine modules we replace, built from the staged tree; the rest comes from
# the installed Wine.
MODULES="server loader dlls/ntdll dlls/apisetschema dlls/advapi32 dlls/ntoskrnl.exe dlls/coredll programs/wctdump"
# Wine 8.0's wow64.dll put a fake return address under a 32-bit user
# callback's arguments, which 32-bit stack walks reported as a frame: its
# series patches it (Wine 10 has the fix), and the layer runs its own.
case $WINE_SERIES in
    wine-8.0) MODULES="$MODULES dlls/wow64" ;;
esac

# 32-bit programs run in WoW64 mode: i386 PE modules in the 64-bit process,
# no 32-bit Unix side. I386_MODULES: those of MODULES built for i386 as
# well (the rest of MODULES is 64-bit only: the server, the loader, and
# on 8.0 wow64.dll; ntoskrnl.exe is there because the back-trace tests load
# it to compare its exports with ntdll's; wctdump so that every build
# compiles its i386 side, which 'make wow64' would otherwise be the first
# to find broken). I386_RUNTIME: the few modules of Wine that
# every 32-bit test program needs and Debian's wine64 lacks (it has no
# i386-windows modules), built where the kernel runs 32-bit code (nothing
# else loads them); 'make wow64' builds the rest of Wine's i386 modules,
# for users' programs.
I386_MODULES="dlls/ntdll dlls/advapi32 dlls/coredll dlls/ntoskrnl.exe programs/wctdump"
# The tests' 32-bit programs import kernel32, msvcrt, advapi32 and user32;
# with what those import in turn (not the delay-loaded ones), that is the
# first line; the back-trace tests load and free a few more while walking
# msimg32, psapi, shlwapi and its shcore; ntoskrnl.exe's hal):
I386_RUNTIME="dlls/kernel32 dlls/kernelbase dlls/msvcrt dlls/sechost dlls/user32 dlls/gdi32 dlls/version dlls/win32u dlls/ucrtbase"
I386_RUNTIME="$I386_RUNTIME dlls/hal dlls/msimg32 dlls/psapi dlls/shlwapi dlls/shcore"

# Import libraries and CRT start-up code the Windows test programs (PE) and
# the Winelib test modules (ELF) link with.
TEST_LIBS="winecrt0 msvcrt kernel32 ntdll advapi32 user32"
WINELIB_LIBS="winecrt0 kernel32 ntdll"

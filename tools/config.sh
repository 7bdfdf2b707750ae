# The layer's constants, each in one place. Sourced by tools/*.sh and by
# configure; the Makefile reads the lists from here too, so a module added
# here is staged, built and tested with no other change.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

# The Debian Wine the layer is built from and runs with.
WINE_VERSION="8.0~repack-4"

# The layer's patch series for that Wine: patches/$WINE_SERIES/series lists
# the patches in the order they apply; patches/$WINE_SERIES/manifest says
# which patch of it carries each file of ours (tools/series.sh).
WINE_SERIES="wine-8.0"

# Where tools/setup.sh unpacks its source, relative to the checkout
# (configure --with-wine-source=DIR builds from another tree).
WINE_SOURCE_DEFAULT="build/cache/wine-source"

# Directories of the checkout that mirror Wine's tree (staged over it).
OVERLAY_DIRS="dlls include server programs"

# Wine modules we replace, built from the staged tree; the rest comes from
# the installed Wine.
MODULES="server loader dlls/ntdll dlls/apisetschema dlls/advapi32 dlls/ntoskrnl.exe dlls/coredll programs/wctdump"

# Import libraries and CRT start-up code the Windows test programs (PE) and
# the Winelib test modules (ELF) link with.
TEST_LIBS="winecrt0 msvcrt kernel32 ntdll advapi32 user32"
WINELIB_LIBS="winecrt0 kernel32 ntdll"

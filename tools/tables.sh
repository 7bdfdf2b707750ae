#!/bin/sh
# Make the Unicode tables that Debian's repack of Wine strips and its build
# remakes with tools/make_unicode (from Debian's unicode-data): the C
# tables of gdi32's Uniscribe, win32u, dwrite and wineps.drv. Not its NLS
# files, timezones and kernelbase's registry script, its slow part (4-5
# minutes): the installed NLS files serve (tools/stage.sh links them).
# The x86_64 build never needs the tables (the layer builds none of those
# modules for 64 bits; tools/stage.sh leaves empty placeholders that keep
# makedep satisfied); the i386 build of gdi32 and 'make wow64' do. Made
# once per tree (about 20 seconds), when one of the modules given uses
# them.
#
# Usage: tools/tables.sh TREE MODULE-DIR...   (e.g. dlls/gdi32)
#   with no module, it only checks that it can (tools/stage.sh)
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TREE=$1; shift
die() { echo "tables: error: $*" >&2; exit 1; }

cd "$TREE"
# tools/make_unicode without what comes from dump_intl_nls() to
# dump_registry_script(): the tables are dumped before it. Checked at
# every call (tools/stage.sh makes one with no module), so that a Wine
# whose script is laid out otherwise stops the staging.
sed -e '/^dump_intl_nls(/,/^dump_registry_script(/d' tools/make_unicode >tools/make_unicode_tables
grep -q '^dump_mirroring(' tools/make_unicode_tables && ! grep -q '^dump_intl_nls(' tools/make_unicode_tables ||
    die "tools/make_unicode is not laid out as the layer expects: cannot make its tables alone"

[ -f .unicode-tables ] && exit 0
# the modules the tables go to: the directories of the dump_*() calls' files
users=$(sed -n 's|^dump_[a-z_]*( *"\(dlls/[^/"]*\)/.*|\1|p' tools/make_unicode_tables | sort -u)
used=""
for m in "$@"; do
    echo "$users" | grep -qx "$m" && used=1
done
[ -n "$used" ] || exit 0
perl tools/make_unicode_tables >/dev/null 2>&1 ||
    die "tools/make_unicode (its C tables) failed: is unicode-data installed? (tools/setup.sh)"
: >.unicode-tables

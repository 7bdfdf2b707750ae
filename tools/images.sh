#!/bin/sh
# Make the icons, cursors and bitmaps that Debian's repack of Wine strips
# (its Files-Excluded: *.ico) and its build remakes from their SVG sources
# in maintainer mode: tools/buildimage (rsvg-convert, icotool, ImageMagick's
# convert), for the modules given, only where the image is missing. The
# x86_64 build never needs them (the layer builds no module with images);
# the i386 build of user32 and 'make wow64' do.
#
# Usage: tools/images.sh STAGED MODULE-DIR...   (e.g. dlls/user32)
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

STAGED=$1; shift
die() { echo "images: error: $*" >&2; exit 1; }

for tool in rsvg-convert icotool convert; do
    command -v $tool >/dev/null || die "$tool is missing (Wine's icons are made with it): run tools/setup.sh"
done

made=0
for m in "$@"; do
    mk="$STAGED/$m/Makefile.in"
    [ -f "$mk" ] || continue
    # the SVG files of SVG_SRCS (Wine 8.0) or SOURCES (Wine 10), continued
    # lines joined
    svgs=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$mk" | sed -n 's/^\(SVG_SRCS\|SOURCES\) *= *//p' |
        tr ' \t' '\n\n' | grep '\.svg$' || true)
    for svg in $svgs; do
        src="$STAGED/$m/$svg"
        [ -f "$src" ] || continue
        # the images the module's resource scripts name (an SVG may hold
        # the labels of several kinds)
        for kind in icon:ico cursor:cur bitmap:bmp; do
            out="${src%.svg}.${kind#*:}"
            [ -f "$out" ] && continue
            name=$(basename "$out")
            grep -rqsF --include='*.rc' "$name" "$STAGED/$m" || continue
            # buildimage picks the format by the extension: a temporary
            # name keeps it, so that an interrupted run leaves no half image
            tmp="${out%.*}.tmp$$.${kind#*:}"
            (cd "$STAGED" && tools/buildimage "$m/$svg" "${tmp#"$STAGED"/}" >/dev/null 2>&1) ||
                { rm -f "$tmp"; die "tools/buildimage failed for $m/$svg"; }
            mv "$tmp" "$out"
            made=$((made + 1))
        done
    done
done
[ $made = 0 ] || echo "images: $made icons, cursors and bitmaps made from their SVG sources"

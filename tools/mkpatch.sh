#!/bin/sh
# Make a patch for patches/ from edited copies of pristine Wine files.
#
# Usage: tools/mkpatch.sh PRISTINE EDITED HEADER FILE... > patches/NNNN-name.patch
#   PRISTINE  the pristine Wine tree (build/cache/wine-source)
#   EDITED    a directory holding the edited files at the same paths
#   HEADER    a file with the "From:/Subject:" header and the body
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu
pristine=$1 edited=$2 header=$3
shift 3
cat "$header"
echo "---"
for f in "$@"; do
    diff -u --label "a/$f" --label "b/$f" "$pristine/$f" "$edited/$f" || [ $? = 1 ]
done

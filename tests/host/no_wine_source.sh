#!/bin/sh
# Wine's source is a build input: no committed file may be a copy of a file
# of the pristine tree, nor carry the copyright lines of Wine's own files.
set -eu
cd "$TOP"
bad=0
sums=$(mktemp)
trap 'rm -f "$sums"' EXIT
(cd "$WINE_SOURCE" && find . -type f -size +200c ! -path './debian/*' -print0 | xargs -0 md5sum) |
    awk '{ print $1 }' | sort -u >"$sums"
for f in $(git ls-files | grep -v '^patches/'); do
    [ -f "$f" ] || continue
    [ "$(wc -c <"$f")" -gt 200 ] || continue
    if grep -qx "$(md5sum <"$f" | cut -d' ' -f1)" "$sums"; then
        echo "$f is a copy of a Wine source file"; bad=1
    fi
    if grep -qE 'Copyright [0-9, -]+ *(Alexandre Julliard|Ulrich Weigand|Marcus Meissner)' "$f"; then
        echo "$f carries a Wine author's copyright line"; bad=1
    fi
done
[ $bad = 0 ] && echo "$(git ls-files | wc -l) committed files, none from Wine's source"
exit $bad

#!/bin/sh
# Every patch in patches/$WINE_SERIES/series applies cleanly (no fuzz, no offset) to the
# pristine Wine tree, in order; patch names carry no letters (0008a); and
# docs/PATCHES.md is what tools/patch_map.sh writes from the series now.
set -eu
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
sh "$TOP/tools/patch_map.sh" "$scratch/PATCHES.md"
diff -u "$TOP/docs/PATCHES.md" "$scratch/PATCHES.md" >"$scratch/map.diff" ||
    { echo "docs/PATCHES.md is not the map of the series now: run make patch-map"; cat "$scratch/map.diff"; exit 1; }
rm "$scratch/PATCHES.md"
for v in "$TOP"/patches/wine-*; do
    i=0
    for p in $(grep -v '^#' "$v/series"); do
        i=$((i + 1))
        [ "${p%%-*}" = "$(printf %04d $i)" ] ||
            { echo "$(basename "$v")/$p: patches are numbered 0001, 0002, ... in series order, without letters"; exit 1; }
    done
done
n=0
for p in $(grep -v '^#' "$TOP/patches/$WINE_SERIES/series"); do
    # Copy the pristine files this patch touches, once, then apply in order.
    for f in $(sed -n 's|^+++ b/\([^	 ]*\).*|\1|p' "$TOP/patches/$WINE_SERIES/$p"); do
        [ -e "$scratch/$f" ] && continue
        mkdir -p "$scratch/$(dirname "$f")"
        [ -e "$WINE_SOURCE/$f" ] && cp "$WINE_SOURCE/$f" "$scratch/$f"
    done
    out=$(patch -p1 -F0 -d "$scratch" --no-backup-if-mismatch <"$TOP/patches/$WINE_SERIES/$p" 2>&1) ||
        { echo "$p does not apply:"; echo "$out"; exit 1; }
    if echo "$out" | grep -qE 'offset|fuzz'; then
        echo "$p applies only with an offset or fuzz:"; echo "$out"; exit 1
    fi
    n=$((n + 1))
done
for p in "$TOP"/patches/$WINE_SERIES/*.patch; do
    grep -qx "$(basename "$p")" "$TOP/patches/$WINE_SERIES/series" || { echo "$(basename "$p") is not in series"; exit 1; }
done
echo "$n patches apply cleanly"

#!/bin/sh
# Write the layer as a git format-patch series against the pristine Wine
# tree: each patch of patches/$WINE_SERIES/series with the new files it hooks in (as
# patches/$WINE_SERIES/manifest assigns them), then one patch per Wine test directory
# with the conformance tests in Wine's test layout.
#
# Usage: tools/series.sh PRISTINE OUTDIR      (run by 'make series')
#   PRISTINE  Debian's unpacked Wine source (build/cache/wine-source)
#   OUTDIR    where the numbered .patch files are written (emptied first)
#
# The commits are made in a git repository of the pristine tree,
# build/series/repo (SERIES_WORK=DIR for another place), created once and
# reset to its first commit, tagged 'pristine', on every run. Authors and
# subjects come from the patches' headers, dates from this checkout's git
# history, so the same checkout gives the same series.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tools/config.sh"
PRISTINE=$(cd "${1:?usage: tools/series.sh PRISTINE OUTDIR}" && pwd)
mkdir -p "${2:?usage: tools/series.sh PRISTINE OUTDIR}"
OUT=$(cd "$2" && pwd)
WORK=${SERIES_WORK:-$TOP/build/series/repo}
MANIFEST="$TOP/patches/$WINE_SERIES/manifest"

say() { echo "series: $*"; }
die() { echo "series: error: $*" >&2; exit 1; }

[ -f "$PRISTINE/.complete" ] || die "$PRISTINE is not a complete Wine source (run tools/setup.sh)"

# --- the manifest -------------------------------------------------------

# "FILE DEST..." lines, without comments
manifest() {
    sed 's/#.*//' "$MANIFEST" | awk 'NF'
}

# destinations FILE: what the first manifest line matching FILE says
destinations() {
    manifest | while read -r pattern dests; do
        # shellcheck disable=SC2254
        case $1 in $pattern) echo "$dests"; return ;; esac
    done
}

series_patches() {
    grep -v '^#' "$TOP/patches/$WINE_SERIES/series" | awk 'NF'
}

# Files of ours: the overlay mirroring Wine's tree, and the tests.
our_files() {
    (cd "$TOP" && find $OVERLAY_DIRS tests -type f ! -name '.*' 2>/dev/null | LC_ALL=C sort)
}

# Does patch P hook in FILE? Its added lines, or those of a file travelling
# with it, name FILE (a source, a header) or FILE's directory (a new module).
hooks() {
    p=$1 file=$2
    name=$(basename "$file") dir=$(dirname "$file")
    { sed -n '/^+++ /d; s/^+//p' "$TOP/patches/$WINE_SERIES/$p"
      for f in $(manifest | awk -v p="$p" '$2 == p && $1 != f { print $1 }' f="$file"); do cat "$TOP/$f"; done
    } | grep -qF -e "$name" -e "$dir"
}

check_manifest() {
    problems=$(
        for f in $(our_files); do
            [ -n "$(destinations "$f")" ] || echo "$f is in no patch: give it a line in patches/$WINE_SERIES/manifest"
        done
        manifest | while read -r file dests; do
            case $file in *'*'*|*'?'*) continue ;; esac
            [ -f "$TOP/$file" ] || { echo "patches/$WINE_SERIES/manifest names $file, which does not exist"; continue; }
            for d in $dests; do
                case $d in
                    -) ;;
                    *.patch)
                        series_patches | grep -qx "$d" || echo "$file: $d is not in patches/$WINE_SERIES/series"
                        [ -f "$TOP/patches/$WINE_SERIES/$d" ] && ! hooks "$d" "$file" &&
                            echo "$file: $d does not hook it in (nothing it adds names it)" ;;
                    dlls/*/tests)
                        [ -d "$PRISTINE/${d%/tests}" ] || [ -d "$TOP/${d%/tests}" ] ||
                            echo "$file: $d is not the test directory of a module of Wine or of ours" ;;
                    *) echo "$file: unknown destination $d" ;;
                esac
            done
        done)
    [ -z "$problems" ] && return 0
    echo "$problems" | sed 's/^/series: error: /' >&2
    exit 1
}

# --- the repository -----------------------------------------------------

git_() { git -C "$WORK" -c user.name=series -c user.email=series@localhost "$@"; }

base_repo() {
    stamp="$PRISTINE $(stat -c %Y "$PRISTINE/.complete")"
    if [ -d "$WORK/.git" ] && [ "$(cat "$WORK/.git/pristine.stamp" 2>/dev/null)" = "$stamp" ]; then
        git_ checkout -q -f --detach pristine
        git_ clean -q -fdx
        return
    fi
    say "making a git repository of the pristine tree in $WORK (once)"
    rm -rf "$WORK"
    mkdir -p "$WORK"
    (cd "$PRISTINE" && tar cf - --exclude=./debian/.pc --exclude=./.complete .) | (cd "$WORK" && tar xf -)
    git_ init -q
    git_ add -A
    GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000" \
        git_ commit -q -m "Wine $WINE_VERSION, Debian's source package."
    git_ tag pristine
    echo "$stamp" >"$WORK/.git/pristine.stamp"
}

# date FILE...: when this checkout last changed them (now, if never)
date_of() {
    d=$(git -C "$TOP" log -1 --format=%aD -- "$@" 2>/dev/null || true)
    echo "${d:-$(date -R)}"
}

# commit AUTHOR DATE MESSAGE-FILE
commit() {
    GIT_COMMITTER_NAME=${1% <*} GIT_COMMITTER_EMAIL=$(echo "$1" | sed 's/.*<\(.*\)>/\1/') GIT_COMMITTER_DATE=$2 \
        git_ commit -q --author "$1" --date "$2" -F "$3"
}

# --- the patches --------------------------------------------------------

hook_patch() {
    p=$1
    header=$(sed '/^---$/,$d' "$TOP/patches/$WINE_SERIES/$p")
    author=$(echo "$header" | sed -n 's/^From: //p' | head -1)
    [ -n "$author" ] || die "patches/$WINE_SERIES/$p has no From: line"
    echo "$header" | sed -n 's/^Subject: //p' | head -1 >"$WORK/.git/message"
    [ -s "$WORK/.git/message" ] || die "patches/$WINE_SERIES/$p has no Subject: line"
    echo "$header" | sed '1,/^Subject: /d' >>"$WORK/.git/message"

    git_ apply --index "$TOP/patches/$WINE_SERIES/$p" || die "patches/$WINE_SERIES/$p does not apply to the pristine tree"
    files=$(manifest | awk -v p="$p" '$2 == p { print $1 }')
    for f in $files; do
        mkdir -p "$WORK/$(dirname "$f")"
        cp "$TOP/$f" "$WORK/$f"
        git_ add "$f"
    done
    commit "$author" "$(date_of "patches/$WINE_SERIES/$p" $files)" "$WORK/.git/message"
}

# add_sources MAKEFILE NAME...: NAME in the list of sources, kept sorted
# (SOURCES, or C_SRCS in a Wine 8.0 Makefile.in that has it; makedep of
# Wine 8.0 reads both, that of Wine 10 only SOURCES)
add_sources() {
    mk=$1; shift
    var=SOURCES
    grep -q '^C_SRCS = \\$' "$mk" && var=C_SRCS
    awk -v add="$*" -v var="$var" '
        function flush(   n, i, j, t) {
            n = split(add, extra, " ")
            for (i = 1; i <= n; i++) src[++count] = extra[i]
            for (i = 2; i <= count; i++)
                for (j = i; j > 1 && src[j - 1] > src[j]; j--) { t = src[j]; src[j] = src[j - 1]; src[j - 1] = t }
            print var " = \\"
            for (i = 1; i <= count; i++) print "\t" src[i] (i < count ? " \\" : "")
            done = 1
        }
        !done && !inlist && $0 == var " = \\" { inlist = 1; next }
        inlist { line = $0; sub(/^\t/, "", line); more = sub(/ \\$/, "", line); src[++count] = line
                 if (!more) { inlist = 0; flush() }; next }
        { print }
        END { if (!done) { print ""; flush() } }' "$mk" >"$mk.new"
    mv "$mk.new" "$mk"
}

# add_imports MAKEFILE: the libraries the layer links its tests with
# (TEST_LIBS), beyond what every Wine test gets, in the IMPORTS line
add_imports() {
    mk=$1
    have=$(sed -n 's/^IMPORTS *= *//p' "$mk")
    want=$have
    for l in $TEST_LIBS; do
        case " winecrt0 msvcrt kernel32 ntdll $have " in *" $l "*) ;; *) want="${want:+$want }$l" ;; esac
    done
    [ "$want" = "$have" ] && return 0
    if [ -n "$have" ]; then
        sed -i "s/^IMPORTS *= .*/IMPORTS   = $want/" "$mk"
    else
        sed -i "/^TESTDLL *=/a IMPORTS   = $want" "$mk"
    fi
}

test_patch() {
    dir=$1
    module=$(basename "$(dirname "$dir")")
    files=$(manifest | awk -v d="$dir" '{ for (i = 2; i <= NF; i++) if ($i == d) print $1 }')
    tests=""
    for f in $files; do
        mkdir -p "$WORK/$dir"
        case $f in
            *.c) sed '/^#define STANDALONE$/d' "$TOP/$f" >"$WORK/$dir/$(basename "$f")"
                 tests="$tests $(basename "$f" .c)" ;;
            *)   cp "$TOP/$f" "$WORK/$dir/" ;;
        esac
    done
    if [ ! -f "$WORK/$dir/Makefile.in" ]; then
        case $module in *.*) dll=$module ;; *) dll=$module.dll ;; esac
        printf 'TESTDLL   = %s\n' "$dll" >"$WORK/$dir/Makefile.in"
        grep -q "^WINE_CONFIG_MAKEFILE($(dirname "$dir"))$" "$WORK/configure.ac" ||
            die "configure.ac has no WINE_CONFIG_MAKEFILE($(dirname "$dir")) to put $dir after"
        sed -i "s|^WINE_CONFIG_MAKEFILE($(dirname "$dir"))\$|&\nWINE_CONFIG_MAKEFILE($dir)|" "$WORK/configure.ac"
    fi
    add_sources "$WORK/$dir/Makefile.in" $(for t in $tests; do echo "$t.c"; done)
    add_imports "$WORK/$dir/Makefile.in"
    git_ add -A configure.ac "$dir"

    names=$(echo $tests | awk '{ for (i = 1; i <= NF; i++) printf "%s%s", $i, i == NF ? "" : i == NF - 1 ? " and " : ", " }')
    {
        echo "$module/tests: Add the $names test$([ $(echo $tests | wc -w) = 1 ] || echo s)."
        echo
        echo "The layer's conformance tests (tests/conformance in its checkout),"
        echo "in Wine's test layout; they pass on Windows, where a result is known."
    } >"$WORK/.git/message"
    commit "$AUTHOR" "$(date_of $files)" "$WORK/.git/message"
}

check_manifest
base_repo
AUTHOR=$(sed -n 's/^From: //p' "$TOP/patches/$WINE_SERIES/$(series_patches | head -1)" | head -1)
for p in $(series_patches); do
    hook_patch "$p"
done
for d in $(manifest | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^dlls\/.*\/tests$/) print $i }' | awk '!seen[$0]++'); do
    test_patch "$d"
done

rm -f "$OUT"/*.patch
git_ format-patch -q --no-signature -o "$OUT" pristine..HEAD
say "wrote $(ls "$OUT" | wc -l) patches to $OUT"

#!/bin/sh
# 'make series' gives a git series Wine can take: it applies with git am to
# a git repository of the pristine tree, gives exactly the sources the layer
# is built from (the staged tree), and builds there: the modules it changes
# with Wine's tools from the staged build, and its tests in Wine's layout.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/config.sh"
out="$TESTBIN/host/series"
tree="$out/tree"
repo="$TOP/build/series/repo"

sh "$TOP/tools/series.sh" "$WINE_SOURCE" "$out/patches"

echo "series: git am of the series onto the pristine tree"
rm -rf "$tree"
git clone -q --shared -b pristine "$repo" "$tree" 2>/dev/null
git -C "$tree" -c user.name=series -c user.email=series@localhost am -q "$out"/patches/*.patch
changed=$(git -C "$tree" diff --name-only pristine HEAD)

# The same sources as the staged tree, tests aside (the layer builds those
# from tests/conformance): in configure.ac, the lines of the test
# directories the series adds.
added_test_dirs=$(git -C "$tree" diff pristine HEAD -- configure.ac |
    sed -n 's|^+\(WINE_CONFIG_MAKEFILE(dlls/.*/tests)\)$|\\\|^\1$\|d;|p')
bad=0
for f in $changed; do
    case $f in
        */tests/*) continue ;;
        configure.ac) filter=$added_test_dirs ;;
        *) filter='' ;;
    esac
    if [ ! -f "$STAGED/$f" ] || ! sed "$filter" "$tree/$f" | cmp -s - "$STAGED/$f"; then
        echo "$f differs between the series and the staged tree"; bad=1
    fi
done
[ $bad = 0 ] || exit 1

# Each changed file's module (or test directory): the nearest directory
# with a Makefile.in.
modules=""
for f in $changed; do
    case $f in
        */tests/*) d=${f%/tests/*}/tests ;;
        *) d=$(dirname "$f") ;;
    esac
    while [ "$d" != . ] && [ ! -f "$tree/$d/Makefile.in" ]; do d=$(dirname "$d"); done
    case $d in .|include|tools) continue ;; esac
    case " $modules " in *" $d "*) ;; *) modules="$modules $d" ;; esac
done

# Debian's source does not configure some of Wine's test directories
# (debian/patches/disable/generated-data.patch: their generated data is not
# in the repack). Configured here, they give the objects of the series'
# tests, not a test program.
objects=""
for d in $modules; do
    case $d in */tests) ;; *) continue ;; esac
    grep -q "^WINE_CONFIG_MAKEFILE($d)\$" "$tree/configure.ac" && continue
    sed -i "s|^WINE_CONFIG_MAKEFILE(${d%/tests})\$|&\nWINE_CONFIG_MAKEFILE($d)|" "$tree/configure.ac"
    for src in $(sed -n 's/^\t\([a-z_0-9]*\.c\).*/\1/p' "$tree/$d/Makefile.in"); do
        [ -e "$tree/$d/$src" ] || : >"$tree/$d/$src"  # for makedep only: not built
    done
    modules=$(echo " $modules " | sed "s| $d | |")
    for f in $(echo "$changed" | grep "^$d/.*\.c\$"); do
        objects="$objects $d/x86_64-windows/$(basename "$f" .c).o"
    done
done
echo "series: building$modules$objects"
sh "$TOP/tools/stage.sh" --prepare "$tree" --enable-tests --with-wine-tools="$STAGED"
sh "$TOP/tools/build.sh" "$tree" "$(nproc)" "$modules" "" ""
make -C "$tree" -j"$(nproc)" $objects >"$out/objects.log" 2>&1 || { tail -30 "$out/objects.log"; exit 1; }

# The test programs built in Wine's layout pass on the layer, as the
# layer's own builds of the same tests do.
for d in $modules; do
    case $d in */tests) ;; *) continue ;; esac
    module=$(basename "${d%/tests}")
    exe="$tree/$d/x86_64-windows/${module%.*}_test.exe"
    for f in $(echo "$changed" | grep "^$d/.*\.c$"); do
        t=$(basename "$f" .c)
        (cd "$out" && timeout 300 "$LAYER" "$exe" "$t") >"$out/$t.log" 2>&1 &&
            grep -qE "^[0-9a-f]+:$t: [0-9]+ tests executed .*, 0 failures\)" "$out/$t.log" ||
            { echo "$d: $t fails in Wine's layout:"; grep -E 'Test failed|tests executed' "$out/$t.log" | head; exit 1; }
        echo "series: $d: $t passes"
    done
done
"$LAYER" --kill
echo "series: $(ls "$out/patches" | wc -l) patches apply with git am, build, and their tests pass"

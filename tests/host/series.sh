#!/bin/sh
# 'make series' gives a git series Wine can take, and a real one: applied
# with git am to a git repository of the pristine tree one patch at a time,
# the tree builds after every patch (the modules that patch touches, in the
# tree the patches before it built, so incrementally; with no warning in
# our files), so that no patch uses a file, header or function a later
# patch brings. The last commit gives exactly the sources the layer is built from
# (the staged tree), and its tests, in Wine's layout, pass on the layer.
# timeout: 2400
# background: about ten minutes of builds; its test programs run in a prefix of its own
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/config.sh"
out="$TESTBIN/host/series"
tree="$out/tree"
repo="$TOP/build/series/repo"
start=$(date +%s)

sh "$TOP/tools/series.sh" "$WINE_SOURCE" "$out/patches"

rm -rf "$tree"
git clone -q --shared -b pristine "$repo" "$tree" 2>/dev/null
# --whitespace=error: a patch that adds trailing blanks or blank lines at
# the end of a file does not apply, as a reviewer would ask.
git_am() { git -C "$tree" -c user.name=series -c user.email=series@localhost am -q --whitespace=error "$1"; }

# The nearest directory of FILE with a Makefile.in: its module (or test
# directory); nothing for the headers and tools every module shares.
module_of() {
    case $1 in
        */tests/*) d=${1%/tests/*}/tests ;;
        *) d=$(dirname "$1") ;;
    esac
    while [ "$d" != . ] && [ ! -f "$tree/$d/Makefile.in" ]; do d=$(dirname "$d"); done
    case $d in .|include|tools) ;; *) echo "$d" ;; esac
}

# --- commit by commit: the hook patches (the test patches come after) ----

# Wine's build tools come from the staged tree; configure caches its checks,
# so that a patch to configure.ac reconfigures in seconds.
configured=""
n=0
for p in "$out"/patches/*.patch; do
    subject=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$p" | head -1)
    case $subject in */tests:*) break ;; esac
    git_am "$p"
    n=$((n + 1))
    changed=$(git -C "$tree" diff --name-only HEAD~1 HEAD)
    if [ -z "$configured" ]; then
        sh "$TOP/tools/stage.sh" --prepare "$tree" -C --with-wine-tools="$STAGED" >"$out/prepare.log" 2>&1 ||
            { tail -20 "$out/prepare.log"; echo "series: $(basename "$p"): the tree does not configure"; exit 1; }
        configured=1
    else
        if echo "$changed" | grep -qx 'configure.ac'; then
            (cd "$tree" && autoreconf -fi >/dev/null 2>&1 && ./configure -q -C --enable-win64 --enable-archs=i386,x86_64 --with-mingw \
                --without-x --without-freetype --disable-tests --with-wine-tools="$STAGED" >>"$out/prepare.log" 2>&1) ||
                { tail -20 "$out/prepare.log"; echo "series: $(basename "$p"): the tree does not configure"; exit 1; }
        fi
        if echo "$changed" | grep -qx -e 'server/protocol.def' -e 'tools/make_requests'; then
            (cd "$tree" && tools/make_requests >/dev/null)
        fi
    fi
    modules=""
    for f in $changed; do
        m=$(module_of "$f")
        [ -n "$m" ] || continue
        case " $modules " in *" $m "*) ;; *) modules="$modules $m" ;; esac
    done
    [ -n "$modules" ] || { echo "series: $n $(basename "$p"): no module to build"; continue; }
    # both architectures: a patch's i386 side (WoW64) must build on its own
    # too. At -O0, where the compiler takes half the time: the warnings that need
    # the optimizer's analysis come from the layer's own -O2 build of the
    # last commit's sources.
    { BUILD_CFLAGS=-O0 sh "$TOP/tools/build.sh" "$tree" "$(nproc)" "$modules" "" "" &&
      BUILD_CFLAGS=-O0 sh "$TOP/tools/build.sh" --i386 "$tree" "$(nproc)" "$modules" "" ""; } >"$out/build.log" 2>&1 ||
        { cat "$out/build.log"; echo "series: $(basename "$p") does not build on its own (with the patches before it)"; exit 1; }
    echo "series: $n $(basename "$p"): builds$modules"
done

# --- the whole series -----------------------------------------------------

i=0
for p in "$out"/patches/*.patch; do
    i=$((i + 1))
    [ $i -gt $n ] && git_am "$p"
done
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

# The test directories of the series. Debian's source does not configure
# some of Wine's test directories (debian/patches/disable/generated-data.patch:
# their generated data is not in the repack). Configured here, they give the
# objects of the series' tests, not a test program.
tests=""
objects=""
for f in $changed; do
    case $f in */tests/*) ;; *) continue ;; esac
    d=$(module_of "$f")
    case " $tests " in *" $d "*) ;; *) tests="$tests $d" ;; esac
done
for d in $tests; do
    grep -q "^WINE_CONFIG_MAKEFILE($d)\$" "$tree/configure.ac" && continue
    sed -i "s|^WINE_CONFIG_MAKEFILE(${d%/tests})\$|&\nWINE_CONFIG_MAKEFILE($d)|" "$tree/configure.ac"
    for src in $(sed -n 's/^\t\([a-z_0-9]*\.c\).*/\1/p' "$tree/$d/Makefile.in"); do
        [ -e "$tree/$d/$src" ] || : >"$tree/$d/$src"  # for makedep only: not built
    done
    tests=$(echo " $tests " | sed "s| $d | |")
    for f in $(echo "$changed" | grep "^$d/.*\.c\$"); do
        objects="$objects $d/x86_64-windows/$(basename "$f" .c).o"
    done
done
echo "series: building the tests:$tests$objects"
(cd "$tree" && autoreconf -fi >/dev/null 2>&1 && ./configure -q -C --enable-win64 --enable-archs=i386,x86_64 --with-mingw --without-x \
    --without-freetype --enable-tests --with-wine-tools="$STAGED" >>"$out/prepare.log" 2>&1) ||
    { tail -20 "$out/prepare.log"; exit 1; }
sh "$TOP/tools/build.sh" "$tree" "$(nproc)" "$tests" "" ""
make -C "$tree" -j"$(nproc)" $objects >"$out/objects.log" 2>&1 || { tail -30 "$out/objects.log"; exit 1; }

# The test programs built in Wine's layout pass on the layer, as the
# layer's own builds of the same tests do, in a prefix of this test's own
# (it runs beside the others).
WINEPREFIX="$out/prefix"
export WINEPREFIX
for d in $tests; do
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
echo "series: $(ls "$out/patches" | wc -l) patches apply with git am, the tree builds after each of the $n hook patches, their tests pass ($(( $(date +%s) - start ))s)"

# Helpers shared by the test driver and the benchmark driver: where things
# are, and how Windows test programs and Winelib test modules are built.
# Sourced with TOP set to the checkout.
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

. "$TOP/tools/config.sh"

# WINE_LAYER_TREE and TESTBIN select another build of the layer and another
# place for the test programs and logs (tools/sanitize.sh).
STAGED="${WINE_LAYER_TREE:-$TOP/build/wine}"
TESTBIN="${TESTBIN:-$TOP/build/tests}"
LAYER="$TOP/loader/wine-layer"

# pe_libs [ARCH]: the import libraries for x86_64 (default) or i386
pe_libs() {
    for l in $TEST_LIBS; do
        printf '%s ' "$STAGED/dlls/$l/${1:-x86_64}-windows/lib$l.a"
    done
}

winelib_libs() {
    for l in $WINELIB_LIBS; do
        printf '%s ' "$STAGED/dlls/$l/lib$l.a"
    done
}

# build_exe SRC EXE [ARCH]: a Windows console program, as Wine builds its
# tests, for x86_64 (default) or i386 (a 32-bit program, run in WoW64 mode).
# DWARF 4, as Wine 8.0's dbghelp reads no later version (GCC 12 writes 5):
# so wctdump and debuggers name the program's functions. i386 code keeps
# its frame pointers, as Wine's own i386 code and MSVC's /Oy- do: the EBP
# chain is what an x86 back-trace follows.
build_exe() {
    src=$1 exe=$2 arch=${3:-x86_64} archflags=""
    [ "$arch" = i386 ] && archflags="-fno-omit-frame-pointer"
    if [ -f "$exe" ] && [ "$exe" -nt "$src" ] && [ "$exe" -nt "$STAGED/include/wine/test.h" ]; then
        stale=""
        # the test headers, and the staged copies of our own headers
        for h in "$TOP"/tests/include/*.h $(cd "$TOP" && find include -name '*.h' | sed "s|^|$STAGED/|"); do
            [ "$h" -nt "$exe" ] && stale=1
        done
        [ -z "$stale" ] && return 0
    fi
    case $arch in i386) triple=i686-w64-mingw32 ;; *) triple=x86_64-w64-mingw32 ;; esac
    $triple-gcc -c -o "$exe.o" "$src" -I"$STAGED/include" -I"$STAGED/include/msvcrt" \
        -I"$TOP/tests/include" -D_MSVCR_VER=0 -D__WINE_PE_BUILD -Wall -Werror -gdwarf-4 -O2 $archflags &&
    "$STAGED/tools/winegcc/winegcc" -o "$exe" --wine-objdir "$STAGED" -b $triple \
        -mconsole "$exe.o" $(pe_libs $arch)
}

# build_test_dlls DIR [DIR32]: the PE test DLLs, tests/dlls/NAME.S ->
# DIR/NAME.dll, without a C runtime; those whose source says "32-bit:
# built" also for i386, into DIR32 (beside the 32-bit test programs). All
# of one architecture are linked at one base, so that one may be loaded
# where another was. One may include another: any change rebuilds them all.
TEST_DLL_BASE=0x2a0000000
TEST_DLL_BASE_I386=0x6a000000
build_test_dlls() {
    for src in "$TOP"/tests/dlls/*.S; do
        [ -f "$src" ] || continue
        for arch in x86_64 i386; do
            case $arch in
                x86_64) dll="$1/$(basename "$src" .S).dll" triple=x86_64-w64-mingw32 base=$TEST_DLL_BASE
                        entry=dll_entry ;;
                i386)   [ -n "${2:-}" ] && grep -q '^ \* 32-bit: built' "$src" || continue
                        dll="$2/$(basename "$src" .S).dll" triple=i686-w64-mingw32 base=$TEST_DLL_BASE_I386
                        entry=_dll_entry ;;  # i386 C names have a leading underscore
            esac
            [ -f "$dll" ] && stale="" || stale=1
            for f in "$TOP"/tests/dlls/*; do [ "$f" -nt "$dll" ] && stale=1; done
            [ -z "$stale" ] && continue
            $triple-gcc -shared -nostdlib -nostartfiles -Wl,--entry=$entry \
                -Wl,--image-base=$base -Wl,--disable-dynamicbase -o "$dll" "$src" || return 1
        done
    done
}

# Winelib test modules: tests/winelib/NAME.c + NAME.spec give an ELF
# NAME.dll.so, found through WINEDLLPATH, and the fake PE NAME.dll that Wine
# 8.0 wants beside the program that loads it. NAME.ldflags, if there, adds
# link flags (-lwine: the libwine of the build tree, the installed one;
# such a module is left out where Wine has no libwine, as from Wine 10 on).
build_winelib_modules() {
    dest=$1
    for spec in "$TOP"/tests/winelib/*.spec; do
        [ -f "$spec" ] || continue
        name=$(basename "$spec" .spec)
        so="$TESTBIN/winelib/x86_64-unix/$name.dll.so"
        ldflags=""
        if [ -f "${spec%.spec}.ldflags" ]; then
            # Wine 10 has no libwine: a module that links it is for 8.0 only
            grep -qw -- -lwine "${spec%.spec}.ldflags" && [ ! -d "$STAGED/libs/wine" ] && continue
            ldflags="-L$STAGED/libs/wine $(cat "${spec%.spec}.ldflags")"
        fi
        if ! [ "$so" -nt "$spec" ] || ! [ "$so" -nt "${spec%.spec}.c" ]; then
            mkdir -p "$TESTBIN/winelib/x86_64-unix"
            "$STAGED/tools/winegcc/winegcc" --wine-objdir "$STAGED" -shared -Wall -Werror -O2 -o "$so" \
                "${spec%.spec}.c" "$spec" $(winelib_libs) $ldflags || return 1
        fi
        [ "$dest/$name.dll" -nt "$spec" ] ||
            "$STAGED/tools/winebuild/winebuild" --dll --fake-module -E "$spec" -F "$name.dll" \
                -o "$dest/$name.dll" || return 1
    done
}

# build_winelib DIR: build the Winelib modules, put their fake PE files in
# DIR (beside the programs) and make Wine find them.
build_winelib() {
    mkdir -p "$1" "$TESTBIN"
    if ! build_winelib_modules "$1" >"$TESTBIN/winelib.log" 2>&1; then
        cat "$TESTBIN/winelib.log" >&2
        echo "the Winelib test modules do not build" >&2
        return 1
    fi
    WINEDLLPATH="${WINEDLLPATH:+$WINEDLLPATH:}$TESTBIN/winelib"
    export WINEDLLPATH
}

# prefix_server [PREFIX]: the pid of the wineserver that serves PREFIX
# (default $WINEPREFIX, else the launcher's), nothing if none, as another
# test may have a server of its own running beside this one's: the one
# that holds open the prefix's server directory (.../server-DEV-INODE of
# the prefix, in hexadecimal) and its lock file, as it does all its life.
# Not the one working there: it works in the prefix while it loads or
# saves the registry (seconds at its start, on Wine 10.0), as the
# launcher's running_server says.
prefix_server() {
    ps_prefix=${1:-${WINEPREFIX:-$("$LAYER" --env | sed -n 's/^WINEPREFIX=//p')}}
    [ -d "$ps_prefix" ] || return 0
    ps_dir=server-$(stat -c '%d-%i' "$ps_prefix" | awk -F- '{ printf "%x-%x", $1, $2 }')
    for ps_pid in $(pgrep wineserver); do
        ls -l "/proc/$ps_pid/fd" 2>/dev/null | grep -q -e "/$ps_dir\$" -e "/$ps_dir/lock\$" &&
            { echo "$ps_pid"; return 0; }
    done
    return 0
}

# wait_for_ready FILE NAME SECONDS: prints the process id a test program
# writes to FILE as "NAME: pid N ready" once it is stuck where it should
# be; fails (printing nothing) if that has not happened after SECONDS.
wait_for_ready() {
    tries=$(($3 * 10))
    while [ $tries -gt 0 ]; do
        ready_pid=$(sed -n "s/^$2: pid \([0-9]*\) ready.*/\1/p" "$1" 2>/dev/null | head -1)
        [ -n "$ready_pid" ] && { echo "$ready_pid"; return 0; }
        tries=$((tries - 1))
        sleep 0.1
    done
    return 1
}

# start_program [--ready WORD] NAME SECONDS [VAR=VALUE...] EXE [ARG...]: starts EXE in $dir
# on the layer with those variables set, its output in $dir/NAME.out and
# NAME.err (emptied first: a line left by an earlier run must not count),
# and sets $pid once the program says it is ready (wait_for_ready, under
# EXE's name without .exe, or WORD). If it does not, says so with its error output,
# stops the prefix's processes and ends the test with status 1. The program
# is a job of the test's shell, so the test's "wait" waits for it.
start_program() {
    sp_ready=""
    [ "$1" = --ready ] && { sp_ready=$2; shift 2; }
    sp_name=$1 sp_secs=$2
    shift 2
    : >"$dir/$sp_name.out"
    (
        cd "$dir" || exit 1
        while [ "${1#*=}" != "$1" ]; do export "$1"; shift; done
        exec "$LAYER" "$@" >"$dir/$sp_name.out" 2>"$dir/$sp_name.err"
    ) &
    for sp_exe; do [ "${sp_exe#*=}" = "$sp_exe" ] && break; done
    pid=$(wait_for_ready "$dir/$sp_name.out" "${sp_ready:-${sp_exe%.exe}}" "$sp_secs") || pid=
    [ -n "$pid" ] && return 0
    echo "$* ($sp_name) did not start"
    cat "$dir/$sp_name.err"
    "$LAYER" --kill
    exit 1
}

# wait_for_lines FILE PATTERN COUNT: waits until FILE has COUNT lines that
# match PATTERN (grep's), a minute at most; says so and fails otherwise.
wait_for_lines() {
    for wl_i in $(seq 600); do
        [ "$(grep -c -- "$2" "$1" 2>/dev/null || true)" -ge "$3" ] && return 0
        sleep 0.1
    done
    echo "$1: no $3 lines '$2' within a minute"
    return 1
}

# expect_launcher [--stderr] STATUS PATTERN [VAR=VALUE...] [--] ARG...: runs
# the launcher with ARGs (and those variables set) and checks that it exits
# with STATUS and prints PATTERN (a fixed string); sets fail=1 otherwise,
# showing what it printed. Its output is left in $dir/out (stdout and
# stderr together). With --stderr, PATTERN must be on stderr ($dir/err)
# and stdout ($dir/out) must stay empty: a message that is no result.
expect_launcher() {
    el_split=""
    [ "$1" = --stderr ] && { el_split=1; shift; }
    el_status=$1 el_pattern=$2 el_env=""
    shift 2
    while [ "${1#*=}" != "$1" ] && [ "${1#-}" = "$1" ]; do el_env="$el_env $1"; shift; done
    [ "$1" = -- ] && shift
    el_rc=0
    if [ -n "$el_split" ]; then
        env $el_env "$LAYER" "$@" >"$dir/out" 2>"$dir/err" || el_rc=$?
        el_text="$dir/err"
        [ -s "$dir/out" ] && el_rc="$el_rc (and a result on stdout)"
    else
        env $el_env "$LAYER" "$@" >"$dir/out" 2>&1 || el_rc=$?
        el_text="$dir/out"
    fi
    if [ "$el_rc" = "$el_status" ] && grep -qF -- "$el_pattern" "$el_text"; then
        echo "${el_env# }${el_env:+ }wine-layer ${*##*/}: exit $el_rc, '$(grep -F -- "$el_pattern" "$el_text" | head -1)'"
    else
        echo "${el_env# }${el_env:+ }wine-layer $*: exit $el_rc:"
        sed 's/^/    | /' "$dir/out" ${el_split:+"$dir/err"}
        echo "    expected exit $el_status and '$el_pattern'${el_split:+ on stderr, nothing on stdout}"
        fail=1
    fi
}

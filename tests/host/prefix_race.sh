#!/bin/sh
# Many programs, 64-bit and 32-bit, started at once by the launcher in a
# prefix that does not exist yet, one of them running until the others
# have ended: every other one runs and exits 0 with its output while it
# still runs, the prefix is made once ("creating" said once), its syswow64
# holds exactly the build's i386 modules with no temporary file left, and
# the next program starts without making anything. Twice, in two new
# prefixes. (Before the lock, every launch ran its own wineboot into the
# same prefix, 9 here, and then waited for the wineserver to exit.)
# timeout: 900
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
dir="$TESTBIN/host/prefix_race"
rm -rf "$dir"
mkdir -p "$dir"
unset WINEDEBUG
fail=0
LAUNCHES=8

cat >"$dir/hello.c" <<'EOC'
#include <windows.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    BOOL wow64 = FALSE;
    int i;

    /* "wait FILE": run until FILE exists (two minutes at most) */
    if (argc == 3 && !strcmp( argv[1], "wait" ))
        for (i = 0; i < 1200 && GetFileAttributesA( argv[2] ) == INVALID_FILE_ATTRIBUTES; i++) Sleep( 100 );
    IsWow64Process( GetCurrentProcess(), &wow64 );
    printf( "%d-bit, wow64 %d, user32 %d\n", (int)sizeof(void *) * 8, wow64, GetSystemMetrics( SM_CXSCREEN ) >= 0 );
    return 0;
}
EOC
x86_64-w64-mingw32-gcc -o "$dir/hello64.exe" "$dir/hello.c" -luser32
# i386: the build has i386 modules (which fill syswow64 whatever the
# program; make check builds the layer's even where the kernel runs no
# 32-bit code); run32: 32-bit programs are launched too, where it runs them
i386="" run32=""
if [ -f "$STAGED/dlls/ntdll/i386-windows/ntdll.dll" ]; then
    i386=1
    if [ -n "${IA32_SKIP:-}" ]; then
        echo "skipped part: 32-bit launches ($IA32_SKIP)"
    else
        i686-w64-mingw32-gcc -o "$dir/hello32.exe" "$dir/hello.c" -luser32
        run32=1
    fi
fi
expect() {
    case $1 in 64) echo "64-bit, wow64 0, user32 1" ;; *) echo "32-bit, wow64 1, user32 1" ;; esac
}

for round in 1 2; do
    export WINEPREFIX="$dir/prefix$round"
    # the one that runs until the others have ended, started with them
    rm -f "$dir/done"
    ( rc=0; "$LAYER" "$dir/hello64.exe" wait 'Z:'"$dir/done" >"$dir/out.$round.long" 2>&1 || rc=$?
      echo "exit $rc" >>"$dir/out.$round.long" ) &
    long=$!
    pids=""
    i=0
    while [ $i -lt $LAUNCHES ]; do
        bits=64
        [ -n "$run32" ] && [ $((i % 2)) = 1 ] && bits=32
        ( rc=0; "$LAYER" "$dir/hello$bits.exe" >"$dir/out.$round.$i" 2>&1 || rc=$?
          echo "exit $rc" >>"$dir/out.$round.$i" ) &
        pids="$pids $!"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    wait $pids
    kill -0 $long 2>/dev/null ||
        { echo "round $round: the long program ended before the others (it runs two minutes at most)"; fail=1; }
    touch "$dir/done"
    wait $long
    grep -qx "exit 0" "$dir/out.$round.long" ||
        { echo "round $round: the long program:"; sed 's/^/    | /' "$dir/out.$round.long"; fail=1; }
    i=0
    while [ $i -lt $LAUNCHES ]; do
        bits=64
        [ -n "$run32" ] && [ $((i % 2)) = 1 ] && bits=32
        out="$dir/out.$round.$i"
        if tr -d '\r' <"$out" | grep -qxF "$(expect $bits)" && grep -qx "exit 0" "$out"; then
            echo "round $round, launch $i ($bits-bit): $(expect $bits), exit 0"
        else
            echo "round $round, launch $i ($bits-bit) did not run as expected:"; sed 's/^/    | /' "$out"; fail=1
        fi
        i=$((i + 1))
    done
    made=$(cat "$dir"/out.$round.* | grep -c "creating the layer prefix" || true)
    [ "$made" = 1 ] || { echo "round $round: 'creating the layer prefix' said $made times, not once"; fail=1; }
    [ -f "$WINEPREFIX/system.reg" ] || { echo "round $round: no system.reg"; fail=1; }
    if [ -n "$i386" ]; then
        sys="$WINEPREFIX/drive_c/windows/syswow64"
        modules=$(cd "$STAGED" && for d in dlls/*/i386-windows programs/*/i386-windows; do
            m=${d%/i386-windows}; m=${m##*/}
            case "$m:$d" in *.*:*) f=$m ;; *:programs/*) f=$m.exe ;; *) f=$m.dll ;; esac
            [ -f "$d/$f" ] && echo "$f"; done | sort)
        have=$(ls "$sys" | sort)
        [ "$have" = "$modules" ] || { echo "round $round: syswow64 holds $(echo $have); the build has $(echo $modules)"; fail=1; }
        ls -a "$sys" | grep -q '\.wine-layer\.' && { echo "round $round: a temporary file was left in syswow64"; fail=1; }
    fi
    if [ -n "$run32" ]; then
        rc=0; "$LAYER" "$dir/hello32.exe" >"$dir/out.$round.after" 2>&1 || rc=$?
    else
        rc=0; "$LAYER" "$dir/hello64.exe" >"$dir/out.$round.after" 2>&1 || rc=$?
    fi
    if [ $rc != 0 ] || grep -q "wine-layer:" "$dir/out.$round.after"; then
        echo "round $round: the next program (exit $rc) said:"; sed 's/^/    | /' "$dir/out.$round.after"; fail=1
    fi
    "$LAYER" --kill
done
exit $fail

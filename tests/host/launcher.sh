#!/bin/sh
# The launcher: its own --help and --version, --env refuses a program, the
# default prefix is named after the tree, a prefix of another user gets a
# hint, a prefix set up by the other flavour is not rewritten silently, a
# 32-bit program on stock Wine without Debian's wine32 is told to run it on
# the layer (host/wow64 runs them) or, given stock Wine's own i386 modules
# (WINE_LAYER_STOCK_I386), is refused when they lack ntdll or one it
# imports (make bench runs backtrace_bench32 with them), a wineserver that works in its prefix
# for a moment is still found, and
# 100 programs launched back to back (four at a time, each right after
# another) are never refused because a Wine process passing through the
# server's directory was taken for another wineserver.
set -eu
. "$TOP/tools/testlib.sh"
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
dir="$TESTBIN/host/launcher"
rm -rf "$dir"
mkdir -p "$dir"
printf 'int main(void) { return 0; }\n' >"$dir/true.c"
x86_64-w64-mingw32-gcc -o "$dir/true.exe" "$dir/true.c"
unset WINEDEBUG
fail=0

expect_launcher 0 "Usage: wine-layer [--stock] PROGRAM" --help
if grep -q "Usage: wine PROGRAM" "$dir/out"; then echo "--help prints Wine's usage"; fail=1; fi
. "$TOP/tools/config.sh"
expect_launcher 0 "runs on ${WINE_SERIES}" --version
grep -q "^wine-layer [0-9]" "$dir/out" || { echo "--version: no version of the layer"; fail=1; }
expect_launcher 1 "--env prints the environment and runs nothing: drop 'true.exe'" --env true.exe
expect_launcher 1 "unknown option --bogus" --bogus

# the default prefix goes by the tree's own name (build/wine: build/prefix,
# build/wine-san: build/prefix-san), not by a directory above it that is
# called wine-something (a checkout in ~/wine-layer)
for case in wine-layer/build/wine:prefix wine-layer/build/wine-san:prefix-san; do
    got=$(unset WINEPREFIX; WINE_LAYER_TREE="$dir/${case%:*}" "$LAYER" --env | sed -n 's/^WINEPREFIX=//p')
    [ "$got" = "$TOP/build/${case#*:}" ] && echo "tree ${case%:*}: prefix build/${case#*:}" ||
        { echo "tree ${case%:*}: prefix $got, expected $TOP/build/${case#*:}"; fail=1; }
done

# a 32-bit program: the same file, marked for i386
cp "$dir/true.exe" "$dir/true32.exe"
lfanew=$(od -An -tu4 -j60 -N4 "$dir/true32.exe" | tr -d ' ')
printf '\114\001' | dd of="$dir/true32.exe" bs=1 seek=$((lfanew + 4)) conv=notrunc 2>/dev/null
if [ -n "${IA32_SKIP:-}" ]; then
    # host/ia32 checks what is said instead
    echo "skipped part: stock Wine's answers to a 32-bit program ($IA32_SKIP)"
elif [ -x /usr/lib/wine/wine ]; then
    echo "Debian's wine32 is installed: stock Wine runs 32-bit programs itself"
else
    expect_launcher 1 "runs those only with Debian's wine32" --stock "$dir/true32.exe"
    grep -qF -- "wine-layer $dir/true32.exe" "$dir/out" || { echo "no hint to run it on the layer"; fail=1; }
    # with stock Wine's own i386 modules (make stock-i386): a directory
    # without them, or without one the program imports, is named
    mkdir -p "$dir/stock-i386/i386-windows"
    expect_launcher 1 "WINE_LAYER_STOCK_I386 is $dir/stock-i386, which holds no stock i386 ntdll.dll" \
        WINE_LAYER_STOCK_I386="$dir/stock-i386" -- --stock "$dir/true32.exe"
    cp "$STAGED/dlls/ntdll/i386-windows/ntdll.dll" "$dir/stock-i386/i386-windows/"
    expect_launcher 1 "stock Wine's i386 modules in $dir/stock-i386/i386-windows lack some it needs: kernel32.dll" \
        WINE_LAYER_STOCK_I386="$dir/stock-i386" -- --stock "$dir/true32.exe"
fi

# a prefix of another user
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    mkdir -p "$dir/theirs"
    chown nobody "$dir/theirs"
    WINEPREFIX="$dir/theirs" expect_launcher 1 "set WINEPREFIX to a directory of yours" "$dir/true.exe"
else
    echo "(not root: the prefix of another user is not tried)"
fi

# a prefix the layer set up, run with stock Wine, and one set up by another Wine
mkdir -p "$dir/switch"
: >"$dir/switch/system.reg"
echo 1 >"$dir/switch/.update-timestamp"
echo layer >"$dir/switch/.wine-layer-flavour"
WINEPREFIX="$dir/switch" expect_launcher 1 "was set up by the layer; running stock Wine there makes Wine update the prefix" \
    --stock "$dir/true.exe"
rm "$dir/switch/.wine-layer-flavour"
WINEPREFIX="$dir/switch" expect_launcher 1 "was set up by another Wine; running the layer there" "$dir/true.exe"

# a wineserver that works in its prefix for a moment (it loads or saves the
# registry there) is still the prefix's: the launcher finds it by the lock
# file it holds (open, with a POSIX lock on it, as Wine's wineserver holds
# it), so wctdump does not say that nothing runs there; here one that is
# not the layer's, in a prefix with no other server
mkdir -p "$dir/busy/prefix"
: >"$dir/busy/prefix/system.reg"
echo layer >"$dir/busy/prefix/.wine-layer-flavour"
sdir="$dir/busy/tmp/server-$(stat -c '%d-%i' "$dir/busy/prefix" | awk -F- '{ printf "%x-%x", $1, $2 }')"
mkdir -p "$sdir"
: >"$sdir/lock"
cat >"$dir/busy/fake.c" <<'EOC'
#include <fcntl.h>
#include <unistd.h>
int main( int argc, char **argv )
{
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    int fd = open( argv[1], O_WRONLY );
    if (argc < 2 || fd < 0 || fcntl( fd, F_SETLK, &fl ) < 0) return 1;
    sleep( 60 );
    return 0;
}
EOC
gcc -o "$dir/busy/wineserver" "$dir/busy/fake.c"
(cd "$dir/busy/prefix" && exec "$dir/busy/wineserver" "$sdir/lock") &
busy=$!
for i in $(seq 50); do grep -q "POSIX .* $busy " /proc/locks && break; sleep 0.1; done
WINEPREFIX="$dir/busy/prefix" expect_launcher 2 "is served by another wineserver ($dir/busy/wineserver)" wctdump
kill $busy; wait $busy 2>/dev/null || true

# 100 launches, each right after another
"$LAYER" --kill
seq 100 | xargs -P4 -I{} sh -c '"$1" "$2" >"$3/launch.{}" 2>&1 || echo "launch {} failed: $(cat "$3/launch.{}")"' \
    sh "$LAYER" "$dir/true.exe" "$dir" >"$dir/launches" 2>&1 || true
refused=$(grep -l "served by another wineserver" "$dir"/launch.* 2>/dev/null | wc -l)
failed=$(grep -c "failed" "$dir/launches" || true)
if [ "$refused" = 0 ] && [ "$failed" = 0 ]; then
    echo "100 launches: none refused"
else
    echo "100 launches: $refused refused, $failed failed:"; head -5 "$dir/launches"; fail=1
fi
"$LAYER" --kill
exit $fail

#!/bin/sh
# Does this kernel run 32-bit code? The probe (loader/ia32-probe.c) asked
# on the real kernel gives a definite answer, the one 'wine-layer --ia32'
# gives, and one a kernel without 32-bit system calls cannot contradict
# (an int $0x80 that faults means no 32-bit code either); its answer is
# kept for this boot only and only in a file of the user's own. The paths
# of a kernel without 32-bit code are then taken on any kernel through
# WINE_LAYER_TEST_NO_IA32=1: a 32-bit program is refused on the layer and
# on stock Wine with exit 126 and how to check the kernel, before anything
# starts (no prefix made, so no wineserver either), a 64-bit program still
# runs, and the test runner reports 32-bit tests as skipped, with the
# reason above its closing line.
set -eu
. "$TOP/tools/testlib.sh"
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
dir="$TESTBIN/host/ia32"
rm -rf "$dir"
mkdir -p "$dir/run"
unset WINEDEBUG
fail=0
probe="$TOP/build/ia32-probe"
boot=$(cat /proc/sys/kernel/random/boot_id)
cache="$dir/run/wine-layer-ia32-$(id -u)"
export XDG_RUNTIME_DIR="$dir/run"

ask() { rc=0; "$probe" || rc=$?; echo $rc; }

# the real kernel, uncached, then from the cache
verdict=$(ask)
case $verdict in
    0) echo "the probe: this kernel runs 32-bit code" ;;
    1) echo "the probe: this kernel runs no 32-bit code" ;;
    *) echo "the probe could not tell (exit $verdict)"; exit 1 ;;
esac
[ "$(cat "$cache" 2>/dev/null)" = "$boot $verdict" ] ||
    { echo "the cache holds '$(cat "$cache" 2>/dev/null)', expected '$boot $verdict'"; fail=1; }
[ "$(ask)" = "$verdict" ] || { echo "asked again, the probe changed its answer"; fail=1; }
other=$((1 - verdict))

# the cache is what answers within a boot ...
echo "$boot $other" >"$cache"
[ "$(ask)" = $other ] && echo "a record of this boot is used" ||
    { echo "a record of this boot was not used"; fail=1; }
# ... and only within it, and only a regular file of the user's own
echo "00000000-0000-0000-0000-000000000000 $other" >"$cache"
[ "$(ask)" = "$verdict" ] && echo "a record of another boot is probed again" ||
    { echo "a record of another boot was believed"; fail=1; }
[ "$(cat "$cache")" = "$boot $verdict" ] || { echo "the stale record was not replaced"; fail=1; }
echo "$boot $other" >"$dir/elsewhere"
ln -sf "$dir/elsewhere" "$cache"
[ "$(ask)" = "$verdict" ] && echo "a link is not believed" || { echo "a link was believed"; fail=1; }
rm -f "$cache"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    echo "$boot $other" >"$cache"
    chown nobody "$cache"
    [ "$(ask)" = "$verdict" ] && echo "another user's record is not believed" ||
        { echo "another user's record was believed"; fail=1; }
    rm -f "$cache"
fi

# the launcher gives the same answer
rc=0; "$LAYER" --ia32 >"$dir/out" 2>&1 || rc=$?
case $verdict:$rc in
    0:0|1:126) echo "wine-layer --ia32: exit $rc, '$(head -c 60 "$dir/out")...'" ;;
    *) echo "wine-layer --ia32: exit $rc where the probe answered $verdict"; fail=1 ;;
esac

# a kernel without 32-bit system calls runs no 32-bit code at all
cat >"$dir/int80.c" <<'EOC'
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
    int status;
    pid_t pid = fork();
    if (!pid)
    {
        int ret = 20;  /* getpid */
        __asm__ volatile( "int $0x80" : "+a" (ret) : : "memory" );
        _exit( ret > 0 ? 0 : 1 );
    }
    waitpid( pid, &status, 0 );
    return WIFEXITED( status ) && !WEXITSTATUS( status ) ? 0 : 1;
}
EOC
gcc -o "$dir/int80" "$dir/int80.c"
if "$dir/int80"; then
    echo "int \$0x80 works (the probe's answer stands alone)"
elif [ "$verdict" = 0 ]; then
    echo "int \$0x80 faults, yet the probe says this kernel runs 32-bit code"; fail=1
else
    echo "int \$0x80 faults too"
fi

# The paths of a kernel without 32-bit code, on any kernel.
printf 'int main(void) { return 0; }\n' >"$dir/true.c"
x86_64-w64-mingw32-gcc -o "$dir/true.exe" "$dir/true.c"
i686-w64-mingw32-gcc -o "$dir/true32.exe" "$dir/true.c"
no32=""
[ "$verdict" = 1 ] || no32=WINE_LAYER_TEST_NO_IA32=1
for flavour in "" --stock; do
    export WINEPREFIX="$dir/prefix$flavour"
    expect_launcher 126 "true32.exe is a 32-bit program, and this kernel runs no 32-bit code" \
        $no32 -- $flavour "$dir/true32.exe"
    grep -q "ia32_emulation=false" "$dir/out" && grep -q "64-bit programs are not affected" "$dir/out" ||
        { echo "the message does not say how to check the kernel, or that 64-bit programs run"; fail=1; }
    [ ! -e "$WINEPREFIX" ] && echo "no prefix was made" || { echo "$WINEPREFIX was made"; fail=1; }
done
expect_launcher 126 "this kernel runs no 32-bit code" $no32 -- --ia32
export WINEPREFIX="$dir/prefix"
expect_launcher 0 "" $no32 -- "$dir/true.exe"
"$LAYER" --kill

# the test runner: 32-bit tests skipped, counted, and why
rc=0
env $no32 TESTBIN="$dir/tests" "$TOP/tools/runtests.sh" conformance32/backtrace host/wow64 >"$dir/runner" 2>&1 || rc=$?
sed 's/^/    | /' "$dir/runner"
for line in "SKIP conformance32/backtrace (32-bit code)" "SKIP host/wow64 (32-bit code)" \
            "skipped: 2 32-bit tests or parts, as this kernel runs no 32-bit code" "0 passed, 0 failed, 2 skipped"; do
    grep -qF -- "$line" "$dir/runner" || { echo "the runner did not say '$line'"; fail=1; }
done
[ $rc = 0 ] || { echo "the runner exited $rc"; fail=1; }
exit $fail

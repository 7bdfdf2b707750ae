#!/bin/sh
# 32-bit programs on the layer (WoW64 mode: i386 modules in a 64-bit
# process, no i386 package): a program built with i686-w64-mingw32-gcc
# runs with IsWow64Process TRUE, the launcher fills a new prefix's syswow64
# with exactly the i386 modules of the build and says so once; a damaged
# module there (garbage, or a 64-bit DLL) is named and put back, and the
# program runs; an i386 DLL not of Wine's there is left alone; a program
# that imports a module of Wine that is not built is refused with the
# command that builds it (or, after make wow64, runs); a 32-bit Winelib
# program or ELF module gets a clear error and no prefix is made for it.
# timeout: 600
# needs: 32-bit code
set -eu
. "$TOP/tools/testlib.sh"
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
dir="$TESTBIN/host/wow64"
rm -rf "$dir"
mkdir -p "$dir"
export WINEPREFIX="$dir/prefix"
unset WINEDEBUG
fail=0
sys="$WINEPREFIX/drive_c/windows/syswow64"

cat >"$dir/hello.c" <<'EOC'
#include <windows.h>
#include <stdio.h>
int main(void)
{
    BOOL wow64 = FALSE;
    IsWow64Process( GetCurrentProcess(), &wow64 );
    printf( "%d-bit, wow64 %d, user32 %d\n", (int)sizeof(void *) * 8, wow64, GetSystemMetrics( SM_CXSCREEN ) >= 0 );
    return 0;
}
EOC
i686-w64-mingw32-gcc -o "$dir/hello.exe" "$dir/hello.c" -luser32

# the i386 modules of the build, as the launcher takes them
modules=$(cd "$STAGED" && for d in dlls/*/i386-windows programs/*/i386-windows; do
    m=${d%/i386-windows}; m=${m##*/}
    case "$m:$d" in *.*:*) f=$m ;; *:programs/*) f=$m.exe ;; *) f=$m.dll ;; esac
    [ -f "$d/$f" ] && echo "$f"; done | sort)

expect_launcher 0 "32-bit, wow64 1, user32 1" "$dir/hello.exe"
if [ -f "$STAGED/programs/rundll32/i386-windows/rundll32.exe" ]; then
    # after make wow64 the prefix's own set-up has the 32-bit rundll32 it
    # needs, and fills syswow64 as Wine does (its NLS files, wbem, ...)
    echo "make wow64 has run: Wine's set-up filled syswow64 (the launcher keeps the build's modules in it)"
else
    grep -qF "putting the layer's $(echo "$modules" | wc -l) i386 modules into $sys" "$dir/out" ||
        { echo "the first run did not say it fills syswow64"; fail=1; }
    have=$(ls "$sys" | sort)
    [ "$have" = "$modules" ] || { echo "syswow64 holds: $(echo $have); the build has: $(echo $modules)"; fail=1; }
fi
for f in $modules; do
    cmp -s "$sys/$f" "$(cd "$STAGED" && ls -d dlls/*/i386-windows/"$f" programs/*/i386-windows/"$f" 2>/dev/null |
        sed "s|^|$STAGED/|" | head -1)" || { echo "syswow64/$f differs from the build's"; fail=1; }
done
expect_launcher 0 "32-bit, wow64 1" "$dir/hello.exe"
if grep -q "wine-layer:" "$dir/out"; then echo "the second run said: $(grep wine-layer: "$dir/out")"; fail=1; fi

# damaged: garbage, then the 64-bit kernel32 in place of the i386 one
echo garbage >"$sys/kernel32.dll"
expect_launcher 0 "$sys/kernel32.dll was damaged (not an i386 module of Wine); putting the layer's back" "$dir/hello.exe"
grep -qF "32-bit, wow64 1" "$dir/out" || { echo "the program did not run after the repair"; fail=1; }
cmp -s "$sys/kernel32.dll" "$STAGED/dlls/kernel32/i386-windows/kernel32.dll" || { echo "kernel32.dll not repaired"; fail=1; }
cp "$STAGED/dlls/advapi32/x86_64-windows/advapi32.dll" "$sys/kernel32.dll"  # a 64-bit module of Wine
expect_launcher 0 "$sys/kernel32.dll was damaged" "$dir/hello.exe"
cmp -s "$sys/kernel32.dll" "$STAGED/dlls/kernel32/i386-windows/kernel32.dll" || { echo "kernel32.dll not repaired"; fail=1; }
ls -a "$sys" | grep -q '\.wine-layer\.' && { echo "a temporary file was left in syswow64"; fail=1; }

# an i386 DLL not of Wine's making, under the name of one of Wine's: kept
printf 'int __stdcall DllMain(void *h, unsigned r, void *p) { return 1; }\n' >"$dir/native.c"
i686-w64-mingw32-gcc -shared -o "$dir/version.dll" "$dir/native.c"
cp "$dir/version.dll" "$sys/version.dll"
expect_launcher 0 "32-bit, wow64 1" "$dir/hello.exe"
cmp -s "$sys/version.dll" "$dir/version.dll" || { echo "a native version.dll in syswow64 was replaced"; fail=1; }
cp -p "$STAGED/dlls/version/i386-windows/version.dll" "$sys/version.dll"

# a module of Wine that is not built (shell32, unless make wow64 built it)
printf '#include <windows.h>\n#include <shlobj.h>\nint main(void) { char p[MAX_PATH]; return SHGetFolderPathA(0, CSIDL_WINDOWS, 0, 0, p) ? 1 : 0; }\n' >"$dir/shell.c"
i686-w64-mingw32-gcc -o "$dir/shell.exe" "$dir/shell.c" -lshell32
if [ -f "$STAGED/dlls/shell32/i386-windows/shell32.dll" ]; then
    expect_launcher 0 "" "$dir/shell.exe"
else
    expect_launcher 1 "the i386 modules of Wine it needs are not built: shell32.dll" "$dir/shell.exe"
    grep -qF "make wow64" "$dir/out" || { echo "the message does not name make wow64"; fail=1; }
fi

# a 32-bit Winelib program (its PE stand-in) and a 32-bit ELF module: no prefix made
export WINEPREFIX="$dir/none"
printf '@ stdcall f()\n' >"$dir/w.spec"
"$STAGED/tools/winebuild/winebuild" --exe --fake-module -m32 -E "$dir/w.spec" -F winelib32.exe -o "$dir/winelib32.exe"
expect_launcher 1 "is a 32-bit Winelib program" "$dir/winelib32.exe"
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\003\000\003\000' >"$dir/module32.exe.so"
expect_launcher 1 "is a 32-bit Winelib module (ELF i386)" "$dir/module32.exe.so"
[ ! -e "$WINEPREFIX" ] || { echo "a prefix was made for a program that cannot run"; fail=1; }

"$LAYER" --kill
WINEPREFIX="$dir/prefix" "$LAYER" --kill
exit $fail

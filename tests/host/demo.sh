#!/bin/sh
# The main job's demonstration finds the three deadlocks, and wctdump's JSON
# report is valid, says the same, and names the program's functions.
set -eu
[ -z "$STOCK" ] || { echo "layer only"; exit 77; }
sh "$TOP/tools/demo.sh"
python3 - "$TOP/build/demo/report.json" <<'PY'
import json, re, sys
report = json.load(open(sys.argv[1]))
threads = [t for p in report["processes"] for t in p["threads"]]
dead = [t for t in threads if t.get("deadlock")]
assert report["schema_version"] == 3, report.get("schema_version")
assert report["deadlocks"] == 3, report["deadlocks"]
assert report["deadlocked_threads"] == 6 == len(dead), report["deadlocked_threads"]
kinds = {n["type"] for t in dead for n in t["chain"]}
assert {"mutex", "critical_section", "send_message", "thread"} <= kinds, kinds
for t in dead:
    assert t["chain"][0]["tid"] == t["tid"] and t["chain"][-1]["type"] == "thread", t
    assert t["chain"][-1]["status"] == "blocked", t
    assert t["stack"] and t["stack"][-1]["where"].startswith("ntdll!"), t["stack"]
    # the program's own function that blocked, named from its debug information
    assert any(re.match(r"deadlocks!(mutex|cs|window|sender)_thread\+0x", f["where"]) for f in t["stack"]), t["stack"]
    # every frame named: from debug information, or from the exports (system call stubs)
    assert all(re.match(r"\w+![\w@?$.]+\+0x[0-9a-f]+$", f["where"]) for f in t["stack"]), t["stack"]
print("JSON report: 3 deadlocks, 6 deadlocked threads, every chain a cycle, every stack ending in ntdll "
      "through the function of deadlocks.exe that blocked, every frame named")
PY

#!/bin/sh
# Write docs/PATCHES.md, the map of the two patch series: each patch by its
# name (the same in both series), its number in each, what it does (its
# subject) and the files of ours it carries (the manifests' lines naming
# it). The one place that map is written: run 'make patch-map' after a
# change to a series, a manifest or a subject; host/patches fails while
# docs/PATCHES.md differs from what this writes.
#
# Usage: tools/patch_map.sh [OUTPUT]      (default docs/PATCHES.md)
#
# Copyright 2026 The wine-backtrace-wct authors
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$TOP/docs/PATCHES.md}

python3 - "$TOP/patches" "wine-8.0" "wine-10.0" >"$OUT.tmp" <<'PY'
import fnmatch, os, re, sys

root, versions = sys.argv[1], sys.argv[2:]

def series(v):
    lines = open(os.path.join(root, v, "series")).read().split("\n")
    return [l for l in lines if l and not l.startswith("#")]

def manifest(v):
    files = {}
    for line in open(os.path.join(root, v, "manifest")):
        f = line.split()
        if len(f) == 2 and not line.startswith("#") and f[1].endswith(".patch"):
            files.setdefault(f[1], []).append(f[0])
    return files

def subject(v, p):
    for line in open(os.path.join(root, v, p)):
        if line.startswith("Subject: "):
            return line[len("Subject: "):].strip()
    return ""

def name(p):
    return re.sub(r"^[0-9]{4}-", "", p[:-len(".patch")])

# one order for both: the first series', with a patch of the other alone
# placed after the patch that precedes it there
order, info = [], {}
for v in versions:
    files = manifest(v)
    previous = None
    for p in series(v):
        n = name(p)
        if n not in info:
            info[n] = {"subject": subject(v, p), "files": []}
            order.insert(order.index(previous) + 1 if previous else 0, n)
        info[n][v] = p[:4]
        for f in files.get(p, []):
            if f not in info[n]["files"]:
                info[n]["files"].append(f)
        previous = n

print("# The patch series")
print()
print("Written by `make patch-map` (tools/patch_map.sh) from each series'")
print("`series` and `manifest` and each patch's subject: not edited by hand.")
print("A patch is cited by its name, the same in both series; its number is")
print("its place in its series.")
print()
print("| series | patches |")
print("|---|---|")
for v in versions:
    print("| `patches/%s/` | %d |" % (v, len(series(v))))
print()
print("| patch | %s | what it does | files of ours it carries |" % " | ".join(v.replace("wine-", "") for v in versions))
print("|---|%s---|---|" % ("---|" * len(versions)))
for n in order:
    files = ", ".join("`%s`" % f for f in info[n]["files"])
    numbers = " | ".join(info[n].get(v, "-") for v in versions)
    print("| `%s` | %s | %s | %s |" % (n, numbers, info[n]["subject"].replace("|", "\\|"), files))
PY
mv "$OUT.tmp" "$OUT"

#!/usr/bin/env python3
"""A stand-in for mirage-run on a machine without a GPU, for run.sh's GPU
path (test/Tools/gpu-bundle/run-fake.test): `--self-test` passes; a run of
MANIFEST [--reference REF] ... --json [--per-kernel] prints the JSON line
mirage-run would, with times made from the manifest's estimates: each
kernel alone 1.25 × max(memory, compute) + 0.5 × tail + 3 µs, the sequence
their sum − 0.25 µs per further kernel (dependent launch) or + 1 µs
(--no-dependent-launch). FAKE_FAIL=GRAPH fails that graph's check;
FAKE_HANG=GRAPH never returns for that graph (a kernel that hangs)."""
import json
import os
import sys
import time

args = sys.argv[1:]
if args == ["--self-test"]:
    print("mirage-run self-test: ok", file=sys.stderr)
    sys.exit(0)
manifest = args[0]
with open(manifest) as f:
    m = json.load(f)
alone = []
for k in m["kernels"]:
    p = k["plan"]
    alone.append(1.25 * max(p["memory_us"], p["compute_us"]) + 0.5 * p["tail_us"] + 3.0)
dependent = "--no-dependent-launch" not in args
median = sum(alone) + (-0.25 if dependent else 1.0) * (len(alone) - 1)
line = {"graph": m["graph"], "manifest": os.path.abspath(manifest),
        "device": "Fake H100", "kernels": len(alone), "bytes": 1000000,
        "dependent_launch": dependent, "sms": 132}
if "--reference" in args:
    with open(args[args.index("--reference") + 1]) as f:
        line["reference"] = json.load(f)["graph"]
if os.environ.get("FAKE_HANG") == m["graph"]:
    while True:
        time.sleep(60)
if os.environ.get("FAKE_FAIL") == m["graph"]:
    line["ok"] = False
    print("check out0 vs expected: max rel err 1.0e+00 (tol 1.0e-03) FAILED", file=sys.stderr)
    print(json.dumps(line))
    sys.exit(1)
line.update({"median_us": median, "min_us": median, "gbps": 1e6 / (median * 1e3),
             "copy_gbps": 3000.0, "copy_pct": 1e6 / (median * 1e3) / 30.0})
if "--per-kernel" in args:
    line["kernel_times"] = [{"name": k["name"], "median_us": t, "min_us": t}
                            for k, t in zip(m["kernels"], alone)]
line["ok"] = True
print(json.dumps(line))

#!/usr/bin/env python3
"""Fixtures for bench/gpu/calibrate.py (test/Tools/gpu-bundle/calibrate.test).

    calibration.py make DIR A B C GDEP GPLAIN [--stale | --inconsistent]
    calibration.py check A B C GDEP GPLAIN     (reads calibrate.py --json)

`make` writes manifests under DIR/bundle and mirage-run JSON lines under
DIR/bundle/results whose times are exactly what the refit's form gives with
these constants: each kernel alone a·max(memory, compute) + b·tail + c, each
graph the sum of its kernels plus g per further kernel (GDEP for dependent
launches, GPLAIN for plain ones). --stale leaves the estimate's parts out of
one manifest, --inconsistent makes one estimate disagree with its parts.
`check` compares a fit with the constants (to 1e-6) and prints "fit ok".
"""
import json
import os
import sys

# (graph, [(memory_us, compute_us, tail_us)...]): single kernels, a split
# pair in one launch (a tail), sequences of two and three kernels.
GRAPHS = [
    ("gemv", [(40.0, 3.0, 0.0)]),
    ("small", [(0.8, 0.1, 0.0)]),
    ("compute", [(2.0, 9.0, 0.0)]),
    ("decode_tail", [(6.3, 0.9, 1.96)]),
    ("prefill_tail", [(11.0, 14.0, 2.5)]),
    ("pair", [(8.3, 0.9, 0.0), (1.1, 0.1, 0.0)]),
    ("chain", [(3.0, 0.2, 0.0), (5.0, 0.3, 0.0), (0.4, 0.1, 0.0)]),
]
LAUNCH = 2.0


def make(d, a, b, c, gdep, gplain, mode):
    bundle = os.path.join(d, "bundle")
    os.makedirs(os.path.join(bundle, "results"), exist_ok=True)
    for i, (graph, kernels) in enumerate(GRAPHS):
        ks = []
        for j, (mem, comp, tail) in enumerate(kernels):
            est = max(mem, comp) + LAUNCH + tail
            plan = {"estimate_us": est, "memory_us": mem, "compute_us": comp,
                    "launch_us": LAUNCH, "tail_us": tail, "shared_bytes": 0}
            if mode == "--stale" and i == 0:
                del plan["memory_us"]
            if mode == "--inconsistent" and i == 0:
                plan["estimate_us"] = est + 1.0
            ks.append({"name": "%s_k%d" % (graph, j), "plan": plan})
        manifest = os.path.join(bundle, graph + ".sm_90.manifest.json")
        with open(manifest, "w") as f:
            json.dump({"format": "mirage-run-manifest-1", "graph": graph, "kernels": ks}, f)
        alone = [a * max(m, cp) + b * t + c for m, cp, t in kernels]
        for dep, g in ((True, gdep), (False, gplain)):
            total = sum(alone) + g * (len(kernels) - 1)
            line = {"graph": graph, "manifest": manifest, "kernels": len(kernels),
                    "dependent_launch": dep, "median_us": total,
                    "kernel_times": [{"name": k["name"], "median_us": t, "min_us": t}
                                     for k, t in zip(ks, alone)],
                    "ok": True}
            name = "%s.%s.json" % (graph, "searched" if dep else "plain")
            with open(os.path.join(bundle, "results", name), "w") as f:
                f.write("log lines are not JSON\n" + json.dumps(line) + "\n")
    # A failed check and a run without per-kernel times are skipped.
    with open(os.path.join(bundle, "results", "bad.fused.json"), "w") as f:
        f.write(json.dumps({"graph": "gemv", "manifest": os.path.join(bundle, "gemv.sm_90.manifest.json"),
                            "median_us": 1.0, "ok": False}) + "\n")
    with open(os.path.join(bundle, "results", "old.fused.json"), "w") as f:
        f.write(json.dumps({"graph": "gemv", "manifest": os.path.join(bundle, "gemv.sm_90.manifest.json"),
                            "median_us": 50.0, "ok": True}) + "\n")
    with open(os.path.join(bundle, "results", "gemv.torch.json"), "w") as f:
        f.write(json.dumps({"workload": "gemv", "eager_us": 60.0}) + "\n")


def check(a, b, c, gdep, gplain):
    fit = json.loads(sys.stdin.read())
    want = {"a": a, "b": b, "c_us": c, "gap_dependent_us": gdep, "gap_plain_us": gplain,
            "mean_abs_error_after": 0.0}
    bad = ["%s = %r, want %r" % (k, fit.get(k), v) for k, v in want.items()
           if not isinstance(fit.get(k), (int, float)) or abs(fit[k] - v) > 1e-6]
    print("fit ok" if not bad else "fit wrong: " + "; ".join(bad))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], *map(float, sys.argv[3:8]), sys.argv[8] if len(sys.argv) > 8 else "")
    else:
        check(*map(float, sys.argv[2:7]))

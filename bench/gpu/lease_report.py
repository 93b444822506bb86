#!/usr/bin/env python3
"""The tables of one GPU lease, from the files bench/gpu/lease.sh left.

    lease_report.py FILES_DIR BUNDLE_DIR [--unpack-to DIR]

FILES_DIR holds results1.tgz, compile.tgz and results2.tgz (what lease.sh
wrote to its OUT_DIR); BUNDLE_DIR is the bundle they were measured from
(calibrate.py reads its manifests). Unpacks them (into a temporary directory
unless --unpack-to), puts each torch.compile line into
results/<w>.torch.json (so the table's PyTorch columns are eager and
torch.compile timed in one process), then prints:
  1. the table of run 1 (dependent launch) with calibrate.py's refit and
     probe section;
  2. the table of run 2 (plain launches) and, per multi-kernel graph, what
     dependent launch saved.
"""
import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile

WORKLOADS = ["rmsnorm_matmul", "gated_mlp", "lora", "gqa", "qknorm", "ntrans"]
HERE = os.path.dirname(os.path.abspath(__file__))


def last_json(path):
    try:
        with open(path) as f:
            lines = [l for l in f.read().splitlines() if l.strip().startswith("{")]
        return json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        return None


def merge_compile(root):
    """compile/<function>.json lines, in the order of compile/order.txt."""
    order = os.path.join(root, "compile", "order.txt")
    if not os.path.exists(order):
        return
    seen = {}
    for line in open(order):
        parts = line.split()
        if len(parts) != 2:
            continue
        group, w = parts
        i = seen.get(group, 0)
        seen[group] = i + 1
        try:
            with open(os.path.join(root, "compile", group + ".json")) as f:
                lines = [l for l in f.read().splitlines() if l.strip().startswith("{")]
        except OSError:
            continue
        if i < len(lines):
            with open(os.path.join(root, "results", w + ".torch.json"), "w") as f:
                f.write(lines[i] + "\n")


def models(results):
    names = set()
    for f in os.listdir(results):
        if f.startswith("models.") and f.endswith(".json"):
            names.add(f.rsplit(".", 2)[0])
    return sorted(names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files")
    ap.add_argument("bundle")
    ap.add_argument("--unpack-to")
    args = ap.parse_args()
    root = args.unpack_to or tempfile.mkdtemp(prefix="lease.")
    for name in ("results1.tgz", "compile.tgz", "results2.tgz"):
        path = os.path.join(args.files, name)
        if os.path.exists(path):
            with tarfile.open(path) as t:
                t.extractall(root)
    merge_compile(root)
    results = os.path.join(root, "results")
    ms = models(results)
    print("## Run 1: dependent launch (results in %s)" % results, flush=True)
    subprocess.call([sys.executable, os.path.join(HERE, "table.py"), results] + WORKLOADS + ms)
    print(flush=True)
    subprocess.call([sys.executable, os.path.join(HERE, "calibrate.py"), results,
                     "--bundle", args.bundle])
    plain = os.path.join(root, "results2")
    if not os.path.isdir(plain):
        return 0
    print("\n## Run 2: plain launches\n")
    print("| graph | kernels | dependent launch µs | plain launch µs | saved µs |")
    print("|---|---|---|---|---|")
    for f in sorted(os.listdir(results)):
        if not f.endswith(".json") or ".torch." in f:
            continue
        a, b = last_json(os.path.join(results, f)), last_json(os.path.join(plain, f))
        if not (a and b and a.get("ok") and b.get("ok") and a.get("kernels", 1) > 1):
            continue
        print("| %s | %d | %.1f | %.1f | %.1f |" % (
            f[:-5], a["kernels"], a["median_us"], b["median_us"], b["median_us"] - a["median_us"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

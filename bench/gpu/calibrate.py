#!/usr/bin/env python3
"""Refits the cost model's per-kernel terms to a GPU run of the bundle.

    calibrate.py RESULTS_DIR [--bundle DIR] [--json]

Reads every mirage-run JSON line in RESULTS_DIR/*.json (what run.sh writes,
with `mirage-run --per-kernel`), and for each the manifest it names (its
`manifest` path, else the same path under --bundle, default RESULTS_DIR's
parent). A manifest records per kernel the cost model's estimate and its
parts (docs/Rationale/LaunchPlan.md):

    estimate = max(memory, compute) + launch + tail

where `launch` is the target's launch constant, `tail` a tail combine's
seconds (TailCombine.md) or 0. The refit keeps the model's shape and fits
three numbers to the kernels' times alone (`kernel_times`), by least squares
of the relative error:

    alone  ≈  a · max(memory, compute)  +  b · tail  +  c

and one to the graphs of several kernels, each timed as a sequence:

    graph  ≈  Σ alone-refit  +  g · (kernels − 1)

a: how much slower the GPU runs the model's memory and compute terms (the
model's efficiencies divided by a match the GPU); c: a kernel's fixed cost
launched alone after a flush (the model's launch term, 2 µs on h100);
b: the tail combine's scale; g: what each further kernel of a sequence adds
(negative where its launch overlaps the kernel before, as programmatic
dependent launch does), fitted apart for runs with and without dependent
launch. Prints the fit and one row per graph: measured, the model's estimate
and error, the refit's and its error, and the mean absolute errors before
and after. The numbers go into lib/Semantics/Target.cpp by hand (the cost
model's fingerprint then moves the result cache's key).

Then the calibration probes, where RESULTS_DIR/probes holds their runs
(calibrate_probes.py, docs/Rationale/CalibrationProbes.md): per probe the
measured time and the model's error, then the launch term, the gaps, the
latency of Little's law, one SM's DRAM rate, the peak rate and what an
intermediate read from L2 saves, each measured on its own.

Exit status: 0 fitted; 1 too few kernels to fit (fewer than the terms);
2 bad input (a manifest without the estimate's parts, or whose parts do not
add up to its estimate). Standard library only: it runs on the GPU machine.
"""
import argparse
import glob
import json
import os
import sys

import calibrate_probes


class BadInput(Exception):
    pass


def load_lines(results):
    """Every JSON object line of results/*.json, with its file."""
    out = []
    for path in sorted(glob.glob(os.path.join(results, "*.json"))):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    out.append((path, json.loads(line)))
                except ValueError:
                    raise BadInput("%s: a line is not JSON: %s" % (path, line[:80]))
    return out


def find_manifest(name, bundle):
    if os.path.isfile(name):
        return name
    # run.sh writes absolute paths of the bundle where it ran; the bundle
    # may have moved since: the path's tail under --bundle.
    parts = os.path.normpath(name).split(os.sep)
    for i in range(len(parts)):
        cand = os.path.join(bundle, *parts[i:])
        if os.path.isfile(cand):
            return cand
    raise BadInput("manifest %s not found (nor under %s)" % (name, bundle))


PARTS = ("estimate_us", "memory_us", "compute_us", "launch_us", "tail_us")


def kernel_terms(manifest_path):
    """Per kernel of a manifest: (name, estimate, max(memory, compute), launch, tail)."""
    with open(manifest_path) as f:
        m = json.load(f)
    out = []
    for k in m.get("kernels", []):
        plan = k.get("plan", {})
        missing = [p for p in PARTS if not isinstance(plan.get(p), (int, float))]
        if missing:
            raise BadInput("%s: kernel %s has no %s in its plan (a manifest made "
                           "before the estimate's parts were recorded: remake the "
                           "bundle)" % (manifest_path, k.get("name"), ", ".join(missing)))
        est = float(plan["estimate_us"])
        work = max(float(plan["memory_us"]), float(plan["compute_us"]))
        launch, tail = float(plan["launch_us"]), float(plan["tail_us"])
        if abs(work + launch + tail - est) > 1e-6 * max(1.0, abs(est)):
            raise BadInput("%s: kernel %s: estimate_us %.6g is not max(memory_us, "
                           "compute_us) + launch_us + tail_us = %.6g"
                           % (manifest_path, k.get("name"), est, work + launch + tail))
        out.append((k.get("name"), est, work, launch, tail))
    return out


def solve(rows, ys):
    """Least squares of the relative error: minimizes Σ ((row·p − y) / y)²
    by the normal equations (Gaussian elimination with partial pivoting).
    None when they are singular (a term with no data)."""
    n = len(rows[0])
    ata = [[0.0] * n for _ in range(n)]
    aty = [0.0] * n
    for r, y in zip(rows, ys):
        w = 1.0 / (y * y)
        for i in range(n):
            aty[i] += w * r[i] * y
            for j in range(n):
                ata[i][j] += w * r[i] * r[j]
    for col in range(n):
        piv = max(range(col, n), key=lambda i: abs(ata[i][col]))
        if abs(ata[piv][col]) < 1e-12 * max(1.0, max(abs(v) for row in ata for v in row)):
            return None
        ata[col], ata[piv] = ata[piv], ata[col]
        aty[col], aty[piv] = aty[piv], aty[col]
        for i in range(n):
            if i != col:
                f = ata[i][col] / ata[col][col]
                for j in range(col, n):
                    ata[i][j] -= f * ata[col][j]
                aty[i] -= f * aty[col]
    return [aty[i] / ata[i][i] for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--bundle", help="where the manifests are (default: RESULTS/..)")
    ap.add_argument("--json", action="store_true", help="print the fit as one JSON line")
    args = ap.parse_args()
    bundle = args.bundle or os.path.dirname(os.path.abspath(args.results))
    try:
        lines = load_lines(args.results)
        graphs, skipped = [], []
        for path, r in lines:
            if "manifest" not in r or "median_us" not in r:
                continue  # torch lines, dry runs
            label = os.path.basename(path)[:-len(".json")]
            if not r.get("ok"):
                skipped.append("%s: its check failed" % label)
                continue
            times = r.get("kernel_times")
            kernels = kernel_terms(find_manifest(r["manifest"], bundle))
            if not isinstance(times, list) or len(times) != len(kernels):
                skipped.append("%s: no per-kernel times (run mirage-run with --per-kernel)"
                               % label)
                continue
            graphs.append({"label": label, "graph": r.get("graph"),
                           "dependent": bool(r.get("dependent_launch", True)),
                           "median": float(r["median_us"]), "kernels": kernels,
                           "alone": [float(t["median_us"]) for t in times]})
        probes = calibrate_probes.analyse(args.results, bundle, load_lines, find_manifest)
    except (BadInput, calibrate_probes.ProbeError, OSError, ValueError) as e:
        print("calibrate.py: %s" % e, file=sys.stderr)
        return 2

    # Per kernel: alone ≈ a·work + b·tail + c; b only where a tail ran.
    rows, ys = [], []
    with_tail = any(k[4] > 0 for g in graphs for k in g["kernels"])
    for g in graphs:
        for (name, est, work, launch, tail), t in zip(g["kernels"], g["alone"]):
            if t > 0:
                rows.append([work, tail, 1.0] if with_tail else [work, 1.0])
                ys.append(t)
    terms = 3 if with_tail else 2
    fit = solve(rows, ys) if len(rows) >= terms else None
    if fit is None:
        print("calibrate.py: %d kernel times for %d terms: too few to fit"
              % (len(rows), terms), file=sys.stderr)
        for s in skipped:
            print("* skipped %s" % s, file=sys.stderr)
        if probes and not args.json:
            calibrate_probes.print_section(probes)
        return 1
    a, b, c = (fit[0], fit[1], fit[2]) if with_tail else (fit[0], None, fit[1])

    def alone_refit(k):
        return a * k[2] + (b * k[4] if b is not None else 0.0) + c

    # Per graph of several kernels: the gap per further kernel, apart for
    # dependent and plain launches.
    gaps = {}
    for dep in (True, False):
        num = den = 0.0
        for g in graphs:
            n = len(g["kernels"])
            if g["dependent"] != dep or n < 2:
                continue
            s = sum(alone_refit(k) for k in g["kernels"])
            w = 1.0 / (g["median"] ** 2)
            num += w * (n - 1) * (g["median"] - s)
            den += w * (n - 1) ** 2
        if den > 0:
            gaps[dep] = num / den

    table, before, after = [], [], []
    for g in graphs:
        n = len(g["kernels"])
        model = sum(k[1] for k in g["kernels"])
        refit = sum(alone_refit(k) for k in g["kernels"]) + gaps.get(g["dependent"], 0.0) * (n - 1)
        e0, e1 = model / g["median"] - 1, refit / g["median"] - 1
        before.append(abs(e0))
        after.append(abs(e1))
        table.append((g["label"], g["graph"], n, g["median"], model, e0, refit, e1))

    def mean(v):
        return sum(v) / len(v) if v else 0.0

    result = {"kernels": len(rows), "graphs": len(graphs), "a": a, "b": b, "c_us": c,
              "gap_dependent_us": gaps.get(True), "gap_plain_us": gaps.get(False),
              "mean_abs_error_before": mean(before), "mean_abs_error_after": mean(after),
              "skipped": skipped}
    if probes is not None:
        result["probes"] = probes
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0

    def opt(v, fmt):
        return fmt % v if v is not None else "n/a"

    print("Refit of the cost model to %d kernel times in %d graphs "
          "(least squares of the relative error):" % (len(rows), len(graphs)))
    print()
    print("| term | fitted | meaning |")
    print("|---|---|---|")
    print("| a | %.3f | the model's memory and compute terms × a; its efficiencies ÷ a |" % a)
    print("| b | %s | a tail combine's estimate × b |" % opt(b, "%.3f"))
    print("| c | %.2f µs | a kernel's fixed cost, launched alone (the model's launch term) |" % c)
    print("| g (dependent launch) | %s | each further kernel of a sequence adds |"
          % opt(gaps.get(True), "%.2f µs"))
    print("| g (plain launch) | %s | each further kernel of a sequence adds |"
          % opt(gaps.get(False), "%.2f µs"))
    print()
    print("| run | graph | kernels | measured µs | model µs | model error | refit µs | refit error |")
    print("|---|---|---|---|---|---|---|---|")
    def pct(e):
        return "%+d %%" % int(round(100 * e))  # no "-0 %"

    for label, graph, n, meas, model, e0, refit, e1 in table:
        print("| %s | %s | %d | %.2f | %.2f | %s | %.2f | %s |"
              % (label, graph, n, meas, model, pct(e0), refit, pct(e1)))
    print()
    print("mean absolute error: model %.0f %%, refit %.0f %%"
          % (100 * mean(before), 100 * mean(after)))
    for s in skipped:
        print("* skipped %s" % s)
    if probes is not None:
        calibrate_probes.print_section(probes)
    return 0


if __name__ == "__main__":
    sys.exit(main())

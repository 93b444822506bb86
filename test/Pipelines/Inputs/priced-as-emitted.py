#!/usr/bin/env python3
"""priced-as-emitted.py REPORT.json OUTPUT_DIR CHIP: for every graph of a
mirage-superoptimize report, whether the figure the search ranked by equals
what the code generator wrote for it: the reference's `input_cost_us` and,
when improved, the winner's `best_cost_us` against the sums of the kernels'
`estimate_us` in their manifests (docs/Rationale/PricingAsEmitted.md). Also
whether the reference as library kernels is a different figure."""
import json
import os
import sys

report, out, chip = sys.argv[1], sys.argv[2], sys.argv[3]


def emitted_us(graph):
    path = os.path.join(out, "%s.%s.manifest.json" % (graph, chip))
    kernels = json.load(open(path))["kernels"]
    return sum(k["plan"]["estimate_us"] for k in kernels), len(kernels)


def same(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


for g in json.load(open(report))["graphs"]:
    name = g["graph"]
    ref_us, ref_kernels = emitted_us(name)
    print("%s: reference %s the emitted %d kernel(s)" % (
        name, "priced as" if same(g["input_cost_us"], ref_us) else
        "NOT priced as (%.4f us against %.4f us)" % (g["input_cost_us"], ref_us),
        ref_kernels))
    print("%s: library figure %s" % (
        name, "differs" if not same(g["library_cost_us"], ref_us) else "equal"))
    if g["best_cost_us"] < g["input_cost_us"]:
        opt_us, opt_kernels = emitted_us(name + "_opt")
        print("%s_opt: winner %s the emitted %d kernel(s)" % (
            name, "priced as" if same(g["best_cost_us"], opt_us) else
            "NOT priced as (%.4f us against %.4f us)" % (g["best_cost_us"], opt_us),
            opt_kernels))

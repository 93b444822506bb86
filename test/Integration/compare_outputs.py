#!/usr/bin/env python3
"""Compares the tensors printed by mlir-runner (printMemrefF32) with the
`values = [...]` remarks of `mirage-evaluate{print-all}`.

usage: compare_outputs.py UPSTREAM_OUTPUT MIRAGE_REMARKS [--rtol 1e-4]

The k-th of the n printed memrefs is compared with the k-th of the last n
printed graph outputs (the graphs that produce the function's results come
last). The check is norm-wise: max|a-b| <= rtol * max|b|, plus the same
element count. No expected numbers are stored anywhere.
"""
import re
import sys


def upstream_tensors(text):
    out = []
    for block in re.split(r"Unranked Memref", text)[1:]:
        m = re.search(r"sizes\s*=\s*\[([^\]]*)\].*?data\s*=\s*(.*)", block, re.S)
        if not m:
            continue
        nums = re.findall(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)", m.group(2))
        out.append([float(x) for x in nums])
    return out


def mirage_tensors(text):
    out = []
    for m in re.finditer(r"values = \[([^\]]*)\]", text):
        out.append([float(x) for x in m.group(1).split(",") if x.strip()])
    return out


def main():
    args = sys.argv[1:]
    rtol = 1e-4
    if "--rtol" in args:
        i = args.index("--rtol")
        rtol = float(args[i + 1])
        del args[i:i + 2]
    up = upstream_tensors(open(args[0]).read())
    mi = mirage_tensors(open(args[1]).read())
    if not up:
        sys.exit("error: no printed memref in " + args[0])
    if len(mi) < len(up):
        sys.exit(f"error: {len(up)} printed tensors but {len(mi)} graph outputs")
    mi = mi[len(mi) - len(up):]
    for k, (a, b) in enumerate(zip(mi, up)):
        if len(a) != len(b):
            sys.exit(f"error: output {k}: {len(a)} values vs {len(b)} printed")
        scale = max([abs(x) for x in b] + [1e-30])
        err = max(abs(x - y) for x, y in zip(a, b)) / scale
        print(f"output {k}: {len(a)} values, max relative error {err:.3g}")
        if not err <= rtol:
            sys.exit(f"error: output {k} differs: relative error {err:.3g} > {rtol}")
    print("outputs agree")


if __name__ == "__main__":
    main()

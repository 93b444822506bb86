"""Assembles every PTX file of a directory with ptxas and summarises it.

Usage: check_ptx.py PTXAS CHIP DIR

For each DIR/*.<CHIP>.ptx (sorted) prints one line

  <file>: ptxas ok, <n> entries, max <r> registers, spills <s>, mma.sync <m>,
  ldmatrix <l>, cp.async <c>, malloc <k>

and exits 1 if ptxas fails on any file. The counts are of instructions in the
PTX text; lit tests FileCheck the lines (e.g. spills 0, malloc 0, and
mma.sync on tensor-core workloads).
"""
import glob
import os
import re
import subprocess
import sys


def main():
    ptxas, chip, directory = sys.argv[1:4]
    files = sorted(glob.glob(os.path.join(directory, "*.%s.ptx" % chip)))
    if not files:
        print("no PTX files for %s in %s" % (chip, directory))
        return 1
    status = 0
    for path in files:
        text = open(path).read()
        run = subprocess.run([ptxas, "-arch=" + chip, "-v", path, "-o", os.devnull],
                             capture_output=True, text=True)
        log = run.stdout + run.stderr
        name = os.path.basename(path)
        if run.returncode != 0:
            print("%s: ptxas FAILED: %s" % (name, log.strip().splitlines()[-1:]))
            status = 1
            continue
        regs = [int(r) for r in re.findall(r"Used (\d+) registers", log)]
        spills = sum(int(s) for s in re.findall(r"(\d+) bytes spill stores", log))
        count = lambda pat: len(re.findall(pat, text))
        print("%s: ptxas ok, %d entries, max %d registers, spills %d, mma.sync %d, "
              "ldmatrix %d, cp.async %d, malloc %d" % (
                  name, count(r"\.entry "), max(regs or [0]), spills,
                  count(r"\bmma\.sync"), count(r"\bldmatrix"),
                  count(r"\bcp\.async\.cg"), count(r"\bmalloc\b")))
    return status


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""barrier-counts.py BEFORE.ptx AFTER.ptx: for bar.sync, cp.async waits and
commits and mma.sync, whether AFTER has fewer, the same or more of them
(counted per wait depth for the waits)."""
import re
import sys

def counts(path):
    text = open(path).read()
    return {
        "bar.sync": len(re.findall(r"\bbar\.sync\b", text)),
        "cp.async.wait_group": sorted(re.findall(r"cp\.async\.wait_group\s+(\d+)", text)),
        "cp.async.commit_group": len(re.findall(r"cp\.async\.commit_group", text)),
        "mma.sync": len(re.findall(r"\bmma\.sync\b", text)),
    }

before, after = counts(sys.argv[1]), counts(sys.argv[2])
for key in before:
    b, a = before[key], after[key]
    print("%s: %s" % (key, "same" if a == b else
                      ("fewer" if isinstance(a, int) and a < b else "different (%r -> %r)" % (b, a))))

#!/usr/bin/env python3
"""Per manifest given: its kernel count and each kernel's tail_us (2 digits)."""
import json
import sys

for path in sys.argv[1:]:
    with open(path) as f:
        m = json.load(f)
    print(len(m["kernels"]), " ".join("%.2f" % k["plan"]["tail_us"] for k in m["kernels"]))

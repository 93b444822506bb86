#!/usr/bin/env python3
"""Checks the probes' manifests in DIR (test/Tools/gpu-bundle/probes.test):
each probe measures what its name says (CalibrationProbes.md). Prints one
line per finding and "probes as named" when there is none.

* stream_g{G}_t{T}: one kernel of G blocks, a pipeline (bytes in flight),
  and at G = 132 the bytes in flight per block grow with T;
* launch_n{N}: N one-block kernels, every one after the first waiting on
  its predecessor (dependent launch);
* l2_{MB}mb: two kernels, the reader waiting on the writer, reading what
  the writer wrote (a temporary buffer both kernels take);
* gemv_w{W}: one kernel of 132 blocks, pipelined, its matmul on tensor
  cores, a weight of 132W columns, and every width reading a weight of the
  same size.
"""
import glob
import json
import os
import re
import sys

d = sys.argv[1]
bad, flights, gemv_bytes = [], {}, {}
for path in sorted(glob.glob(os.path.join(d, "*.manifest.json"))):
    with open(path) as f:
        m = json.load(f)
    g, ks = m["graph"], m["kernels"]
    waits = [bool(k.get("waits_on_previous")) for k in ks]
    s = re.match(r"stream_g(\d+)_t(\d+)$", g)
    n = re.match(r"launch_n(\d+)$", g)
    if s:
        grid = ks[0]["grid"]
        if len(ks) != 1 or grid != [int(s.group(1)), 1, 1]:
            bad.append("%s: %d kernels, grid %s" % (g, len(ks), grid))
        flight = ks[0]["plan"]["bytes_in_flight_per_block"]
        if ks[0]["plan"]["stages"] < 2:
            bad.append("%s: no pipeline" % g)
        if s.group(1) == "132":
            flights[int(s.group(2))] = flight
    elif n:
        if len(ks) != int(n.group(1)) or any(k["grid"] != [1, 1, 1] for k in ks) or \
                waits != [False] + [True] * (len(ks) - 1):
            bad.append("%s: %d kernels, waits %s" % (g, len(ks), waits))
    elif re.match(r"l2_\d+mb$", g):
        if len(ks) != 2 or waits != [False, True]:
            bad.append("%s: %d kernels, waits %s" % (g, len(ks), waits))
        else:
            temps = {i for i, b in enumerate(m["buffers"]) if b["role"] == "temp"}
            if not temps & set(ks[0]["args"]) & set(ks[1]["args"]):
                bad.append("%s: the reader reads nothing the writer wrote" % g)
    elif re.match(r"gemv_w\d+$", g):
        width = int(g[len("gemv_w"):])
        plan = ks[0]["plan"] if len(ks) == 1 else {}
        weight = [b["shape"] for b in m["buffers"] if b["role"] == "input"][-1]
        if len(ks) != 1 or ks[0]["grid"] != [132, 1, 1] or plan.get("stages", 0) < 2 or \
                plan.get("tensor_core_matmuls") != 1 or weight[-1] != 132 * width:
            bad.append("%s: %d kernels, plan %s, weight %s" % (g, len(ks), plan, weight))
        else:
            gemv_bytes[width] = weight[0] * weight[1]
    else:
        bad.append("%s: not a probe" % g)
tiles = sorted(flights)
if len(tiles) < 5 or any(flights[a] >= flights[b] for a, b in zip(tiles, tiles[1:])):
    bad.append("stream flights at 132 blocks do not grow with the tile: %s" % flights)
if len(gemv_bytes) < 5 or len(set(gemv_bytes.values())) != 1:
    bad.append("gemv probes do not read the same weight bytes: %s" % gemv_bytes)
print("\n".join(bad) if bad else "probes as named")

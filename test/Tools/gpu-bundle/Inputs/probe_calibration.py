#!/usr/bin/env python3
"""Fixtures for calibrate.py's probe section (test/Tools/gpu-bundle/probes.test).

    probe_calibration.py make DIR C GDEP GPLAIN LAT_NS SM_GBPS PEAK_GBPS COPY_GBPS SAVED
    probe_calibration.py check C GDEP GPLAIN LAT_NS SM_GBPS PEAK_GBPS COPY_GBPS SAVED

`make` writes the probes' manifests under DIR/bundle/probes and their
mirage-run JSON lines under DIR/bundle/results/probes, with times made by
a machine of these constants: a kernel alone costs C µs plus its body; a
chain costs its kernels' times alone and GDEP per further kernel (GPLAIN
without dependent launch); a
stream kernel's SM moves min(SM_GBPS, its bytes in flight / LAT_NS) and the
machine min(PEAK_GBPS, busy SMs × that); the l2 probes' reader in the chain
saves SAVED of its time alone. The probes are those make_probes.py writes
(names, grids, tiles), with flights of three 16-byte-vector stages.
`check` reads calibrate.py --json and prints "probes ok" when the section
recovers every constant (to 1e-6, relative).
"""
import json
import math
import os
import sys

SMS = 132
BLOCK_BYTES = 512 * 1024
STREAMS = [(g, 64) for g in (1, 8, 33, 66, 128, 132, 264)] + [(132, t) for t in (8, 16, 32, 128)]
CHAINS = (1, 2, 4, 8)
L2_MB = {4: 2, 17: 8, 104: 48}   # size in the name: the reader's for-loop


def write(bundle, graph, kernels, lines):
    mdir = os.path.join(bundle, "probes")
    rdir = os.path.join(bundle, "results", "probes")
    os.makedirs(mdir, exist_ok=True)
    os.makedirs(rdir, exist_ok=True)
    manifest = os.path.join(mdir, graph + ".sm_90.manifest.json")
    with open(manifest, "w") as f:
        json.dump({"format": "mirage-run-manifest-1", "graph": graph, "kernels": kernels}, f)
    for suffix, line in lines:
        line.update({"graph": graph, "manifest": manifest, "sms": SMS, "ok": True,
                     "kernel_times": [{"name": k["name"], "median_us": t, "min_us": t}
                                      for k, t in zip(kernels, line.pop("alone"))]})
        with open(os.path.join(rdir, graph + suffix + ".json"), "w") as f:
            f.write("run.sh log lines are not JSON\n" + json.dumps(line) + "\n")


def kernel(name, grid, est, dram=0, flight=0, resident=1):
    return {"name": name, "grid": [grid, 1, 1],
            "plan": {"estimate_us": est, "dram_bytes": dram,
                     "bytes_in_flight_per_block": flight, "resident_blocks_per_sm": resident}}


def make(d, c, gdep, gplain, lat, sm, peak, copy, saved):
    bundle = os.path.join(d, "bundle")
    for g, t in STREAMS:
        flight = t * 256 * 3
        resident = 2 if t == 64 else 1
        dram = g * (BLOCK_BYTES + 256)
        on_sm = min(resident, math.ceil(g / SMS))
        per_sm = min(sm, flight * on_sm / lat)            # bytes/ns = GB/s
        rate = min(peak, min(g, SMS) * per_sm)
        time = c + dram / (rate * 1e3)
        name = "stream_g%d_t%d" % (g, t)
        write(bundle, name, [kernel(name + "_k0", g, 2.0 + dram / 3e6, dram, flight, resident)],
              [("", {"median_us": time, "dependent_launch": True, "copy_gbps": copy,
                     "alone": [time]})])
    for n in CHAINS:
        name = "launch_n%d" % n
        ks = [kernel("%s_k%d" % (name, i), 1, 2.8) for i in range(n)]
        write(bundle, name, ks,
              [("", {"median_us": n * c + gdep * (n - 1), "dependent_launch": True,
                     "copy_gbps": copy, "alone": [c] * n}),
               (".plain", {"median_us": n * c + gplain * (n - 1), "dependent_launch": False,
                           "copy_gbps": copy, "alone": [c] * n})])
    for mb, loops in L2_MB.items():
        name = "l2_%dmb" % mb
        dram = SMS * loops * 64 * 256
        writer, reader = c + 2 * dram / (peak * 1e3), c + dram / (peak * 1e3)
        ks = [kernel(name + "_k0", 528, writer), kernel(name + "_k1", SMS, reader, dram, 49152, 2)]
        write(bundle, name, ks,
              [("", {"median_us": writer + gdep + reader * (1 - saved), "dependent_launch": True,
                     "copy_gbps": copy, "alone": [writer, reader]})])


def check(c, gdep, gplain, lat, sm, peak, copy, saved):
    p = json.loads(sys.stdin.read()).get("probes") or {}
    want = {"launch_us": c, "gap_dependent_us": gdep, "gap_plain_us": gplain,
            "latency_ns": lat, "sm_gbps": sm, "peak_gbps": peak, "copy_gbps": copy,
            "busy_fraction": copy / (SMS * sm), "peak_of_copy": peak / copy}
    # The 128-block stream against the 132-block one (one block per SM,
    # the T = 64 flight): 128/132 where each SM's share bounds the rate.
    per_sm = min(sm, 64 * 256 * 3 / lat)
    want["idle_sms_rate"] = min(peak, 128 * per_sm) / min(peak, SMS * per_sm)
    bad = ["%s = %r, want %r" % (k, p.get(k), v) for k, v in want.items()
           if not isinstance(p.get(k), (int, float)) or abs(p[k] - v) > 1e-6 * max(1.0, abs(v))]
    got = p.get("l2_saved", {})
    for mb in L2_MB:
        v = got.get(str(mb), got.get(mb))
        if not isinstance(v, (int, float)) or abs(v - saved) > 1e-6:
            bad.append("l2_saved[%d] = %r, want %r" % (mb, v, saved))
    print("probes ok" if not bad else "probes wrong: " + "; ".join(bad))


if __name__ == "__main__":
    args = [float(a) for a in sys.argv[3 if sys.argv[1] == "make" else 2:]]
    if sys.argv[1] == "make":
        make(sys.argv[2], *args)
    else:
        check(*args)

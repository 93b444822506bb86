"""The calibration probes' section of calibrate.py (CalibrationProbes.md).

Reads RESULTS/probes/*.json (run.sh: each probe of the bundle's probes/
alone, the launch probes also as *.plain.json without dependent launch) and
the probes' manifests, and measures the machine one term at a time:

* launch_n{N}: N one-block kernels in a chain. A kernel launched alone costs
  `launch_us` (the mean of every such kernel's time alone); each further
  kernel of the chain adds `gap_*_us` to the sum of the kernels' times
  alone (least squares of the chain's time less that sum over N − 1, apart
  for dependent and plain launches): calibrate.py's g, negative where a
  launch overlaps the kernel before.
* stream_g{G}_t{T}: one kernel of G blocks streaming its tiles. Its rate is
  its DRAM bytes over its time less `launch_us`; per busy SM, over min(G,
  SMs). The latency of Little's law is the least, over the probes, of the
  bytes in flight per SM over the rate per SM (a probe limited by something
  else reads longer); one SM's rate is the best rate per SM among grids of at
  most SMs/4 blocks (DRAM far from saturated); the peak is the best rate of
  any probe, also against mirage-run's copy bandwidth. `busy_fraction` is
  what the model's dramBusyFraction would be for one SM to reach that rate:
  copy bandwidth / (SMs x one SM's rate). `idle_sms_rate` is the rate of
  the 128-block grid over the 132-block one (both T = 64): 128/132 = 0.97
  if each SM's share bounds the rate (what the model charges a grid that
  leaves SMs idle), about 1 if 128 SMs already saturate DRAM.
* gemv_w{W}: a decode GEMV of 132 blocks, each over its strip of W weight
  columns (2W contiguous bytes a row), everything else equal. Its rate is
  computed as a stream probe's; `gemv_of_widest` is each width's rate over
  the widest strip's: well below 1 for narrow strips says that DRAM serves
  short row pieces slower (a term the model lacks), about 1 that the
  block's loop sets the rate.
* l2_{MB}mb: a writer and a stream reader of its result. The reader's time
  in the chain is the chain's time less the writer's alone and the
  dependent gap; `l2_saved` is the share of the reader's time alone (after an L2
  flush) that the chain saved, per size.

Standard library only.
"""
import json
import math
import os
import re


class ProbeError(Exception):
    pass


def _fit_slope(points):
    """Least squares y = g x through the origin over (x, y) with x > 0;
    None without such a point."""
    sxx = sum(x * x for x, _ in points if x > 0)
    return sum(x * y for x, y in points if x > 0) / sxx if sxx else None


def analyse(results, bundle, load_lines, find_manifest):
    """The probe section's numbers, or None when RESULTS has no probes.
    load_lines and find_manifest are calibrate.py's (its JSON lines of a
    directory, a manifest's path under the bundle)."""
    pdir = os.path.join(results, "probes")
    if not os.path.isdir(pdir):
        return None
    runs, skipped = [], []
    for path, r in load_lines(pdir):
        if "manifest" not in r or "median_us" not in r:
            continue
        label = os.path.basename(path)[:-len(".json")]
        if not r.get("ok"):
            skipped.append("%s: its check failed" % label)
            continue
        times = r.get("kernel_times")
        with open(find_manifest(r["manifest"], bundle)) as f:
            kernels = json.load(f).get("kernels", [])
        if not isinstance(times, list) or len(times) != len(kernels) or not kernels:
            skipped.append("%s: no per-kernel times" % label)
            continue
        runs.append({"label": label, "graph": r.get("graph", ""), "run": r,
                     "kernels": kernels, "alone": [float(t["median_us"]) for t in times]})
    if not runs:
        return {"rows": [], "skipped": skipped}

    sms = next((int(x["run"]["sms"]) for x in runs if x["run"].get("sms")), 0)
    copy = next((float(x["run"]["copy_gbps"]) for x in runs if x["run"].get("copy_gbps")), 0.0)
    if sms <= 0:
        raise ProbeError("the probe runs do not say the SM count (a mirage-run without "
                         "\"sms\" in its JSON: rebuild it from the bundle)")

    # Launch probes.
    launches = [x for x in runs if re.match(r"launch_n\d+$", x["graph"])]
    alone = [t for x in launches for t in x["alone"]]
    launch_us = sum(alone) / len(alone) if alone else None
    gaps = {}
    for dep in (True, False):
        pts = [(len(x["kernels"]) - 1, float(x["run"]["median_us"]) - sum(x["alone"]))
               for x in launches if bool(x["run"].get("dependent_launch", True)) == dep]
        g = _fit_slope(pts)
        if g is not None:
            gaps[dep] = g

    def model_us(x):
        return sum(float(k.get("plan", {}).get("estimate_us", 0)) for k in x["kernels"])

    rows = []
    for x in launches:
        rows.append({"probe": x["label"], "blocks": 1, "measured_us": float(x["run"]["median_us"]),
                     "model_us": model_us(x)})

    def rate_row(x):
        """A one-kernel probe's row: its DRAM bytes over its time less a
        launch, per busy SM, and its flight per SM over that rate; None
        (and a skip) when it takes no longer than a launch."""
        k = x["kernels"][0]
        plan = k.get("plan", {})
        grid = k.get("grid", [1, 1, 1])
        blocks = grid[0] * grid[1] * grid[2]
        t = x["alone"][0]
        body = t - base
        if body <= 0:
            skipped.append("%s: no longer than a launch (%.2f us)" % (x["label"], t))
            return None
        rate = float(plan.get("dram_bytes", 0)) / (body * 1e3)          # GB/s
        per_sm = rate / min(blocks, sms)
        resident = min(int(plan.get("resident_blocks_per_sm", 1)), math.ceil(blocks / sms))
        flight = float(plan.get("bytes_in_flight_per_block", 0)) * resident
        implied = flight / per_sm if per_sm > 0 else None                # ns
        row = {"probe": x["label"], "blocks": blocks, "flight_per_sm": flight,
               "measured_us": t, "model_us": model_us(x), "gbps": rate,
               "gbps_per_sm": per_sm, "implied_latency_ns": implied}
        rows.append(row)
        return row

    # Stream probes.
    latency = sm_rate = peak = None
    base = launch_us or 0.0
    grid_rate = {}
    for x in runs:
        m = re.match(r"stream_g(\d+)_t(\d+)$", x["graph"])
        if not m:
            continue
        r = rate_row(x)
        if r is None:
            continue
        if int(m.group(2)) == 64:
            grid_rate[int(m.group(1))] = r["gbps"]
        if r["implied_latency_ns"] is not None and r["flight_per_sm"] > 0:
            latency = r["implied_latency_ns"] if latency is None else min(latency, r["implied_latency_ns"])
        if r["blocks"] <= sms // 4:
            sm_rate = r["gbps_per_sm"] if sm_rate is None else max(sm_rate, r["gbps_per_sm"])
        peak = r["gbps"] if peak is None else max(peak, r["gbps"])

    # GEMV probes: the rate per strip width, against the widest strip's.
    gemv = {}
    for x in runs:
        m = re.match(r"gemv_w(\d+)$", x["graph"])
        r = rate_row(x) if m else None
        if r is not None:
            gemv[int(m.group(1))] = r["gbps"]
    widest = gemv[max(gemv)] if gemv else None
    gemv_of_widest = {w: r / widest for w, r in gemv.items()} if widest else {}

    # L2 probes: the reader's time in the chain against alone.
    l2_saved = {}
    for x in runs:
        m = re.match(r"l2_(\d+)mb$", x["graph"])
        if not m or len(x["kernels"]) != 2 or not bool(x["run"].get("dependent_launch", True)):
            continue
        writer, reader = x["alone"]
        in_chain = float(x["run"]["median_us"]) - writer - gaps.get(True, 0.0)
        l2_saved[int(m.group(1))] = 1.0 - in_chain / reader if reader > 0 else None
        rows.append({"probe": x["label"], "blocks": x["kernels"][1]["grid"][0],
                     "measured_us": float(x["run"]["median_us"]), "model_us": model_us(x),
                     "reader_alone_us": reader, "reader_in_chain_us": in_chain})

    def order(r):
        # Launch chains by length, streams by grid then tile, l2 by size.
        nums = [int(n) for n in re.findall(r"\d+", r["probe"])]
        kind = ("launch", "stream", "l2", "gemv").index(r["probe"].split("_")[0])
        return (kind, nums, r["probe"])

    rows.sort(key=order)
    for r in rows:
        r["model_error"] = r["model_us"] / r["measured_us"] - 1 if r["measured_us"] > 0 else None
    busy_fraction = copy / (sms * sm_rate) if copy and sm_rate else None
    idle_sms_rate = (grid_rate[128] / grid_rate[sms]
                     if grid_rate.get(128) and grid_rate.get(sms) else None)
    return {"sms": sms, "copy_gbps": copy or None, "launch_us": launch_us,
            "gap_dependent_us": gaps.get(True), "gap_plain_us": gaps.get(False),
            "latency_ns": latency, "sm_gbps": sm_rate, "peak_gbps": peak,
            "peak_of_copy": peak / copy if peak and copy else None,
            "busy_fraction": busy_fraction, "idle_sms_rate": idle_sms_rate,
            "l2_saved": l2_saved,
            "gemv_gbps": gemv, "gemv_of_widest": gemv_of_widest,
            "rows": rows, "skipped": skipped}


def print_section(p):
    """The probe section as markdown."""
    def f(v, fmt):
        return fmt % v if isinstance(v, (int, float)) else "n/a"

    print()
    print("Calibration probes (results/probes; docs/Rationale/CalibrationProbes.md), "
          "%s SMs, copy bandwidth %s GB/s:" % (p.get("sms", "?"), f(p.get("copy_gbps"), "%.0f")))
    print()
    print("| probe | blocks | flight/SM KB | measured µs | model µs | model error "
          "| GB/s | GB/s per busy SM | flight / rate ns |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in p["rows"]:
        err = r.get("model_error")
        print("| %s | %d | %s | %.2f | %.2f | %s | %s | %s | %s |" % (
            r["probe"], r["blocks"], f(r.get("flight_per_sm", None) and r["flight_per_sm"] / 1e3, "%.1f"),
            r["measured_us"], r["model_us"], "%+d %%" % round(100 * err) if err is not None else "n/a",
            f(r.get("gbps"), "%.0f"), f(r.get("gbps_per_sm"), "%.1f"),
            f(r.get("implied_latency_ns"), "%.0f")))
    print()
    print("| measured | value | the model's term (lib/Semantics/Target.cpp) |")
    print("|---|---|---|")
    print("| a kernel launched alone | %s | launchSeconds |" % f(p.get("launch_us"), "%.2f µs"))
    print("| each further kernel of a chain beyond its time alone, dependent launch | %s "
          "| (none: the model adds a whole launch) |"
          % f(p.get("gap_dependent_us"), "%.2f µs"))
    print("| each further kernel of a chain beyond its time alone, plain launch | %s "
          "| (none: the model adds a whole launch) |"
          % f(p.get("gap_plain_us"), "%.2f µs"))
    print("| latency, least flight / rate per SM | %s | dramLatencySeconds |"
          % f(p.get("latency_ns"), "%.0f ns"))
    print("| one SM's rate, grids of ≤ SMs/4 blocks | %s | smDramBytesPerSecond; dramBusyFraction ≈ %s |"
          % (f(p.get("sm_gbps"), "%.1f GB/s"), f(p.get("busy_fraction"), "%.2f")))
    print("| a one-wave grid of 128 blocks, against %d | %s of the rate | TargetInfo::fillsMachine "
          "(0.97: each SM's share bounds it; 1: DRAM does) |"
          % (p["sms"], f(p.get("idle_sms_rate") and 100 * p["idle_sms_rate"], "%.1f %%")))
    print("| best stream rate | %s (%s of copy) | dramBytesPerSecond · memoryEfficiency |"
          % (f(p.get("peak_gbps"), "%.0f GB/s"), f(p.get("peak_of_copy") and 100 * p["peak_of_copy"], "%.0f %%")))
    for mb in sorted(p.get("l2_saved", {})):
        print("| an intermediate of %d MB, read by the next kernel | %s of the reader's time saved | "
              "(none: charged to DRAM) |" % (mb, f(p["l2_saved"][mb] and 100 * p["l2_saved"][mb], "%.0f %%")))
    gemv = p.get("gemv_gbps", {})
    for w in sorted(gemv):
        print("| a GEMV's strip of %d columns (%d-byte row pieces) | %s, %s of the %d-column strip's "
              "| (none: the model prices 32-byte sectors alike) |"
              % (w, 2 * w, f(gemv[w], "%.0f GB/s"),
                 f(p["gemv_of_widest"].get(w) and 100 * p["gemv_of_widest"][w], "%.0f %%"),
                 max(gemv)))
    for s in p.get("skipped", []):
        print("* skipped probe %s" % s)

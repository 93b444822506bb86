#!/usr/bin/env python3
"""The GPU benchmark's table from a results directory (run.sh step 5).

    table.py RESULTS W...      (W: a workload, or models.<m> for a layer)

Prints one markdown row per fused graph: the hand-written and the searched
graph of each workload, the searched winner (and its no-tail-combine twin)
of each layer, with the unfused and PyTorch columns of its workload. Exits 1
when a fused graph failed (its check, or no result at all). run.sh calls it
after its runs; bench/gpu/lease.sh's results are tabled with it afterwards.
"""
import json, os, sys

results, workloads = sys.argv[1], sys.argv[2:]

def load(w, kind):
    """The last JSON line of results/<w>.<kind>.json, or None."""
    try:
        with open(os.path.join(results, "%s.%s.json" % (w, kind))) as f:
            lines = [l for l in f.read().splitlines() if l.strip().startswith("{")]
        return json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        return None

def first_error(w, kind):
    try:
        with open(os.path.join(results, "%s.%s.log" % (w, kind))) as f:
            for line in f:
                if "FAILED" in line or line.startswith("mirage-run:") or "missing" in line:
                    return line.strip()
    except OSError:
        pass
    return None

def none_reason(w):
    """Why a workload has no searched graph (results/<w>.searched.none)."""
    try:
        with open(os.path.join(results, w + ".searched.none")) as f:
            return f.read().strip()
    except OSError:
        return None

def us(v):
    return "%.1f" % v if isinstance(v, (int, float)) else "n/a"

# One row per fused graph: the hand-written best (results/<w>.fused.*) and
# the searched winner (results/<w>.searched.*); the unfused and PyTorch
# columns are the workload's, the same in both rows.
KINDS = (("fused", "hand-written"), ("searched", "searched"))
# A bench/models layer: its winner, and the winner without its tail combine
# where the bundle has that (results/<w>.notail.*).
MODEL_KINDS = (("searched", "searched"), ("notail", "searched, no tail combine"))
rows, notes, device, copy, failed = [], [], None, None, False
for w in workloads:
    unfused, tch = load(w, "unfused"), load(w, "torch")
    eager = tch.get("eager_us") if tch else None
    compiled = tch.get("compile_us") if tch else None
    common = [us(unfused.get("median_us")) if unfused and unfused.get("ok") else "FAILED",
              us(eager) if eager is not None else ("FAILED" if tch else "n/a"),
              us(compiled) if compiled is not None else ("FAILED" if tch and "compile_error" in tch else "n/a")]
    is_model = w.startswith("models.")
    for kind, label in (MODEL_KINDS if is_model else KINDS):
        fused = load(w, kind)
        if kind == "notail" and fused is None and not os.path.exists(
                os.path.join(results, w + ".notail.log")):
            continue  # no tail combine in this winner
        for r in (fused, unfused):  # device and copy bandwidth from any run
            if r:
                device = device or r.get("device")
                copy = copy or r.get("copy_gbps")
        graph = (fused or {}).get("graph")
        name = "%s (%s)" % (label, graph) if graph else label
        reason = none_reason(w) if kind == "searched" else None
        if reason:
            rows.append([w, name, "-"] + common + ["", "", ""])
            notes.append("%s searched: %s" % (w, reason))
            continue
        ok = bool(fused and fused.get("ok") and "median_us" in fused)
        rows.append([w, name, us(fused["median_us"]) if ok else "FAILED"] + common +
                    ["%.0f" % fused["gbps"] if ok else "",
                     "%.1f %%" % fused["copy_pct"] if ok else "",
                     "%.2fx" % (eager / fused["median_us"]) if ok and eager else ""])
        failed |= not ok
        if not ok:
            notes.append("%s %s: %s" % (w, label, first_error(w, kind) or "no result"))
    if not (unfused and unfused.get("ok")):
        notes.append("%s unfused: %s" % (w, first_error(w, "unfused") or "no result"))
    if tch and "error" in tch:
        notes.append("%s torch: %s" % (w, tch["error"]))
    elif tch is None and os.path.exists(os.path.join(results, w + ".torch.log")):
        notes.append("%s torch: no result, see %s" % (w, os.path.join(results, w + ".torch.log")))
    if tch and "compile_error" in tch:
        notes.append("%s torch.compile: %s" % (w, tch["compile_error"]))

header = ["workload", "fused graph", "fused µs", "unfused µs", "torch eager µs", "torch.compile µs",
          "fused GB/s", "% of copy BW", "fused vs eager"]
print()
print("device: %s; copy bandwidth %s GB/s (cuMemcpyDtoD, read+write)" %
      (device or "?", "%.0f" % copy if copy else "?"))
print()
print("| " + " | ".join(header) + " |")
print("|" + "|".join("---" for _ in header) + "|")
for r in rows:
    print("| " + " | ".join(r) + " |")
if notes:
    print()
    for n in notes:
        print("* " + n)
# Nonzero when a fused graph failed (its check, or no result at all).
sys.exit(1 if failed else 0)

#!/usr/bin/env bash
# The attention table of bench/README.md (issue 21 item 5): every layer of
# bench/models/attention superoptimized to PTX for sm_90, then read as an
# H100 would run it (static audit, no GPU):
#
#   bash bench/attention_table.sh [BUILD_DIR] [BUDGET_SECONDS]
#
# Per workload: kernels before -> after, the winner's tile traffic (the
# plan's loads and stores of every block, through L2, from the manifests)
# against the compulsory bytes (every input and output once), how often
# the inputs are loaded (every block's loads of the graph's inputs against
# their sizes, apart from the intermediates a split pair writes and reads
# back), search and verification seconds, the stated bound, the
# cost model's estimate before -> after (before: the reference as the code
# generator emits it, and in parentheses as library kernels;
# docs/Rationale/PricingAsEmitted.md), and per kernel of the winner its
# grid, shared memory, pipelining (wait depths) and the audit's flags.
# Columns of the per-kernel audit: bench/kernel_audit.py.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BUDGET=${2:-60}
OPT=$BUILD/bin/mirage-opt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| workload | kernels | search s | verify s | bound | est. µs (h100): emitted (library) → winner | tile traffic / compulsory MB | input loads / inputs MB | winner kernels (grid, smem KiB, wait depths, flags) |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in bench/models/attention/*.mlir; do
  w=$(basename "$f" .mlir)
  out=$tmp/$w
  "$OPT" "$f" --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{chip=sm_90 output-dir=$out cache=off progress=false time-budget=$BUDGET report=$tmp/$w.json})" \
    -o /dev/null 2>"$tmp/$w.err" || { echo "| $w | failed: $(grep -m1 error "$tmp/$w.err" || true) |"; continue; }
  bash bench/kernel_audit.sh --json "$out" >"$tmp/$w.audit.json"
  python3 - "$tmp/$w.json" "$tmp/$w.audit.json" "$out" "$w" <<'PY'
import glob, json, os, sys
rep, audit, out, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
DT = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}
for g in rep["graphs"]:
    opt = g["graph"] + "_opt"
    man = os.path.join(out, opt + ".sm_90.manifest.json")
    if not os.path.exists(man):
        print(f"| {name} | {g['kernels_in_input']} → {g['kernels_in_input']} (unchanged) | {g['search_seconds']:.1f} | - | - | - | - | - | - |")
        continue
    m = json.load(open(man))
    compulsory = inputs = 0
    for b in m["buffers"]:
        if b["role"] in ("input", "output"):
            n = 1
            for s in b["shape"]:
                n *= s
            compulsory += n * DT[b["dtype"]]
            if b["role"] == "input":
                inputs += n * DT[b["dtype"]]
    # The plan's loads of each input-role argument, every block's.
    input_loads = 0
    for k in m["kernels"]:
        for a, loaded in zip(k["args"], k["plan"].get("loaded_bytes") or []):
            if m["buffers"][a]["role"] == "input":
                input_loads += loaded
    ks = [k for k in audit["kernels"] if k["graph"] == opt]
    # Every block's tile loads and stores (the plan's, through L2): a K
    # tile read by 8 blocks counts 8 times. Not the kernel arguments'
    # sizes, which cannot show a re-read.
    moved = sum(k["model"]["l2_bytes"] or 0 for k in ks)
    cells = []
    for k in ks:
        grid = "×".join(str(x) for x in k["grid"])
        depths = ",".join(str(d) for d in k["wait_depths"]) or "-"
        flags = " ".join(k["flags"]) or "ok"
        cells.append(f"{grid}, {k['shared_bytes']/1024:.0f}, [{depths}], {flags}")
    v = g.get("verification", {})
    bound = f"2^{v['log2_bound']:.0f}" if "log2_bound" in v else "-"
    budget = " (budget)" if g.get("timed_out") else ""
    print(f"| {name} | {g['kernels_in_input']} → {g['kernels_in_winner']} | "
          f"{g['search_seconds']:.1f}{budget} | {v.get('seconds', 0):.1f} | {bound} | "
          f"{g['input_cost_us']:.1f} ({g.get('library_cost_us') or 0:.1f}) → {g['best_cost_us']:.1f} | "
          f"{moved/1e6:.1f} / {compulsory/1e6:.1f} ({moved/compulsory:.2f}×) | "
          f"{input_loads/1e6:.1f} / {inputs/1e6:.1f} ({input_loads/inputs:.2f}×) | "
          + "; ".join(cells) + " |")
PY
done

#!/usr/bin/env bash
# Superoptimizes the unfused reference of each paper workload at full shapes
# (bench/workloads/<name>.mlir, graph "<name>_ref") and prints a table from
# the JSON reports: search time, states, pruning ratio, candidates verified,
# kernels before/after, estimated speedup on the target, verification bound.
#
#   bench/search_workloads.sh [build-dir] [time-budget-s] [extra pass options]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BUDGET=${2:-300}
EXTRA=${3:-}
OPT=$BUILD/bin/mirage-opt
tmp=$(mktemp -d)
echo "| workload | search s | states | pruned | candidates | kernels | est. speedup (h100) | bound | winner |"
echo "|---|---|---|---|---|---|---|---|---|"
for w in rmsnorm_matmul gated_mlp lora ntrans qknorm gqa; do
  f=bench/workloads/$w.mlir
  [ -f "$f" ] || continue
  "$OPT" "$f" --mirage-superoptimize="cache=off time-budget=$BUDGET report=$tmp/$w.json $EXTRA" \
    -o "$tmp/$w.out.mlir" 2>"$tmp/$w.err"
  python3 - "$tmp/$w.json" "$tmp/$w.out.mlir" "$w" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
g = [r for r in rep["graphs"] if r["graph"].endswith("_ref")][0]
text = open(sys.argv[2]).read()
m = re.search(r'"%s_ref_opt".*?custom\(.*?grid = (\[[^\]]*\]) forloop = (\d+)' % sys.argv[3], text, re.S)
winner = "grid %s, forloop %s" % (m.group(1), m.group(2)) if m else "unchanged"
states = g["states_explored"]; pruned = g["states_pruned"]
ratio = "%.0f%%" % (100.0 * pruned / states) if states else "-"
speed = g["input_cost_us"] / g["best_cost_us"] if g["best_cost_us"] else 1.0
v = g["verification"]
bound = "2^%.0f" % v["log2_bound"] if v["tests"] else "-"
print("| %s | %.1f%s | %d | %s | %d | %d → %d | %.2fx | %s | %s |" % (
    sys.argv[3], g["seconds"], " (budget)" if g["timed_out"] else "", states,
    ratio, g["candidates_verified"], g["kernels_in_input"], g["kernels_in_winner"],
    speed, bound, winner))
PY
done
rm -rf "$tmp"

#!/usr/bin/env bash
# Superoptimizes the unfused reference of each paper workload at full shapes
# (bench/workloads/<name>.mlir, graph "<name>_ref") and prints a table from
# the JSON reports: search time (wall and CPU), peak memory, states, pruning
# ratio, candidates verified, kernels before/after, estimated speedup on the
# target, verification bound, winner.
#
#   bench/search_workloads.sh [build-dir] [time-budget-s] [pass options] [baseline pass options]
#
# With baseline options (e.g. "cost-bound=false" to measure one technique),
# every workload runs twice in the same invocation, baseline first, and the
# table gets a row per run and the wall-time ratio baseline/this.
# WORKLOADS="gqa qknorm" restricts the workloads.
# MODELS=1 runs the real-model programs of bench/models/attention instead
# (TOSA, fp16, as a frontend emits them: imported first, the kernel graph
# is "graph0").
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BUDGET=${2:-300}
EXTRA=${3:-}
BASELINE=${4-__none__}
OPT=$BUILD/bin/mirage-opt
WORKLOADS=${WORKLOADS:-rmsnorm_matmul gated_mlp lora ntrans qknorm gqa}
SRC=bench/workloads IMPORT= GRAPH=ref
if [ "${MODELS:-0}" = 1 ]; then
  SRC=bench/models/attention IMPORT=--mirage-import GRAPH=graph0
  WORKLOADS=$(cd $SRC && ls *.mlir | sed 's/\.mlir$//')
fi
tmp=$(mktemp -d)
echo "| workload | options | search s | CPU s | peak MB | states | pruned | candidates | kernels | est. speedup (h100) | vs library ref | bound | winner | baseline/this |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
run() { # workload, options, label, baseline seconds (or -)
  local w=$1 opts=$2 label=$3 base=$4 f=$SRC/$1.mlir
  /usr/bin/time -v -o "$tmp/$w.time" "$OPT" "$f" $IMPORT \
    --mirage-superoptimize="cache=off progress=false time-budget=$BUDGET report=$tmp/$w.json $opts" \
    -o "$tmp/$w.out.mlir" 2>"$tmp/$w.err"
  python3 - "$tmp/$w.json" "$tmp/$w.out.mlir" "$w" "$tmp/$w.time" "$label" "$base" "$GRAPH" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
name = sys.argv[3] + "_ref" if sys.argv[7] == "ref" else sys.argv[7]
g = [r for r in rep["graphs"] if r["graph"] == name][0]
text = open(sys.argv[2]).read()
m = re.search(r'"%s_opt".*?mirage_kernel\.yield' % name, text, re.S)
# Every kernel of the winner (a split pair has two: split kernel + combine).
kernels = re.findall(r'custom\(.*?grid = (\[[^\]]*\]) forloop = (\d+)', m.group(0)) if m else []
winner = " + ".join("grid %s, forloop %s" % k for k in kernels) if kernels else "unchanged"
t = open(sys.argv[4]).read()
cpu = sum(float(re.search(p + r": ([0-9.]+)", t).group(1)) for p in (r"User time \(seconds\)", r"System time \(seconds\)"))
peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024
states = g["states_explored"]; pruned = g["states_pruned"]
ratio = "%.0f%%" % (100.0 * pruned / states) if states else "-"
# Against the reference as the code generator emits it (the search's
# figure), and as idealised library kernels (PricingAsEmitted.md).
speed = g["input_cost_us"] / g["best_cost_us"] if g["best_cost_us"] else 1.0
lib = g.get("library_cost_us")
libspeed = "%.2fx" % (lib / g["best_cost_us"]) if lib and g["best_cost_us"] else "-"
v = g["verification"]
bound = "2^%.0f" % v["log2_bound"] if v["tests"] else "-"
base = sys.argv[6]
rel = "%.1fx" % (float(base) / g["seconds"]) if base != "-" and g["seconds"] > 0 else "-"
print("| %s | %s | %.1f%s | %.1f | %.0f | %d | %s | %d | %d → %d | %.2fx | %s | %s | %s | %s |" % (
    sys.argv[3], sys.argv[5], g["seconds"], " (budget)" if g["timed_out"] else "", cpu, peak,
    states, ratio, g["candidates_verified"], g["kernels_in_input"], g["kernels_in_winner"],
    speed, libspeed, bound, winner, rel))
open(sys.argv[1] + ".seconds", "w").write("%f" % g["seconds"])
PY
}
for w in $WORKLOADS; do
  [ -f "$SRC/$w.mlir" ] || continue
  if [ "$BASELINE" != "__none__" ]; then
    run "$w" "$BASELINE" "${BASELINE:-defaults}" -
    base=$(cat "$tmp/$w.json.seconds")
    run "$w" "$EXTRA" "${EXTRA:-defaults}" "$base"
  else
    run "$w" "$EXTRA" "${EXTRA:-defaults}" -
  fi
done
rm -rf "$tmp"

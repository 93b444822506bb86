#!/usr/bin/env bash
# The main job: superoptimize a bundled workload end to end.
#
# Input: RMSNorm (with eps and a gamma weight) followed by a MatMul, written in
# TOSA as a frontend emits it. The pipeline imports it into a kernel graph,
# searches for a fused μGraph, verifies the winner against the original, and
# replaces it. A second run finds the result in the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
in=${1:-examples/rmsnorm_matmul_tosa.mlir}
out=build/demo-out.mlir
cache=build/demo-cache.sqlite
report=build/demo-report.json
rm -f "$cache"
pipeline="mirage-superoptimize-pipeline{cache=$cache report=$report time-budget=${TIME_BUDGET:-60}}"

echo "== input: $in"
grep -E "^ +%[a-z0-9_]+ = (tosa|linalg)\." "$in" | sed -E 's/ :.*//' | head -n 20
echo
echo "== mirage-opt --pass-pipeline='builtin.module($pipeline)'"
./build/bin/mirage-opt "$in" --pass-pipeline="builtin.module($pipeline)" \
  -o "$out" 2>&1 | grep -E "remark|warning|error" | sed -E 's/^[^ ]+ //'
echo
echo "== the fused μGraph that replaced the original (from $out)"
sed -n '/reference "/,/^    }$/p' "$out"
echo
echo "== second run: the result comes from the cache ($cache)"
./build/bin/mirage-opt "$in" --pass-pipeline="builtin.module($pipeline)" \
  -o /dev/null 2>&1 | grep -E "superoptimized" | sed -E 's/^[^ ]+ //'
echo
echo "== JSON report: $report"

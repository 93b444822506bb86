#!/usr/bin/env bash
# The main job: superoptimize a bundled workload end to end, ending in PTX.
#
# Input: RMSNorm (with eps and a gamma weight) followed by a MatMul, written in
# TOSA as a frontend emits it. The pipeline imports it into a kernel graph,
# searches for a fused μGraph, verifies the winner against the original,
# lowers both to loops and to PTX, and writes the PTX and a launch manifest
# for each. The generated code is then run on the CPU and compared with the
# float64 evaluator. A second run finds the search result in the cache.
#
#   bash scripts/demo.sh [input.mlir] [--gpu]
#
# With --gpu (on a machine with an NVIDIA GPU and its driver), the PTX runs
# with mirage-run: the fused kernel is checked against the unfused reference
# on the same inputs and both are timed.
set -euo pipefail
cd "$(dirname "$0")/.."
gpu=0
args=()
for a in "$@"; do
  if [ "$a" = "--gpu" ]; then gpu=1; else args+=("$a"); fi
done
bash scripts/build.sh >/dev/null
in=${args[0]:-examples/rmsnorm_matmul_tosa.mlir}
chip=${CHIP:-sm_90}
out=build/demo-out.mlir
ptx=build/demo-ptx
cache=build/demo-cache.sqlite
report=build/demo-report.json
rm -rf "$cache" "$ptx"
pipeline="mirage-superoptimize-to-ptx{chip=$chip output-dir=$ptx cache=$cache report=$report time-budget=${TIME_BUDGET:-60}}"

echo "== input: $in"
grep -E "^ +%[a-z0-9_]+ = (tosa|linalg)\." "$in" | sed -E 's/ :.*//' | head -n 20
echo
echo "== mirage-opt --pass-pipeline='builtin.module($pipeline)'"
./build/bin/mirage-opt "$in" --pass-pipeline="builtin.module($pipeline)" \
  --mlir-print-op-on-diagnostic=false -o "$out" 2>&1 | grep -E "remark|warning|error" | sed -E 's/^[^ ]+ //'
echo
echo "== the fused μGraph that replaced the original (from $out)"
sed -n '/reference "/,/^    }$/p' "$out"
echo
echo "== the generated code on the CPU (the same loop IR as the PTX, JIT-compiled)"
./build/bin/mirage-opt "$out" --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false \
  -o /dev/null 2>&1 | grep -E "remark|error" | sed -E 's/^[^ ]+ //'
echo
echo "== PTX and manifests for mirage-run ($ptx)"
ls -l "$ptx" | awk 'NR > 1 { printf "  %8d  %s\n", $5, $NF }'
echo
echo "== second run: the result comes from the cache ($cache)"
./build/bin/mirage-opt "$in" --pass-pipeline="builtin.module($pipeline)" \
  -o /dev/null 2>&1 | grep -E "superoptimized" | sed -E 's/^[^ ]+ //'
echo
echo "== JSON report: $report"
fused=$(ls "$ptx"/*_opt."$chip".manifest.json 2>/dev/null | head -n 1 || true)
if [ -z "$fused" ]; then
  # No fused graph beat the original (the remarks above say by how much):
  # the PTX is the original's, and there is nothing to compare it with.
  echo
  echo "No fused graph replaced the original; $ptx holds the original's PTX."
  exit 0
fi
ref=${fused/_opt./.}
if [ $gpu -eq 1 ]; then
  echo
  echo "== on the GPU: build/bin/mirage-run $fused --reference $ref"
  ./build/bin/mirage-run "$fused" --reference "$ref"
else
  echo
  echo "Run the PTX on an NVIDIA GPU: bash scripts/demo.sh --gpu"
  echo "  (or, on a machine without MLIR: mirage-run $fused --reference $ref)"
fi

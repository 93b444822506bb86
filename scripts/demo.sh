#!/usr/bin/env bash
# The main job on a bundled example: RMSNorm+MatMul, as an unfused reference
# kernel graph and as the paper's fused μGraph. Parses and verifies both,
# evaluates them on seeded random inputs and checks that they agree.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
ex=examples/rmsnorm_matmul.mlir
echo "== $ex: verified and round-tripped =="
./build/bin/mirage-opt "$ex" | sed -n '/mirage_kernel.graph/,$p' | head -n 40
echo "== evaluation (float64, seeded random inputs) and comparison with the reference =="
./build/bin/mirage-opt "$ex" --mirage-evaluate --mirage-compare -o /dev/null 2>&1 | grep remark

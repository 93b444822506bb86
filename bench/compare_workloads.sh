#!/usr/bin/env bash
# Compares each paper workload's best μGraph with its unfused reference at the
# paper's full shapes (bench/workloads/*.mlir) in the float64 evaluator, and
# prints a markdown table: workload | shapes | kernels (ref → best) |
# max relative error | seconds.
#
# Usage: bench/compare_workloads.sh [workload ...]
#   MIRAGE_OPT   the mirage-opt binary (default build/bin/mirage-opt)
#   TRIALS       random trials per comparison (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
opt=${MIRAGE_OPT:-build/bin/mirage-opt}
trials=${TRIALS:-1}
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(rmsnorm_matmul gated_mlp lora gqa qknorm ntrans)

# Kernel-level operators (pre-defined kernels and graph-defined kernels) of the
# graph named $2 in file $1; block and thread ops inside custom kernels do not
# count.
count_kernels() {
  awk -v g="\"$2\"" '
    /mirage_kernel\.graph "/ { inside = index($0, "mirage_kernel.graph " g) > 0 }
    inside && /= mirage_kernel\.(matmul|unary|binary|reduce|rms_norm|concat|custom)/ { n++ }
    END { print n + 0 }' "$1"
}

echo "| workload | shapes | kernels (ref → best) | max relative error | seconds |"
echo "|---|---|---|---|---|"
status=0
for w in "${workloads[@]}"; do
  f=bench/workloads/$w.mlir
  # Input shapes from the function signature (the part before "->").
  shapes=$(grep -m1 '^func.func' "$f" | sed 's/->.*//' | grep -o 'tensor<[0-9x]*x[a-z0-9]*>' |
           sed 's/tensor<\(.*\)x[a-z][a-z0-9]*>/\1/' | paste -sd, - | sed 's/,/, /g')
  kref=$(count_kernels "$f" "${w}_ref")
  kbest=$(count_kernels "$f" "${w}_best")
  start=$(date +%s.%N)
  if out=$("$opt" "$f" --mirage-compare="trials=$trials" -o /dev/null 2>&1); then :; else status=1; fi
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  err=$(printf '%s\n' "$out" | grep -o "graph '${w}_best' [a-z ]* reference '${w}_ref': max relative error [^ ]*" |
        sed 's/.*max relative error //')
  if ! printf '%s\n' "$out" | grep -q "graph '${w}_best' matches reference"; then
    err="MISMATCH ${err:-(no result)}"
    status=1
  fi
  echo "| $w | $shapes | $kref → $kbest | $err | $secs |"
done
exit $status

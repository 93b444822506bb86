#!/usr/bin/env bash
# Runs the generated code of the six paper workloads at the paper's full
# shapes on the CPU: every graph of bench/workloads/<name>.mlir (the unfused
# reference and the best μGraph) is lowered to loops, compiled for the host
# with the ExecutionEngine and run on seeded inputs; each output is compared
# with the float64 evaluator. Prints a markdown table:
#
#   workload | kernels (ref → best) | CPU ms ref | CPU ms best | best/ref |
#   max rel. error ref, best (f16 tolerance) | peak MB | seconds
#
# "CPU ms" is the run of the JIT-compiled host function alone (compilation
# and the evaluator excluded); the unfused reference, compiled by the same
# backend in the same process, is the baseline. Peak MB is the whole
# mirage-opt process (/usr/bin/time -v), including the float64 evaluator.
#
# Usage: bench/codegen_cpu.sh [workload ...]   (MIRAGE_OPT: the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
opt=${MIRAGE_OPT:-build/bin/mirage-opt}
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(rmsnorm_matmul gated_mlp lora gqa qknorm ntrans)

echo "| workload | kernels (ref → best) | CPU ms ref | CPU ms best | best/ref | max rel. error ref, best | peak MB | seconds |"
echo "|---|---|---|---|---|---|---|---|"
status=0
for w in "${workloads[@]}"; do
  f=bench/workloads/$w.mlir
  log=$(mktemp)
  start=$(date +%s.%N)
  if /usr/bin/time -v "$opt" "$f" --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false \
      -o /dev/null >"$log" 2>&1; then :; else status=1; fi
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  peak=$(awk '/Maximum resident set size/ { printf "%.0f", $NF / 1024 }' "$log")
  field() { # $1 graph, $2 what: kernels | ms | err
    grep "graph '$1' on the CPU matches" "$log" | sed -E \
      -e "s/.*error ([0-9.e+-]+) \(([a-z0-9]+) tolerance ([0-9e+-]+), ([0-9]+) kernels?, ran in ([0-9.e+-]+) ms\).*/\4 \5 \1/" |
      awk -v w="$2" '{ if (w == "kernels") print $1; else if (w == "ms") printf "%.1f", $2; else print $3 }'
  }
  kr=$(field "${w}_ref" kernels); kb=$(field "${w}_best" kernels)
  mr=$(field "${w}_ref" ms); mb=$(field "${w}_best" ms)
  er=$(field "${w}_ref" err); eb=$(field "${w}_best" err)
  if [ -z "$mr" ] || [ -z "$mb" ]; then
    echo "| $w | FAILED: $(grep -m1 error: "$log" | sed 's/.*error: //') | | | | | $peak | $secs |"
    status=1
  else
    ratio=$(awk -v a="$mr" -v b="$mb" 'BEGIN { printf "%.2f", b / a }')
    echo "| $w | $kr → $kb | $mr | $mb | $ratio | $er, $eb (1e-02) | $peak | $secs |"
  fi
  rm -f "$log"
done
exit $status

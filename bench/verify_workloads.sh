#!/usr/bin/env bash
# Verifies each workload's best μGraph against its reference at the paper's
# full shapes with --mirage-verify-equivalence and prints a table:
#   workload | graph | tests | bound | seconds
# Usage: bench/verify_workloads.sh [build-dir] [timeout-seconds]
# Files missing from bench/workloads/ are skipped; a run longer than the
# timeout (default 900 s) is reported as such.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-verify}"
limit="${2:-900}"
opt="$build/bin/mirage-opt"
[ -x "$opt" ] || { echo "mirage-opt not found in $build/bin" >&2; exit 1; }
printf '%-16s | %-22s | %5s | %-10s | %8s\n' workload graph tests bound seconds
printf '%s\n' "-----------------+------------------------+-------+------------+---------"
for w in gqa qknorm rmsnorm_matmul lora gated_mlp ntrans; do
  f="$root/bench/workloads/$w.mlir"
  if [ ! -f "$f" ]; then
    printf '%-16s | %-22s | %5s | %-10s | %8s\n' "$w" "(missing)" - - -
    continue
  fi
  start=$(date +%s.%N)
  out=$(timeout "$limit" "$opt" "$f" \
          --mirage-verify-equivalence="dtype-check=false" -o /dev/null 2>&1)
  rc=$?
  end=$(date +%s.%N)
  secs=$(echo "$end - $start" | bc)
  if [ $rc -eq 124 ]; then
    printf '%-16s | %-22s | %5s | %-10s | %8s\n' "$w" "(timeout)" - - ">$limit"
    continue
  fi
  lines=$(echo "$out" | grep -E "is (not )?equivalent|could not be verified")
  if [ -z "$lines" ]; then
    printf '%-16s | %-22s | %5s | %-10s | %8.1f\n' "$w" "(no result rc=$rc)" - - "$secs"
    echo "$out" | head -3 >&2
    continue
  fi
  echo "$lines" | while IFS= read -r l; do
    g=$(echo "$l" | sed -n "s/.*graph '\([^']*\)'.*/\1/p")
    if echo "$l" | grep -q "is equivalent"; then
      t=$(echo "$l" | sed -n 's/.*: \([0-9]*\) tests.*/\1/p')
      b=$(echo "$l" | sed -n 's/.*bound \(2^-[0-9]*\).*/\1/p')
      [ -z "$b" ] && b="vacuous"
    else
      t="-"; b="REJECTED"
    fi
    printf '%-16s | %-22s | %5s | %-10s | %8.1f\n' "$w" "$g" "$t" "$b" "$secs"
  done
done

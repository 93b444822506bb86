#!/usr/bin/env bash
# Full-shape verification at model scale, against its arithmetic floor.
#
#   bench/verify_scale.sh [build-dir] [time-budget-s] [layers...]
#
# 1. Superoptimizes each decoder layer of bench/models (TOSA, fp16, as a
#    frontend emits it) end to end with --mirage-import
#    --mirage-superoptimize and prints wall time, the search and
#    verification seconds of the JSON report, and peak memory
#    (/usr/bin/time -v).
# 2. Re-verifies each winner, and the best graph of each paper workload
#    (bench/workloads), with build/bin/verify_floor: multiply-adds per test,
#    tests, seconds, achieved field multiply-adds per second, and a plain
#    modular dot-product loop of the same multiply-add count on the same
#    cores measured in the same process right after, with the ratio; peak
#    memory of that process.
# Layers default to all of bench/models; pass names (without .mlir) to pick.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BUDGET=${2:-5}
shift 2 2>/dev/null || shift $#
OPT=$BUILD/bin/mirage-opt
FLOOR=$BUILD/bin/verify_floor
for b in "$OPT" "$FLOOR"; do
  [ -x "$b" ] || { echo "missing $b (ninja -C $BUILD mirage-opt verify_floor)" >&2; exit 1; }
done
layers=("$@")
if [ ${#layers[@]} -eq 0 ]; then
  for f in bench/models/*.mlir; do layers+=("$(basename "$f" .mlir)"); done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
peak() { awk -F: '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"; }

echo "### Superoptimizing decoder layers (time-budget=$BUDGET)"
echo
echo "| layer | end to end s | search s | verification s | peak MB | result |"
echo "|---|---|---|---|---|---|"
for l in "${layers[@]}"; do
  f=bench/models/$l.mlir
  /usr/bin/time -v "$OPT" "$f" --mirage-import \
    --mirage-superoptimize="cache=off time-budget=$BUDGET report=$tmp/$l.json" \
    -o "$tmp/$l.out.mlir" 2>"$tmp/$l.err" >/dev/null
  rc=$?
  python3 - "$tmp/$l.json" "$tmp/$l.err" "$l" "$rc" "$(peak "$tmp/$l.err")" <<'PY'
import json, re, sys
path, err, name, rc, peak = sys.argv[1:6]
text = open(err).read()
m = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", text)
wall = (int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))) if m else float("nan")
try:
    g = json.load(open(path))["graphs"][0]
    v = g["verification"]
    if g["kernels_in_winner"] < g["kernels_in_input"]:
        res = "%d → %d kernels, %d tests, bound 2^%.0f" % (
            g["kernels_in_input"], g["kernels_in_winner"], v["tests"], v["log2_bound"])
    else:
        r = re.search(r"left unchanged: (.*)", text)
        res = "unchanged: " + (r.group(1).strip() if r else "?")
    print("| %s | %.1f | %.1f | %.1f | %s | %s |" % (
        name, wall, g.get("search_seconds", float("nan")),
        v.get("seconds", float("nan")), peak, res))
except Exception as e:
    print("| %s | %.1f | - | - | %s | failed (exit %s): %s |" % (
        name, wall, peak, rc, text.strip().splitlines()[-1] if text.strip() else e))
PY
done

echo
echo "### Full-shape verification against a plain modular dot-product loop"
echo
echo "| workload | graph | multiply-adds/test | tests | verify s | field MAC/s | floor s | ratio | verify CPU s | floor CPU s | CPU ratio | peak MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
inputs=()
for l in "${layers[@]}"; do
  [ -s "$tmp/$l.out.mlir" ] && grep -q 'reference "' "$tmp/$l.out.mlir" &&
    { cp "$tmp/$l.out.mlir" "$tmp/$l.mlir"; inputs+=("$tmp/$l.mlir"); }
done
for w in rmsnorm_matmul gated_mlp lora ntrans qknorm gqa; do
  [ -f bench/workloads/$w.mlir ] && inputs+=(bench/workloads/$w.mlir)
done
for f in "${inputs[@]}"; do
  /usr/bin/time -v "$FLOOR" "$f" >"$tmp/row" 2>"$tmp/row.err"
  p=$(peak "$tmp/row.err")
  while IFS=$'\t' read -r wl graph macs tests secs rate fl ratio vcpu fcpu cratio verdict; do
    extra=""
    [ "$verdict" != verified ] && extra=" ($verdict)"
    printf '| %s | %s | %.3g | %s | %s | %s | %s | %sx | %s | %s | %sx%s | %s |\n' \
      "$wl" "$graph" "$macs" "$tests" "$secs" "$rate" "$fl" "$ratio" \
      "$vcpu" "$fcpu" "$cratio" "$extra" "$p"
  done <"$tmp/row"
done

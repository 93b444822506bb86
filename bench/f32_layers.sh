#!/usr/bin/env bash
# f32 transformer layers at real sizes, as torch-mlir emits them, through the
# whole pipeline to PTX (no GPU needed):
#
#   bench/f32_layers.sh [BUILD_DIR=build] [OUT_DIR=build/f32-layers]
#
# The frontend corpus (bench/corpus) holds these layers at hidden 64; here
# bench/corpus/gen_linalg.py writes them at their models' sizes:
#
#   vit_b_mlp   ViT-B/16's MLP half: 197 tokens, 768 -> 3072 -> 768, erf GELU
#   gpt2_block  GPT-2 small's block: sequence 128, hidden 768, 12 heads
#
# and `func.func(mirage-import),mirage-superoptimize-to-ptx{chip=sm_90
# cache=off}` writes every graph's PTX and manifest. Printed: per layer the
# pipeline's wall time and peak memory (/usr/bin/time -v) and its summary
# remark (the estimate of the references as emitted -> what it emits); then
# per graph written, its kernels, the cost model's sum over them, the sum of
# their copy floors (bytes / copy bandwidth, bench/kernel_audit.py) and the
# micro-tiles of its FMA matmuls (docs/Rationale/FmaMicroTiles.md). A graph
# named *_opt is a winner; the graph it names as reference is written beside
# it, so each winner's row has its baseline from the same run.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$BUILD/f32-layers}
MIRAGE_OPT=${MIRAGE_OPT:-$BUILD/bin/mirage-opt}
rm -rf "$OUT" && mkdir -p "$OUT/layers"

python3 - "$ROOT/bench/corpus" "$OUT/layers" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import gen_linalg as g
out = sys.argv[2]
open(out + "/vit_b_mlp.mlir", "w").write(g.gen_vit_mlp(
    197, 768, 3072, "vit_b_mlp", "// ViT-B/16 MLP half, 197 tokens, f32 (bench/f32_layers.sh)\n"))
open(out + "/gpt2_block.mlir", "w").write(g.gen_gpt2(
    1, 128, 768, 12, "gpt2_block", "// GPT-2 small block, seq 128, hidden 768, 12 heads, f32 (bench/f32_layers.sh)\n"))
EOF

echo "| layer | wall s | peak MB | pipeline summary |"
echo "|---|---|---|---|"
for f in "$OUT"/layers/*.mlir; do
  n=$(basename "$f" .mlir)
  /usr/bin/time -v "$MIRAGE_OPT" "$f" --pass-pipeline="builtin.module(func.func(mirage-import),mirage-superoptimize-to-ptx{chip=sm_90 output-dir=$OUT/$n cache=off progress=false})" \
    -o /dev/null > "$OUT/$n.log" 2>&1 || { echo "| $n | failed (see $OUT/$n.log) | | |"; continue; }
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/$n.log" |
         awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.1f", s }')
  peak=$(awk '/Maximum resident set size/ { printf "%d", $NF / 1024 }' "$OUT/$n.log")
  summary=$(grep -o 'superoptimized [0-9]* graph(s):.*on h100' "$OUT/$n.log" | head -1 || true)
  echo "| $n | $wall | $peak | ${summary:-none} |"
done
echo

for d in "$OUT"/*/; do
  [ "$(basename "$d")" = layers ] && continue
  python3 "$ROOT/bench/kernel_audit.py" --json "$d" > "$d/audit.json"
done
python3 - "$OUT" <<'EOF'
import glob, json, os, sys
out = sys.argv[1]
print("| layer | graph | kernels | model us | copy floor us | model/floor | FMA micro-tiles |")
print("|---|---|---|---|---|---|---|")
for audit_file in sorted(glob.glob(out + "/*/audit.json")):
    layer = os.path.basename(os.path.dirname(audit_file))
    rows = {}
    for k in json.load(open(audit_file))["kernels"]:
        r = rows.setdefault(k["graph"], [0, 0.0, 0.0])
        r[0] += 1
        r[1] += k["model"]["estimate_us"] or 0
        r[2] += k["floor_us"] or 0
    tiles = {}
    for m in glob.glob(os.path.dirname(audit_file) + "/*.manifest.json"):
        d = json.load(open(m))
        tiles[d["graph"]] = ["%dx%d" % tuple(t) for k in d["kernels"]
                             for t in k["plan"].get("fma_micro_tiles", [])]
    for g in sorted(rows):
        n, model, floor = rows[g]
        print("| %s | %s | %d | %.2f | %.2f | %.2f | %s |" % (
            layer, g, n, model, floor, model / floor if floor else float("nan"),
            " ".join(tiles.get(g, [])) or "-"))
EOF

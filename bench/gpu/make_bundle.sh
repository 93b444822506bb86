#!/usr/bin/env bash
# Makes the self-contained GPU benchmark bundle, on the machine with the
# Mirage build (no GPU needed):
#
#   bench/gpu/make_bundle.sh [OUT_DIR=build/gpu-bundle] [CHIP=sm_90]
#
# For each workload of bench/workloads/*.mlir, the mirage-kernels-to-ptx
# pipeline writes G.<chip>.ptx and G.<chip>.manifest.json (and expected
# outputs) per kernel graph G into OUT_DIR/<workload>/; each manifest is then
# validated with `mirage-run --dry-run`. The mirage-run sources (with
# SeededValues.h), run.sh, torch_workloads.py and README.md are copied in, so
# that on the GPU machine `OUT_DIR/run.sh` is the one command to run.
#
# Environment: MIRAGE_OPT (build/bin/mirage-opt), MIRAGE_RUN
# (build/bin/mirage-run, only for validation), MAX_EXPECTED_BYTES (4 MiB:
# larger expected files are dropped, with their manifest entries, to keep
# the bundle small), WORKLOADS (space-separated subset).
# Exit status 1 when any workload failed; the bundle is written regardless.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build/gpu-bundle}
CHIP=${2:-sm_90}
MIRAGE_OPT=${MIRAGE_OPT:-$ROOT/build/bin/mirage-opt}
MIRAGE_RUN=${MIRAGE_RUN:-$ROOT/build/bin/mirage-run}
MAX_EXPECTED_BYTES=${MAX_EXPECTED_BYTES:-4194304}
WORKLOADS=${WORKLOADS:-"rmsnorm_matmul gated_mlp lora gqa qknorm ntrans"}
MAX_BUNDLE_BYTES=$((64 * 1024 * 1024))
MARKER=.mirage-gpu-bundle

log() { echo "make_bundle.sh: $*" >&2; }

[ -x "$MIRAGE_OPT" ] || { log "no mirage-opt at $MIRAGE_OPT (build it, or set MIRAGE_OPT)"; exit 2; }

# Start from an empty directory, but never wipe one this script did not make.
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ] && [ ! -e "$OUT/$MARKER" ]; then
  log "$OUT exists and is not a bundle made by this script; refusing to overwrite it"
  exit 2
fi
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
touch "$OUT/$MARKER"

failed=()
for w in $WORKLOADS; do
  src=$ROOT/bench/workloads/$w.mlir
  dir=$OUT/$w
  mkdir -p "$dir"
  log "$w: mirage-kernels-to-ptx{chip=$CHIP}"
  if ! "$MIRAGE_OPT" "$src" \
       --pass-pipeline="builtin.module(mirage-kernels-to-ptx{chip=$CHIP output-dir=$dir})" \
       -o /dev/null >"$dir/mirage-opt.log" 2>&1; then
    log "$w: mirage-opt failed:"
    sed 's/^/    /' "$dir/mirage-opt.log" | head -n 20 >&2
    failed+=("$w")
    continue
  fi
  rm -f "$dir/mirage-opt.log"

  for g in "${w}_best" "${w}_ref"; do
    if ! ls "$dir/$g".*.manifest.json >/dev/null 2>&1; then
      log "$w: the pipeline wrote no manifest for $g"
      failed+=("$w")
    fi
  done

  # Drop expected files above MAX_EXPECTED_BYTES and their manifest entries
  # (mirage-run refuses a manifest whose expected file is missing).
  for m in "$dir"/*.manifest.json; do
    [ -e "$m" ] || continue
    python3 - "$m" "$MAX_EXPECTED_BYTES" <<'PY'
import json, os, sys
path, limit = sys.argv[1], int(sys.argv[2])
with open(path) as f:
    m = json.load(f)
changed = False
for b in m.get("buffers", []):
    exp = b.get("expected")
    if not exp:
        continue
    file = os.path.join(os.path.dirname(path), exp)
    if os.path.exists(file) and os.path.getsize(file) > limit:
        sys.stderr.write("make_bundle.sh: dropping %s (%d bytes)\n" % (exp, os.path.getsize(file)))
        os.remove(file)
        del b["expected"]
        changed = True
if changed:
    with open(path, "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")
PY
    if [ -x "$MIRAGE_RUN" ]; then
      if ! "$MIRAGE_RUN" "$m" --dry-run >/dev/null 2>"$dir/validate.log"; then
        log "$w: $(basename "$m") is invalid: $(cat "$dir/validate.log")"
        failed+=("$w")
      fi
      rm -f "$dir/validate.log"
    fi
  done
done
[ -x "$MIRAGE_RUN" ] || log "no mirage-run at $MIRAGE_RUN: manifests not validated"

# The runner's sources, self-contained, and the scripts.
mkdir -p "$OUT/mirage-run"
cp "$ROOT"/tools/mirage-run/CMakeLists.txt "$ROOT"/tools/mirage-run/README.md \
   "$ROOT"/tools/mirage-run/*.h "$ROOT"/tools/mirage-run/*.cpp "$OUT/mirage-run/"
cp "$ROOT/include/Mirage/Support/SeededValues.h" "$OUT/mirage-run/"
cp "$ROOT/bench/gpu/run.sh" "$ROOT/bench/gpu/torch_workloads.py" "$ROOT/bench/gpu/README.md" "$OUT/"
chmod +x "$OUT/run.sh"

bytes=$(du -sb "$OUT" | cut -f1)
log "bundle $OUT: $(du -sh "$OUT" | cut -f1) ($bytes bytes), chip $CHIP"
if [ "$bytes" -ge "$MAX_BUNDLE_BYTES" ]; then
  log "the bundle is larger than 64 MiB: lower MAX_EXPECTED_BYTES"
  exit 1
fi
if [ "${#failed[@]}" -gt 0 ]; then
  log "FAILED workloads: $(printf '%s\n' "${failed[@]}" | sort -u | tr '\n' ' ')"
  exit 1
fi
log "on the GPU machine: $OUT/run.sh"

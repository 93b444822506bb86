#!/usr/bin/env bash
# Runs the GPU benchmark from a bundle made by bench/gpu/make_bundle.sh, on a
# machine with an NVIDIA GPU, its driver, a C++17 compiler and (for the
# baselines) PyTorch; no LLVM/MLIR needed.
#
#   run.sh [BUNDLE_DIR]        (default: the directory this script is in)
#
# Builds mirage-run from the bundle's sources, then for each workload: runs
# the fused graph `<w>_best` with `--reference <w>_ref` (checks the outputs
# against the unfused graph and the host evaluator's expected values, then
# times it), times the unfused graph alone, and times PyTorch eager and
# torch.compile on the same shapes. Prints one markdown table. A workload
# that fails shows FAILED in its row and the rest still run; the exit status
# is 1 when any fused workload failed.
#
# Environment: WARMUP (10), ITERS (100), MIRAGE_RUN_FLAGS (extra flags, e.g.
# --no-flush-l2), TORCH_FLAGS (extra torch_workloads.py flags, e.g.
# --no-compile), WORKLOADS (space-separated subset), RESULTS_DIR.
set -euo pipefail

BUNDLE=$(cd "${1:-$(dirname "$0")}" && pwd)
WARMUP=${WARMUP:-10}
ITERS=${ITERS:-100}
WORKLOADS=${WORKLOADS:-"rmsnorm_matmul gated_mlp lora gqa qknorm ntrans"}
RESULTS=${RESULTS_DIR:-$BUNDLE/results}
BUILD=$BUNDLE/.build
read -r -a RUN_FLAGS <<< "${MIRAGE_RUN_FLAGS:-}"
read -r -a TORCH_EXTRA <<< "${TORCH_FLAGS:-}"

log() { echo "run.sh: $*" >&2; }

# --- 1. Build mirage-run: CMake when there is one, else one g++ line. -------
mkdir -p "$BUILD" "$RESULTS"
RUN=$BUILD/mirage-run
build_ok=0
if command -v cmake >/dev/null 2>&1; then
  if cmake -S "$BUNDLE/mirage-run" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
       >"$BUILD/cmake.log" 2>&1 &&
     cmake --build "$BUILD" -j "$(nproc 2>/dev/null || echo 4)" >>"$BUILD/cmake.log" 2>&1; then
    build_ok=1
  else
    log "cmake build failed (see $BUILD/cmake.log); trying g++ directly"
  fi
fi
if [ "$build_ok" = 0 ]; then
  CXX=${CXX:-g++}
  "$CXX" -O2 -std=c++17 -I"$BUNDLE/mirage-run" "$BUNDLE"/mirage-run/*.cpp -ldl -o "$RUN"
fi
"$RUN" --self-test >&2

# --- 2. Per workload: fused (+check), unfused, PyTorch. ----------------------
have_torch=1
if ! command -v python3 >/dev/null 2>&1; then
  log "no python3: PyTorch columns and the table are skipped"
  have_torch=0
fi

for w in $WORKLOADS; do
  dir=$BUNDLE/$w
  best=$(ls "$dir"/"${w}"_best.*.manifest.json 2>/dev/null | head -n 1 || true)
  ref=$(ls "$dir"/"${w}"_ref.*.manifest.json 2>/dev/null | head -n 1 || true)
  rm -f "$RESULTS/$w".*
  if [ -z "$best" ] || [ -z "$ref" ]; then
    log "$w: no ${w}_best / ${w}_ref manifest in $dir"
    echo "missing manifest in $dir" > "$RESULTS/$w.fused.log"
    continue
  fi
  log "$w: fused $(basename "$best") vs $(basename "$ref")"
  rc=0
  "$RUN" "$best" --reference "$ref" --json --warmup "$WARMUP" --iters "$ITERS" \
    ${RUN_FLAGS[@]+"${RUN_FLAGS[@]}"} >"$RESULTS/$w.fused.json" 2>"$RESULTS/$w.fused.log" || rc=$?
  [ "$rc" = 0 ] || log "$w: fused run exited $rc: $(grep -m1 -E 'FAILED|mirage-run:' "$RESULTS/$w.fused.log" || true)"

  log "$w: unfused $(basename "$ref")"
  rc=0
  "$RUN" "$ref" --json --warmup "$WARMUP" --iters "$ITERS" ${RUN_FLAGS[@]+"${RUN_FLAGS[@]}"} \
    >"$RESULTS/$w.unfused.json" 2>"$RESULTS/$w.unfused.log" || rc=$?
  [ "$rc" = 0 ] || log "$w: unfused run exited $rc"

  if [ "$have_torch" = 1 ]; then
    log "$w: PyTorch eager and torch.compile"
    rc=0
    python3 "$BUNDLE/torch_workloads.py" --manifest "$ref" --warmup "$WARMUP" \
      --iters "$ITERS" ${TORCH_EXTRA[@]+"${TORCH_EXTRA[@]}"} \
      >"$RESULTS/$w.torch.json" 2>"$RESULTS/$w.torch.log" || rc=$?
    [ "$rc" = 0 ] || log "$w: torch_workloads.py exited $rc (see $RESULTS/$w.torch.log)"
  fi
done

# --- 3. The table. -----------------------------------------------------------
if [ "$have_torch" = 0 ]; then
  cat "$RESULTS"/*.json
  exit 0
fi
python3 - "$RESULTS" $WORKLOADS <<'PY'
import json, os, sys

results, workloads = sys.argv[1], sys.argv[2:]

def load(w, kind):
    """The last JSON line of results/<w>.<kind>.json, or None."""
    try:
        with open(os.path.join(results, "%s.%s.json" % (w, kind))) as f:
            lines = [l for l in f.read().splitlines() if l.strip().startswith("{")]
        return json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        return None

def first_error(w, kind):
    try:
        with open(os.path.join(results, "%s.%s.log" % (w, kind))) as f:
            for line in f:
                if "FAILED" in line or line.startswith("mirage-run:") or "missing" in line:
                    return line.strip()
    except OSError:
        pass
    return None

def us(v):
    return "%.1f" % v if isinstance(v, (int, float)) else "n/a"

rows, notes, device, copy, failed = [], [], None, None, False
for w in workloads:
    fused, unfused, tch = load(w, "fused"), load(w, "unfused"), load(w, "torch")
    ok = bool(fused and fused.get("ok") and "median_us" in fused)
    for r in (fused, unfused):  # device and copy bandwidth from any run
        if r:
            device = device or r.get("device")
            copy = copy or r.get("copy_gbps")
    eager = tch.get("eager_us") if tch else None
    compiled = tch.get("compile_us") if tch else None
    row = [w,
           us(fused["median_us"]) if ok else "FAILED",
           us(unfused.get("median_us")) if unfused and unfused.get("ok") else "FAILED",
           us(eager) if eager is not None else ("FAILED" if tch else "n/a"),
           us(compiled) if compiled is not None else ("FAILED" if tch and "compile_error" in tch else "n/a"),
           "%.0f" % fused["gbps"] if ok else "",
           "%.1f %%" % fused["copy_pct"] if ok else "",
           "%.2fx" % (eager / fused["median_us"]) if ok and eager else ""]
    rows.append(row)
    failed |= not ok
    if not ok:
        notes.append("%s fused: %s" % (w, first_error(w, "fused") or "no result"))
    if not (unfused and unfused.get("ok")):
        notes.append("%s unfused: %s" % (w, first_error(w, "unfused") or "no result"))
    if tch and "error" in tch:
        notes.append("%s torch: %s" % (w, tch["error"]))
    elif tch is None and os.path.exists(os.path.join(results, w + ".torch.log")):
        notes.append("%s torch: no result, see %s" % (w, os.path.join(results, w + ".torch.log")))
    if tch and "compile_error" in tch:
        notes.append("%s torch.compile: %s" % (w, tch["compile_error"]))

header = ["workload", "fused µs", "unfused µs", "torch eager µs", "torch.compile µs",
          "fused GB/s", "% of copy BW", "fused vs eager"]
print()
print("device: %s; copy bandwidth %s GB/s (cuMemcpyDtoD, read+write)" %
      (device or "?", "%.0f" % copy if copy else "?"))
print()
print("| " + " | ".join(header) + " |")
print("|" + "|".join("---" for _ in header) + "|")
for r in rows:
    print("| " + " | ".join(r) + " |")
if notes:
    print()
    for n in notes:
        print("* " + n)
# Nonzero when a fused workload failed (its check, or no result at all).
sys.exit(1 if failed else 0)
PY

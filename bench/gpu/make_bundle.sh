#!/usr/bin/env bash
# Makes the self-contained GPU benchmark bundle, on the machine with the
# Mirage build (no GPU needed):
#
#   bench/gpu/make_bundle.sh [OUT_DIR=build/gpu-bundle] [CHIP=sm_90]
#
# For each workload <w> of bench/workloads/*.mlir, two sets of kernel graphs:
#
#  * hand-written, in OUT_DIR/<w>/: the mirage-kernels-to-ptx pipeline on the
#    workload file writes G.<chip>.ptx and G.<chip>.manifest.json (and
#    expected outputs) for every kernel graph G of it: the unfused reference
#    <w>_ref and the paper's best μGraphs (<w>_best, ...);
#  * searched, in OUT_DIR/<w>/searched/: the reference graph <w>_ref alone
#    (as bench/search_workloads.sh superoptimizes it) is copied into a module
#    of its own, and mirage-superoptimize-to-ptx{chip=CHIP cache=off} searches
#    it and writes the PTX and manifests of the winner (<w>_ref_opt, whose
#    manifest names "reference": "<w>_ref") and of the reference beside it,
#    with the search report (search-report.json) and the winner's IR
#    (searched.mlir). A subdirectory, so the names never meet the
#    hand-written graphs'.
#
# Then the decode layers of bench/models (MODELS), in OUT_DIR/models/<m>/:
# mirage-superoptimize-to-ptx{chip=CHIP cache=off} on the layer's file
# writes the imported graph (graph0, the unfused reference) and the winner
# (graph0_opt); where the winner runs a split pair in one launch (a tail
# combine, TailCombine.md), the same winner again with tail-combine=false
# in OUT_DIR/models/<m>/notail/, so the GPU shows what the tail saves
# against a dependent launch. A `torch` file names the torch_workloads.py
# function of the layer, where it has one.
#
# Then the calibration probes (PROBES=1; docs/Rationale/CalibrationProbes.md),
# in OUT_DIR/probes/: bench/gpu/make_probes.py writes them as kernel graphs
# and mirage-kernels-to-ptx{chip=CHIP} lowers them.
#
# Every manifest is then validated with `mirage-run --dry-run` (which refuses
# kernels that cannot launch on the chip), and every graph that names a
# reference is validated again as the pair run.sh runs (`--reference`). The
# mirage-run sources (with SeededValues.h), run.sh, torch_workloads.py and
# README.md are copied in, so that on the GPU machine `OUT_DIR/run.sh` is the
# one command to run.
#
# Environment: MIRAGE_OPT (build/bin/mirage-opt), MIRAGE_RUN
# (build/bin/mirage-run, only for validation), MAX_EXPECTED_BYTES (4 MiB:
# larger expected files are dropped, with their manifest entries, to keep
# the bundle small), WORKLOADS (space-separated subset), WORKLOADS_DIR
# (bench/workloads), SEARCH (1; 0 packs the hand-written graphs only),
# SEARCH_BUDGET (60: search seconds per workload), SEARCH_OPTIONS (more
# mirage-superoptimize-to-ptx options, e.g. "threads=2"), MODELS
# (space-separated LAYER[:TORCH] entries, LAYER a path under bench/models
# without .mlir, TORCH its torch_workloads.py function; empty: none), PROBES
# (1; 0: no probes), PROBE_OPTIONS (make_probes.py options, e.g.
# "--block-kib 16" for a small bundle).
# Exit status 1 when any workload failed (listed at the end as <w> or
# <w>/searched); the bundle is written regardless.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build/gpu-bundle}
CHIP=${2:-sm_90}
MIRAGE_OPT=${MIRAGE_OPT:-$ROOT/build/bin/mirage-opt}
MIRAGE_RUN=${MIRAGE_RUN:-$ROOT/build/bin/mirage-run}
MAX_EXPECTED_BYTES=${MAX_EXPECTED_BYTES:-4194304}
WORKLOADS=${WORKLOADS:-"rmsnorm_matmul gated_mlp lora gqa qknorm ntrans"}
WORKLOADS_DIR=${WORKLOADS_DIR:-$ROOT/bench/workloads}
SEARCH=${SEARCH:-1}
SEARCH_BUDGET=${SEARCH_BUDGET:-60}
SEARCH_OPTIONS=${SEARCH_OPTIONS:-}
MODELS=${MODELS-"attention/llama3_8b_gqa_decode:decode_attention attention/llama3_8b_gqa_decode_kcache:decode_attention_kcache attention/mistral_7b_gqa_decode:decode_attention attention/qwen2_5_7b_gqa_decode:decode_attention attention/qwen3_8b_qknorm_decode attention/llama3_8b_gqa_decode_masked qwen2_5_7b_gated_mlp:gated_mlp qwen2_5_7b_gated_mlp_linear:gated_mlp_linear vit_b_fc1_f32:linear_bias"}
PROBES=${PROBES:-1}
PROBE_OPTIONS=${PROBE_OPTIONS:-}
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

# Runs mirage-opt with a log in DIR; on failure shows the log and returns 1.
# Usage: run_opt LABEL DIR ARGS...
run_opt() {
  local label=$1 dir=$2
  shift 2
  if ! "$MIRAGE_OPT" "$@" >"$dir/mirage-opt.log" 2>&1; then
    log "$label: mirage-opt failed:"
    sed 's/^/    /' "$dir/mirage-opt.log" | head -n 20 >&2
    return 1
  fi
  rm -f "$dir/mirage-opt.log"
}

# mirage-superoptimize-to-ptx on INPUT: PTX, manifests and the search
# report in DIR, the winner's IR in DIR/searched.mlir.
# Usage: search_to_ptx LABEL DIR INPUT
search_to_ptx() {
  run_opt "$1" "$2" "$3" -o "$2/searched.mlir" \
    --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{chip=$CHIP output-dir=$2 cache=off time-budget=$SEARCH_BUDGET progress=false report=$2/search-report.json $SEARCH_OPTIONS})"
}

# Prints the module that holds kernel graph NAME of FILE alone: the graph op
# (up to the brace that closes its region) in a function with the arguments
# of FILE's function, returning the graph's result.
extract_graph() { # FILE NAME
  python3 - "$1" "$2" <<'PY'
import re, sys
src, name = sys.argv[1], sys.argv[2]
text = open(src).read()
fn = re.search(r'func\.func\s+@[\w.$-]+\s*\(([^)]*)\)', text)
g = re.search(r'^[ \t]*(%[\w.$-]+)\s*=\s*mirage_kernel\.graph\s+"' + re.escape(name) + r'"\s', text, re.M)
if not fn or not g:
    sys.exit("no function or no kernel graph \"%s\" in %s" % (name, src))
start = text.index("{", g.end())
depth = 0
for end in range(start, len(text)):
    depth += {"{": 1, "}": -1}.get(text[end], 0)
    if depth == 0:
        break
result_type = text[g.start():start].rsplit("->", 1)[1].strip()
print("// %s of %s, alone (bench/gpu/make_bundle.sh)" % (name, src))
print("func.func @%s(%s) -> %s {" % (name, fn.group(1), result_type))
print(text[g.start():end + 1])
print("  return %s : %s" % (g.group(1), result_type))
print("}")
PY
}

# Shrinks and validates every manifest in DIR; a problem fails LABEL.
# Usage: check_manifests LABEL DIR
check_manifests() {
  local label=$1 dir=$2 m ref refm bad=0
  for m in "$dir"/*.manifest.json; do
    [ -e "$m" ] || continue
    # Drop expected files above MAX_EXPECTED_BYTES and their manifest entries
    # (mirage-run refuses a manifest whose expected file is missing); print
    # the graph's reference, if it names one.
    ref=$(python3 - "$m" "$MAX_EXPECTED_BYTES" <<'PY'
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
print(m.get("reference", ""))
PY
) || { log "$label: $(basename "$m") is not a readable manifest"; bad=1; continue; }
    [ -x "$MIRAGE_RUN" ] || continue
    if ! "$MIRAGE_RUN" "$m" --dry-run >/dev/null 2>"$dir/validate.log"; then
      log "$label: $(basename "$m") is invalid: $(cat "$dir/validate.log")"
      bad=1
    elif [ -n "$ref" ]; then
      # The pair as run.sh runs it: the reference's manifest beside it.
      refm=$(ls "$dir/$ref".*.manifest.json 2>/dev/null | head -n 1 || true)
      if [ -z "$refm" ]; then
        log "$label: $(basename "$m") names reference $ref, which has no manifest in $dir"
        bad=1
      elif ! "$MIRAGE_RUN" "$m" --reference "$refm" --dry-run >/dev/null 2>"$dir/validate.log"; then
        log "$label: $(basename "$m") --reference $(basename "$refm") is invalid: $(cat "$dir/validate.log")"
        bad=1
      fi
    fi
    rm -f "$dir/validate.log"
  done
  [ "$bad" = 0 ] || failed+=("$label")
}

for w in $WORKLOADS; do
  src=$WORKLOADS_DIR/$w.mlir
  dir=$OUT/$w
  mkdir -p "$dir"

  # Hand-written: every graph of the workload file.
  log "$w: mirage-kernels-to-ptx{chip=$CHIP}"
  if run_opt "$w" "$dir" "$src" -o /dev/null \
       --pass-pipeline="builtin.module(mirage-kernels-to-ptx{chip=$CHIP output-dir=$dir})"; then
    for g in "${w}_best" "${w}_ref"; do
      if ! ls "$dir/$g".*.manifest.json >/dev/null 2>&1; then
        log "$w: the pipeline wrote no manifest for $g"
        failed+=("$w")
      fi
    done
    check_manifests "$w" "$dir"
  else
    failed+=("$w")
  fi

  # Searched: the superoptimizer's winner for the reference graph alone.
  [ "$SEARCH" = 1 ] || continue
  sdir=$dir/searched
  mkdir -p "$sdir"
  if ! extract_graph "$src" "${w}_ref" >"$sdir/input.mlir" 2>"$sdir/extract.log"; then
    log "$w/searched: $(cat "$sdir/extract.log")"
    failed+=("$w/searched")
    continue
  fi
  rm -f "$sdir/extract.log"
  log "$w/searched: mirage-superoptimize-to-ptx{chip=$CHIP time-budget=$SEARCH_BUDGET} on ${w}_ref"
  if ! search_to_ptx "$w/searched" "$sdir" "$sdir/input.mlir"; then
    failed+=("$w/searched")
    continue
  fi
  rm -f "$sdir/input.mlir"
  if ! ls "$sdir/${w}_ref".*.manifest.json >/dev/null 2>&1; then
    log "$w/searched: the pipeline wrote no manifest for ${w}_ref"
    failed+=("$w/searched")
  fi
  winners=
  for m in "$sdir"/*.manifest.json; do
    [ -e "$m" ] || continue
    case "${m##*/}" in
      "${w}_ref".*.manifest.json) ;;
      *) m=${m##*/}; winners="$winners ${m%.*.manifest.json}" ;;
    esac
  done
  if [ -z "$winners" ]; then
    # Not a failure: nothing cheaper than the reference was found.
    log "$w/searched: the search kept ${w}_ref (no cheaper graph); run.sh shows no searched row"
  else
    log "$w/searched: winner${winners}"
  fi
  check_manifests "$w/searched" "$sdir"
done

# The bench/models decode layers: winner, reference and, where the winner
# has a tail combine, the winner without it.
for entry in $MODELS; do
  layer=${entry%%:*}
  torch=
  [ "$entry" = "$layer" ] || torch=${entry#*:}
  m=$(basename "$layer")
  dir=$OUT/models/$m
  mkdir -p "$dir"
  log "models/$m: mirage-superoptimize-to-ptx{chip=$CHIP time-budget=$SEARCH_BUDGET}"
  if ! search_to_ptx "models/$m" "$dir" "$ROOT/bench/models/$layer.mlir"; then
    failed+=("models/$m")
    continue
  fi
  [ -z "$torch" ] || echo "$torch" >"$dir/torch"
  check_manifests "models/$m" "$dir"
  win=$(ls "$dir"/graph0_opt.*.manifest.json 2>/dev/null | head -n 1 || true)
  if [ -n "$win" ] && python3 - "$win" <<'PY'
import json, sys
# Exit 0 when a kernel of the winner runs a tail combine.
for path in sys.argv[1:]:
    with open(path) as f:
        if any(k.get("plan", {}).get("tail_us", 0) > 0 for k in json.load(f)["kernels"]):
            sys.exit(0)
sys.exit(1)
PY
  then
    mkdir -p "$dir/notail"
    if run_opt "models/$m/notail" "$dir/notail" "$dir/searched.mlir" -o /dev/null \
         --pass-pipeline="builtin.module(mirage-kernels-to-ptx{chip=$CHIP output-dir=$dir/notail tail-combine=false})"; then
      check_manifests "models/$m/notail" "$dir/notail"
    else
      failed+=("models/$m/notail")
    fi
  fi
done

# The calibration probes: one term of the cost model each. Without tails
# (TailCombine.md): a launch chain or an L2 writer and its reader fused into
# one launch would no longer measure the launch or the L2 term.
if [ "$PROBES" != 0 ]; then
  dir=$OUT/probes
  mkdir -p "$dir"
  log "probes: make_probes.py${PROBE_OPTIONS:+ $PROBE_OPTIONS}, mirage-kernels-to-ptx{chip=$CHIP tail-combine=false}"
  # shellcheck disable=SC2086 # PROBE_OPTIONS holds several options
  if python3 "$ROOT/bench/gpu/make_probes.py" "$dir/probes.mlir" $PROBE_OPTIONS 2>"$dir/make_probes.log" &&
     run_opt probes "$dir" "$dir/probes.mlir" -o /dev/null \
       --pass-pipeline="builtin.module(mirage-kernels-to-ptx{chip=$CHIP output-dir=$dir tail-combine=false})"; then
    rm -f "$dir/make_probes.log"
    check_manifests probes "$dir"
  else
    [ ! -s "$dir/make_probes.log" ] || sed 's/^/    /' "$dir/make_probes.log" >&2
    failed+=(probes)
  fi
fi
[ -x "$MIRAGE_RUN" ] || log "no mirage-run at $MIRAGE_RUN: manifests not validated"

# The runner's sources, self-contained, and the scripts.
mkdir -p "$OUT/mirage-run"
cp "$ROOT"/tools/mirage-run/CMakeLists.txt "$ROOT"/tools/mirage-run/README.md \
   "$ROOT"/tools/mirage-run/*.h "$ROOT"/tools/mirage-run/*.cpp "$OUT/mirage-run/"
cp "$ROOT/include/Mirage/Support/SeededValues.h" "$OUT/mirage-run/"
cp "$ROOT/bench/gpu/run.sh" "$ROOT/bench/gpu/torch_workloads.py" "$ROOT/bench/gpu/calibrate.py" "$ROOT/bench/gpu/table.py" \
   "$ROOT/bench/gpu/calibrate_probes.py" \
   "$ROOT/bench/gpu/README.md" "$OUT/"
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

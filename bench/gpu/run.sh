#!/usr/bin/env bash
# Runs the GPU benchmark from a bundle made by bench/gpu/make_bundle.sh, on a
# machine with an NVIDIA GPU, its driver, a C++17 compiler and (for the
# baselines) PyTorch; no LLVM/MLIR needed.
#
#   run.sh [BUNDLE_DIR]        (default: the directory this script is in)
#
# Builds mirage-run from the bundle's sources, then for each workload <w>
# runs two fused graphs, each with `--reference` (checks the outputs against
# the unfused graph and the host evaluator's expected values, then times
# it): the hand-written `<w>/<w>_best` against `<w>/<w>_ref`, and the
# superoptimizer's searched winner `<w>/searched/<w>_ref_opt` against the
# reference written beside it, `<w>/searched/<w>_ref`. It times the unfused
# graph `<w>_ref` alone, and PyTorch eager and torch.compile on the same
# shapes. Then the bench/models decode layers the bundle holds (models/<m>):
# the searched winner graph0_opt against the imported graph0, graph0 alone,
# PyTorch where the layer names a torch_workloads.py function, and the
# winner without its tail combine (models/<m>/notail) where it has one.
# Every mirage-run also times each kernel alone (--per-kernel; PER_KERNEL=0
# turns it off), and calibrate.py refits the cost model to all of it. Then
# the calibration probes (probes/, docs/Rationale/CalibrationProbes.md),
# each alone into results/probes/ (the launch probes also without dependent
# launch), which calibrate.py reads apart from the rest.
# Prints one markdown table, a row per fused graph, labelled
# hand-written or searched, then the refit. A graph that fails shows FAILED in its row and
# the rest still run; the exit status is 1 when any fused graph failed (a
# workload whose search kept the reference, or a bundle made with SEARCH=0,
# has no searched graph: its row says so, and that is no failure).
#
# DRY_RUN=1 needs no GPU: it builds mirage-run, runs its self-test and runs
# every mirage-run command above with --dry-run (the manifests, the pairs and
# whether every kernel can launch on the chip), prints what the table's rows
# would be, and exits 1 when any dry run failed.
#
# Environment: WARMUP (10), ITERS (100), MIRAGE_RUN_FLAGS (extra flags, e.g.
# --no-flush-l2), TORCH_FLAGS (extra torch_workloads.py flags, e.g.
# --no-compile), WORKLOADS (space-separated subset), MODELS (space-separated
# subset of the bundle's models/, default all; empty: none), TORCH (1: time
# PyTorch; 0: skip it, the table's PyTorch columns say n/a), PROBES (1: run
# the bundle's probes/, if any; 0: skip them), PER_KERNEL (1),
# RESULTS_DIR, DRY_RUN, MIRAGE_RUN (a mirage-run already built: no build),
# RUN_TIMEOUT (seconds one mirage-run or PyTorch command may take, 180: a
# kernel that hangs, a barrier some threads never reach or a tail combine
# whose counter never completes, costs its row, not the device's budget;
# 0: no limit).
set -euo pipefail

BUNDLE=$(cd "${1:-$(dirname "$0")}" && pwd)
WARMUP=${WARMUP:-10}
ITERS=${ITERS:-100}
WORKLOADS=${WORKLOADS:-"rmsnorm_matmul gated_mlp lora gqa qknorm ntrans"}
RESULTS=${RESULTS_DIR:-$BUNDLE/results}
ALL_MODELS=$(cd "$BUNDLE" && ls -d models/*/ 2>/dev/null | sed 's|^models/||; s|/$||' | tr '\n' ' ' || true)
MODELS=${MODELS-$ALL_MODELS}
PER_KERNEL=${PER_KERNEL:-1}
PROBES=${PROBES:-1}
PROBE_MANIFESTS=$( [ "$PROBES" = 0 ] || ls "$BUNDLE"/probes/*.manifest.json 2>/dev/null || true)
DRY_RUN=${DRY_RUN:-0}
TORCH=${TORCH:-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-180}
BUILD=$BUNDLE/.build
read -r -a RUN_FLAGS <<< "${MIRAGE_RUN_FLAGS:-}"
[ "$PER_KERNEL" = 0 ] || RUN_FLAGS+=(--per-kernel)
read -r -a TORCH_EXTRA <<< "${TORCH_FLAGS:-}"

log() { echo "run.sh: $*" >&2; }

# Runs a command under RUN_TIMEOUT (coreutils timeout, where there is one):
# exit status 124 when the limit killed it.
limited() {
  if [ "$RUN_TIMEOUT" != 0 ] && command -v timeout >/dev/null 2>&1; then
    timeout --signal=KILL "$RUN_TIMEOUT" "$@" || { local rc=$?; [ "$rc" = 137 ] && rc=124; return "$rc"; }
  else
    "$@"
  fi
}

# The log line for a run that exited RC.
exit_note() { # RC
  if [ "$1" = 124 ]; then echo "timed out after ${RUN_TIMEOUT} s (RUN_TIMEOUT): a kernel that never finishes?"; else echo "exited $1"; fi
}

# --- 1. Build mirage-run: CMake when there is one, else one g++ line. -------
mkdir -p "$BUILD" "$RESULTS"
RUN=$BUILD/mirage-run
build_ok=0
if [ -n "${MIRAGE_RUN:-}" ]; then
  RUN=$(command -v "$MIRAGE_RUN" || echo "$MIRAGE_RUN")
  build_ok=1
elif command -v cmake >/dev/null 2>&1; then
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

# The first manifest of graph G in DIR, or nothing.
manifest() { ls "$1/$2".*.manifest.json 2>/dev/null | head -n 1 || true; }

# The searched winner in DIR (<w>/searched): its one manifest that is not the
# reference's, or nothing.
searched_winner() { # DIR W
  local m
  for m in "$1"/*.manifest.json; do
    [ -e "$m" ] || continue
    case "${m##*/}" in
      "$2_ref".*.manifest.json) ;;
      *) echo "$m"; return ;;
    esac
  done
}

# Runs fused graph CAND with --reference REF into results/<w>.<kind>.*.
fused_run() { # W KIND CAND REF
  local w=$1 kind=$2 cand=$3 ref=$4 rc=0
  log "$w: $kind $(basename "$cand") vs $(basename "$ref")"
  limited "$RUN" "$cand" --reference "$ref" --json --warmup "$WARMUP" --iters "$ITERS" \
    ${RUN_FLAGS[@]+"${RUN_FLAGS[@]}"} >"$RESULTS/$w.$kind.json" 2>"$RESULTS/$w.$kind.log" || rc=$?
  [ "$rc" = 124 ] && echo "mirage-run: $(exit_note 124)" >>"$RESULTS/$w.$kind.log"
  [ "$rc" = 0 ] || log "$w: $kind run $(exit_note "$rc"): $(grep -m1 -E 'FAILED|mirage-run:' "$RESULTS/$w.$kind.log" || true)"
}

# Times graph REF alone into results/<w>.unfused.*.
unfused_run() { # W REF
  local w=$1 ref=$2 rc=0
  log "$w: unfused $(basename "$ref")"
  limited "$RUN" "$ref" --json --warmup "$WARMUP" --iters "$ITERS" ${RUN_FLAGS[@]+"${RUN_FLAGS[@]}"} \
    >"$RESULTS/$w.unfused.json" 2>"$RESULTS/$w.unfused.log" || rc=$?
  [ "$rc" = 124 ] && echo "mirage-run: $(exit_note 124)" >>"$RESULTS/$w.unfused.log"
  [ "$rc" = 0 ] || log "$w: unfused run $(exit_note "$rc")"
}

# PyTorch eager and torch.compile on REF's shapes into results/<w>.torch.*;
# AS names the torch_workloads.py function when REF's graph is no workload's.
torch_run() { # W REF [AS]
  local w=$1 ref=$2 as=${3:-} rc=0
  [ "$TORCH" = 1 ] || return 0
  log "$w: PyTorch eager and torch.compile${as:+ ($as)}"
  limited python3 "$BUNDLE/torch_workloads.py" --manifest "$ref" ${as:+--as "$as"} \
    --warmup "$WARMUP" --iters "$ITERS" ${TORCH_EXTRA[@]+"${TORCH_EXTRA[@]}"} \
    >"$RESULTS/$w.torch.json" 2>"$RESULTS/$w.torch.log" || rc=$?
  [ "$rc" = 0 ] || log "$w: torch_workloads.py $(exit_note "$rc") (see $RESULTS/$w.torch.log)"
}

# --- DRY_RUN=1: every mirage-run command with --dry-run, no GPU. ------------
if [ "$DRY_RUN" = 1 ]; then
  bad=0
  dry() { # W LABEL MANIFEST [REF]
    local w=$1 label=$2 m=$3 ref=${4:-}
    if "$RUN" "$m" ${ref:+--reference "$ref"} --dry-run >"$RESULTS/$w.$label.dry.log" 2>&1; then
      echo "| $w | $label | ${m#"$BUNDLE"/} | ${ref:+${ref#"$BUNDLE"/}} | ok |"
    else
      echo "| $w | $label | ${m#"$BUNDLE"/} | ${ref:+${ref#"$BUNDLE"/}} | FAILED: $(grep -m1 'mirage-run:' "$RESULTS/$w.$label.dry.log" || echo "see $RESULTS/$w.$label.dry.log") |"
      bad=1
    fi
  }
  echo "| workload | row | manifest | reference | dry run |"
  echo "|---|---|---|---|---|"
  for w in $WORKLOADS; do
    dir=$BUNDLE/$w
    best=$(manifest "$dir" "${w}_best")
    ref=$(manifest "$dir" "${w}_ref")
    if [ -z "$best" ] || [ -z "$ref" ]; then
      echo "| $w | hand-written | missing ${w}_best / ${w}_ref manifest in $dir | | FAILED |"
      bad=1
    else
      dry "$w" hand-written "$best" "$ref"
      dry "$w" unfused "$ref"
    fi
    sdir=$dir/searched
    win=$(searched_winner "$sdir" "$w")
    sref=$(manifest "$sdir" "${w}_ref")
    if [ ! -d "$sdir" ]; then
      echo "| $w | searched | no $w/searched in the bundle (made with SEARCH=0) | | - |"
    elif [ -z "$win" ]; then
      echo "| $w | searched | no winner: the search kept ${w}_ref | | - |"
    elif [ -z "$sref" ]; then
      echo "| $w | searched | ${win#"$BUNDLE"/} | missing ${w}_ref manifest in $sdir | FAILED |"
      bad=1
    else
      dry "$w" searched "$win" "$sref"
    fi
  done
  for m in $MODELS; do
    dir=$BUNDLE/models/$m
    win=$(manifest "$dir" graph0_opt)
    ref=$(manifest "$dir" graph0)
    if [ -z "$ref" ]; then
      echo "| models/$m | unfused | missing graph0 manifest in $dir | | FAILED |"
      bad=1
      continue
    fi
    dry "models.$m" unfused "$ref"
    if [ -z "$win" ]; then
      echo "| models/$m | searched | no winner: the search kept graph0 | | - |"
    else
      dry "models.$m" searched "$win" "$ref"
    fi
    nwin=$(manifest "$dir/notail" graph0_opt)
    nref=$(manifest "$dir/notail" graph0)
    [ -z "$nwin" ] || [ -z "$nref" ] || dry "models.$m" notail "$nwin" "$nref"
  done
  mkdir -p "$RESULTS/probes"
  for m in $PROBE_MANIFESTS; do
    p=$(basename "$m"); dry "probes/${p%%.*}" probe "$m"
  done
  exit "$bad"
fi

# --- 2. Per workload: fused (+check), unfused, PyTorch. ----------------------
have_torch=1
if [ "$TORCH" = 0 ]; then
  log "TORCH=0: PyTorch is not timed"
fi
if ! command -v python3 >/dev/null 2>&1; then
  log "no python3: PyTorch columns and the table are skipped"
  have_torch=0
fi

for w in $WORKLOADS; do
  dir=$BUNDLE/$w
  sdir=$dir/searched
  best=$(manifest "$dir" "${w}_best")
  ref=$(manifest "$dir" "${w}_ref")
  rm -f "$RESULTS/$w".*

  # The hand-written best, the unfused reference alone, PyTorch.
  if [ -z "$best" ] || [ -z "$ref" ]; then
    log "$w: no ${w}_best / ${w}_ref manifest in $dir"
    echo "missing manifest in $dir" > "$RESULTS/$w.fused.log"
  else
    fused_run "$w" fused "$best" "$ref"
    unfused_run "$w" "$ref"
    [ "$have_torch" = 0 ] || torch_run "$w" "$ref"
  fi

  # The searched winner, against the reference the search wrote beside it.
  win=$(searched_winner "$sdir" "$w")
  sref=$(manifest "$sdir" "${w}_ref")
  if [ ! -d "$sdir" ]; then
    echo "no $w/searched in the bundle (made with SEARCH=0)" > "$RESULTS/$w.searched.none"
  elif [ -z "$win" ]; then
    echo "no winner: the search kept ${w}_ref" > "$RESULTS/$w.searched.none"
  elif [ -z "$sref" ]; then
    log "$w: no ${w}_ref manifest in $sdir"
    echo "missing ${w}_ref manifest in $sdir" > "$RESULTS/$w.searched.log"
  else
    fused_run "$w" searched "$win" "$sref"
  fi
done

# --- 3. The bench/models layers: winner, unfused, PyTorch, without the tail. --
for m in $MODELS; do
  w=models.$m
  dir=$BUNDLE/models/$m
  win=$(manifest "$dir" graph0_opt)
  ref=$(manifest "$dir" graph0)
  rm -f "$RESULTS/$w".*
  if [ -z "$ref" ]; then
    log "$w: no graph0 manifest in $dir"
    echo "missing graph0 manifest in $dir" > "$RESULTS/$w.unfused.log"
    continue
  fi
  if [ -z "$win" ]; then
    echo "no winner: the search kept graph0" > "$RESULTS/$w.searched.none"
  else
    fused_run "$w" searched "$win" "$ref"
  fi
  unfused_run "$w" "$ref"
  if [ "$have_torch" = 1 ] && [ -f "$dir/torch" ]; then
    torch_run "$w" "$ref" "$(cat "$dir/torch")"
  fi
  nwin=$(manifest "$dir/notail" graph0_opt)
  nref=$(manifest "$dir/notail" graph0)
  if [ -n "$nwin" ] && [ -n "$nref" ]; then
    fused_run "$w" notail "$nwin" "$nref"
  fi
done

# --- 4. The calibration probes, each alone (CalibrationProbes.md). ----------
# A probe's failure costs its row of calibrate.py's probe section, not the
# run's status: the probes measure the machine, the table above the kernels.
if [ -n "$PROBE_MANIFESTS" ]; then
  mkdir -p "$RESULTS/probes"
  rm -f "$RESULTS/probes"/*
  # One run of probe MANIFEST into results/probes/NAME.{json,log}.
  probe_run() { # MANIFEST NAME [MIRAGE-RUN FLAGS...]
    local m=$1 name=$2 rc=0
    shift 2
    limited "$RUN" "$m" --json --per-kernel --warmup "$WARMUP" --iters "$ITERS" "$@" \
      ${RUN_FLAGS[@]+"${RUN_FLAGS[@]}"} >"$RESULTS/probes/$name.json" \
      2>"$RESULTS/probes/$name.log" || rc=$?
    [ "$rc" = 0 ] || log "probes: $name $(exit_note "$rc")"
  }
  for m in $PROBE_MANIFESTS; do
    p=$(basename "$m"); p=${p%%.*}
    log "probes: $p"
    probe_run "$m" "$p"
    case "$p" in
      launch_*) probe_run "$m" "$p.plain" --no-dependent-launch ;;
    esac
  done
fi

# --- 5. The table, then the cost model's refit. -------------------------------
if [ "$have_torch" = 0 ]; then
  cat "$RESULTS"/*.json
  exit 0
fi
status=0
python3 "$BUNDLE/table.py" "$RESULTS" $WORKLOADS $(for m in $MODELS; do echo "models.$m"; done) || status=$?
if [ "$PER_KERNEL" != 0 ]; then
  echo
  python3 "$BUNDLE/calibrate.py" "$RESULTS" --bundle "$BUNDLE" || log "calibrate.py exited $?"
fi
exit "$status"

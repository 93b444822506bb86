#!/usr/bin/env bash
# Everything one GPU lease measures, as one prepared command of a few
# minutes (a lent GPU comes with about 15 minutes of device time, start
# included; /work/.library/device/README.md). On the GPU machine:
#
#   bench/gpu/lease.sh BUNDLE_DIR OUT_DIR [SECONDS]     (SECONDS: 480)
#
# In the order of what matters most, each step bounded by what is left of
# SECONDS so that the files come back whatever happens:
#   1. run.sh with PyTorch eager but without torch.compile: every fused,
#      searched and unfused graph checked and timed, per kernel, and the
#      calibration probes (results1.tgz: BUNDLE/results, run1.log);
#   2. torch.compile (and eager again) of every workload and layer, three
#      Python processes instead of one per graph, since importing torch and
#      inductor costs seconds each (compile.tgz: one JSON file per process,
#      its lines in the order of its --manifest arguments, listed in
#      compile/order.txt);
#   3. run.sh again with plain launches (--no-dependent-launch), no probes, no
#      PyTorch: the launch gap that programmatic dependent launch saves
#      (results2.tgz).
# Then here: unpack, put each compile line into results/<w>.torch.json and
# print the table and the refit with run.sh's table code and calibrate.py
# (bench/gpu/README.md, "On a lent GPU").
set -u
B=$(cd "$1" && pwd)
O=$2
BUDGET=${3:-480}
t0=$(date +%s)
mkdir -p "$O"
left() { echo $((BUDGET - ($(date +%s) - t0))); }
note() { echo "lease.sh: $* at $(($(date +%s) - t0)) s" | tee -a "$O/lease.log" >&2; }
nvidia-smi >"$O/lease.log" 2>&1 || true

# 1. The bundle with dependent launch; PyTorch eager only.
(cd "$B" && TORCH_FLAGS=--no-compile RUN_TIMEOUT=60 \
  timeout --signal=KILL $(($(left) * 55 / 100)) ./run.sh "$B") >"$B/results.run1.log" 2>&1
note "run 1 exited $?"
mv "$B/results.run1.log" "$B/results/run1.log" 2>/dev/null
tar czf "$O/results1.tgz" -C "$B" results

# 2. torch.compile: workloads in one process, each torch_workloads.py
#    function of the layers in one more.
mkdir -p "$B/compile"
: >"$B/compile/order.txt"
ws=(); for w in rmsnorm_matmul gated_mlp lora gqa qknorm ntrans; do
  m=$(ls "$B/$w/${w}_ref".*.manifest.json 2>/dev/null | head -n 1)
  [ -n "$m" ] && ws+=(--manifest "$m") && echo "workloads $w" >>"$B/compile/order.txt"
done
declare -A layers=()
for d in "$B"/models/*/; do
  [ -f "$d/torch" ] || continue
  f=$(cat "$d/torch"); m=$(ls "$d"graph0.*.manifest.json 2>/dev/null | head -n 1)
  [ -n "$m" ] || continue
  layers[$f]+=" --manifest $m"
  echo "$f models.$(basename "$d")" >>"$B/compile/order.txt"
done
if [ ${#ws[@]} -gt 0 ] && [ "$(left)" -gt 60 ]; then
  timeout --signal=KILL $(($(left) * 60 / 100)) python3 "$B/torch_workloads.py" "${ws[@]}" \
    >"$B/compile/workloads.json" 2>"$B/compile/workloads.log"
  note "torch.compile workloads exited $?"
fi
for f in "${!layers[@]}"; do
  [ "$(left)" -gt 60 ] || break
  # shellcheck disable=SC2086
  timeout --signal=KILL $(($(left) * 45 / 100)) python3 "$B/torch_workloads.py" --as "$f" ${layers[$f]} \
    >"$B/compile/$f.json" 2>"$B/compile/$f.log"
  note "torch.compile $f exited $?"
done
tar czf "$O/compile.tgz" -C "$B" compile

# 3. Plain launches, for the launch gap.
if [ "$(left)" -gt 30 ]; then
  (cd "$B" && MIRAGE_RUN="$B/.build/mirage-run" MIRAGE_RUN_FLAGS=--no-dependent-launch \
    PROBES=0 TORCH=0 RUN_TIMEOUT=60 RESULTS_DIR="$B/results2" \
    timeout --signal=KILL $(($(left) - 10)) ./run.sh "$B") >"$B/results2.log" 2>&1
  note "run 2 exited $?"
  mv "$B/results2.log" "$B/results2/run2.log" 2>/dev/null
  tar czf "$O/results2.tgz" -C "$B" results2
fi
note "done"

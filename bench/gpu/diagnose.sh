#!/usr/bin/env bash
# Looks inside chosen graphs of a bundle on a lent GPU, as one prepared
# command: compute-sanitizer (memcheck, racecheck, synccheck) on graphs that
# fail their check, Nsight Compute on graphs slower than their model. On the
# GPU machine:
#
#   bench/gpu/diagnose.sh BUNDLE_DIR OUT_DIR [check:|sanitize:|profile:MANIFEST]...
#
# MANIFEST is relative to BUNDLE_DIR. Each graph runs once (--warmup 0
# --iters 1, no L2 flush between), so the tools see each kernel once or twice;
# check: only runs it and prints its check lines. <name> is MANIFEST with
# its slashes as underscores, so graphs of one name in two folders differ.
# Writes OUT_DIR/diagnose.tgz: per checked graph <name>.check.txt, per
# sanitized graph <name>.<tool>.txt; per
# profiled graph <name>.ncu.txt (every section of `--set full` for each of
# its kernels) and <name>.source.csv (the SASS with its warp stall samples,
# per kernel). The reply carries the end of the output: a summary per graph
# (the tools' error counts; per kernel its duration, achieved occupancy, DRAM
# throughput and the top warp stall reasons).
set -u
B=$(cd "$1" && pwd)
O=$2
shift 2
mkdir -p "$O"
D=$(mktemp -d)
BUILD=$B/.build
mkdir -p "$BUILD"
RUN=$BUILD/mirage-run
if ! { [ -x "$B/mirage-run/mirage-run" ] && cp "$B/mirage-run/mirage-run" "$RUN" && "$RUN" --self-test >/dev/null 2>&1; }; then
  ${CXX:-g++} -O2 -std=c++17 -I"$B/mirage-run" "$B"/mirage-run/*.cpp -ldl -o "$RUN" || exit 1
fi
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

for item in "$@"; do
  kind=${item%%:*}
  m=$B/${item#*:}
  name=$(echo "${item#*:}" | sed 's|\.manifest\.json$||; s|/|_|g')
  case "$kind" in
    sanitize)
      for tool in memcheck racecheck synccheck; do
        timeout 50 "$SAN" --tool "$tool" --print-limit 20 "$RUN" "$m" --warmup 0 --iters 1 --no-flush-l2 \
          >"$D/$name.$tool.txt" 2>&1
        echo "== $name $tool (exit $?): $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$D/$name.$tool.txt")"
      done
      ;;
    check)
      timeout 60 "$RUN" "$m" --warmup 0 --iters 1 --no-flush-l2 >"$D/$name.check.txt" 2>&1
      echo "== $name check (exit $?): $(grep 'check' "$D/$name.check.txt" | cut -c1-110 | tr '\n' ';')"
      ;;
    profile)
      timeout 60 "$NCU" --clock-control none --set full --import-source no -k 'regex:_k[0-9]+$' \
        -o "$D/$name" "$RUN" "$m" --warmup 0 --iters 1 --no-flush-l2 >"$D/$name.ncu.log" 2>&1
      echo "== $name profile (exit $?)"
      "$NCU" -i "$D/$name.ncu-rep" --page details >"$D/$name.ncu.txt" 2>&1
      "$NCU" -i "$D/$name.ncu-rep" --page source --print-source sass --csv >"$D/$name.source.csv" 2>&1
      grep -E '^  [a-zA-Z_0-9]+_k[0-9]+ |Duration|Achieved Occupancy|DRAM Throughput|Compute \(SM\) Throughput|Executed Ipc Active|Warp Cycles Per Issued|Registers Per Thread|Local Memory|stalled|Stall|bank' \
        "$D/$name.ncu.txt" | cut -c1-300 | head -n 40
      rm -f "$D/$name.ncu-rep"
      ;;
    *) echo "diagnose.sh: '$item' is not check:, sanitize: or profile:MANIFEST" >&2 ;;
  esac
done
tar czf "$O/diagnose.tgz" -C "$D" .

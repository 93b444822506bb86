#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/) for a set time and prints a table:
# executions, exec/s, coverage (cov: edges, ft: features) at the start (the
# seed corpus, the same-run baseline) and at the end, corpus size, peak
# memory and findings (crash/timeout/out-of-memory reproducers). Ends with
# "N passed, N failed": a target passes when it ran and found nothing, and
# each past finding kept in fuzz/regressions/TARGET/ passes when it replays
# clean (every finding becomes such a regression input).
#
#   bash bench/fuzz/run.sh [--time SECONDS] [--work DIR] [--serial] [--no-build]
#                          [TARGET...]
#
# TARGET is ugraph-ir, tosa-gen, tosa-text or differential (default: all).
# The fuzzers come from build-asan (configured by scripts/sanitize.sh). The
# targets run concurrently unless --serial, each under `nice -n 15`; a finding
# ends that target's run and is kept as a reproducer in WORK/<target>/ (fork
# mode, which goes on after a finding, starts a process per job and barely
# ran on a loaded 2-core machine). Reproduce a finding with
# build-asan/bin/mirage-fuzz-<target> <reproducer>.
set -uo pipefail
cd "$(dirname "$0")/../.."
time_s=60; work=""; serial=0; no_build=0; targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_s=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --serial) serial=1; shift ;;
    --no-build) no_build=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(ugraph-ir tosa-gen tosa-text differential)
[ -n "$work" ] || work=$(mktemp -d /tmp/mirage-fuzz.XXXXXX)
mkdir -p "$work"

# Configured by scripts/sanitize.sh (clang-22, ASan+UBSan, coverage); only the
# fuzzers and what they link are built here.
build_fuzzers() {
  if [ -f build-asan/build.ninja ]; then ninja -C build-asan mirage-fuzzers
  else MIRAGE_SANITIZE_TARGETS=mirage-fuzzers bash scripts/sanitize.sh asan --build-only; fi
}
if [ $no_build -eq 0 ] && ! build_fuzzers >"$work/build.log" 2>&1; then
  tail -n 20 "$work/build.log"; echo "0 passed, ${#targets[@]} failed"; exit 1
fi

# Seed corpora: one file per `// -----` section of the test inputs.
seed() { # seed DIR FILE...
  local dir=$1; shift
  for f in "$@"; do
    awk -v out="$dir/$(echo "$f" | tr / _)" \
      '/^\/\/ -----/ { n++; next } { print > (out "." n+0) }' "$f"
  done
}
for t in "${targets[@]}"; do
  rm -rf "$work/$t"; mkdir -p "$work/$t/corpus" "$work/$t/seeds"
  case "$t" in
    ugraph-ir) seed "$work/$t/seeds" test/Dialect/*/*.mlir test/Workloads/*.mlir ;;
    tosa-text) seed "$work/$t/seeds" test/Conversion/import-*.mlir \
                 test/Integration/CPU/*.mlir examples/*.mlir ;;
    tosa-gen|differential) ;; # bytes, not text: libFuzzer starts from nothing
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
done

run_one() {
  local t=$1 d="$work/$1" len_flags=()
  # The byte-driven targets need more than the 4 bytes libFuzzer starts from
  # (it grows the limit only after many executions, which a slow target never
  # reaches): full-length inputs from the start.
  case "$t" in tosa-gen|differential) len_flags=(-max_len=512 -len_control=0) ;; esac
  ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  /usr/bin/time -v -o "$d/time.txt" nice -n 15 "build-asan/bin/mirage-fuzz-$t" \
    -max_total_time="$time_s" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
    "${len_flags[@]}" -artifact_prefix="$d/" "$d/corpus" "$d/seeds" >"$d/log.txt" 2>&1
}
if [ $serial -eq 1 ]; then
  for t in "${targets[@]}"; do run_one "$t"; done
else
  for t in "${targets[@]}"; do run_one "$t" & done
  wait
fi

# Every past finding (fuzz/regressions/TARGET/) is replayed once per run
# and must now run clean.
passed=0; failed=0
for t in "${targets[@]}"; do
  [ -d "fuzz/regressions/$t" ] || continue
  for f in fuzz/regressions/"$t"/*; do
    if "build-asan/bin/mirage-fuzz-$t" "$f" >"$work/$t/replay.log" 2>&1; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); echo "regression $f: FAILED"
      grep -m3 -E "MIRAGE FUZZ FINDING|ERROR: |runtime error|deadly signal" \
        "$work/$t/replay.log" | sed 's/^/    /'
    fi
  done
done
echo "regressions replayed: $passed passed, $failed failed"

printf '%-13s %6s %10s %8s %15s %15s %7s %8s %8s\n' target time_s executions \
  exec/s "cov start>end" "ft start>end" corpus peak_MB findings
for t in "${targets[@]}"; do
  d="$work/$t"
  # Status lines "#N <event> cov: C ft: F corp: K/B ..."; INITED is the
  # seed corpus, the last line the end of the run.
  first=$(grep -m1 -E '^#[0-9]+\s+INITED' "$d/log.txt")
  last=$(grep -E '^#[0-9]+\s' "$d/log.txt" | tail -n 1)
  field() { echo "$2" | sed -n "s/.* $1: \([0-9]*\).*/\1/p"; }
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$d/log.txt")
  [ -n "$execs" ] || execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p'); execs=${execs:-0}
  secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): \(.*\)/\1/p' "$d/time.txt" |
         awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%d", s }')
  secs=${secs:-0}
  eps=$(( secs > 0 ? execs / secs : 0 ))
  findings=$(find "$d" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'timeout-*' \
             -o -maxdepth 1 -name 'oom-*' -o -maxdepth 1 -name 'leak-*' | wc -l)
  peak=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$d/time.txt")
  printf '%-13s %6s %10s %8s %15s %15s %7s %8s %8s\n' "$t" "$secs" "$execs" "$eps" \
    "$(field cov "$first")>$(field cov "$last")" "$(field ft "$first")>$(field ft "$last")" \
    "$(field corp "$last")" "$(( ${peak:-0} / 1024 ))" "$findings"
  if [ "$execs" -gt 0 ] && [ "$findings" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    for f in $(find "$d" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'timeout-*' \
               -o -maxdepth 1 -name 'oom-*' -o -maxdepth 1 -name 'leak-*'); do
      echo "  finding: $f"
    done
    grep -m3 -E "MIRAGE FUZZ FINDING|ERROR: (Address|Leak)Sanitizer|runtime error|deadly signal" \
      "$d/log.txt" | sed 's/^/    /'
  fi
done
echo "logs and reproducers: $work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# The code-generation campaign: generated TOSA programs (mirage-tosa-gen, the
# tosa-gen fuzzer's generator) through the release build's whole pipeline,
# every kernel checked (docs/Rationale/Sanitizers.md, "The code-generation
# campaign"). Per program:
#   cpu  func.func(mirage-import), mirage-superoptimize-pipeline,
#        mirage-check-on-cpu: each graph, reference and winner, lowered to
#        loops, compiled for the host and compared with the float64
#        evaluator;
#   ptx  func.func(mirage-import), mirage-superoptimize-to-ptx{chip=sm_90}:
#        the GPU stages with their race and async-copy checks, PTX and
#        launch manifests;
#   asm  bench/kernel_audit.py on that PTX: ptxas -v per kernel (skipped,
#        and said so, where ptxas is not installed) and the launch limits.
# A program passes when no step crashed, ran out of time or printed an
# error, no graph was left without PTX (a kernel the GPU stages' checks
# refused), and ptxas took every kernel and each fits its chip (NO-LAUNCH).
# Warnings are counted, not failed: an output f16 itself cannot compute
# (overflow, a large power) is checked only within what the graph's own
# precision allows, and the check says so.
#
#   bash bench/fuzz/codegen.sh [--count N] [--seed S]
#                              [--mode f32|f16|bf16|f32large|both|all]
#                              [--time-budget S] [--jobs J] [--build DIR]
#                              [--work DIR] [--no-build]
#
# Program p<S+i> of a mode is the same on every machine. --count programs
# per mode (default 20) from --seed (default 1 for f32, 100001 for f16,
# 500001 for bf16, 700001 for f32large, f32 at sizes up to 256; "both" is
# f32 and f16, "all" adds the other two),
# --jobs at once (default: the cores), each search bounded by
# --time-budget seconds (default 5). Prints one line per failing program
# and a table; ends with "N passed, N failed" (one per program).
set -uo pipefail
cd "$(dirname "$0")/../.."
count=20; seed=""; mode=both; budget=5; jobs=$(nproc); build=build; work=""
no_build=0
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --time-budget) budget=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --no-build) no_build=1; shift ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    *) echo "codegen.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$mode" in
  f32|f16|bf16|f32large) modes=("$mode") ;; both) modes=(f32 f16) ;;
  all) modes=(f32 f16 bf16 f32large) ;;
  *) echo "codegen.sh: --mode is f32, f16, bf16, f32large, both or all" >&2
     exit 2 ;;
esac
[ -n "$work" ] || work=$(mktemp -d /tmp/mirage-codegen.XXXXXX)
mkdir -p "$work"

if [ $no_build -eq 0 ] &&
   ! ninja -C "$build" mirage-opt mirage-tosa-gen >"$work/build.log" 2>&1; then
  tail -n 20 "$work/build.log"
  echo "codegen.sh: cannot build mirage-opt and mirage-tosa-gen in $build" \
       "(mirage-tosa-gen needs libclang-rt-22-dev: bash scripts/setup.sh)"
  echo "0 passed, 1 failed"; exit 1
fi
opt=$(realpath "$build/bin/mirage-opt"); gen=$(realpath "$build/bin/mirage-tosa-gen")
ptxas=""
for p in "${PTXAS:-}" "$(command -v ptxas)" /usr/local/cuda/bin/ptxas; do
  [ -n "$p" ] && [ -x "$p" ] && { ptxas=$p; break; }
done
[ -n "$ptxas" ] || echo "codegen.sh: no ptxas: the asm step is unsupported (skipped)"

for m in "${modes[@]}"; do
  mkdir -p "$work/$m"
  case "$m" in f32) s=1; flag="" ;; f16) s=100001; flag=--f16 ;;
    bf16) s=500001; flag=--bf16 ;; f32large) s=700001; flag=--f32-large ;;
  esac
  "$gen" --count "$count" --seed "${seed:-$s}" --out "$work/$m" $flag
done

# One program: three steps, one result line in NAME.result:
#   name cpu_rc ptx_rc errors warnings graphs kernels asm_failed no_launch seconds
run_one() {
  local f=$1 d=${1%.mlir} start=$SECONDS
  local opts="cache=off progress=false time-budget=$BUDGET"
  timeout 600 "$OPT" "$f" -o /dev/null --pass-pipeline="builtin.module(func.func(mirage-import),mirage-superoptimize-pipeline{$opts},mirage-check-on-cpu)" \
    >"$d.cpu.log" 2>&1
  local cpu=$?
  mkdir -p "$d.ptx"
  timeout 600 "$OPT" "$f" -o /dev/null --pass-pipeline="builtin.module(func.func(mirage-import),mirage-superoptimize-to-ptx{chip=sm_90 output-dir=$d.ptx $opts})" \
    >"$d.ptx.log" 2>&1
  local ptx=$?
  local asm_failed=- no_launch=- kernels=0
  if ls "$d.ptx"/*.ptx >/dev/null 2>&1; then
    local audit ptxas_arg=(--no-ptxas)
    [ -n "$PTXAS_BIN" ] && ptxas_arg=(--ptxas "$PTXAS_BIN")
    audit=$(python3 bench/kernel_audit.py "${ptxas_arg[@]}" "$d.ptx/" 2>&1 |
              grep '^kernels: ')
    kernels=$(echo "$audit" | sed -n 's/^kernels: \([0-9]*\).*/\1/p')
    no_launch=$(echo "$audit" | sed -n 's/.*NO-LAUNCH \([0-9]*\).*/\1/p')
    [ -n "$PTXAS_BIN" ] && asm_failed=$(echo "$audit" | sed -n 's/.*PTXAS-FAILED \([0-9]*\).*/\1/p')
  fi
  local errors warnings graphs
  # A graph left without PTX is a kernel the GPU stages' own checks refused:
  # wrong lowered code, or a check's false report (the race check once
  # skipped loop iterations badly); either way a failure here.
  errors=$(cat "$d.cpu.log" "$d.ptx.log" | grep -c ': error: \|left without PTX')
  warnings=$(cat "$d.cpu.log" "$d.ptx.log" | grep -c ': warning: ')
  graphs=$(grep -o "graph '[^']*' on the CPU" "$d.cpu.log" | sort -u | wc -l)
  echo "$(basename "$d") $cpu $ptx $errors $warnings $graphs ${kernels:-0} ${asm_failed:--} ${no_launch:--} $((SECONDS - start))" \
    >"$d.result"
}
export -f run_one
export OPT=$opt BUDGET=$budget PTXAS_BIN=$ptxas
for m in "${modes[@]}"; do
  ls "$work/$m"/p*.mlir | xargs -P "$jobs" -I{} bash -c 'run_one {}'
done

passed=0; failed=0
printf '%-5s %9s %7s %7s %9s %9s %8s %10s %9s %8s\n' mode programs passed \
  failed graphs kernels warnings "asm failed" no-launch "max s"
for m in "${modes[@]}"; do
  mp=0; mf=0; graphs=0; kernels=0; warnings=0; asm=0; nl=0; maxs=0
  for r in "$work/$m"/*.result; do
    read -r name cpu ptx errors warn g k a n secs <"$r"
    graphs=$((graphs + g)); kernels=$((kernels + k)); warnings=$((warnings + warn))
    [ "$a" != - ] && asm=$((asm + a)); [ "$n" != - ] && nl=$((nl + n))
    [ "$secs" -gt "$maxs" ] && maxs=$secs
    why=""
    for rc in "$cpu" "$ptx"; do
      case "$rc" in
        0) ;; 124) why="$why timeout" ;; 1) ;; *) why="$why crash(rc $rc)" ;;
      esac
    done
    [ "$errors" -gt 0 ] && why="$why errors($errors)"
    { [ "$cpu" = 1 ] || [ "$ptx" = 1 ]; } && [ "$errors" -eq 0 ] && why="$why failed(rc 1)"
    [ "$a" != - ] && [ "$a" -gt 0 ] && why="$why ptxas-failed($a)"
    [ "$n" != - ] && [ "$n" -gt 0 ] && why="$why no-launch($n)"
    if [ -z "$why" ]; then mp=$((mp + 1)); else
      mf=$((mf + 1)); echo "FAILED $m/$name:$why ($work/$m/$name.mlir)"
      grep -h -m2 ': error: \|left without PTX' "$work/$m/$name.cpu.log" "$work/$m/$name.ptx.log" |
        cut -c1-300 | sed 's/^/    /'
    fi
  done
  printf '%-5s %9s %7s %7s %9s %9s %8s %10s %9s %8s\n' "$m" $((mp + mf)) "$mp" "$mf" \
    "$graphs" "$kernels" "$warnings" "$([ -n "$ptxas" ] && echo "$asm" || echo n/a)" "$nl" "$maxs"
  passed=$((passed + mp)); failed=$((failed + mf))
done
echo "work: $work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

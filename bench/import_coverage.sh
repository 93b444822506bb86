#!/usr/bin/env bash
# Import coverage on a corpus of frontend output (issue 22 item 6).
#
#   bench/import_coverage.sh [BUILD_DIR_OR_OPT] [DIR]
#
# BUILD_DIR_OR_OPT: a build directory (its bin/mirage-opt is used) or a
# mirage-opt binary; default "build". DIR: the corpus, default bench/corpus.
# For every DIR/*.mlir it runs three stages, each on the original file:
#
#   import         mirage-opt --mirage-import
#   superoptimize  --pass-pipeline='builtin.module(mirage-superoptimize-pipeline{
#                    cache=off progress=false time-budget=$BUDGET report=...})'
#   to PTX         --pass-pipeline='builtin.module(mirage-superoptimize-to-ptx{
#                    chip=sm_90 output-dir=... cache=off progress=false time-budget=$BUDGET})'
#
# and prints a markdown table (one row per file, a totals row), the
# compute ops left outside graphs, by op, and the importer's "not
# imported" remarks by reason. BUDGET (env, default 20) is the
# search seconds per graph; MODULE_BUDGET (env, default 0 = none) adds
# module-time-budget=. STAGE_TIMEOUT (env, default 1800 s) kills a stage
# that hangs. KEEP=DIR keeps every stage's output and stderr there.
#
# Definitions (counted by bench/import_coverage.py on the
# --mlir-print-op-generic form, ops directly in a func.func body or in a
# mirage_kernel.graph body; scalar ops inside linalg bodies do not count):
#
#   compute op  a linalg structured op other than linalg.fill and the
#               layout ops below (linalg.generic, named contractions and
#               element-wise ops, linalg.reduce); a tosa op other than
#               tosa.const/const_shape and the layout ops below; an arith
#               or math op whose result is a tensor (not arith.constant).
#   layout op   tosa.reshape/transpose/slice/identity/concat/tile/pad/reverse,
#               tensor.expand_shape/collapse_shape/extract_slice/insert_slice/
#               concat/pad/cast/reshape, linalg.transpose/broadcast/copy, and
#               a copy linalg.generic (its body only yields block arguments:
#               a permuted or broadcasting copy). Pure data movement.
#   imported    compute ops in the input minus compute ops left outside every
#               mirage_kernel.graph after --mirage-import (ops the importer
#               adds outside graphs, such as a split mask, would lower it).
#   graphs      mirage_kernel.graph ops after import.
#   kernels     kernels_in_input -> kernels_in_winner summed over graphs, from
#               the superoptimize stage's JSON report; search s: its
#               search_seconds.
#   status      ok; error(rc) for a non-zero exit (a failed pass or invalid
#               IR: the driver verifies after every pass) with the first
#               error line in the notes below the table; CRASH(rc) for a
#               signal or an LLVM stack dump; TIMEOUT. "ok, N warn" counts
#               warnings (the to-PTX stage warns per graph it cannot lower).
set -uo pipefail
cd "$(dirname "$0")/.."
ARG=${1:-build}
DIR=${2:-bench/corpus}
if [ -x "$ARG" ] && [ ! -d "$ARG" ]; then OPT=$ARG; else OPT=$ARG/bin/mirage-opt; fi
[ -x "$OPT" ] || { echo "no mirage-opt at $OPT" >&2; exit 2; }
BUDGET=${BUDGET:-20}
MODULE_BUDGET=${MODULE_BUDGET:-0}
STAGE_TIMEOUT=${STAGE_TIMEOUT:-1800}
HELPER=bench/import_coverage.py
tmp=${KEEP:-$(mktemp -d)}
mkdir -p "$tmp"
rows=$tmp/rows.jsonl
: >"$rows"
notes=$tmp/notes.txt
: >"$notes"
MB=
[ "$MODULE_BUDGET" != 0 ] && MB=" module-time-budget=$MODULE_BUDGET"

status() { # rc stderr-file -> status word
  local rc=$1 err=$2 w
  if [ "$rc" = 124 ]; then echo "TIMEOUT"; return; fi
  if [ "$rc" -ge 128 ] || grep -q -e 'Stack dump' -e 'PLEASE submit a bug report' "$err"; then
    echo "CRASH($rc)"; return
  fi
  if [ "$rc" != 0 ]; then echo "error($rc)"; return; fi
  w=$(grep -c ': warning: ' "$err")
  if [ "$w" != 0 ]; then echo "ok, $w warn"; else echo "ok"; fi
}
note() { # file stage stderr rc
  local first
  first=$(grep -m1 -e ': error: ' -e 'Assertion' -e 'Stack dump' -e ': warning: ' "$3" | sed "s|^.*$1:||" | cut -c1-220)
  [ -n "$first" ] && echo "- \`$(basename "$1")\` $2 (rc $4): $first" >>"$notes"
}

for f in "$DIR"/*.mlir; do
  b=$(basename "$f" .mlir)
  # input, generic form
  if ! "$OPT" "$f" --mlir-print-op-generic -o "$tmp/$b.in.mlir" 2>"$tmp/$b.parse.err"; then
    echo "{\"file\": \"$b.mlir\", \"compute\": 0, \"imported\": 0, \"layout\": 0, \"layout_outside\": 0, \"graphs\": 0, \"st_import\": \"parse error\", \"st_super\": \"-\", \"st_ptx\": \"-\"}" >>"$rows"
    note "$f" parse "$tmp/$b.parse.err" 1
    continue
  fi
  # stage 1: import
  timeout "$STAGE_TIMEOUT" "$OPT" "$f" --mirage-import --mlir-print-op-generic -o "$tmp/$b.import.mlir" 2>"$tmp/$b.import.err"
  rc=$?
  st1=$(status $rc "$tmp/$b.import.err")
  [ "$rc" != 0 ] && note "$f" import "$tmp/$b.import.err" $rc
  # stage 2: superoptimize
  rm -f "$tmp/$b.report.json"
  /usr/bin/time -f %e -o "$tmp/$b.super.time" timeout "$STAGE_TIMEOUT" "$OPT" "$f" \
    --pass-pipeline="builtin.module(mirage-superoptimize-pipeline{cache=off progress=false time-budget=$BUDGET$MB report=$tmp/$b.report.json})" \
    -o "$tmp/$b.super.mlir" 2>"$tmp/$b.super.err"
  rc=$?
  st2=$(status $rc "$tmp/$b.super.err")
  [ "$rc" != 0 ] && note "$f" superoptimize "$tmp/$b.super.err" $rc
  # stage 3: to PTX
  rm -rf "$tmp/$b.ptx" && mkdir -p "$tmp/$b.ptx"
  timeout "$STAGE_TIMEOUT" "$OPT" "$f" \
    --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{chip=sm_90 output-dir=$tmp/$b.ptx cache=off progress=false time-budget=$BUDGET$MB})" \
    -o "$tmp/$b.ptx.mlir" 2>"$tmp/$b.ptx.err"
  rc=$?
  st3=$(status $rc "$tmp/$b.ptx.err")
  [ "$rc" != 0 ] || grep -q ': warning: ' "$tmp/$b.ptx.err" && note "$f" "to PTX" "$tmp/$b.ptx.err" $rc
  nptx=$(find "$tmp/$b.ptx" -name '*.ptx' | wc -l)
  python3 - "$HELPER" "$tmp/$b.in.mlir" "$tmp/$b.import.mlir" "$tmp/$b.report.json" "$b.mlir" \
    "$st1" "$st2" "$st3" "$nptx" "$tmp/$b.import.err" >>"$rows" <<'PY'
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("ic", sys.argv[1])
ic = importlib.util.module_from_spec(spec); spec.loader.exec_module(ic)
src = ic.count(sys.argv[2])
row = {"file": sys.argv[5], "compute": src["compute"], "layout": src["layout"],
       "st_import": sys.argv[6], "st_super": sys.argv[7], "st_ptx": sys.argv[8],
       "ptx_files": int(sys.argv[9])}
if sys.argv[6].startswith("ok") and os.path.exists(sys.argv[3]) and os.path.getsize(sys.argv[3]):
    out = ic.count(sys.argv[3])
    row.update(imported=max(0, src["compute"] - out["compute_outside"]),
               layout_outside=out["layout_outside"], graphs=out["graphs"],
               outside_by_op=out["outside_by_op"])
else:
    row.update(imported=0, layout_outside=src["layout"], graphs=0, outside_by_op=src["outside_by_op"])
row["remarks"] = ic.remarks(sys.argv[10])
if os.path.exists(sys.argv[4]):
    t = json.load(open(sys.argv[4]))["totals"]
    row.update(kernels_in=t["kernels_in_input"], kernels_out=t["kernels_in_winner"],
               search_s=t["search_seconds"])
print(json.dumps(row))
PY
done
python3 "$HELPER" table "$rows"
if [ -s "$notes" ]; then
  echo
  echo "Errors and warnings (first line per stage):"
  echo
  cat "$notes"
fi
[ -z "${KEEP:-}" ] && rm -rf "$tmp"
exit 0

#!/usr/bin/env bash
# Runs `mirage-opt --mirage-import` (default and strict-lax=true) over every
# .mlir file under a directory, split on `// -----` like `-split-input-file`.
# Chunks that upstream mlir-opt itself rejects are dropped. For the others the
# importer must not crash and its output must parse and verify again.
#
#   scripts/import-robustness.sh DIR [MIRAGE_OPT] [MLIR_OPT]
#
# Prints: files, chunks, chunks upstream rejects, chunks mirage-opt cannot
# parse (dialects it does not register), chunks run, graphs created, remarks,
# crashes, outputs that fail to verify. Crashing chunks are listed and kept
# under $KEEP (default /tmp/import-robustness-failures). Exit status 1 if any
# chunk crashed or produced output that does not verify.
set -u
DIR=${1:?usage: import-robustness.sh DIR [MIRAGE_OPT] [MLIR_OPT]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIRAGE_OPT=${2:-$ROOT/build/bin/mirage-opt}
MLIR_OPT=${3:-/usr/lib/llvm-22/bin/mlir-opt}
KEEP=${KEEP:-/tmp/import-robustness-failures}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$KEEP"

# Split every file into chunks: $WORK/chunks/<n>.mlir, with a map n -> source.
python3 - "$DIR" "$WORK" <<'EOF'
import os, re, sys
src, work = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(work, "chunks"))
files = n = 0
with open(os.path.join(work, "map"), "w") as m:
    for dp, _, fs in sorted(os.walk(src)):
        for f in sorted(fs):
            if not f.endswith(".mlir"):
                continue
            files += 1
            path = os.path.join(dp, f)
            text = open(path, errors="replace").read()
            for i, chunk in enumerate(re.split(r"^// -----.*$", text, flags=re.M)):
                if not chunk.strip():
                    continue
                with open(os.path.join(work, "chunks", f"{n}.mlir"), "w") as c:
                    c.write(chunk)
                m.write(f"{n}\t{path}#{i}\n")
                n += 1
print(files, file=open(os.path.join(work, "files"), "w"))
EOF

files=$(cat "$WORK/files")
chunks=0 rejected=0 unparsed=0 run=0 graphs=0 remarks=0 crashes=0 unverified=0
while IFS=$'\t' read -r n origin; do
  c=$WORK/chunks/$n.mlir
  chunks=$((chunks + 1))
  if ! "$MLIR_OPT" "$c" -o /dev/null >/dev/null 2>&1; then
    rejected=$((rejected + 1)); continue
  fi
  if ! "$MIRAGE_OPT" "$c" -o /dev/null >/dev/null 2>&1; then
    unparsed=$((unparsed + 1)); continue
  fi
  run=$((run + 1))
  for opt in "--mirage-import" "--mirage-import=strict-lax=true"; do
    out=$WORK/out.mlir err=$WORK/err.txt
    "$MIRAGE_OPT" "$c" "$opt" -o "$out" 2>"$err"
    rc=$?
    if [ $rc -ne 0 ] || grep -q "PLEASE submit\|Stack dump\|Assertion" "$err"; then
      crashes=$((crashes + 1))
      cp "$c" "$KEEP/chunk$n.mlir"
      echo "CRASH ($opt, rc $rc): $origin -> $KEEP/chunk$n.mlir"
      continue
    fi
    r=$(grep -c "remark: not imported" "$err")
    g=$(grep -c "mirage_kernel.graph" "$out")
    if [ "$opt" = "--mirage-import" ]; then
      remarks=$((remarks + r)); graphs=$((graphs + g))
    fi
    if ! "$MIRAGE_OPT" "$out" -o /dev/null >/dev/null 2>&1; then
      unverified=$((unverified + 1))
      cp "$c" "$KEEP/chunk$n.mlir"
      echo "UNVERIFIED OUTPUT ($opt): $origin -> $KEEP/chunk$n.mlir"
    fi
  done
done < "$WORK/map"

echo "files: $files"
echo "chunks: $chunks"
echo "rejected by upstream mlir-opt: $rejected"
echo "not parsed by mirage-opt: $unparsed"
echo "chunks run: $run (x2: default, strict-lax=true)"
echo "graphs created (default): $graphs"
echo "remarks (default): $remarks"
echo "crashes: $crashes"
echo "outputs failing to verify: $unverified"
[ $crashes -eq 0 ] && [ $unverified -eq 0 ]

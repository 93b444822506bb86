#!/usr/bin/env bash
# CI's check of the README's first command (scripts/demo.sh): it must exit 0
# on the bundled example, replace the original by a fused graph, write PTX
# and a manifest for both, and match the evaluator on the CPU. Ends with
# "N passed, N failed" like every CI step.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
ok=1
if ! bash scripts/demo.sh > "$log" 2>&1; then
  echo "check_demo: scripts/demo.sh failed"; ok=0
fi
for f in build/demo-ptx/graph0_opt.sm_90.ptx build/demo-ptx/graph0_opt.sm_90.manifest.json \
         build/demo-ptx/graph0.sm_90.ptx build/demo-ptx/graph0.sm_90.manifest.json; do
  [ -s "$f" ] || { echo "check_demo: $f missing"; ok=0; }
done
grep -q "graph 'graph0_opt' on the CPU matches the evaluator" "$log" ||
  { echo "check_demo: the fused graph was not checked on the CPU"; ok=0; }
grep -q "1 cache hit(s)" "$log" ||
  { echo "check_demo: the second run did not hit the cache"; ok=0; }
if [ $ok -eq 1 ]; then
  echo "check_demo: the main job superoptimized the example end to end"
  echo "1 passed, 0 failed"
else
  tail -n 40 "$log"
  echo "0 passed, 1 failed"
fi
rm -f "$log"

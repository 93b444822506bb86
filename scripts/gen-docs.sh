#!/usr/bin/env bash
# Regenerates the dialect and pass reference in docs/ from the ODS sources.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
ninja -C build mlir-doc >/dev/null
mkdir -p docs/Dialects docs/Passes
cp build/docs/Dialects/*.md docs/Dialects/
for f in build/docs/*Passes.md; do cp "$f" docs/Passes/; done
echo "docs regenerated: $(ls docs/Dialects docs/Passes | grep -c md) files"

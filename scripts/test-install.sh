#!/usr/bin/env bash
# Checks the installed package: installs BUILD_DIR (default: build) into a
# temporary prefix, configures and builds test/Install/consumer against it
# with find_package(Mirage), runs the consumer on a μGraph, and runs the
# installed mirage-opt and the installed plugin in the stock mlir-opt.
# Prints "install test passed" and exits 0 on success. Also run by ctest
# (test `install`).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
llvm_prefix=${MIRAGE_LLVM_PREFIX:-/usr/lib/llvm-22}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mirage-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
example=$src/examples/rmsnorm_matmul.mlir

fail() { echo "install test FAILED: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "install $build into $prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "cmake --install"; }
for f in lib/cmake/Mirage/MirageConfig.cmake lib/cmake/Mirage/MirageConfigVersion.cmake \
         lib/cmake/Mirage/MirageTargets.cmake lib/libMirageKernelDialect.a \
         lib/MiragePlugin.so bin/mirage-opt include/Mirage/InitAllDialects.h \
         include/Mirage/Dialect/Kernel/IR/KernelOps.h.inc include/Mirage/Transforms/Passes.h.inc; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done

step "configure and build test/Install/consumer with find_package(Mirage)"
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cmake "${gen[@]}" -S "$src/test/Install/consumer" -B "$tmp/consumer" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; fail "configure consumer"; }
cmake --build "$tmp/consumer" >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; fail "build consumer"; }

step "run the consumer: parse and print"
"$tmp/consumer/mirage-consumer" "$example" >"$tmp/out.mlir" || fail "consumer parse"
grep -q 'mirage_kernel.graph "best" reference "ref"' "$tmp/out.mlir" || fail "consumer output"
grep -q 'mirage_block.accum rms_last' "$tmp/out.mlir" || fail "consumer output"

step "run the consumer: a Mirage pass"
"$tmp/consumer/mirage-consumer" "$example" mirage-compare \
  >/dev/null 2>"$tmp/cmp.err" || { cat "$tmp/cmp.err"; fail "consumer pass"; }
grep -q "graph 'best' matches reference 'ref'" "$tmp/cmp.err" || { cat "$tmp/cmp.err"; fail "consumer remark"; }

step "run the installed mirage-opt"
"$prefix/bin/mirage-opt" "$example" | "$prefix/bin/mirage-opt" >/dev/null || fail "installed mirage-opt"

step "load the installed plugin into the stock mlir-opt"
"$llvm_prefix/bin/mlir-opt" --load-dialect-plugin="$prefix/lib/MiragePlugin.so" \
  --load-pass-plugin="$prefix/lib/MiragePlugin.so" "$example" --pass-pipeline='builtin.module(mirage-compare)' \
  -o /dev/null 2>"$tmp/plugin.err" || { cat "$tmp/plugin.err"; fail "installed plugin"; }
grep -q "graph 'best' matches reference 'ref'" "$tmp/plugin.err" || { cat "$tmp/plugin.err"; fail "plugin remark"; }

echo "install test passed"

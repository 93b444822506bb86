#!/usr/bin/env bash
# Builds everything and runs the whole test suite (lit + GoogleTest) through
# ctest; ends with a line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh || { echo "0 passed, 1 failed"; exit 1; }
ninja -C build mirage-unittests >/dev/null
# lit reports every .mlir test; gtest cases are discovered by ctest.
lit_out=$(/usr/lib/llvm-22/bin/lit -sv build/test 2>&1); lit_rc=$?
echo "$lit_out" | grep -E "^(FAIL|XPASS|UNRESOLVED|UNSUPPORTED):|^  (Passed|Failed|Unsupported)" || true
ctest_out=$(cd build && ctest -E '^lit$' --output-on-failure 2>&1); ctest_rc=$?
echo "$ctest_out" | tail -n 3
lit_pass=$(echo "$lit_out" | sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p'); lit_pass=${lit_pass:-0}
lit_fail=$(echo "$lit_out" | sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p'); lit_fail=${lit_fail:-0}
gt_total=$(echo "$ctest_out" | sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\)/\2/p'); gt_total=${gt_total:-0}
gt_fail=$(echo "$ctest_out" | sed -n 's/.*tests passed, \([0-9]*\) tests failed out of.*/\1/p'); gt_fail=${gt_fail:-0}
passed=$((lit_pass + gt_total - gt_fail)); failed=$((lit_fail + gt_fail))
[ $lit_rc -ne 0 ] && [ "$lit_fail" -eq 0 ] && failed=$((failed + 1))
[ $ctest_rc -ne 0 ] && [ "$gt_fail" -eq 0 ] && failed=$((failed + 1))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

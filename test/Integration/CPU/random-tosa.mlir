// Property-based robustness test of --mirage-import: seeded random TOSA
// programs (ranks 1-4, f32, broadcasting, matmul, element-wise ops,
// reductions, composite softmax/rms_norm/silu/gelu/sigmoid forms, reshape and
// transpose left untouched; normalisations over every axis; persistent
// relayouts). For each program the import succeeds (default, strict-lax=true,
// and default on upstream tosa-to-linalg's output) and its output verifies
// and round-trips again; for the numeric
// programs, the upstream lowering + mlir-runner output equals the
// --mirage-evaluate=print-all value (norm-wise 1e-4, as compare_outputs.py).
// All numeric programs share one mlir-runner invocation. Run many more by
// hand: python3 test/Integration/random_tosa.py --count 500 --seed N \
//   --mirage-opt build/bin/mirage-opt
// RUN: python3 %S/../random_tosa.py --count 24 --structural 12 --seed 1 --batch 24 --workdir %t \
// RUN:   --mirage-opt mirage-opt --mlir-opt mlir-opt --mlir-runner mlir-runner \
// RUN:   --lib-dir %mlir_lib_dir | FileCheck %s

// CHECK: seed 1: 24 numeric programs: 24 passed, 0 failed
// CHECK: seed 1: 12 structural programs: 12 passed, 0 failed
// CHECK-NOT: FAIL

// MLIR 22.1.8's linalg parsers dereference a null attribute when a
// `dimensions =` or `permutation =` clause is not an integer list (stock
// mlir-opt dies with SIGSEGV on each function below). mirage-opt refuses the
// text with an error at the clause instead, from a file and from stdin.
// RUN: not mirage-opt %s 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: not mirage-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: sed -e 's/permutation = \[1, x\]/permutation = [1, 0]/' \
// RUN:     -e 's/dimensions = ;1\]/dimensions = [1]/' %s | \
// RUN:   mirage-opt | FileCheck %s --check-prefix=FIXED

// FILE: error: {{.*}}upstream-parser-hazard.mlir:19:7: `dimensions =` must be followed by a list of integers
// FILE-NOT: Segmentation
// STDIN: error: <stdin>:19:7: `dimensions =` must be followed by a list of integers
// FIXED: linalg.broadcast {{.*}} dimensions = [1]
// FIXED: linalg.transpose {{.*}} permutation = [1, 0]

func.func @broadcast(%x: tensor<4xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %b = linalg.broadcast ins(%x : tensor<4xf32>) outs(%e : tensor<4x8xf32>)
      dimensions = ;1]
  return %b : tensor<4x8xf32>
}

func.func @transpose(%x: tensor<4x8xf32>, %e: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %t = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, x]
  return %t : tensor<8x4xf32>
}

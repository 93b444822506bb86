// Issue 23: tensors within kMaxTensorElements (2^40) verify, but a float64
// run of them does not fit in memory: the evaluators refuse it with a
// diagnostic before allocating, instead of aborting in the allocator. (Over
// the limit the verifier refuses the graph: test/Dialect/Kernel/invalid.mlir.)

// RUN: not mirage-opt %s --mirage-evaluate -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVAL
// EVAL: error: graph 'ref' cannot be evaluated: the run would hold {{[0-9.]+}} GiB of float64 values, over the limit of {{[0-9.]+}} GiB

// RUN: not mirage-opt %s --mirage-compare -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPARE
// COMPARE: error: graph 'big' cannot be compared with reference 'ref': the runs would hold {{[0-9.]+}} GiB of float64 values, over the limit of {{[0-9.]+}} GiB

// The pass never fails; it says what it skipped.
// RUN: mirage-opt %s --mirage-check-numerics -o /dev/null 2>&1 | FileCheck %s --check-prefix=NUMERICS
// NUMERICS: warning: graph 'big' numerics not checked: the runs would hold {{[0-9.]+}} GiB of float64 values, over the limit of {{[0-9.]+}} GiB

func.func @terabytes(%x: tensor<1048576x1048576xf32>) -> (tensor<1048576x1048576xf32>, tensor<1048576x1048576xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  ^bb0(%a: tensor<1048576x1048576xf32>):
    %e = mirage_kernel.unary mul_scalar %a scalar(2.0) : tensor<1048576x1048576xf32>
    mirage_kernel.yield %e : tensor<1048576x1048576xf32>
  }
  %b = mirage_kernel.graph "big" reference "ref" (%x) : (tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  ^bb0(%a: tensor<1048576x1048576xf32>):
    %e = mirage_kernel.binary add %a, %a : tensor<1048576x1048576xf32>, tensor<1048576x1048576xf32> -> tensor<1048576x1048576xf32>
    mirage_kernel.yield %e : tensor<1048576x1048576xf32>
  }
  return %r, %b : tensor<1048576x1048576xf32>, tensor<1048576x1048576xf32>
}

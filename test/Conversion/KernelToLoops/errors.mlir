// RUN: not mirage-opt %s --mirage-lower-kernels-to-loops -o /dev/null 2>&1 | FileCheck %s
//
// A graph whose expansion cannot fit shared memory: one error naming the op
// and why, and nothing emitted.

func.func @f(%x: tensor<2x1048576xf32>) -> tensor<2x1048576xf32> {
  %o = mirage_kernel.graph "too_wide" (%x) : (tensor<2x1048576xf32>) -> tensor<2x1048576xf32> {
  ^bb0(%a: tensor<2x1048576xf32>):
    %n = mirage_kernel.rms_norm %a : tensor<2x1048576xf32> -> tensor<2x1048576xf32>
    mirage_kernel.yield %n : tensor<2x1048576xf32>
  }
  return %o : tensor<2x1048576xf32>
}

// CHECK: error: cannot lower graph 'too_wide': cannot expand rms_norm into a block graph: its tiles need {{[0-9]+}} bytes of shared memory, more than {{[0-9]+}}

// RUN: not mirage-opt %s --mirage-lower-kernels-to-loops -o /dev/null 2>&1 | FileCheck %s
//
// A graph whose expansion cannot fit shared memory: one error naming the op
// and why, and nothing emitted. (A concat keeps its concatenated dim whole
// in a block; rows too wide for rms_norm now take a two-kernel form:
// test/Integration/Codegen/wide-rms-norm-on-cpu.mlir.)

func.func @f(%x: tensor<2x524288xf32>, %y: tensor<2x524288xf32>) -> tensor<2x1048576xf32> {
  %o = mirage_kernel.graph "too_wide" (%x, %y) : (tensor<2x524288xf32>, tensor<2x524288xf32>) -> tensor<2x1048576xf32> {
  ^bb0(%a: tensor<2x524288xf32>, %b: tensor<2x524288xf32>):
    %c = mirage_kernel.concat %a, %b dim 1 : tensor<2x524288xf32>, tensor<2x524288xf32> -> tensor<2x1048576xf32>
    mirage_kernel.yield %c : tensor<2x1048576xf32>
  }
  return %o : tensor<2x1048576xf32>
}

// CHECK: error: cannot lower graph 'too_wide': cannot expand concat into a block graph: its tiles need {{[0-9]+}} bytes of shared memory, more than {{[0-9]+}}

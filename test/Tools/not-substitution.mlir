// RUN: not mirage-opt %s --mirage-compare 2>&1 | FileCheck %s
// CHECK: reference graph 'nowhere' not found
func.func @missing_reference(%x: tensor<4xf32>) -> tensor<4xf32> {
  %o = mirage_kernel.graph "g" reference "nowhere" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    mirage_kernel.yield %a : tensor<4xf32>
  }
  return %o : tensor<4xf32>
}

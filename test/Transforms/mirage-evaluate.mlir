// RUN: mirage-opt %s --mirage-evaluate="seed=3 print-count=2" -o /dev/null 2>&1 | FileCheck %s
// RUN: mirage-opt %s --mirage-evaluate="seed=3" | FileCheck %s --check-prefix=IR

// The same seed gives the same inputs, so two graphs computing the same
// function print the same values; exp of a sum is positive everywhere.
// CHECK: remark: graph 'a' output #0 tensor<2x4xf32>: sum = [[SUM:[-0-9.e]+]], first = [[[FIRST:.*]]]
// CHECK: remark: graph 'b' output #0 tensor<2x4xf32>: sum = [[SUM]], first = [[[FIRST]]]
// CHECK: remark: graph 'pos' output #0 tensor<2x4xf32>: sum = {{[0-9]}}
// The pass changes no IR.
// IR: mirage_kernel.graph "a"
// IR: mirage_kernel.graph "b"
func.func @f(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %a = mirage_kernel.graph "a" (%x, %y) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%p: tensor<2x4xf32>, %q: tensor<2x4xf32>):
    %s = mirage_kernel.binary add %p, %q : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
    mirage_kernel.yield %s : tensor<2x4xf32>
  }
  %b = mirage_kernel.graph "b" (%x, %y) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%p: tensor<2x4xf32>, %q: tensor<2x4xf32>):
    %s = mirage_kernel.binary add %q, %p : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
    mirage_kernel.yield %s : tensor<2x4xf32>
  }
  %c = mirage_kernel.graph "pos" (%x, %y) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%p: tensor<2x4xf32>, %q: tensor<2x4xf32>):
    %s = mirage_kernel.binary add %p, %q : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
    %e = mirage_kernel.unary exp %s : tensor<2x4xf32>
    mirage_kernel.yield %e : tensor<2x4xf32>
  }
  return %a, %b, %c : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

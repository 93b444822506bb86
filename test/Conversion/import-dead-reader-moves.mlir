// RUN: mirage-opt %s --mirage-import="remarks=false" 2>&1 | FileCheck %s

// Regression (found by test/Integration/random_tosa.py, seed 2): a graph goes
// after its group's last member, and the ops in between that read the group
// move after it, with the ops that read those. An op that reads only members
// dies with them and stays where it is (the linalg.reduce under an imported
// expand_shape); an op that nobody reads was taken for one, stayed, and read
// an op that had moved after the graph: "operand #0 does not dominate this
// use". It moves like any other reader now.

// CHECK-NOT: warning
// CHECK-LABEL: func.func @dead_reader_of_moved_op
// CHECK: %[[G:.*]]:2 = mirage_kernel.graph(%arg0)
// CHECK: %[[M:.*]] = tosa.maximum %[[G]]#0, %[[G]]#0
// CHECK: tosa.maximum %[[M]], %[[M]]
// CHECK: return %[[G]]#1, %[[M]]
func.func @dead_reader_of_moved_op(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %m = tosa.maximum %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = tosa.maximum %m, %m : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = tosa.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  return %c, %m : tensor<4xf32>, tensor<4xf32>
}

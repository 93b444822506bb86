// RUN: mirage-opt %s --mirage-import="remarks=false" | FileCheck %s
// RUN: mirage-opt %s --mirage-import="remarks=false strict-lax=true" | FileCheck %s

// Regression (found by test/Integration/random_tosa.py): a graph whose only
// user is a stay-op (here a transpose) feeding a dead imported op became dead
// during dead-code removal and was erased while the pass still held it for
// recognition and the LAX split (use after free). Dead graphs are now dropped
// from that list when they are erased.

// CHECK-LABEL: func.func @dead_graph_behind_stay
// CHECK-NEXT: return
func.func @dead_graph_behind_stay(%a: tensor<4x1xf32>) {
  %e = tosa.exp %a : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %t = tosa.transpose %e {perms = array<i32: 1, 0>} : (tensor<4x1xf32>) -> tensor<1x4xf32>
  %n = tosa.tanh %t : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return
}

// The same with a live use next to the dead chain: the graph stays and the
// transpose feeding only dead code goes.
// CHECK-LABEL: func.func @live_graph_dead_stay
// CHECK: %[[G:.*]] = mirage_kernel.graph
// CHECK-NOT: tosa.transpose
// CHECK: return %[[G]]
func.func @live_graph_dead_stay(%a: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %e = tosa.exp %a : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %t = tosa.transpose %e {perms = array<i32: 1, 0>} : (tensor<4x1xf32>) -> tensor<1x4xf32>
  %n = tosa.tanh %t : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %e : tensor<4x1xf32>
}

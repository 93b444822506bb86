// RUN: mirage-opt %s --mirage-import="remarks=false" | FileCheck %s
// RUN: mirage-opt %s --mirage-import="remarks=false strict-lax=true" | FileCheck %s

// Regression (found by test/Integration/random_tosa.py): a graph whose only
// user is a stay-op (here a clamp other than relu; the test first used a
// transpose, which issue 22 absorbs) feeding a dead imported op became dead
// during dead-code removal and was erased while the pass still held it for
// recognition and the LAX split (use after free). Dead graphs are now dropped
// from that list when they are erased.

// CHECK-LABEL: func.func @dead_graph_behind_stay
// CHECK-NEXT: return
func.func @dead_graph_behind_stay(%a: tensor<4x1xf32>) {
  %e = tosa.exp %a : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %t = tosa.clamp %e {min_val = -1.0 : f32, max_val = 1.0 : f32} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = tosa.tanh %t : (tensor<4x1xf32>) -> tensor<4x1xf32>
  return
}

// The same with a live use next to the dead chain: the graph stays and the
// clamp feeding only dead code goes.
// CHECK-LABEL: func.func @live_graph_dead_stay
// CHECK: %[[G:.*]] = mirage_kernel.graph
// CHECK-NOT: tosa.clamp
// CHECK: return %[[G]]
func.func @live_graph_dead_stay(%a: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %e = tosa.exp %a : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %t = tosa.clamp %e {min_val = -1.0 : f32, max_val = 1.0 : f32} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = tosa.tanh %t : (tensor<4x1xf32>) -> tensor<4x1xf32>
  return %e : tensor<4x1xf32>
}

// The hazard check of mirage-opt (see mirage-opt-upstream-parser-hazard.mlir)
// leaves attribute and property dictionaries alone: the generic form of
// linalg.broadcast carries `dimensions = array<i64: 1>`, which the generic
// attribute parser checks, and parses as usual.
// RUN: mirage-opt %s | FileCheck %s
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<4x8xf32>) dimensions = [1]

func.func @generic_broadcast(%x: tensor<4xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %b = "linalg.broadcast"(%x, %e) <{dimensions = array<i64: 1>}> ({
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }) : (tensor<4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

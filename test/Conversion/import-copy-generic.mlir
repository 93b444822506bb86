// Issue 22: copy generics (the identity torch-mlir emits around layout
// changes) compute nothing. The importer forwards their values instead of
// creating a kernel graph with no kernel (which the PTX pipeline then
// failed on), and a copy feeding real work is absorbed into that work's
// graph.
// RUN: mirage-opt %s --mirage-import | FileCheck %s

#map = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @copy_only
// CHECK-NOT: mirage_kernel.graph
// CHECK-NOT: linalg.generic
// CHECK: return %arg0
func.func @copy_only(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x64xf32>
  return %c : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @copy_then_exp
// CHECK: mirage_kernel.graph
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<8x64xf32>):
// CHECK-NEXT: mirage_kernel.unary exp %[[A]]
// CHECK-NOT: linalg.generic
func.func @copy_then_exp(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = math.exp %in : f32
    linalg.yield %z : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

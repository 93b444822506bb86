// Issue 22 item 3: torch-mlir's f64 statistics in an f32 program must not
// become f64 graphs, which the to-PTX pipeline rejects ("f64 tensors have no
// GPU path"; main's importer produced one for each function below). After
// the import every graph is f32 and gets its PTX: by default the linalg
// statistics are computed in f32 (NarrowStatistics.cpp), so the first
// LayerNorm is one graph; with narrow-f64-statistics=false they stay
// outside, in f64, and the f32 pieces around them are graphs of their own.
// RUN: rm -rf %t && mirage-opt %s --mirage-import=remarks=false --mirage-kernels-to-ptx="output-dir=%t" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t.keep && mirage-opt %s --mirage-import="remarks=false narrow-f64-statistics=false" --mirage-kernels-to-ptx="output-dir=%t.keep" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEEP

// CHECK-NOT: error
// CHECK: remark: graph 'graph0': wrote
// CHECK-NOT: error
// CHECK: remark: graph 'graph1': wrote
// CHECK-NOT: error
// CHECK-NOT: graph2
// KEEP-NOT: error
// KEEP: remark: graph 'graph0': wrote
// KEEP-NOT: error
// KEEP: remark: graph 'graph1': wrote
// KEEP-NOT: error
// KEEP: remark: graph 'graph2': wrote
// KEEP-NOT: error
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @layernorm_f64_variance(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %z = arith.constant 0.0 : f32
  %z64 = arith.constant 0.0 : f64
  %inv = arith.constant 1.250000e-01 : f32
  %inv64 = arith.constant 1.250000e-01 : f64
  %eps = arith.constant 1.0E-5 : f64
  %e3 = tensor.empty() : tensor<2x4x8xf32>
  %e1 = tensor.empty() : tensor<2x4x1xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x8xf32>) outs(%f1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %c = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sum : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in_0, %inv : f32
    %1 = arith.subf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x8xf32>
  %e64 = tensor.empty() : tensor<2x4x8xf64>
    %c64 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<2x4x8xf32>) outs(%e64 : tensor<2x4x8xf64>) {
  ^bb0(%in: f32, %out: f64):
    %0 = arith.extf %in : f32 to f64
    linalg.yield %0 : f64
  } -> tensor<2x4x8xf64>
  %e164 = tensor.empty() : tensor<2x4x1xf64>
  %f164 = linalg.fill ins(%z64 : f64) outs(%e164 : tensor<2x4x1xf64>) -> tensor<2x4x1xf64>
    %v = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c64 : tensor<2x4x8xf64>) outs(%f164 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.mulf %in, %in : f64
    %1 = arith.addf %0, %out : f64
    linalg.yield %1 : f64
  } -> tensor<2x4x1xf64>
    %vm = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v : tensor<2x4x1xf64>) outs(%e164 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.mulf %in, %inv64 : f64
    %1 = arith.addf %0, %eps : f64
    linalg.yield %1 : f64
  } -> tensor<2x4x1xf64>
    %v32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%vm : tensor<2x4x1xf64>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %0 = arith.truncf %in : f64 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c, %v32 : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = math.rsqrt %in_0 : f32
    %1 = arith.mulf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

func.func @variance_f64(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.125> : tensor<1x1xf64>}> : () -> tensor<1x1xf64>
    %x64 = tosa.cast %x : (tensor<2x8xf32>) -> tensor<2x8xf64>
    %sq = tosa.mul %x64, %x64, %shift : (tensor<2x8xf64>, tensor<2x8xf64>, tensor<1xi8>) -> tensor<2x8xf64>
    %s = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<2x8xf64>) -> tensor<2x1xf64>
    %v = tosa.mul %s, %inv, %shift : (tensor<2x1xf64>, tensor<1x1xf64>, tensor<1xi8>) -> tensor<2x1xf64>
    %v32 = tosa.cast %v : (tensor<2x1xf64>) -> tensor<2x1xf32>
  %r = tosa.rsqrt %v32 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = tosa.mul %x, %r, %shift : (tensor<2x8xf32>, tensor<2x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// torch-mlir's f64 LayerNorm statistics (var_mean) in an f32 program are
// computed in f32, as PyTorch does (NarrowStatistics.cpp), with a remark on
// the upcast; with narrow-f64-statistics=false they stay in f64, outside
// every graph (WidenedStatistics.cpp). Islands that are not statistics of a
// narrower program (an f64 argument, an f64 result) are left alone.
// RUN: mirage-opt %s --mirage-import -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mirage-opt %s --mirage-import="narrow-f64-statistics=false remarks=false" -split-input-file | FileCheck %s --check-prefix=KEEP

// BertLayer's LayerNorm as TorchToLinalg writes it: upcast, sum, divide by
// sitofp of the count, centre, square, sum, divide, both statistics
// truncated back, then the f32 normalisation. One graph, no f64 tensor left.
// (The eps stays an f64 scalar truncated in an f32 body: f32 code.)
// CHECK-LABEL: func.func @bert_layernorm
// CHECK-NOT: xf64>
// CHECK: mirage_kernel.graph(%arg0,
// CHECK: mirage_kernel.rms_norm
// CHECK-NOT: mirage_kernel.graph
// CHECK-NOT: xf64>
// CHECK: return
// KEEP-LABEL: func.func @bert_layernorm
// KEEP: arith.extf %{{.*}} : f32 to f64
// KEEP: arith.truncf %{{.*}} : f64 to f32
// KEEP: mirage_kernel.graph
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#w = affine_map<(d0, d1, d2) -> (d2)>
func.func @bert_layernorm(%x: tensor<2x4x8xf32>, %lw: tensor<8xf32>, %lb: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %c8_i64 = arith.constant 8 : i64
  %c1_i64 = arith.constant 1 : i64
  %zero64 = arith.constant 0.0 : f64
  %eps = arith.constant 1.0e-12 : f64
  %e64 = tensor.empty() : tensor<2x4x8xf64>
  // expected-remark @+1 {{f64 statistics computed in f32, the program's type, as PyTorch computes them (18 ops retyped; narrow-f64-statistics=false keeps them in f64)}}
  %x64 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x4x8xf32>) outs(%e64 : tensor<2x4x8xf64>) {
  ^bb0(%in: f32, %out: f64):
    %0 = arith.extf %in : f32 to f64
    linalg.yield %0 : f64
  } -> tensor<2x4x8xf64>
  %e1 = tensor.empty() : tensor<2x4x1xf64>
  %f1 = linalg.fill ins(%zero64 : f64) outs(%e1 : tensor<2x4x1xf64>) -> tensor<2x4x1xf64>
  %s = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x64 : tensor<2x4x8xf64>) outs(%f1 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.addf %in, %out : f64
    linalg.yield %0 : f64
  } -> tensor<2x4x1xf64>
  %e2 = tensor.empty() : tensor<2x4x1xf64>
  %mean = linalg.generic {indexing_maps = [#kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x4x1xf64>) outs(%e2 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.sitofp %c8_i64 : i64 to f64
    %1 = arith.divf %in, %0 : f64
    linalg.yield %1 : f64
  } -> tensor<2x4x1xf64>
  %e3 = tensor.empty() : tensor<2x4x8xf64>
  %c = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x64, %mean : tensor<2x4x8xf64>, tensor<2x4x1xf64>) outs(%e3 : tensor<2x4x8xf64>) {
  ^bb0(%in: f64, %in_0: f64, %out: f64):
    %0 = arith.subf %in, %in_0 : f64
    linalg.yield %0 : f64
  } -> tensor<2x4x8xf64>
  %e4 = tensor.empty() : tensor<2x4x8xf64>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<2x4x8xf64>) outs(%e4 : tensor<2x4x8xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.mulf %in, %in : f64
    linalg.yield %0 : f64
  } -> tensor<2x4x8xf64>
  %e5 = tensor.empty() : tensor<2x4x1xf64>
  %f5 = linalg.fill ins(%zero64 : f64) outs(%e5 : tensor<2x4x1xf64>) -> tensor<2x4x1xf64>
  %ss = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sq : tensor<2x4x8xf64>) outs(%f5 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.addf %in, %out : f64
    linalg.yield %0 : f64
  } -> tensor<2x4x1xf64>
  %e6 = tensor.empty() : tensor<2x4x1xf64>
  %var = linalg.generic {indexing_maps = [#kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ss : tensor<2x4x1xf64>) outs(%e6 : tensor<2x4x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.sitofp %c8_i64 : i64 to f64
    %1 = arith.divf %in, %0 : f64
    linalg.yield %1 : f64
  } -> tensor<2x4x1xf64>
  %t1 = tensor.empty() : tensor<2x4x1xf32>
  %var32 = linalg.generic {indexing_maps = [#kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var : tensor<2x4x1xf64>) outs(%t1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %0 = arith.truncf %in : f64 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %t2 = tensor.empty() : tensor<2x4x1xf32>
  %mean32 = linalg.generic {indexing_maps = [#kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mean : tensor<2x4x1xf64>) outs(%t2 : tensor<2x4x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %0 = arith.truncf %in : f64 to f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %e7 = tensor.empty() : tensor<2x4x8xf32>
  %cx = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean32 : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e7 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.sitofp %c1_i64 : i64 to f32
    %1 = arith.mulf %in_0, %0 : f32
    %2 = arith.subf %in, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<2x4x8xf32>
  %e8 = tensor.empty() : tensor<2x4x1xf32>
  %r = linalg.generic {indexing_maps = [#kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var32 : tensor<2x4x1xf32>) outs(%e8 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.truncf %eps : f64 to f32
    %1 = arith.addf %in, %0 : f32
    %2 = math.rsqrt %1 : f32
    linalg.yield %2 : f32
  } -> tensor<2x4x1xf32>
  %e9 = tensor.empty() : tensor<2x4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #kd, #w, #w, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cx, %r, %lw, %lb : tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e9 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %w: f32, %b: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.mulf %0, %w : f32
    %2 = arith.addf %1, %b : f32
    linalg.yield %2 : f32
  } -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// An f64 program (an f64 argument, no upcast) is not statistics of a
// narrower one: it stays f64.
// CHECK-LABEL: func.func @f64_program
// CHECK: mirage_kernel.graph(%arg0) : (tensor<2x8xf64>) -> tensor<2x8xf64>
// KEEP-LABEL: func.func @f64_program
// KEEP: mirage_kernel.graph(%arg0) : (tensor<2x8xf64>) -> tensor<2x8xf64>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @f64_program(%x: tensor<2x8xf64>) -> tensor<2x8xf64> {
  %e = tensor.empty() : tensor<2x8xf64>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x8xf64>) outs(%e : tensor<2x8xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = arith.mulf %in, %in : f64
    linalg.yield %0 : f64
  } -> tensor<2x8xf64>
  return %y : tensor<2x8xf64>
}

// -----

// An upcast whose f64 result the function returns: the program asked for
// f64, so the island stays, with the remark of WidenedStatistics.cpp.
// CHECK-LABEL: func.func @f64_result
// CHECK: arith.extf
// CHECK: return %{{.*}} : tensor<2x8xf64>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @f64_result(%x: tensor<2x8xf32>) -> tensor<2x8xf64> {
  %e = tensor.empty() : tensor<2x8xf64>
  // expected-remark @+1 {{not imported: f64 computed from an upcast f32 tensor}}
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf64>) {
  ^bb0(%in: f32, %out: f64):
    %0 = arith.extf %in : f32 to f64
    %1 = arith.mulf %0, %0 : f64
    linalg.yield %1 : f64
  } -> tensor<2x8xf64>
  return %y : tensor<2x8xf64>
}

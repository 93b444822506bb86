// Issue 22 item 3, ground truth: the idioms as TorchToLinalg writes them
// (RMSNorm with math.fpowi, sitofp and truncf scalars; GELU approximate=tanh
// with torch-mlir's own beta, imported as its element-wise ops; SiLU with
// the sigmoid spelled 1/(exp(-x)+1); softmax whose max is aten.max.dim's
// two-result generic with an unused index) chained in one program. The
// import must compute what upstream's lowering computes.
// RUN: mlir-opt %s --one-shot-bufferize=bufferize-function-boundaries --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so > %t.upstream
// RUN: mirage-opt %s --mirage-import --mirage-evaluate=print-all -o %t.imported.mlir 2> %t.mirage
// RUN: python3 %S/../compare_outputs.py %t.upstream %t.mirage
// RUN: FileCheck %s --input-file=%t.imported.mlir

// CHECK-LABEL: func.func @main
// CHECK: mirage_kernel.rms_norm
// CHECK: mirage_kernel.unary silu
// CHECK: mirage_kernel.reduce max
// CHECK-NOT: linalg.generic
// CHECK: call @printMemrefF32
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#w = affine_map<(d0, d1, d2) -> (d2)>
func.func @main() {
  %x = arith.constant dense<[[[-5.2850e-01, -1.0475e+00, 4.5280e-01, -1.2827e+00, 1.0765e-01, -4.0293e-01, -1.3260e+00, 2.2307e-02], [-1.3875e+00, -1.9906e-01, -1.2904e+00, -1.2279e+00, -2.2644e-01, 9.8056e-01, -1.1286e+00, -8.3028e-01], [3.8230e-01, 1.3431e+00, 2.3131e-01, -3.0996e-01, 1.4288e+00, -1.3603e+00, 1.0754e+00, -6.3117e-01], [-1.0672e+00, -1.1466e+00, -5.7455e-01, 9.4838e-01, -9.5782e-01, 2.4480e-01, 4.1674e-01, -3.8281e-01]], [[1.4323e-01, -1.3116e+00, -1.3212e+00, -8.8212e-01, 5.4120e-01, -2.1722e-01, -5.5756e-01, 2.5669e-01], [-1.4045e-01, -6.0070e-01, 8.8314e-01, 5.9698e-01, -7.6771e-01, 2.2327e-01, 7.5590e-02, 1.1254e+00], [6.8834e-01, -6.3619e-01, 1.4405e+00, -1.1458e+00, -2.4563e-01, 7.7142e-01, -1.0440e+00, -3.3111e-02], [-1.3824e+00, 5.0465e-01, 7.9371e-01, 2.1908e-01, 1.1264e+00, -5.5876e-01, 5.8589e-01, 2.8311e-01]]]> : tensor<2x4x8xf32>
  %g = arith.constant dense<[2.3969e-01, -1.3138e-01, 1.0199e+00, 1.3340e+00, -7.7705e-02, 4.9246e-01, -1.3180e+00, 6.0448e-01]> : tensor<8xf32>
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c8 = arith.constant 8 : i64
  %eps = arith.constant 9.9999999999999995E-7 : f64
  %z = arith.constant 0.0 : f32
  %c0_i64 = arith.constant 0 : i64
  %lowest = arith.constant -3.40282347E+38 : f32
  %e3 = tensor.empty() : tensor<2x4x8xf32>
  %e1 = tensor.empty() : tensor<2x4x1xf32>
  // RMSNorm
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x4x8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.fpowi %in, %c2 : f32, i64
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sq : tensor<2x4x8xf32>) outs(%f1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<2x4x1xf32>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.sitofp %c8 : i64 to f32
    %1 = arith.divf %in, %0 : f32
    %2 = arith.truncf %eps : f64 to f32
    %3 = arith.addf %1, %2 : f32
    %4 = math.rsqrt %3 : f32
    linalg.yield %4 : f32
  } -> tensor<2x4x1xf32>
  %n = linalg.generic {indexing_maps = [#id, #kd, #w, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %r, %g : tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.mulf %in_1, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x8xf32>
  // GELU (tanh), torch-mlir's constants
  %ge = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%n : tensor<2x4x8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.fpowi %in, %c3 : f32, i64
    %cst = arith.constant 4.471500e-02 : f32
    %1 = arith.mulf %0, %cst : f32
    %2 = arith.addf %in, %1 : f32
    %cst_0 = arith.constant 0.797724068 : f32
    %3 = arith.mulf %cst_0, %2 : f32
    %4 = math.tanh %3 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %5 = arith.addf %cst_1, %4 : f32
    %cst_2 = arith.constant 5.000000e-01 : f32
    %6 = arith.mulf %cst_2, %5 : f32
    %7 = arith.mulf %in, %6 : f32
    linalg.yield %7 : f32
  } -> tensor<2x4x8xf32>
  // SiLU
  %sg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ge : tensor<2x4x8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    %cst = arith.constant 1.000000e+00 : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %cst : f32
    %3 = arith.divf %cst, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x4x8xf32>
  %si = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ge, %sg : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  // Softmax, the max as aten.max.dim
  %ei = tensor.empty() : tensor<2x4x1xi64>
  %fi = linalg.fill ins(%c0_i64 : i64) outs(%ei : tensor<2x4x1xi64>) -> tensor<2x4x1xi64>
  %fm = linalg.fill ins(%lowest : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %m:2 = linalg.generic {indexing_maps = [#id, #kd, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%si : tensor<2x4x8xf32>) outs(%fm, %fi : tensor<2x4x1xf32>, tensor<2x4x1xi64>) {
  ^bb0(%in: f32, %out: f32, %out_0: i64):
    %0 = linalg.index 2 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.maximumf %in, %out : f32
    %3 = arith.cmpf ogt, %in, %out : f32
    %4 = arith.select %3, %1, %out_0 : i64
    linalg.yield %2, %4 : f32, i64
  } -> (tensor<2x4x1xf32>, tensor<2x4x1xi64>)
  %ex = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%si, %m#0 : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.subf %in, %in_0 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x8xf32>
  %fs = linalg.fill ins(%z : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %es = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<2x4x8xf32>) outs(%fs : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %es : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.divf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %printed = tensor.cast %y : tensor<2x4x8xf32> to tensor<*xf32>
  call @printMemrefF32(%printed) : (tensor<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(tensor<*xf32>)

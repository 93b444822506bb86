// Issue 22 item 3: idioms the way TorchToLinalg writes them (keep-dim
// reductions with a constant-0 output map, broadcasts read through
// (d0, d1, 0), scalars as `arith.truncf` of f64 constants and `arith.sitofp`
// of integers, `math.fpowi` with an i64 exponent). Each idiom is one graph of
// exact kernel ops; the driver verifies the output after the pass.
// RUN: mirage-opt %s --mirage-import -split-input-file -verify-diagnostics | FileCheck %s

// RMSNorm: x.pow(2) as math.fpowi, mean as sum / n (n an integer scalar
// converted in the body), + eps (a Python float: f64 truncated), rsqrt, ·x,
// ·weight.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#w = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @rmsnorm_fpowi
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.rms_norm %{{.*}} weight %{{.*}} eps(9.9999999747524271E-7)
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @rmsnorm_fpowi(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %c2 = arith.constant 2 : i64
  %c8 = arith.constant 8 : i64
  %eps = arith.constant 9.9999999999999995E-7 : f64
  %z = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x4x8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.fpowi %in, %c2 : f32, i64
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %e1 = tensor.empty() : tensor<2x4x1xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sq : tensor<2x4x8xf32>) outs(%f1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<2x4x1xf32>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.sitofp %c8 : i64 to f32
    %1 = arith.divf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x1xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mean : tensor<2x4x1xf32>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.truncf %eps : f64 to f32
    %1 = arith.addf %in, %0 : f32
    %2 = math.rsqrt %1 : f32
    linalg.yield %2 : f32
  } -> tensor<2x4x1xf32>
  %n = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %r : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %y = linalg.generic {indexing_maps = [#w, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g, %n : tensor<8xf32>, tensor<2x4x8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// RMSNorm with the square as math.powf x, 2.0, the mean as a multiply by the
// reciprocal constant, and the eps a rank-0 `tensor<f64>` operand truncated
// in the body.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#s = affine_map<(d0, d1, d2) -> ()>
#w = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @rmsnorm_powf
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.rms_norm %{{.*}} weight %{{.*}} eps(9.9999997473787516E-6)
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @rmsnorm_powf(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %two = arith.constant 2.0 : f32
  %inv = arith.constant 1.250000e-01 : f32
  %eps = arith.constant dense<1.0E-5> : tensor<f64>
  %z = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x4x8xf32>
  %e1 = tensor.empty() : tensor<2x4x1xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x8xf32>) outs(%f1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.powf %in, %two : f32
    %1 = arith.addf %0, %out : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x1xf32>
  %r = linalg.generic {indexing_maps = [#id, #s, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum, %eps : tensor<2x4x1xf32>, tensor<f64>) outs(%e1 : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %in_0: f64, %out: f32):
    %0 = arith.mulf %in, %inv : f32
    %1 = arith.truncf %in_0 : f64 to f32
    %2 = arith.addf %0, %1 : f32
    %3 = math.rsqrt %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #kd, #w, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %r, %g : tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.mulf %in_1, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// GELU, approximate="tanh", exactly as TorchToLinalg writes it: x³ as
// math.fpowi, and β = 0.7977240352174656, which is not √(2/π) =
// 0.7978845608…, so this is not the kernel gelu: it is imported as its
// element-wise ops, the cube as x·x·x.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gelu_tanh_torch
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK-NOT: gelu
// CHECK: mirage_kernel.unary square
// CHECK: mirage_kernel.binary mul
// CHECK: mirage_kernel.unary mul_scalar %{{.*}} scalar(0.044714998453855515)
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.unary mul_scalar %{{.*}} scalar(0.79772406816482544)
// CHECK: mirage_kernel.unary tanh
// CHECK-NOT: gelu
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @gelu_tanh_torch(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c3 = arith.constant 3 : i64
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
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The same body with the formula's constant √(2/π) (in f32) and the cube
// written math.powf x, 3.0: the kernel gelu.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gelu_tanh_powf
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.unary gelu
// CHECK-NOT: tanh
// CHECK: return
func.func @gelu_tanh_powf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c3 = arith.constant 3.0 : f32
    %0 = math.powf %in, %c3 : f32
    %cst = arith.constant 4.471500e-02 : f32
    %1 = arith.mulf %0, %cst : f32
    %2 = arith.addf %in, %1 : f32
    %cst_0 = arith.constant 0.797884583 : f32
    %3 = arith.mulf %cst_0, %2 : f32
    %4 = math.tanh %3 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %5 = arith.addf %cst_1, %4 : f32
    %cst_2 = arith.constant 5.000000e-01 : f32
    %6 = arith.mulf %cst_2, %5 : f32
    %7 = arith.mulf %in, %6 : f32
    linalg.yield %7 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// x·x·x written out, the constants in another order: still the kernel gelu.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gelu_tanh_xxx
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.unary gelu
// CHECK-NOT: tanh
// CHECK: return
func.func @gelu_tanh_xxx(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.mulf %0, %in : f32
    %cst = arith.constant 4.471500e-02 : f32
    %2 = arith.mulf %cst, %1 : f32
    %3 = arith.addf %2, %in : f32
    %cst_0 = arith.constant 0.797884583 : f32
    %4 = arith.mulf %3, %cst_0 : f32
    %5 = math.tanh %4 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %6 = arith.addf %5, %cst_1 : f32
    %7 = arith.mulf %in, %6 : f32
    %cst_2 = arith.constant 5.000000e-01 : f32
    %8 = arith.mulf %7, %cst_2 : f32
    linalg.yield %8 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// GELU, approximate="none": 0.5·x·(1 + erf(x/√2)), the body compiled to
// kernel ops around the `erf` unary (the kernel gelu is the tanh form, so
// this is not it).
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gelu_erf
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.unary mul_scalar
// CHECK-SAME: 0.70710676
// CHECK-NEXT: mirage_kernel.unary erf
// CHECK-NEXT: mirage_kernel.unary add_scalar
// CHECK-NOT: math.erf
// CHECK: return
func.func @gelu_erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %cst = arith.constant 0.707106769 : f32
    %0 = arith.mulf %in, %cst : f32
    %1 = math.erf %0 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %2 = arith.addf %cst_0, %1 : f32
    %cst_1 = arith.constant 5.000000e-01 : f32
    %3 = arith.mulf %2, %cst_1 : f32
    %4 = arith.mulf %in, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// SiLU as x·sigmoid(x), the sigmoid as TorchToLinalg writes it,
// 1 / (exp(-x) + 1), in its own generic: silu.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @silu
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.unary silu
// CHECK-NOT: exp
// CHECK: return
func.func @silu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    %cst = arith.constant 1.000000e+00 : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %cst : f32
    %3 = arith.divf %cst, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// SiLU fused into one body, x / (1 + exp(-x)) written x · (1 / (1 + exp(-x))).
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @silu_one_body
// CHECK: mirage_kernel.graph
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[Y:.*]] = mirage_kernel.unary silu %[[X]]
// CHECK-NEXT: mirage_kernel.yield %[[Y]]
func.func @silu_one_body(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %cst = arith.constant 1.000000e+00 : f32
    %0 = arith.negf %in : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %cst, %1 : f32
    %3 = arith.divf %cst, %2 : f32
    %4 = arith.mulf %in, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The sigmoid alone: sigmoid.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sigmoid
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.unary sigmoid
// CHECK-NOT: exp
// CHECK: return
func.func @sigmoid(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    %cst = arith.constant 1.000000e+00 : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %cst : f32
    %3 = arith.divf %cst, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// Softmax as torch-mlir decomposes it: aten.max.dim (keepdim) lowered to one
// generic with a value result (arith.maximumf, init the lowest f32) and an
// index result (cmpf + select over linalg.index) that nobody reads, then
// sub, exp, sum, div. The max becomes `reduce max`; one graph.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func @softmax_max_dim
// CHECK-NOT: linalg.generic
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.reduce max
// CHECK: mirage_kernel.binary sub
// CHECK: mirage_kernel.unary exp
// CHECK: mirage_kernel.reduce sum
// CHECK: mirage_kernel.binary div
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @softmax_max_dim(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %c0_i64 = arith.constant 0 : i64
  %lowest = arith.constant -3.40282347E+38 : f32
  %z = arith.constant 0.0 : f32
  %ei = tensor.empty() : tensor<2x4x1xi64>
  %fi = linalg.fill ins(%c0_i64 : i64) outs(%ei : tensor<2x4x1xi64>) -> tensor<2x4x1xi64>
  %e1 = tensor.empty() : tensor<2x4x1xf32>
  %fm = linalg.fill ins(%lowest : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %m:2 = linalg.generic {indexing_maps = [#id, #kd, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x8xf32>) outs(%fm, %fi : tensor<2x4x1xf32>, tensor<2x4x1xi64>) {
  ^bb0(%in: f32, %out: f32, %out_0: i64):
    %0 = linalg.index 2 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.maximumf %in, %out : f32
    %3 = arith.cmpf ogt, %in, %out : f32
    %4 = arith.select %3, %1, %out_0 : i64
    linalg.yield %2, %4 : f32, i64
  } -> (tensor<2x4x1xf32>, tensor<2x4x1xi64>)
  %e3 = tensor.empty() : tensor<2x4x8xf32>
  %sub = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %m#0 : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.subf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sub : tensor<2x4x8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  %fs = linalg.fill ins(%z : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%exp : tensor<2x4x8xf32>) outs(%fs : tensor<2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<2x4x8xf32>, tensor<2x4x1xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.divf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// aten.max.dim whose index is used (an argmax): no kernel form; it stays
// with a remark, and so does its reader.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func @max_dim_index_used
// CHECK-NOT: mirage_kernel.graph
// CHECK: return
func.func @max_dim_index_used(%x: tensor<2x4x8xf32>) -> (tensor<2x4x1xf32>, tensor<2x4x1xi64>) {
  %c0_i64 = arith.constant 0 : i64
  %lowest = arith.constant -3.40282347E+38 : f32
  %ei = tensor.empty() : tensor<2x4x1xi64>
  %fi = linalg.fill ins(%c0_i64 : i64) outs(%ei : tensor<2x4x1xi64>) -> tensor<2x4x1xi64>
  %e1 = tensor.empty() : tensor<2x4x1xf32>
  %fm = linalg.fill ins(%lowest : f32) outs(%e1 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  // expected-remark @+1 {{not imported: result #1 is used}}
  %m:2 = linalg.generic {indexing_maps = [#id, #kd, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x4x8xf32>) outs(%fm, %fi : tensor<2x4x1xf32>, tensor<2x4x1xi64>) {
  ^bb0(%in: f32, %out: f32, %out_0: i64):
    %0 = linalg.index 2 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.maximumf %in, %out : f32
    %3 = arith.cmpf ogt, %in, %out : f32
    %4 = arith.select %3, %1, %out_0 : i64
    linalg.yield %2, %4 : f32, i64
  } -> (tensor<2x4x1xf32>, tensor<2x4x1xi64>)
  return %m#0, %m#1 : tensor<2x4x1xf32>, tensor<2x4x1xi64>
}

// -----

// LayerNorm with torch-mlir's f64 variance in an f32 program: the centred
// values are upcast in a body (arith.extf), the variance computed in f64 and
// truncated back. The island of f64 ops is computed in f32, as PyTorch
// does (remark on the upcast; NarrowStatistics.cpp): the casts become
// identities and the whole LayerNorm is one graph, the centring then
// rms_norm (mean of squares, + eps, rsqrt, scale); no f64 is left.
// import-narrow-f64-statistics.mlir keeps them in f64 with the option off.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func @layernorm_f64_variance
// CHECK-NOT: f64
// CHECK: mirage_kernel.graph(%arg0) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK: mirage_kernel.reduce sum
// CHECK: mirage_kernel.binary sub
// CHECK: mirage_kernel.rms_norm
// CHECK-NOT: mirage_kernel.graph
// CHECK-NOT: f64
// CHECK: return
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
  // expected-remark @+1 {{f64 statistics computed in f32, the program's type, as PyTorch computes them (7 ops retyped; narrow-f64-statistics=false keeps them in f64)}}
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

// -----

// aten.max.dim in an f16 program: torch-mlir fills the running max with
// f16's lowest finite value, -65504 (not -inf, not below -1e30). It is
// neutral except on an all -inf row, as -inf itself: reduce max.
#id = affine_map<(d0, d1) -> (d0, d1)>
#kd = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @max_dim_f16
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.reduce max %{{.*}} dim 1 : tensor<4x8xf16> -> tensor<4x1xf16>
// CHECK: mirage_kernel.binary sub
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @max_dim_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %c0_i64 = arith.constant 0 : i64
  %lowest = arith.constant -6.550400e+04 : f16
  %ei = tensor.empty() : tensor<4x1xi64>
  %fi = linalg.fill ins(%c0_i64 : i64) outs(%ei : tensor<4x1xi64>) -> tensor<4x1xi64>
  %e1 = tensor.empty() : tensor<4x1xf16>
  %fm = linalg.fill ins(%lowest : f16) outs(%e1 : tensor<4x1xf16>) -> tensor<4x1xf16>
  %m:2 = linalg.generic {indexing_maps = [#id, #kd, #kd], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf16>) outs(%fm, %fi : tensor<4x1xf16>, tensor<4x1xi64>) {
  ^bb0(%in: f16, %out: f16, %out_0: i64):
    %0 = linalg.index 1 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.maximumf %in, %out : f16
    %3 = arith.cmpf ogt, %in, %out : f16
    %4 = arith.select %3, %1, %out_0 : i64
    linalg.yield %2, %4 : f16, i64
  } -> (tensor<4x1xf16>, tensor<4x1xi64>)
  %e = tensor.empty() : tensor<4x8xf16>
  %y = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m#0 : tensor<4x8xf16>, tensor<4x1xf16>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %0 = arith.subf %in, %in_0 : f16
    linalg.yield %0 : f16
  } -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

// Forms that stay, each with its remark: a max whose value is a
// select(cmpf) (it skips NaN where reduce max propagates it), a cube by
// math.fpowi with an exponent that has no kernel form, and a round trip
// through f16 in an f32 body (a cast of a computed value).
#id = affine_map<(d0, d1) -> (d0, d1)>
#kd = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @forms_that_stay
// CHECK-NOT: mirage_kernel.graph
// CHECK: return
func.func @forms_that_stay(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %lowest = arith.constant -3.40282347E+38 : f32
  %c5 = arith.constant 5 : i64
  %e1 = tensor.empty() : tensor<4x1xf32>
  %fm = linalg.fill ins(%lowest : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  // expected-remark @+1 {{not imported: reduction body uses the accumulator more than once}}
  %m = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%fm : tensor<4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf ogt, %in, %out : f32
    %1 = arith.select %0, %in, %out : f32
    linalg.yield %1 : f32
  } -> tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{not imported: math.fpowi whose exponent is not a constant with a kernel form (-1, 1, 2, 3)}}
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.fpowi %in, %c5 : f32, i64
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  // expected-remark @+1 {{not imported: body op 'arith.truncf' casts a computed value (there is no kernel cast)}}
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.truncf %in : f32 to f16
    %1 = arith.extf %0 : f16 to f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  return %m, %p, %h : tensor<4x1xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// torch-mlir's add with alpha = 1: `in + other · sitofp(1)` in the body.
// The multiply by one is dropped (exact for every value, NaN and -0
// included), so the graph is the add alone.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_alpha_one
// CHECK: mirage_kernel.graph
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mirage_kernel.binary add
// CHECK-NEXT: mirage_kernel.yield
func.func @add_alpha_one(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c1 = arith.constant 1 : i64
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %a = arith.sitofp %c1 : i64 to f32
    %m = arith.mulf %in_0, %a : f32
    %s = arith.addf %in, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

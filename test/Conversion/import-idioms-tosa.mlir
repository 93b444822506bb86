// Issue 22 item 3: idioms the way TorchToTosa writes them (splat operands
// as rank-equal [1, 1, 1] constants, tosa.mul with its shift operand, the
// weight reshaped to [1, 1, h]). Each idiom is one graph of exact kernel ops.
// RUN: mirage-opt %s --mirage-import -split-input-file -verify-diagnostics | FileCheck %s

// RMSNorm: x.pow(2) as tosa.pow with a splat 2, mean as reduce_sum times the
// reciprocal constant, + eps, rsqrt, ·x, ·weight.
// CHECK-LABEL: func.func @rmsnorm
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.rms_norm %{{.*}} weight %{{.*}} eps(9.9999997473787516E-6)
// CHECK-NOT: tosa.
// CHECK: return
func.func @rmsnorm(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %inv = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-05> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s = tosa.const_shape {values = dense<[1, 1, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sq = tosa.pow %x, %two : (tensor<2x4x8xf32>, tensor<1x1x1xf32>) -> tensor<2x4x8xf32>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %mean = tosa.mul %sum, %inv, %shift : (tensor<2x4x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x1xf32>
  %a = tosa.add %mean, %eps : (tensor<2x4x1xf32>, tensor<1x1x1xf32>) -> tensor<2x4x1xf32>
  %r = tosa.rsqrt %a : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %n = tosa.mul %x, %r, %shift : (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  // The weight's reshape is the graph's operand (a view, not a cut).
  // expected-remark @+1 {{not imported: layout change with no imported op on both sides}}
  %g3 = tosa.reshape %g, %s : (tensor<8xf32>, !tosa.shape<3>) -> tensor<1x1x8xf32>
  %y = tosa.mul %g3, %n, %shift : (tensor<1x1x8xf32>, tensor<2x4x8xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// The mean as TorchToTosa writes aten.div.Scalar before folding: the
// reciprocal of the divisor constant, then tosa.mul. The reciprocal is
// folded before import (FoldConstants.cpp), so the mean is a mul_scalar by
// 1/8 and the whole is the rms_norm pattern; neither constant is left.
// CHECK-LABEL: func.func @rmsnorm_reciprocal
// CHECK-NOT: tosa.
// CHECK: mirage_kernel.graph
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2x4x8xf32>):
// CHECK-NEXT: %[[N:.*]] = mirage_kernel.rms_norm %[[X]] eps(9.9999997473787516E-6)
// CHECK-NEXT: mirage_kernel.yield %[[N]]
// CHECK-NOT: tosa.
// CHECK: return
func.func @rmsnorm_reciprocal(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %n = "tosa.const"() <{values = dense<8.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-05> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %sq = tosa.pow %x, %two : (tensor<2x4x8xf32>, tensor<1x1x1xf32>) -> tensor<2x4x8xf32>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %inv = tosa.reciprocal %n : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %mean = tosa.mul %sum, %inv, %shift : (tensor<2x4x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x1xf32>
  %a = tosa.add %mean, %eps : (tensor<2x4x1xf32>, tensor<1x1x1xf32>) -> tensor<2x4x1xf32>
  %r = tosa.rsqrt %a : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %y = tosa.mul %x, %r, %shift : (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<1xi8>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// GELU, tanh form with the cube as tosa.pow x, 3 and the formula's
// constants: gelu.
// CHECK-LABEL: func.func @gelu_tanh_pow
// CHECK: mirage_kernel.graph
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2x8xf32>):
// CHECK-NEXT: %[[Y:.*]] = mirage_kernel.unary gelu %[[X]]
// CHECK-NEXT: mirage_kernel.yield %[[Y]]
func.func @gelu_tanh_pow(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %three = "tosa.const"() <{values = dense<3.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %k = "tosa.const"() <{values = dense<0.797884583> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %c = "tosa.const"() <{values = dense<0.044715> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %x3 = tosa.pow %x, %three : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
  %cx3 = tosa.mul %x3, %c, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %in = tosa.add %x, %cx3 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %sin = tosa.mul %in, %k, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %t = tosa.tanh %sin : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %u = tosa.add %t, %one : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
  %hx = tosa.mul %x, %half, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %y = tosa.mul %hx, %u, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// The same with the cube as x·x·x and a rounded √(2/π) (0.79788, off by
// 6e-6 relative, more than f32 rounding): another function, imported as its
// element-wise ops (recognition used to accept it, within 1e-5).
// CHECK-LABEL: func.func @gelu_tanh_other_constant
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK-NOT: gelu
// CHECK: mirage_kernel.unary tanh
// CHECK-NOT: gelu
// CHECK: return
func.func @gelu_tanh_other_constant(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %k = "tosa.const"() <{values = dense<0.79788> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %c = "tosa.const"() <{values = dense<0.044715> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %x2 = tosa.mul %x, %x, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %x3 = tosa.mul %x2, %x, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %cx3 = tosa.mul %x3, %c, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %in = tosa.add %x, %cx3 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %sin = tosa.mul %in, %k, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %t = tosa.tanh %sin : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %u = tosa.add %t, %one : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
  %hx = tosa.mul %x, %half, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %y = tosa.mul %hx, %u, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// GELU, erf form, with tosa.erf: one graph around the `erf` unary (the
// kernel gelu is the tanh form, so this is not it).
// CHECK-LABEL: func.func @gelu_erf
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.unary erf
// CHECK-NOT: tosa.erf
// CHECK-NOT: mirage_kernel.graph
// CHECK: return
func.func @gelu_erf(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %rs2 = "tosa.const"() <{values = dense<0.707106769> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %a = tosa.mul %x, %rs2, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %e = tosa.erf %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %u = tosa.add %e, %one : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
  %hx = tosa.mul %x, %half, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %y = tosa.mul %hx, %u, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// SiLU as x·sigmoid(x) (TorchToTosa's tosa.sigmoid, then tosa.mul): silu.
// CHECK-LABEL: func.func @silu
// CHECK: mirage_kernel.graph
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2x8xf32>):
// CHECK-NEXT: %[[Y:.*]] = mirage_kernel.unary silu %[[X]]
// CHECK-NEXT: mirage_kernel.yield %[[Y]]
func.func @silu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.sigmoid %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = tosa.mul %x, %s, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// The sigmoid spelled 1/(1+exp(-x)) with tosa.negate, then ·x: silu.
// CHECK-LABEL: func.func @silu_spelled
// CHECK: mirage_kernel.graph
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2x8xf32>):
// CHECK-NEXT: %[[Y:.*]] = mirage_kernel.unary silu %[[X]]
// CHECK-NEXT: mirage_kernel.yield %[[Y]]
func.func @silu_spelled(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %n = tosa.negate %x, %zp, %zp : (tensor<2x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8xf32>
  %e = tosa.exp %n : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %a = tosa.add %e, %one : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
  %s = tosa.reciprocal %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = tosa.mul %s, %x, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// torch-mlir's f64 statistics in TOSA: tosa.cast up to f64, the variance
// in f64, tosa.cast back. The f64 ops stay; no f64 graph.
// CHECK-LABEL: func.func @variance_f64
// CHECK: tosa.cast
// CHECK-NOT: mirage_kernel.graph
// CHECK: tosa.cast
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.unary rsqrt
// CHECK: return
func.func @variance_f64(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<0.125> : tensor<1x1xf64>}> : () -> tensor<1x1xf64>
  // expected-remark @+1 {{not imported: f64 computed from an upcast f32 tensor}}
  %x64 = tosa.cast %x : (tensor<2x8xf32>) -> tensor<2x8xf64>
  // expected-remark @+1 {{not imported: f64 computed from an upcast f32 tensor}}
  %sq = tosa.mul %x64, %x64, %shift : (tensor<2x8xf64>, tensor<2x8xf64>, tensor<1xi8>) -> tensor<2x8xf64>
  // expected-remark @+1 {{not imported: f64 computed from an upcast f32 tensor}}
  %s = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<2x8xf64>) -> tensor<2x1xf64>
  // expected-remark @+1 {{not imported: f64 computed from an upcast f32 tensor}}
  %v = tosa.mul %s, %inv, %shift : (tensor<2x1xf64>, tensor<1x1xf64>, tensor<1xi8>) -> tensor<2x1xf64>
  // expected-remark @+1 {{not imported: no kernel equivalent for 'tosa.cast'}}
  %v32 = tosa.cast %v : (tensor<2x1xf64>) -> tensor<2x1xf32>
  %r = tosa.rsqrt %v32 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = tosa.mul %x, %r, %shift : (tensor<2x8xf32>, tensor<2x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

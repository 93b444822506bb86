// RUN: mirage-opt %s --mirage-import="remarks=false" | FileCheck %s
// RUN: mirage-opt %s --mirage-import="remarks=false strict-lax=true" | FileCheck %s --check-prefix=STRICT
// RUN: mirage-opt %S/../../examples/workloads/tosa/rmsnorm_matmul.mlir --mirage-import | FileCheck %s --check-prefix=RMS
// RUN: mirage-opt %S/../../examples/workloads/tosa/gated_mlp.mlir --mirage-import | FileCheck %s --check-prefix=MLP

// RMS-LABEL: func.func @rmsnorm_matmul
// RMS: mirage_kernel.graph
// RMS: mirage_kernel.rms_norm %{{.*}} weight %{{.*}} eps(
// RMS-NEXT: mirage_kernel.matmul
// RMS-NOT: tosa.
// RMS: return

// MLP-LABEL: func.func @gated_mlp
// MLP: mirage_kernel.graph
// MLP-SAME: mirage.non_lax = ["silu"]
// MLP: mirage_kernel.matmul
// MLP: mirage_kernel.unary silu
// MLP: mirage_kernel.matmul
// MLP: mirage_kernel.binary mul
// MLP-NOT: tosa.

// A single op: the graph takes the function arguments, zero points vanish.
// CHECK-LABEL: func.func @matmul_exp
// CHECK-SAME: (%[[A:.*]]: tensor<1x4x8xf32>, %[[B:.*]]: tensor<1x8x16xf32>)
// CHECK: %[[G:.*]] = mirage_kernel.graph(%[[A]], %[[B]])
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1x4x8xf32>, %[[Y:.*]]: tensor<1x8x16xf32>):
// CHECK-NEXT: %[[M:.*]] = mirage_kernel.matmul %[[X]], %[[Y]]
// CHECK-NEXT: %[[E:.*]] = mirage_kernel.unary exp %[[M]]
// CHECK-NEXT: mirage_kernel.yield %[[E]]
// CHECK: return %[[G]]
func.func @matmul_exp(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>) -> tensor<1x4x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %e = tosa.exp %m : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  return %e : tensor<1x4x16xf32>
}

// Splat constants fold into scalars; a dense constant becomes an operand.
// CHECK-LABEL: func.func @constants
// CHECK: %[[D:.*]] = "tosa.const"() <{values = dense<[
// CHECK: mirage_kernel.graph(%{{.*}}, %[[D]])
// CHECK: mirage_kernel.unary mul_scalar %{{.*}} scalar(1.250000e-01)
// CHECK: mirage_kernel.unary add_scalar %{{.*}} scalar(-2.000000e+00)
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.unary mul_scalar %{{.*}} scalar(-1.000000e+00)
// CHECK: mirage_kernel.unary relu
func.func @constants(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = "tosa.const"() <{values = dense<0.125> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %d = "tosa.const"() <{values = dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %izp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.mul %x, %s, %shift : (tensor<2x4xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x4xf32>
  %1 = tosa.sub %0, %two : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
  %2 = tosa.add %1, %d : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %3 = tosa.negate %2, %izp, %izp : (tensor<2x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4xf32>
  %4 = tosa.clamp %3 {min_val = 0.0 : f32, max_val = 3.4028235e+38 : f32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %4 : tensor<2x4xf32>
}

// Two exps on one path: the graph is split after the first.
// CHECK-LABEL: func.func @two_exps
// CHECK: %[[G1:.*]] = mirage_kernel.graph(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: mirage_kernel.unary exp
// CHECK-NOT: mirage_kernel.unary exp
// CHECK: mirage_kernel.yield
// CHECK: %[[G2:.*]] = mirage_kernel.graph(%[[G1]])
// CHECK: mirage_kernel.unary exp
// CHECK: mirage_kernel.reduce sum
// CHECK: return %[[G2]]
func.func @two_exps(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %e = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.reciprocal %e : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %f = tosa.exp %r : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %f {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// A transpose between two imported ops is pushed up to a transpose of the
// argument (issue 22): one graph, which reads the argument as it lies
// (transposed_inputs, OperandLayouts.md).
// CHECK-LABEL: func.func @transpose_between
// CHECK-NOT: linalg.transpose
// CHECK: %[[G:.*]] = mirage_kernel.graph(%arg0) attributes {{.*}}transposed_inputs = array<i64: 0>
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8x4xf32>):
// CHECK: mirage_kernel.unary tanh
// CHECK: mirage_kernel.unary sigmoid
// CHECK-NOT: tosa.transpose
// CHECK: return %[[G]]
// In strict mode the non-LAX ops are graphs of their own.
// STRICT-LABEL: func.func @transpose_between
// STRICT: mirage_kernel.graph
// STRICT-SAME: mirage.non_lax = ["tanh"]
// STRICT: mirage_kernel.graph
// STRICT-SAME: mirage.non_lax = ["sigmoid"]
// STRICT: mirage_kernel.graph
// STRICT: mirage_kernel.unary reciprocal
func.func @transpose_between(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = tosa.transpose %a {perms = array<i32: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %b = tosa.sigmoid %t : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %c = tosa.reciprocal %b : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// GELU, tanh form, as frontends decompose it.
// CHECK-LABEL: func.func @gelu
// CHECK: mirage_kernel.graph
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2x8xf32>):
// CHECK-NEXT: %[[Y:.*]] = mirage_kernel.unary gelu %[[X]]
// CHECK-NEXT: mirage_kernel.yield %[[Y]]
func.func @gelu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %k = "tosa.const"() <{values = dense<0.7978845608> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
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

// An intermediate that the function returns is a graph result as well.
// CHECK-LABEL: func.func @two_results
// CHECK: %[[G:.*]]:2 = mirage_kernel.graph
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @two_results(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %e = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %e, %s : tensor<4x8xf32>, tensor<4x1xf32>
}

// A division by a scalar as TorchToTosa writes it (attention's 1/sqrt(d)):
// the reciprocal of the splat constant is folded before import (TOSA's
// folder: 1/4 rounded once), so the product is a mul_scalar, not a graph
// operand and a reciprocal op.
// CHECK-LABEL: func.func @div_by_scalar
// CHECK-NOT: tosa.reciprocal
// CHECK: mirage_kernel.graph(%arg0) : (tensor<1x4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1x4x8xf32>):
// CHECK-NEXT: %[[Y:.*]] = mirage_kernel.unary mul_scalar %[[X]] scalar(2.500000e-01)
// CHECK-NEXT: %[[E:.*]] = mirage_kernel.unary exp %[[Y]]
// CHECK-NEXT: mirage_kernel.yield %[[E]]
func.func @div_by_scalar(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<4.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %r = tosa.reciprocal %c : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %y = tosa.mul %x, %r, %shift : (tensor<1x4x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  %e = tosa.exp %y : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %e : tensor<1x4x8xf32>
}

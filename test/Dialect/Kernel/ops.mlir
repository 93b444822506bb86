// RUN: mirage-opt %s | FileCheck %s
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s -mlir-print-op-generic | mirage-opt | FileCheck %s

// CHECK-LABEL: func.func @kernel_ops
func.func @kernel_ops(%x: tensor<2x8x64xf16>, %w: tensor<2x64x32xf16>, %g: tensor<1x1x64xf16>) -> tensor<2x8x1xf16> {
  // CHECK: mirage_kernel.graph "ops"(%{{.*}}, %{{.*}}, %{{.*}})
  %r = mirage_kernel.graph "ops" (%x, %w, %g) : (tensor<2x8x64xf16>, tensor<2x64x32xf16>, tensor<1x1x64xf16>) -> tensor<2x8x1xf16> {
  ^bb0(%a: tensor<2x8x64xf16>, %b: tensor<2x64x32xf16>, %c: tensor<1x1x64xf16>):
    // CHECK: %[[N:.*]] = mirage_kernel.rms_norm %{{.*}} weight %{{.*}} eps(1.000000e-05) : tensor<2x8x64xf16>, tensor<1x1x64xf16> -> tensor<2x8x64xf16>
    %n = mirage_kernel.rms_norm %a weight %c eps(1.0e-5) : tensor<2x8x64xf16>, tensor<1x1x64xf16> -> tensor<2x8x64xf16>
    // CHECK: %[[M:.*]] = mirage_kernel.matmul %[[N]], %{{.*}} : tensor<2x8x64xf16>, tensor<2x64x32xf16> -> tensor<2x8x32xf16>
    %m = mirage_kernel.matmul %n, %b : tensor<2x8x64xf16>, tensor<2x64x32xf16> -> tensor<2x8x32xf16>
    // CHECK: %[[S:.*]] = mirage_kernel.unary silu %[[M]] : tensor<2x8x32xf16>
    %s = mirage_kernel.unary silu %m : tensor<2x8x32xf16>
    // CHECK: %[[T:.*]] = mirage_kernel.unary mul_scalar %[[S]] scalar(1.250000e-01) : tensor<2x8x32xf16>
    %t = mirage_kernel.unary mul_scalar %s scalar(0.125) : tensor<2x8x32xf16>
    // CHECK: %[[R:.*]] = mirage_kernel.reduce max %[[T]] dim 2 to 8 : tensor<2x8x32xf16> -> tensor<2x8x8xf16>
    %u = mirage_kernel.reduce max %t dim 2 to 8 : tensor<2x8x32xf16> -> tensor<2x8x8xf16>
    // CHECK: %[[C:.*]] = mirage_kernel.concat %[[R]], %[[R]] dim 2 : tensor<2x8x8xf16>, tensor<2x8x8xf16> -> tensor<2x8x16xf16>
    %v = mirage_kernel.concat %u, %u dim 2 : tensor<2x8x8xf16>, tensor<2x8x8xf16> -> tensor<2x8x16xf16>
    // CHECK: %[[Q:.*]] = mirage_kernel.reduce sum %[[C]] dim 2 : tensor<2x8x16xf16> -> tensor<2x8x1xf16>
    %w2 = mirage_kernel.reduce sum %v dim 2 : tensor<2x8x16xf16> -> tensor<2x8x1xf16>
    // CHECK: mirage_kernel.binary pow %[[Q]], %[[Q]] : tensor<2x8x1xf16>, tensor<2x8x1xf16> -> tensor<2x8x1xf16>
    %p = mirage_kernel.binary pow %w2, %w2 : tensor<2x8x1xf16>, tensor<2x8x1xf16> -> tensor<2x8x1xf16>
    mirage_kernel.yield %p : tensor<2x8x1xf16>
  }
  return %r : tensor<2x8x1xf16>
}

// An input stored transposed (OperandLayouts.md): the operand as it lies,
// the body argument its transpose.
// CHECK-LABEL: func.func @transposed_input
func.func @transposed_input(%x: tensor<4x64xf16>, %w: tensor<32x64xf16>) -> tensor<4x32xf16> {
  // CHECK: mirage_kernel.graph(%{{.*}}, %{{.*}}) attributes {transposed_inputs = array<i64: 1>} : (tensor<4x64xf16>, tensor<32x64xf16>) -> tensor<4x32xf16>
  // CHECK: ^bb0(%{{.*}}: tensor<4x64xf16>, %{{.*}}: tensor<64x32xf16>):
  %y = mirage_kernel.graph (%x, %w) attributes {transposed_inputs = array<i64: 1>} : (tensor<4x64xf16>, tensor<32x64xf16>) -> tensor<4x32xf16> {
  ^bb0(%a: tensor<4x64xf16>, %b: tensor<64x32xf16>):
    %m = mirage_kernel.matmul %a, %b : tensor<4x64xf16>, tensor<64x32xf16> -> tensor<4x32xf16>
    mirage_kernel.yield %m : tensor<4x32xf16>
  }
  return %y : tensor<4x32xf16>
}

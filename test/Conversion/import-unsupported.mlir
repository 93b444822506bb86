// RUN: mirage-opt %s --mirage-import -split-input-file -verify-diagnostics | FileCheck %s

// Integer tensors stay.
// CHECK-LABEL: func.func @int_add
// CHECK: tosa.add
// CHECK-NOT: mirage_kernel
func.func @int_add(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-remark @+1 {{not imported: result: element type i32 (only f16, bf16, f32, f64)}}
  %0 = tosa.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Dynamic shapes stay.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: mirage_kernel
func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-remark @+1 {{not imported: result: dynamic shape}}
  %0 = tosa.exp %a : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Ops with no kernel equivalent stay; the importable ops around them become
// graphs.
// CHECK-LABEL: func.func @argmax_between
// CHECK: mirage_kernel.graph
// CHECK: tosa.argmax
func.func @argmax_between(%a: tensor<4x8xf32>) -> tensor<4xi32> {
  %e = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{not imported: result: element type i32}}
  %m = tosa.argmax %e {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4xi32>
  return %m : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @conv
// CHECK: tosa.conv2d
func.func @conv(%in: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{not imported: no kernel equivalent for 'tosa.conv2d'}}
  %0 = tosa.conv2d %in, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

// Rank 5 is beyond the kernel dialect.
func.func @rank5(%a: tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32> {
  // expected-remark @+1 {{not imported: result: rank 5 (kernel tensors have rank 1 to 4)}}
  %0 = tosa.exp %a : (tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}

// -----

// A reshape with no imported op on either side stays where it is (it
// would be a graph's operand view, not a cut); a clamp other than relu
// stays.
func.func @layout(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %s = tosa.const_shape {values = dense<[8, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-remark @+1 {{not imported: layout change with no imported op on both sides (a graph's operand or result, not a cut)}}
  %r = tosa.reshape %a, %s {} : (tensor<4x8xf32>, !tosa.shape<2>) -> tensor<8x4xf32>
  // expected-remark @+1 {{not imported: clamp other than relu}}
  %c = tosa.clamp %r {min_val = -1.0 : f32, max_val = 1.0 : f32} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// A materialised broadcast has no kernel op; a contraction with two
// contracted loops would need them merged in both operands (only two row
// loops are merged, "Merged forms" in Import.md).
#x = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @linalg_layout(%a: tensor<8xf32>, %x: tensor<8x2x32xf32>, %w: tensor<2x32x16xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{not imported: the result is broadcast along d0, which no input reads (the kernel dialect has no broadcast op)}}
  %b = linalg.broadcast ins(%a : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{not imported: contraction with more than one column or contracted loop, or more than two row loops (the kernel matmul would need them merged)}}
  %m = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<8x2x32xf32>, tensor<2x32x16xf32>) outs(%f : tensor<8x16xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x16xf32>
  return %b, %m : tensor<4x8xf32>, tensor<8x16xf32>
}

// -----

// A transpose that would move a matmul's row dim into the batch dims has no
// kernel form (issue 22): it stays between the graphs, saying why.
func.func @transpose_into_batch(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<4x2x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
  // expected-remark @+1 {{not imported: its group could not form a kernel graph: its layout change has no kernel form}}
  %t = tosa.transpose %m {perms = array<i32: 1, 0, 2>} : (tensor<2x4x4xf32>) -> tensor<4x2x4xf32>
  %e = tosa.exp %t : (tensor<4x2x4xf32>) -> tensor<4x2x4xf32>
  return %e : tensor<4x2x4xf32>
}

// -----

// Ops outside linalg and TOSA that move data the kernel dialect cannot
// (a slice) stay with a remark, like their TOSA forms; the head split
// before it has no imported op on either side and stays without one (a
// view); the exp after them is imported.
// CHECK-LABEL: func.func @head_split_and_slice
// CHECK: tensor.expand_shape
// CHECK: tensor.extract_slice
// CHECK: mirage_kernel.graph
func.func @head_split_and_slice(%x: tensor<16x64xf32>) -> tensor<16x2x16xf32> {
  %h = tensor.expand_shape %x [[0], [1, 2]] output_shape [16, 4, 16] : tensor<16x64xf32> into tensor<16x4x16xf32>
  // expected-remark @+1 {{not imported: no kernel equivalent}}
  %s = tensor.extract_slice %h[0, 0, 0] [16, 2, 16] [1, 1, 1] : tensor<16x4x16xf32> to tensor<16x2x16xf32>
  %e = math.exp %s : tensor<16x2x16xf32>
  return %e : tensor<16x2x16xf32>
}

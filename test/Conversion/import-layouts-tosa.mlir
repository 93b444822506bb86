// Issue 22: layout changes the way TorchToTosa writes them (unit-dim
// tosa.reshape around every rank-3 tosa.matmul, tosa.transpose of K) are
// absorbed, so each block is one graph. The output still verifies (the
// driver verifies after the pass).
// RUN: mirage-opt %s --mirage-import="remarks=false" --split-input-file | FileCheck %s

// Attention as TorchToTosa emits it for [1, h, s, d] tensors: rank-4 values,
// rank-3 matmuls, reshapes that only drop or add the leading unit dim.
// CHECK-LABEL: func.func @attention
// CHECK-COUNT-1: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK-DAG: mirage_kernel.matmul
// CHECK-DAG: mirage_kernel.reduce max
// CHECK-DAG: mirage_kernel.unary exp
// CHECK-DAG: mirage_kernel.reduce sum
// CHECK-NOT: tosa.matmul
// CHECK-NOT: tosa.exp
// CHECK-NOT: tosa.reduce
// CHECK: return
func.func @attention(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %s3 = tosa.const_shape {values = dense<[4, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s3t = tosa.const_shape {values = dense<[4, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s3p = tosa.const_shape {values = dense<[4, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s4p = tosa.const_shape {values = dense<[1, 4, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s4o = tosa.const_shape {values = dense<[1, 4, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %kt = tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x4x8x16xf32>) -> tensor<1x4x16x8xf32>
  %q3 = tosa.reshape %q, %s3 : (tensor<1x4x8x16xf32>, !tosa.shape<3>) -> tensor<4x8x16xf32>
  %k3 = tosa.reshape %kt, %s3t : (tensor<1x4x16x8xf32>, !tosa.shape<3>) -> tensor<4x16x8xf32>
  %m = tosa.matmul %q3, %k3, %zp, %zp : (tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8xf32>
  %m4 = tosa.reshape %m, %s4p : (tensor<4x8x8xf32>, !tosa.shape<4>) -> tensor<1x4x8x8xf32>
  %sc = tosa.mul %m4, %scale, %shift : (tensor<1x4x8x8xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x8x8xf32>
  %mx = tosa.reduce_max %sc {axis = 3 : i32} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x1xf32>
  %d = tosa.sub %sc, %mx : (tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>) -> tensor<1x4x8x8xf32>
  %e = tosa.exp %d : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %sum = tosa.reduce_sum %e {axis = 3 : i32} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x1xf32>
  %r = tosa.reciprocal %sum : (tensor<1x4x8x1xf32>) -> tensor<1x4x8x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>, tensor<1xi8>) -> tensor<1x4x8x8xf32>
  %p3 = tosa.reshape %p, %s3p : (tensor<1x4x8x8xf32>, !tosa.shape<3>) -> tensor<4x8x8xf32>
  %v3 = tosa.reshape %v, %s3 : (tensor<1x4x8x16xf32>, !tosa.shape<3>) -> tensor<4x8x16xf32>
  %o = tosa.matmul %p3, %v3, %zp, %zp : (tensor<4x8x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x16xf32>
  %o4 = tosa.reshape %o, %s4o : (tensor<4x8x16xf32>, !tosa.shape<4>) -> tensor<1x4x8x16xf32>
  return %o4 : tensor<1x4x8x16xf32>
}

// -----

// K computed inside the block and transposed there: the transpose is pushed
// up through the projection ((X·Wk)ᵀ = Wkᵀ·Xᵀ) to transposes of the
// arguments, which the one graph reads as they lie (OperandLayouts.md).
// CHECK-LABEL: func.func @projected_kt
// The operands' order is the same whatever compiler built the importer
// (it once followed the order in which a call's arguments were
// evaluated: GCC's release builds and clang's sanitizer builds differed).
// CHECK-NOT: linalg.transpose
// CHECK: mirage_kernel.graph(%arg0, %arg1, %arg0, %arg2) attributes {transposed_inputs = array<i64: 2, 3>}
// CHECK-SAME: (tensor<1x8x32xf32>, tensor<1x32x16xf32>, tensor<1x8x32xf32>, tensor<1x32x16xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<1x8x32xf32>, %{{.*}}: tensor<1x32x16xf32>, %{{.*}}: tensor<1x32x8xf32>, %{{.*}}: tensor<1x16x32xf32>):
// CHECK-NOT: mirage_kernel.graph
// CHECK-NOT: tosa.transpose
// CHECK-NOT: tosa.matmul
// CHECK: return
func.func @projected_kt(%x: tensor<1x8x32xf32>, %wq: tensor<1x32x16xf32>, %wk: tensor<1x32x16xf32>) -> tensor<1x8x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %qq = tosa.matmul %x, %wq, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %kk = tosa.matmul %x, %wk, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %kt = tosa.transpose %kk {perms = array<i32: 0, 2, 1>} : (tensor<1x8x16xf32>) -> tensor<1x16x8xf32>
  %s = tosa.matmul %qq, %kt, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %e = tosa.exp %s : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x8x8xf32>) -> tensor<1x8x1xf32>
  return %sum : tensor<1x8x1xf32>
}

// -----

// An MLP as TorchToTosa writes nn.Linear on [8, 64] activations: the weight
// transposed (an argument: a boundary), rank-3 matmuls between unit-dim
// reshapes, a bias reshaped to [1, n], relu as a clamp. The weights are
// read as nn.Linear stores them (N x K, viewed with the matmul's unit batch
// dim): transposed inputs, no transpose left (OperandLayouts.md).
// CHECK-LABEL: func.func @mlp
// CHECK-NOT: tosa.transpose
// CHECK: tensor.expand_shape %arg1 {{.*}} into tensor<1x32x64xf32>
// CHECK: tensor.expand_shape %arg3 {{.*}} into tensor<1x16x32xf32>
// CHECK-COUNT-1: mirage_kernel.graph
// CHECK-SAME: transposed_inputs = array<i64: 1, 2>
// CHECK-NOT: mirage_kernel.graph
// CHECK-COUNT-2: mirage_kernel.matmul
// CHECK-NOT: tosa.matmul
// CHECK-NOT: tosa.add
// CHECK-NOT: tosa.clamp
// CHECK: return
func.func @mlp(%x: tensor<8x64xf32>, %w1: tensor<32x64xf32>, %b1: tensor<32xf32>, %w2: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %sx = tosa.const_shape {values = dense<[1, 8, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sw1 = tosa.const_shape {values = dense<[1, 64, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sh = tosa.const_shape {values = dense<[8, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sb = tosa.const_shape {values = dense<[1, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sh3 = tosa.const_shape {values = dense<[1, 8, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sw2 = tosa.const_shape {values = dense<[1, 32, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %so = tosa.const_shape {values = dense<[8, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %w1t = tosa.transpose %w1 {perms = array<i32: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
  %x3 = tosa.reshape %x, %sx : (tensor<8x64xf32>, !tosa.shape<3>) -> tensor<1x8x64xf32>
  %w13 = tosa.reshape %w1t, %sw1 : (tensor<64x32xf32>, !tosa.shape<3>) -> tensor<1x64x32xf32>
  %h3 = tosa.matmul %x3, %w13, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x32xf32>
  %h = tosa.reshape %h3, %sh : (tensor<1x8x32xf32>, !tosa.shape<2>) -> tensor<8x32xf32>
  %bb = tosa.reshape %b1, %sb : (tensor<32xf32>, !tosa.shape<2>) -> tensor<1x32xf32>
  %hb = tosa.add %h, %bb : (tensor<8x32xf32>, tensor<1x32xf32>) -> tensor<8x32xf32>
  %a = tosa.clamp %hb {min_val = 0.0 : f32, max_val = 3.4028235e+38 : f32} : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %w2t = tosa.transpose %w2 {perms = array<i32: 1, 0>} : (tensor<16x32xf32>) -> tensor<32x16xf32>
  %a3 = tosa.reshape %a, %sh3 : (tensor<8x32xf32>, !tosa.shape<3>) -> tensor<1x8x32xf32>
  %w23 = tosa.reshape %w2t, %sw2 : (tensor<32x16xf32>, !tosa.shape<3>) -> tensor<1x32x16xf32>
  %o3 = tosa.matmul %a3, %w23, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %o = tosa.reshape %o3, %so : (tensor<1x8x16xf32>, !tosa.shape<2>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// A transpose that would move a matmul's row dim into the batch dims has no
// kernel form: it stays, between two graphs.
// CHECK-LABEL: func.func @transpose_into_batch
// CHECK: mirage_kernel.graph
// CHECK: tosa.transpose
// CHECK: mirage_kernel.graph
func.func @transpose_into_batch(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<4x2x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x4xf32>
  %t = tosa.transpose %m {perms = array<i32: 1, 0, 2>} : (tensor<2x4x4xf32>) -> tensor<4x2x4xf32>
  %e = tosa.exp %t : (tensor<4x2x4xf32>) -> tensor<4x2x4xf32>
  return %e : tensor<4x2x4xf32>
}

// -----

// Regression (random_tosa.py, structural seed 2): the graph body is CSE'd
// after layout changes were pushed up (they may rebuild an op twice); a
// yielded value CSE replaced was still held and read after its op was
// erased (SIGSEGV). Two equal ops whose results are both returned, and
// joined by a common reader.
// CHECK-LABEL: func.func @duplicate_results
// CHECK: %[[G:.*]]:3 = mirage_kernel.graph
// CHECK: mirage_kernel.unary exp
// CHECK-NOT: mirage_kernel.unary exp
// CHECK: return %[[G]]#0, %[[G]]#1, %[[G]]#2
func.func @duplicate_results(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// tosa.identity (the dynamo importer's, before a view) is a layout op that
// moves nothing: the exp and the sum around it are one graph.
// CHECK-LABEL: func.func @identity_between
// CHECK-NOT: tosa.identity
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.unary exp
// CHECK-NEXT: mirage_kernel.reduce sum
// CHECK-NOT: mirage_kernel.graph
// CHECK: return
func.func @identity_between(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %e = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %i = tosa.identity %e : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %i {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// -----

// BERT's output block at batch 2, as TorchToTosa writes it: the linear
// layer views its [2, 8, 16] activation as [1, 16, 16] around tosa.matmul
// and the result back to [2, 8, 16]; bias, residual and a LayerNorm
// reduction follow on [2, 8, 16]. Merged forms keep the rows merged in the
// graph ([1, 16, 16]): one graph, with the residual viewed there outside
// it and the result viewed back after it.
// CHECK-LABEL: func.func @linear_batch2_layernorm
// CHECK: %[[R:.*]] = tensor.collapse_shape %arg3 {{\[\[}}0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
// CHECK: %[[R3:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [1, 16, 16] : tensor<16x16xf32> into tensor<1x16x16xf32>
// CHECK: %[[G:.*]] = mirage_kernel.graph
// CHECK: mirage_kernel.matmul %{{.*}}, %{{.*}} : tensor<1x16x16xf32>, tensor<1x16x16xf32> -> tensor<1x16x16xf32>
// CHECK: mirage_kernel.reduce sum %{{.*}} dim 2 {{.*}} -> tensor<1x16x1xf32>
// CHECK-NOT: mirage_kernel.graph
// CHECK-NOT: tosa.
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1], [2]] : tensor<1x16x1xf32> into tensor<16x1xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [2, 8, 1] : tensor<16x1xf32> into tensor<2x8x1xf32>
func.func @linear_batch2_layernorm(%x: tensor<2x8x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>, %r: tensor<2x8x16xf32>) -> tensor<2x8x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %sw = tosa.const_shape {values = dense<[1, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sy = tosa.const_shape {values = dense<[2, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sv = tosa.const_shape {values = dense<[1, 1, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %w, %sw : (tensor<16x16xf32>, !tosa.shape<3>) -> tensor<1x16x16xf32>
  %x3 = tosa.reshape %x, %sw : (tensor<2x8x16xf32>, !tosa.shape<3>) -> tensor<1x16x16xf32>
  %m = tosa.matmul %x3, %w3, %zp, %zp : (tensor<1x16x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16xf32>
  %m3 = tosa.reshape %m, %sy : (tensor<1x16x16xf32>, !tosa.shape<3>) -> tensor<2x8x16xf32>
  %bv = tosa.reshape %b, %sv : (tensor<16xf32>, !tosa.shape<3>) -> tensor<1x1x16xf32>
  %h = tosa.add %m3, %bv : (tensor<2x8x16xf32>, tensor<1x1x16xf32>) -> tensor<2x8x16xf32>
  %hr = tosa.add %h, %r : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %s = tosa.reduce_sum %hr {axis = 2 : i32} : (tensor<2x8x16xf32>) -> tensor<2x8x1xf32>
  return %s : tensor<2x8x1xf32>
}

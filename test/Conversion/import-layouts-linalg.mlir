// Issue 22: linalg the way TorchToLinalg writes it (contractions as generics
// once generalized, transposed and broadcast operand maps, projected maps
// for biases, LayerNorm weights and reduced statistics, unit-dim
// expand/collapse) goes through one analysis of the indexing maps; each
// block is one graph. The driver verifies the output after the pass.
// RUN: mirage-opt %s --mirage-import="remarks=false" --split-input-file | FileCheck %s

// A linear layer in generic form, batch 1: the unit batch loop is a unit
// dim, the weight is read transposed ([out, in], map (d2, d3)), the bias by
// a projected map (d2), then relu. The graph reads the weight as it lies
// (transposed_inputs, OperandLayouts.md): no transpose is left.
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#wt = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#last = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @linear
// CHECK-NOT: linalg.transpose
// CHECK: mirage_kernel.graph{{.*}}transposed_inputs = array<i64: 1>
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.unary relu
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @linear(%x: tensor<1x8x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<1x8x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %m = linalg.generic {indexing_maps = [#x, #wt, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x8x64xf32>, tensor<32x64xf32>) outs(%f : tensor<1x8x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x8x32xf32>
  %y = linalg.generic {indexing_maps = [#id3, #last, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m, %b : tensor<1x8x32xf32>, tensor<32xf32>) outs(%e : tensor<1x8x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    %1 = arith.maximumf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}

// -----

// The same contraction on a weight already in [in, out] layout (d3, d2):
// no view at all. Bias add on a 2-d matmul with (d0, d1) -> (d1).
#x2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#w2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#o2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_add
// CHECK-NOT: linalg.transpose
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.binary add
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @bias_add(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.generic {indexing_maps = [#x2, #w2, #o2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<8x64xf32>, tensor<64x32xf32>) outs(%f : tensor<8x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// LayerNorm as TorchToLinalg writes it: statistics reduced to [b, s] (the
// reduced dim dropped), read back through (d0, d1, d2) -> (d0, d1); weight
// and bias through (d0, d1, d2) -> (d2).
#i3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#w3 = affine_map<(d0, d1, d2) -> (d2)>
#i2 = affine_map<(d0, d1) -> (d0, d1)>
// (Recognition sees the variance normalisation of the centred values as
// rms_norm with the weight.)
// CHECK-LABEL: func.func @layernorm
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.reduce sum
// CHECK: mirage_kernel.binary sub
// CHECK: mirage_kernel.rms_norm
// CHECK: mirage_kernel.binary add
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @layernorm(%x: tensor<2x8x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x8x64xf32> {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 1.562500e-02 : f32
  %eps = arith.constant 1.0e-05 : f32
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %e3 = tensor.empty() : tensor<2x8x64xf32>
  %sum = linalg.generic {indexing_maps = [#i3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x8x64xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<2x8xf32>
  %mean = linalg.generic {indexing_maps = [#i2, #i2], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<2x8xf32>) outs(%e2 : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %n : f32
    linalg.yield %0 : f32
  } -> tensor<2x8xf32>
  %c = linalg.generic {indexing_maps = [#i3, #r3, #i3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean : tensor<2x8x64xf32>, tensor<2x8xf32>) outs(%e3 : tensor<2x8x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.subf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<2x8x64xf32>
  %var = linalg.generic {indexing_maps = [#i3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c : tensor<2x8x64xf32>) outs(%f2 : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %out : f32
    linalg.yield %1 : f32
  } -> tensor<2x8xf32>
  %rstd = linalg.generic {indexing_maps = [#i2, #i2], iterator_types = ["parallel", "parallel"]} ins(%var : tensor<2x8xf32>) outs(%e2 : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    linalg.yield %2 : f32
  } -> tensor<2x8xf32>
  %y = linalg.generic {indexing_maps = [#i3, #r3, #w3, #w3, #i3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c, %rstd, %g, %b : tensor<2x8x64xf32>, tensor<2x8xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e3 : tensor<2x8x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %in_1: f32, %in_2: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.mulf %0, %in_1 : f32
    %2 = arith.addf %1, %in_2 : f32
    linalg.yield %2 : f32
  } -> tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

// An MLP between unit-dim expand_shape/collapse_shape: the activation is
// computed on [1, 8, 32] between two 2-d matmuls.
#e3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @mlp_expand_collapse
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK-COUNT-2: mirage_kernel.matmul
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @mlp_expand_collapse(%x: tensor<8x64xf32>, %w1: tensor<64x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x64xf32>, tensor<64x32xf32>) outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h3 = tensor.expand_shape %h [[0, 1], [2]] output_shape [1, 8, 32] : tensor<8x32xf32> into tensor<1x8x32xf32>
  %ee = tensor.empty() : tensor<1x8x32xf32>
  %a3 = linalg.generic {indexing_maps = [#e3, #e3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h3 : tensor<1x8x32xf32>) outs(%ee : tensor<1x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %z : f32
    linalg.yield %0 : f32
  } -> tensor<1x8x32xf32>
  %a = tensor.collapse_shape %a3 [[0, 1], [2]] : tensor<1x8x32xf32> into tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = linalg.matmul ins(%a, %w2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

// -----

// Attention in linalg: QKᵀ as a batch contraction reading K transposed
// ((d0, d2, d3)), softmax with statistics reduced to [h, s] and read back
// through projected maps, then ·V as linalg.batch_matmul.
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#s = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#a3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#p3 = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @attention
// CHECK: mirage_kernel.graph
// CHECK-NOT: mirage_kernel.graph
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.reduce max
// CHECK: mirage_kernel.unary exp
// CHECK: mirage_kernel.reduce sum
// CHECK: mirage_kernel.matmul
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
func.func @attention(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant -3.40282347E+38 : f32
  %es = tensor.empty() : tensor<4x8x8xf32>
  %fs = linalg.fill ins(%z : f32) outs(%es : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%fs : tensor<4x8x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x8x8xf32>
  %er = tensor.empty() : tensor<4x8xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mx = linalg.generic {indexing_maps = [#a3, #p3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%s : tensor<4x8x8xf32>) outs(%fm : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %ex = linalg.generic {indexing_maps = [#a3, #p3, #a3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %mx : tensor<4x8x8xf32>, tensor<4x8xf32>) outs(%es : tensor<4x8x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.subf %in, %in_0 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x8x8xf32>
  %fz = linalg.fill ins(%z : f32) outs(%er : tensor<4x8xf32>) -> tensor<4x8xf32>
  %sm = linalg.generic {indexing_maps = [#a3, #p3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<4x8x8xf32>) outs(%fz : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#a3, #p3, #a3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %sm : tensor<4x8x8xf32>, tensor<4x8xf32>) outs(%es : tensor<4x8x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.divf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<4x8x8xf32>
  %eo = tensor.empty() : tensor<4x8x16xf32>
  %fo = linalg.fill ins(%z : f32) outs(%eo : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%fo : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}

// -----

// The torch linear layer at batch 2: two row loops, merged into one m of
// the kernel matmul ([16, 64] x [64, 32]); the activation is viewed merged
// outside the graph and the result viewed back after it.
// CHECK-LABEL: func.func @linear_batch2
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x8x64xf32> into tensor<16x64xf32>
// CHECK: %[[G:.*]] = mirage_kernel.graph(%arg1, %[[X]])
// CHECK: mirage_kernel.matmul %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xf32> into tensor<2x8x32xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @linear_batch2(%x: tensor<2x8x64xf32>, %w: tensor<64x32xf32>) -> tensor<2x8x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x8x64xf32>, tensor<64x32xf32>) outs(%f : tensor<2x8x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x8x32xf32>
  return %m : tensor<2x8x32xf32>
}

// -----

// HF GPT-2's Conv1D at batch 1: a norm's weight read through (d2) (a rank-1
// operand, viewed [1, 1, 64] in the graph), then `view(-1, h)` (a unit
// collapse) into a 2-d matmul. The collapse pushed up the weight's view
// makes it [1, 64] from the rank-1 source; the weight's first view, of
// another type, must not be reused for it (the graph used to fail to form,
// cutting every GPT-2 linalg block at its projections).
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#x0 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#w1 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @norm_weight_view_matmul
// CHECK-DAG: %[[G:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
// CHECK-DAG: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<1x16x64xf32> into tensor<16x64xf32>
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.binary mul %{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<1x64xf32> -> tensor<16x64xf32>
// CHECK-NEXT: mirage_kernel.matmul
// CHECK-NOT: linalg.
func.func @norm_weight_view_matmul(%x: tensor<1x16x64xf32>, %g: tensor<64xf32>, %w: tensor<64x192xf32>) -> tensor<16x192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x64xf32>
  %n = linalg.generic {indexing_maps = [#x0, #w1, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %g : tensor<1x16x64xf32>, tensor<64xf32>) outs(%e : tensor<1x16x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    linalg.yield %m : f32
  } -> tensor<1x16x64xf32>
  %c = tensor.collapse_shape %n [[0, 1], [2]] : tensor<1x16x64xf32> into tensor<16x64xf32>
  %e2 = tensor.empty() : tensor<16x192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x192xf32>) -> tensor<16x192xf32>
  %o = linalg.matmul ins(%c, %w : tensor<16x64xf32>, tensor<64x192xf32>) outs(%f : tensor<16x192xf32>) -> tensor<16x192xf32>
  return %o : tensor<16x192xf32>
}

// -----

// A linear layer, bias and residual (HF Conv1D at batch 1: a 2-d matmul
// viewed [1, 16, 64]) read by a reduction and by the centring after it:
// every reader takes the sum in the form the matmul made ([16, 64]), so
// the matmul is built once and the bias is viewed once (the reduction used
// to ask for its program type, which rebuilt the matmul on [1, 16, 64]
// with a second view of every operand).
// CHECK-LABEL: func.func @shared_bias_view
// CHECK-COUNT-1: tensor.expand_shape %arg2
// CHECK-NOT: tensor.expand_shape %arg2
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.matmul
// CHECK-NOT: mirage_kernel.matmul
// CHECK: mirage_kernel.reduce sum %{{.*}} dim 1 : tensor<16x64xf32> -> tensor<16x1xf32>
// CHECK: mirage_kernel.yield
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#w1 = affine_map<(d0, d1, d2) -> (d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @shared_bias_view(%x: tensor<1x16x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>, %r: tensor<1x16x64xf32>) -> (tensor<1x16x64xf32>, tensor<1x16xf32>) {
  %z = arith.constant 0.0 : f32
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x16x64xf32> into tensor<16x64xf32>
  %e0 = tensor.empty() : tensor<16x64xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m = linalg.matmul ins(%c, %w : tensor<16x64xf32>, tensor<64x64xf32>) outs(%f0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m3 = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 16, 64] : tensor<16x64xf32> into tensor<1x16x64xf32>
  %e = tensor.empty() : tensor<1x16x64xf32>
  %h = linalg.generic {indexing_maps = [#id3, #w1, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m3, %b, %r : tensor<1x16x64xf32>, tensor<64xf32>, tensor<1x16x64xf32>) outs(%e : tensor<1x16x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    %1 = arith.addf %0, %in_1 : f32
    linalg.yield %1 : f32
  } -> tensor<1x16x64xf32>
  %e2 = tensor.empty() : tensor<1x16xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x16xf32>) -> tensor<1x16xf32>
  %s = linalg.generic {indexing_maps = [#id3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h : tensor<1x16x64xf32>) outs(%f2 : tensor<1x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<1x16xf32>
  %d = linalg.generic {indexing_maps = [#id3, #r3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h, %s : tensor<1x16x64xf32>, tensor<1x16xf32>) outs(%e : tensor<1x16x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.subf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<1x16x64xf32>
  return %d, %s : tensor<1x16x64xf32>, tensor<1x16xf32>
}

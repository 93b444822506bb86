// RUN: mirage-opt %s --mirage-import="remarks=false" | FileCheck %s
// RUN: mirage-opt %S/../../examples/workloads/linalg/gqa.mlir --mirage-import | FileCheck %s --check-prefix=GQA
// RUN: mirage-opt %S/../../examples/workloads/linalg/ntrans.mlir --mirage-import | FileCheck %s --check-prefix=NTRANS
// RUN: mirage-opt %S/../../examples/workloads/linalg/lora.mlir --mirage-import | FileCheck %s --check-prefix=LORA

// GQA-LABEL: func.func @gqa
// GQA: mirage_kernel.graph
// GQA-SAME: mirage.non_lax = ["reduce_max"]
// GQA: mirage_kernel.matmul
// GQA-NEXT: mirage_kernel.unary mul_scalar %{{.*}} scalar(2.500000e-01)
// GQA-NEXT: mirage_kernel.reduce max %{{.*}} dim 2
// GQA-NEXT: mirage_kernel.binary sub
// GQA-NEXT: mirage_kernel.unary exp
// GQA-NEXT: mirage_kernel.reduce sum %{{.*}} dim 2
// GQA-NEXT: mirage_kernel.binary div
// GQA-NEXT: mirage_kernel.matmul
// GQA-NOT: linalg.

// NTRANS-LABEL: func.func @ntrans
// NTRANS: mirage_kernel.rms_norm
// NTRANS: mirage_kernel.rms_norm
// NTRANS-NOT: linalg.

// LORA-LABEL: func.func @lora
// LORA-COUNT-3: mirage_kernel.matmul
// LORA: mirage_kernel.binary add
// LORA-NOT: linalg.

// Named matmul on a zero fill; the fill and empty disappear.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.fill
// CHECK: mirage_kernel.graph
// CHECK: mirage_kernel.matmul
// CHECK-NOT: linalg
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}

// Accumulating into a non-zero init is matmul + add.
// CHECK-LABEL: func.func @matmul_acc
// CHECK-SAME: %[[C:[^:]*]]: tensor<4x16xf32>)
// CHECK: mirage_kernel.graph(%{{.*}}, %{{.*}}, %[[C]])
// CHECK: %[[M:.*]] = mirage_kernel.matmul
// CHECK: mirage_kernel.binary add %{{.*}}, %[[M]]
func.func @matmul_acc(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}

// One generic with a whole expression body; 1/(1+exp(-x)) is a sigmoid and
// x·sigmoid(x) a silu.
// CHECK-LABEL: func.func @silu_body
// CHECK: ^bb0(%[[X:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[S:.*]] = mirage_kernel.unary silu %[[X]]
// CHECK-NEXT: mirage_kernel.yield %[[S]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @silu_body(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %ex : f32
    %s = arith.divf %one, %d : f32
    %y = arith.mulf %a, %s : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// linalg.reduce + expand_shape restoring the unit dim is a kernel reduce;
// named element-wise ops import too.
// CHECK-LABEL: func.func @reduce_expand
// CHECK: mirage_kernel.unary exp
// CHECK: mirage_kernel.reduce sum %{{.*}} dim 1 : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NOT: linalg.reduce
func.func @reduce_expand(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %ex = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%ex : tensor<4x8xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %k = tensor.expand_shape %r [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  return %k : tensor<4x1xf32>
}

// A rank-changing broadcast stays; the ops after it form their own graph.
// CHECK-LABEL: func.func @broadcast_between
// CHECK: %[[G1:.*]] = mirage_kernel.graph
// CHECK: %[[B:.*]] = linalg.broadcast ins(%[[G1]]
// CHECK: mirage_kernel.graph(%[[B]]
func.func @broadcast_between(%x: tensor<4xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %ex = linalg.exp ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.broadcast ins(%ex : tensor<4xf32>) outs(%e : tensor<4x8xf32>) dimensions = [1]
  %e2 = tensor.empty() : tensor<4x8xf32>
  %s = linalg.add ins(%b, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

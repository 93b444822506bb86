// Issue 22: GPT-2's causal mask as torch-mlir writes it in linalg,
// `torch.where(bias, w, finfo(f32).min)`: a select of the scores and the
// lowest finite f32, not -inf, so s + c is not c. The fill splits into
// s * keep + fill (MaskFill.cpp's rule for a finite fill,
// LinalgMaskFill.cpp), two mask generics over the i1 causal condition left
// outside, and QKᵀ, the masked softmax and PV import as one graph, as with
// a -inf fill (causal-attention-linalg-on-cpu.mlir). The search optimizes
// it into one kernel, whose generated code runs on the host and matches the
// float64 evaluator (on seeded inputs, the masks included). 1 head, 64
// queries and keys, head dim 16, f32.
//
// RUN: mirage-opt %s --mirage-import --mirage-superoptimize="cache=off threads=2 progress=false" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s < %t.mlir
// RUN: mirage-opt %t.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU

// The masks: the i1 causal generic, then select(c, 0, 1) and
// select(c, c_min, 0) over the query and key loops, outside every graph.
// CHECK-LABEL: func.func @gpt2_causal
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<64x64xi1>)
// CHECK: arith.cmpi sle
// CHECK: %[[KEEP:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<64x64xi1>) outs(%{{.*}} : tensor<1x64x64xf32>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: %[[FILL:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<64x64xi1>) outs(%{{.*}} : tensor<1x64x64xf32>)
// CHECK: arith.constant -3.40282347E+38 : f32
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK: mirage_kernel.graph "graph0"
// CHECK-SAME: %[[KEEP]], %[[FILL]]
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.binary mul
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.reduce max
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.graph "graph0_opt" reference "graph0"
// CHECK: mirage_kernel.custom
// CHECK: mirage_block.binary mul
// CHECK: mirage_block.binary add
// CHECK: mirage_block.unary exp
// CHECK: mirage_kernel.yield
// CHECK-NOT: mirage_kernel.graph
// CHECK: return

// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator

#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#s = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#kd = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#m = affine_map<(d0, d1, d2) -> (d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @gpt2_causal(%q: tensor<1x64x16xf32>, %k: tensor<1x64x16xf32>, %v: tensor<1x64x16xf32>) -> tensor<1x64x16xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf_init = arith.constant 0xFF800000 : f32
  %scale = arith.constant 2.500000e-01 : f64
  %es = tensor.empty() : tensor<1x64x64xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x64x16xf32>, tensor<1x64x16xf32>) outs(%fs : tensor<1x64x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x64x64xf32>
  %ss = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<1x64x64xf32>) outs(%es : tensor<1x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.truncf %scale : f64 to f32
    %1 = arith.mulf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x64x64xf32>
  // Kept: key index at most the query index (GPT-2's tril `bias` buffer).
  %eb = tensor.empty() : tensor<64x64xi1>
  %causal = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%eb : tensor<64x64xi1>) {
  ^bb0(%out: i1):
    %0 = linalg.index 0 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = linalg.index 1 : index
    %3 = arith.index_cast %2 : index to i64
    %4 = arith.cmpi sle, %3, %1 : i64
    linalg.yield %4 : i1
  } -> tensor<64x64xi1>
  // torch.where(mask, w, finfo(f32).min)
  %lowest = arith.constant -3.4028234663852886e+38 : f32
  %f = linalg.generic {indexing_maps = [#m, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%causal, %ss : tensor<64x64xi1>, tensor<1x64x64xf32>) outs(%es : tensor<1x64x64xf32>) {
  ^bb0(%in: i1, %in_1: f32, %out: f32):
    %0 = arith.select %in, %in_1, %lowest : f32
    linalg.yield %0 : f32
  } -> tensor<1x64x64xf32>
  %er = tensor.empty() : tensor<1x64x1xf32>
  %fm = linalg.fill ins(%ninf_init : f32) outs(%er : tensor<1x64x1xf32>) -> tensor<1x64x1xf32>
  %mx = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%f : tensor<1x64x64xf32>) outs(%fm : tensor<1x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<1x64x1xf32>
  %ex = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%f, %mx : tensor<1x64x64xf32>, tensor<1x64x1xf32>) outs(%es : tensor<1x64x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.subf %in, %in_0 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x64x64xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<1x64x1xf32>) -> tensor<1x64x1xf32>
  %sm = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<1x64x64xf32>) outs(%fz : tensor<1x64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<1x64x1xf32>
  %p = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %sm : tensor<1x64x64xf32>, tensor<1x64x1xf32>) outs(%es : tensor<1x64x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.divf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<1x64x64xf32>
  %eo = tensor.empty() : tensor<1x64x16xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x64x16xf32>) -> tensor<1x64x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<1x64x64xf32>, tensor<1x64x16xf32>) outs(%fo : tensor<1x64x16xf32>) -> tensor<1x64x16xf32>
  return %o : tensor<1x64x16xf32>
}

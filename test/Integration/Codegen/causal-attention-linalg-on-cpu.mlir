// Issue 21: causal prefill attention (1 head, 64 queries, 64 keys, head
// dim 16, f16) written the way torch-mlir writes it in linalg: QKᵀ as a
// contraction generic, the 1/√d scale as a multiply by a truncated f64
// scalar, the causal mask as an i1 generic over `linalg.index` (key after
// query), masked_fill as aten.where.self (the -inf a rank-0 truncation of
// an f64 constant), the softmax as max, exp(s - max), sum and divide, then
// PV. The fill splits into s + mask (MaskFill.cpp's rule,
// LinalgMaskFill.cpp): QKᵀ, the masked softmax and PV import as one graph,
// and the mask generic stays outside it, a materialised operand computed
// by upstream linalg. The search optimizes that graph like the masked
// decode, and its generated code runs on the host and matches the float64
// evaluator (on seeded inputs, the mask operand included).
//
// RUN: mirage-opt %s --mirage-import --mirage-superoptimize="cache=off threads=2 progress=false" -o %t.mlir 2>/dev/null
// RUN: FileCheck %s < %t.mlir
// RUN: mirage-opt %t.mlir --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU

// The mask: the i1 causal generic, then select(c, -inf, 0) over the query
// and key loops, outside every graph.
// CHECK-LABEL: func.func @causal_prefill
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<64x64xi1>)
// CHECK: arith.cmpi sgt
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<64x64xi1>) outs(%{{.*}} : tensor<1x64x64xf16>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f16
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK: mirage_kernel.graph "graph0"
// CHECK-SAME: %[[MASK]]
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.reduce max
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.graph "graph0_opt" reference "graph0"
// CHECK-SAME: %[[MASK]]
// CHECK: mirage_kernel.custom
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
#sc = affine_map<(d0, d1, d2) -> ()>
#z = affine_map<() -> ()>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @causal_prefill(%q: tensor<1x64x16xf16>, %k: tensor<1x64x16xf16>, %v: tensor<1x64x16xf16>) -> tensor<1x64x16xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %ninf_init = arith.constant 0xFC00 : f16
  %scale = arith.constant 2.500000e-01 : f64
  %es = tensor.empty() : tensor<1x64x64xf16>
  %fs = linalg.fill ins(%zero : f16) outs(%es : tensor<1x64x64xf16>) -> tensor<1x64x64xf16>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x64x16xf16>, tensor<1x64x16xf16>) outs(%fs : tensor<1x64x64xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %0 = arith.mulf %in, %in_0 : f16
    %1 = arith.addf %out, %0 : f16
    linalg.yield %1 : f16
  } -> tensor<1x64x64xf16>
  %ss = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<1x64x64xf16>) outs(%es : tensor<1x64x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.truncf %scale : f64 to f16
    %1 = arith.mulf %in, %0 : f16
    linalg.yield %1 : f16
  } -> tensor<1x64x64xf16>
  // Hidden: key index above the query index.
  %eb = tensor.empty() : tensor<64x64xi1>
  %causal = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%eb : tensor<64x64xi1>) {
  ^bb0(%out: i1):
    %0 = linalg.index 0 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = linalg.index 1 : index
    %3 = arith.index_cast %2 : index to i64
    %4 = arith.cmpi sgt, %3, %1 : i64
    linalg.yield %4 : i1
  } -> tensor<64x64xi1>
  %cst = arith.constant dense<0xFFF0000000000000> : tensor<f64>
  %e0 = tensor.empty() : tensor<f16>
  %ninf = linalg.generic {indexing_maps = [#z, #z], iterator_types = []} ins(%cst : tensor<f64>) outs(%e0 : tensor<f16>) {
  ^bb0(%in: f64, %out: f16):
    %0 = arith.truncf %in : f64 to f16
    linalg.yield %0 : f16
  } -> tensor<f16>
  %f = linalg.generic {indexing_maps = [#m, #sc, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%causal, %ninf, %ss : tensor<64x64xi1>, tensor<f16>, tensor<1x64x64xf16>) outs(%es : tensor<1x64x64xf16>) {
  ^bb0(%in: i1, %in_0: f16, %in_1: f16, %out: f16):
    %0 = arith.select %in, %in_0, %in_1 : f16
    linalg.yield %0 : f16
  } -> tensor<1x64x64xf16>
  %er = tensor.empty() : tensor<1x64x1xf16>
  %fm = linalg.fill ins(%ninf_init : f16) outs(%er : tensor<1x64x1xf16>) -> tensor<1x64x1xf16>
  %mx = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%f : tensor<1x64x64xf16>) outs(%fm : tensor<1x64x1xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.maximumf %in, %out : f16
    linalg.yield %0 : f16
  } -> tensor<1x64x1xf16>
  %ex = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%f, %mx : tensor<1x64x64xf16>, tensor<1x64x1xf16>) outs(%es : tensor<1x64x64xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %0 = arith.subf %in, %in_0 : f16
    %1 = math.exp %0 : f16
    linalg.yield %1 : f16
  } -> tensor<1x64x64xf16>
  %fz = linalg.fill ins(%zero : f16) outs(%er : tensor<1x64x1xf16>) -> tensor<1x64x1xf16>
  %sm = linalg.generic {indexing_maps = [#id, #kd], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ex : tensor<1x64x64xf16>) outs(%fz : tensor<1x64x1xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.addf %in, %out : f16
    linalg.yield %0 : f16
  } -> tensor<1x64x1xf16>
  %p = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ex, %sm : tensor<1x64x64xf16>, tensor<1x64x1xf16>) outs(%es : tensor<1x64x64xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %0 = arith.divf %in, %in_0 : f16
    linalg.yield %0 : f16
  } -> tensor<1x64x64xf16>
  %eo = tensor.empty() : tensor<1x64x16xf16>
  %fo = linalg.fill ins(%zero : f16) outs(%eo : tensor<1x64x16xf16>) -> tensor<1x64x16xf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<1x64x64xf16>, tensor<1x64x16xf16>) outs(%fo : tensor<1x64x16xf16>) -> tensor<1x64x16xf16>
  return %o : tensor<1x64x16xf16>
}

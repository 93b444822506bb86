// A graph of one matmul chain that the search does not improve is split
// before its matmuls (docs/Rationale/FusionSearch.md, "Prologues cut off
// before a matmul"): the RMS norm over K = 16384 needs every row whole
// before the product's first K-tile, and no fused kernel that holds a row
// and its weight columns fits shared memory. The norm and the matmul with
// its bias are searched apart; the matmul keeps its bias (its epilogue),
// and the pieces are chained through the normalised rows. The pieces are
// not split again (their matmul reads only inputs of its piece). The
// projection is 128 columns wide: at 64 the whole graph, its reference's
// norm kernels one launch (TailCombine.md), is priced below its pieces
// (15.79 against 15.90 us) and kept whole.
//
// RUN: mirage-opt %s --mirage-superoptimize="cache=off" -o - 2>&1 | FileCheck %s

// CHECK: remark: graph 'proj' left unchanged: no fused kernel beats it
// CHECK: remark: graph 'proj' (3 kernels) has no fused kernel as a whole: split before its matmuls into 2 graphs (proj_part0, proj_part1), each searched
// CHECK-NOT: proj_part1_part
// CHECK: remark: graph 'qk' (3 kernels) has no fused kernel as a whole: split before its matmuls into 2 graphs (qk_part0, qk_part1), each searched
// CHECK-NOT: qk_part1_part
// CHECK: remark: superoptimized 4 graph(s): 3 searched, 0 cache hit(s), 1 repeat(s) of an earlier graph
// CHECK-LABEL: func.func @norm_before_matmul
// The norm alone is left as it is (its one-kernel reference is the best;
// its weighing is computed where its saver writes it).
// CHECK: %[[N:.*]] = mirage_kernel.graph "proj_part0"(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mirage_kernel.rms_norm
// CHECK-NEXT: mirage_kernel.yield
// CHECK-NOT: "proj_part0_opt"
// CHECK: mirage_kernel.graph "proj_part1"(%[[N]], %arg2, %arg3)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mirage_kernel.matmul
// CHECK-NEXT: mirage_kernel.binary add
// CHECK-NEXT: mirage_kernel.yield
// CHECK: %[[OPT:.*]] = mirage_kernel.graph "proj_part1_opt" reference "proj_part1"(%[[N]], %arg2, %arg3)
// CHECK: return %[[OPT]]

func.func @norm_before_matmul(%x: tensor<16x16384xf16>, %g: tensor<1x16384xf16>, %w: tensor<16384x128xf16>, %b: tensor<1x128xf16>) -> tensor<16x128xf16> {
  %o = mirage_kernel.graph "proj" (%x, %g, %w, %b) : (tensor<16x16384xf16>, tensor<1x16384xf16>, tensor<16384x128xf16>, tensor<1x128xf16>) -> tensor<16x128xf16> {
  ^bb0(%a: tensor<16x16384xf16>, %c: tensor<1x16384xf16>, %d: tensor<16384x128xf16>, %e: tensor<1x128xf16>):
    %n = mirage_kernel.rms_norm %a weight %c eps(1.0e-5) : tensor<16x16384xf16>, tensor<1x16384xf16> -> tensor<16x16384xf16>
    %y = mirage_kernel.matmul %n, %d : tensor<16x16384xf16>, tensor<16384x128xf16> -> tensor<16x128xf16>
    %z = mirage_kernel.binary add %y, %e : tensor<16x128xf16>, tensor<1x128xf16> -> tensor<16x128xf16>
    mirage_kernel.yield %z : tensor<16x128xf16>
  }
  return %o : tensor<16x128xf16>
}

// Two projections of one normalised input (Q and K, say) share the piece
// after the cut. Its norm is a repeat of the first graph's.
// CHECK-LABEL: func.func @two_projections
// CHECK: mirage_kernel.graph "qk_part0"(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mirage_kernel.rms_norm
// CHECK-NEXT: mirage_kernel.yield
// CHECK: mirage_kernel.graph "qk_part1"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mirage_kernel.matmul
// CHECK-NEXT: mirage_kernel.matmul
// CHECK-NEXT: mirage_kernel.yield

func.func @two_projections(%x: tensor<16x16384xf16>, %g: tensor<1x16384xf16>, %wq: tensor<16384x64xf16>, %wk: tensor<16384x64xf16>) -> (tensor<16x64xf16>, tensor<16x64xf16>) {
  %q, %k = mirage_kernel.graph "qk" (%x, %g, %wq, %wk) : (tensor<16x16384xf16>, tensor<1x16384xf16>, tensor<16384x64xf16>, tensor<16384x64xf16>) -> (tensor<16x64xf16>, tensor<16x64xf16>) {
  ^bb0(%a: tensor<16x16384xf16>, %c: tensor<1x16384xf16>, %d: tensor<16384x64xf16>, %e: tensor<16384x64xf16>):
    %n = mirage_kernel.rms_norm %a weight %c eps(1.0e-5) : tensor<16x16384xf16>, tensor<1x16384xf16> -> tensor<16x16384xf16>
    %y = mirage_kernel.matmul %n, %d : tensor<16x16384xf16>, tensor<16384x64xf16> -> tensor<16x64xf16>
    %z = mirage_kernel.matmul %n, %e : tensor<16x16384xf16>, tensor<16384x64xf16> -> tensor<16x64xf16>
    mirage_kernel.yield %y, %z : tensor<16x64xf16>, tensor<16x64xf16>
  }
  return %q, %k : tensor<16x64xf16>, tensor<16x64xf16>
}

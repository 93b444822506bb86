// A graph the search finds no better kernel for as a whole is split at its
// matmul chains (no path of a piece crosses two matmuls) and each piece is
// searched (docs/Rationale/FusionSearch.md, "Graphs too large for one
// kernel"). Here the rms_norm between the matmuls needs whole 12288-wide
// rows of the first product before the second matmul may start, so no one
// kernel beats the unfused three. The second piece, one matmul of K = 12288,
// has a split-K pair cheaper than the expansion the code generator would
// emit for it (PricingAsEmitted.md); but each piece pays a graph's first
// launch, and the two pieces' estimates sum to more than the whole graph's
// (16.84 against 16.04 us): the graph is put back as it was, and the
// module's summary counts it, not its pieces (the pieces' seconds included).
// test/Transforms/mirage-superoptimize-split-prologue.mlir has pieces that
// stay.
//
// RUN: mirage-opt %s --mirage-superoptimize="cache=off" -o - 2>&1 | FileCheck %s

// CHECK: remark: graph 'mlp' left unchanged: no fused kernel beats it (the cheapest is estimated at {{[0-9.]+}} us, the graph at [[WHOLE:[0-9.]+]] us)
// CHECK: remark: graph 'mlp' (3 kernels) has no fused kernel as a whole: split at its matmul chains into 2 graphs (mlp_part0, mlp_part1), each searched
// CHECK: remark: graph 'mlp_part0'
// CHECK: remark: superoptimized 'mlp_part1'
// CHECK: remark: graph 'mlp' kept whole: its pieces are estimated at {{[0-9.]+}} us in all, the graph at [[WHOLE]] us
// CHECK: remark: superoptimized 1 graph(s): 1 searched, 0 cache hit(s), 0 repeat(s) of an earlier graph; 0 improved, kernels 3 -> 3, estimated [[WHOLE]] us -> [[WHOLE]] us
// CHECK-LABEL: func.func @norm_between_matmuls
// CHECK-NOT: mlp_part
// CHECK: %[[G:.*]] = mirage_kernel.graph "mlp"(%arg0, %arg1, %arg2, %arg3)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: mirage_kernel.matmul
// CHECK-NEXT: mirage_kernel.rms_norm
// CHECK-NEXT: mirage_kernel.matmul
// CHECK-NEXT: mirage_kernel.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]

func.func @norm_between_matmuls(%x: tensor<16x64xf16>, %w1: tensor<64x12288xf16>, %g: tensor<1x12288xf16>, %w2: tensor<12288x64xf16>) -> tensor<16x64xf16> {
  %o = mirage_kernel.graph "mlp" (%x, %w1, %g, %w2) : (tensor<16x64xf16>, tensor<64x12288xf16>, tensor<1x12288xf16>, tensor<12288x64xf16>) -> tensor<16x64xf16> {
  ^bb0(%a: tensor<16x64xf16>, %b: tensor<64x12288xf16>, %c: tensor<1x12288xf16>, %d: tensor<12288x64xf16>):
    %h = mirage_kernel.matmul %a, %b : tensor<16x64xf16>, tensor<64x12288xf16> -> tensor<16x12288xf16>
    %n = mirage_kernel.rms_norm %h weight %c eps(1.0e-5) : tensor<16x12288xf16>, tensor<1x12288xf16> -> tensor<16x12288xf16>
    %y = mirage_kernel.matmul %n, %d : tensor<16x12288xf16>, tensor<12288x64xf16> -> tensor<16x64xf16>
    mirage_kernel.yield %y : tensor<16x64xf16>
  }
  return %o : tensor<16x64xf16>
}

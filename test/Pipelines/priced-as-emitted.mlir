// The search ranks every graph by what the code generator writes for it
// (docs/Rationale/PricingAsEmitted.md): the estimate of the reference it
// compares against, and of the winner, equal the sums of the kernels'
// estimates in the manifests mirage-superoptimize-to-ptx writes, while the
// reference priced as library kernels is another figure. Thread-graph
// fusion is off: it rewrites the winner after the search.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt %s --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{chip=sm_90 output-dir=%t cache=off progress=false fuse-thread-graphs=false report=%t/report.json})" -o /dev/null
// RUN: %python %S/Inputs/priced-as-emitted.py %t/report.json %t sm_90 | FileCheck %s

// A decode gated MLP with a long K (the split-K test's): each matmul of the
// reference expands into a split-K pair.
func.func @gated_mlp(%x: tensor<8x32768xf16>, %w1: tensor<32768x256xf16>, %w2: tensor<32768x256xf16>) -> tensor<8x256xf16> {
  %r = mirage_kernel.graph "gated" (%x, %w1, %w2) : (tensor<8x32768xf16>, tensor<32768x256xf16>, tensor<32768x256xf16>) -> tensor<8x256xf16> {
  ^bb0(%a: tensor<8x32768xf16>, %b1: tensor<32768x256xf16>, %b2: tensor<32768x256xf16>):
    %m1 = mirage_kernel.matmul %a, %b1 : tensor<8x32768xf16>, tensor<32768x256xf16> -> tensor<8x256xf16>
    %m2 = mirage_kernel.matmul %a, %b2 : tensor<8x32768xf16>, tensor<32768x256xf16> -> tensor<8x256xf16>
    %s = mirage_kernel.unary silu %m1 : tensor<8x256xf16>
    %o = mirage_kernel.binary mul %s, %m2 : tensor<8x256xf16>, tensor<8x256xf16> -> tensor<8x256xf16>
    mirage_kernel.yield %o : tensor<8x256xf16>
  }
  return %r : tensor<8x256xf16>
}

// Attention scores with a softmax at small shapes: the search's winner has
// row-max kernels before its fused kernel, pre-defined kernels priced as
// their expansion too.
func.func @softmax_scores(%q: tensor<2x16x64xf16>, %k: tensor<2x64x256xf16>) -> tensor<2x16x256xf16> {
  %r = mirage_kernel.graph "scores" (%q, %k) : (tensor<2x16x64xf16>, tensor<2x64x256xf16>) -> tensor<2x16x256xf16> {
  ^bb0(%a: tensor<2x16x64xf16>, %b: tensor<2x64x256xf16>):
    %s = mirage_kernel.matmul %a, %b : tensor<2x16x64xf16>, tensor<2x64x256xf16> -> tensor<2x16x256xf16>
    %m = mirage_kernel.reduce max %s dim 2 : tensor<2x16x256xf16> -> tensor<2x16x1xf16>
    %d = mirage_kernel.binary sub %s, %m : tensor<2x16x256xf16>, tensor<2x16x1xf16> -> tensor<2x16x256xf16>
    %e = mirage_kernel.unary exp %d : tensor<2x16x256xf16>
    %z = mirage_kernel.reduce sum %e dim 2 : tensor<2x16x256xf16> -> tensor<2x16x1xf16>
    %p = mirage_kernel.binary div %e, %z : tensor<2x16x256xf16>, tensor<2x16x1xf16> -> tensor<2x16x256xf16>
    mirage_kernel.yield %p : tensor<2x16x256xf16>
  }
  return %r : tensor<2x16x256xf16>
}

// CHECK: gated: reference priced as the emitted 5 kernel(s)
// CHECK-NEXT: gated: library figure differs
// CHECK-NEXT: gated_opt: winner priced as the emitted {{[0-9]+}} kernel(s)
// CHECK: scores: reference priced as the emitted {{[0-9]+}} kernel(s)
// CHECK-NEXT: scores: library figure differs
// CHECK-NEXT: scores_opt: winner priced as the emitted {{[0-9]+}} kernel(s)

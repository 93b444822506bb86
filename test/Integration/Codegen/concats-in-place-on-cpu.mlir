// Concats read in place (docs/Rationale/ElementsInReductions.md,
// "Concats"), as in the split-KV combines: a block takes per-partial row
// maxima m (32 rows), reduces them to 4 (one per query row), broadcasts
// those back over the 32 partial rows by three concats of a value with
// itself, and weighs each partial row by exp(m - max).
//
// * The three self-concats have no tile and no phase: the weights' phase
//   reads the 4 maxima at row i mod 16 mod 8 mod 4.
// * o·w, read only by its sum, is computed in the sum's fold.
// * concat(o, p) along the last dim, read only by a sum: no tile; each
//   element comes from o or p, as the concat's phase would have chosen.
// * concat(q, q) of an accumulated sum, read by a saver: a tile, as before
//   (the saver copies tiles).
//
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=TILES
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS

// CPU: remark: graph 'graph0' on the CPU matches the evaluator
// CPU-NOT: error:

// TILES-LABEL: func.func @graph0_k0(
// TILES-NOT: memref<1x8x1xf16
// TILES-NOT: memref<1x16x1xf16
// TILES-NOT: memref<1x32x128xf16
// TILES: memref.alloc() : memref<1x8x256xf16, #gpu.address_space<workgroup>>
// TILES-NOT: memref<1x8x1xf16
// TILES-NOT: memref<1x16x1xf16
// TILES-NOT: memref<1x32x128xf16
// TILES: return

// The weights: m at row i, the maxima at row i mod 16 mod 8 mod 4.
// LOOPS-DAG: #[[$MOD16:map[0-9]*]] = affine_map<(d0) -> (d0 mod 16)>
// LOOPS-DAG: #[[$MOD8:map[0-9]*]] = affine_map<(d0) -> (d0 mod 8)>
// LOOPS-DAG: #[[$MOD4:map[0-9]*]] = affine_map<(d0) -> (d0 mod 4)>
// LOOPS-LABEL: func.func @graph0_k0(
// LOOPS: mirage_kernel.reduction_finish
// LOOPS: scf.forall
// LOOPS: memref.load %{{.*}} : memref<1x32x1xf16, #gpu.address_space<workgroup>>
// LOOPS: affine.apply #[[$MOD16]](
// LOOPS: affine.apply #[[$MOD8]](
// LOOPS: affine.apply #[[$MOD4]](
// LOOPS: memref.load %{{.*}} : memref<1x4x1xf32, #gpu.address_space<workgroup>>
// LOOPS: math.exp2
// LOOPS: memref.store %{{.*}} : memref<1x32x1xf16, #gpu.address_space<workgroup>>
// The sum of concat(o, p) over the partial rows, one thread per output:
// o's or p's element, then the fold.
// LOOPS: scf.if %{{.*}} -> (f32) {
// LOOPS: memref.load %{{.*}} : memref<1x32x64xf16, #gpu.address_space<workgroup>>
// LOOPS: } else {
// LOOPS: memref.load %{{.*}} : memref<1x32x64xf16, #gpu.address_space<workgroup>>
// LOOPS: scf.for %{{.*}} iter_args
// LOOPS: scf.if %{{.*}} -> (f32) {
// LOOPS: arith.addf
// LOOPS: memref.store %{{.*}} : memref<1x8x128xf32, #gpu.address_space<workgroup>>

module {
  func.func @f(%m: tensor<8x32x1xf16>, %o: tensor<8x32x64xf16>, %p: tensor<8x32x64xf16>) -> (tensor<8x4x64xf16>, tensor<8x8x256xf16>) {
    %0:2 = mirage_kernel.graph "graph0"(%m, %o, %p) : (tensor<8x32x1xf16>, tensor<8x32x64xf16>, tensor<8x32x64xf16>) -> (tensor<8x4x64xf16>, tensor<8x8x256xf16>) {
    ^bb0(%a: tensor<8x32x1xf16>, %b: tensor<8x32x64xf16>, %c: tensor<8x32x64xf16>):
      %1:2 = mirage_kernel.custom(%a, %b, %c) grid = [8, 1, 1] forloop = 1 : (tensor<8x32x1xf16>, tensor<8x32x64xf16>, tensor<8x32x64xf16>) -> (tensor<8x4x64xf16>, tensor<8x8x256xf16>) {
      ^bb0(%ma: tensor<8x32x1xf16>, %oa: tensor<8x32x64xf16>, %pa: tensor<8x32x64xf16>):
        %mt = mirage_block.input_iterator %ma imap = [0, -1, -1] fmap = -1 : tensor<8x32x1xf16> -> tensor<1x32x1xf16>
        %ot = mirage_block.input_iterator %oa imap = [0, -1, -1] fmap = -1 : tensor<8x32x64xf16> -> tensor<1x32x64xf16>
        %pt = mirage_block.input_iterator %pa imap = [0, -1, -1] fmap = -1 : tensor<8x32x64xf16> -> tensor<1x32x64xf16>
        %mx = mirage_block.reduce max %mt dim 1 to 4 : tensor<1x32x1xf16> -> tensor<1x4x1xf16>
        %c8 = mirage_block.concat %mx, %mx dim 1 : tensor<1x4x1xf16>, tensor<1x4x1xf16> -> tensor<1x8x1xf16>
        %c16 = mirage_block.concat %c8, %c8 dim 1 : tensor<1x8x1xf16>, tensor<1x8x1xf16> -> tensor<1x16x1xf16>
        %c32 = mirage_block.concat %c16, %c16 dim 1 : tensor<1x16x1xf16>, tensor<1x16x1xf16> -> tensor<1x32x1xf16>
        %w = mirage_block.thread_graph(%mt, %c32) : (tensor<1x32x1xf16>, tensor<1x32x1xf16>) -> tensor<1x32x1xf16> {
        ^bb0(%x: f16, %y: f16):
          %d = mirage_thread.binary sub %x, %y : f16
          %e = mirage_thread.unary exp %d : f16
          mirage_thread.yield %e : f16
        }
        %wo = mirage_block.binary mul %ot, %w : tensor<1x32x64xf16>, tensor<1x32x1xf16> -> tensor<1x32x64xf16>
        %s = mirage_block.reduce sum %wo dim 1 to 4 : tensor<1x32x64xf16> -> tensor<1x4x64xf16>
        %sa = mirage_block.accum sum %s : tensor<1x4x64xf16> -> tensor<1x4x64xf16>
        %so = mirage_block.output_saver %sa omap = [0, -1, -1] : tensor<1x4x64xf16> -> tensor<8x4x64xf16>
        %op = mirage_block.concat %ot, %pt dim 2 : tensor<1x32x64xf16>, tensor<1x32x64xf16> -> tensor<1x32x128xf16>
        %q = mirage_block.reduce sum %op dim 1 to 8 : tensor<1x32x128xf16> -> tensor<1x8x128xf16>
        %qa = mirage_block.accum sum %q : tensor<1x8x128xf16> -> tensor<1x8x128xf16>
        %h = mirage_block.concat %qa, %qa dim 2 : tensor<1x8x128xf16>, tensor<1x8x128xf16> -> tensor<1x8x256xf16>
        %hs = mirage_block.output_saver %h omap = [0, -1, -1] : tensor<1x8x256xf16> -> tensor<8x8x256xf16>
        mirage_block.yield %so, %hs : tensor<8x4x64xf16>, tensor<8x8x256xf16>
      }
      mirage_kernel.yield %1#0, %1#1 : tensor<8x4x64xf16>, tensor<8x8x256xf16>
    }
    return %0#0, %0#1 : tensor<8x4x64xf16>, tensor<8x8x256xf16>
  }
}

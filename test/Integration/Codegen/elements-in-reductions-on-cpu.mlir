// Element-wise operands computed inside the reduction that reads them
// (docs/Rationale/ElementsInReductions.md). Per iteration, over a 64x128
// f16 tile of x:
//
// * x·x, read only by a column sum (`reduce sum dim 0`, as QK-norm's sum of
//   squares over K's head dim): no phase and no tile for x·x; each lane of
//   the sum computes x·x where it folds it, rounded to f16 as the tile
//   would have stored it;
// * exp(x·w) as a thread graph (w a loop-invariant 1x128 row), read only
//   by a row sum: the same, in the row sum's vectors of 4 (x's and w's
//   rows read as vectors, exp as exp2 for an f16 result);
// * exp(x), read by a row max and an accumulator: two readers, so it keeps
//   its phase and its tile;
// * half the accumulated exp(x), read only by its saver: computed where the
//   saver writes it, 4 elements per step, one aligned vector store to the
//   device tensor (no tile, no copy phase).
//
// The CPU runs the lowered loops and compares them with the evaluator.
//
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=TILES
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=SAVE

// CPU: remark: graph 'graph0' on the CPU matches the evaluator
// CPU-NOT: error:

// One 64x128 f16 tile besides x's two stage buffers: exp(x)'s.
// TILES-LABEL: func.func @graph0_k0(
// TILES: memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
// TILES-COUNT-1: memref.alloc() : memref<64x128xf16, #gpu.address_space<workgroup>>
// TILES-NOT: memref.alloc() : memref<64x128xf16, #gpu.address_space<workgroup>>
// TILES: return

// After the loop, the saver of half the accumulated exp(x): the state's 4
// elements, 4 products, one store of 4 f16 to the output.
// SAVE-LABEL: func.func @graph0_k0(
// SAVE: vector.load %{{.*}} : memref<64x128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// SAVE-COUNT-4: arith.mulf
// SAVE: vector.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : memref<64x128xf16>, vector<4xf16>
// SAVE: return

// In the loop: the column sum, one lane per column, squares each element
// it folds and rounds it to f16 before adding.
// LOOPS-LABEL: func.func @graph0_k0(
// LOOPS: scf.for %{{.*}} = %c0{{.*}} to %c2 step %c1 {
// LOOPS: scf.forall
// LOOPS: memref.load %{{.*}} : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
// LOOPS: arith.mulf
// LOOPS-NEXT: arith.truncf %{{.*}} : f32 to f16
// LOOPS-NEXT: arith.extf %{{.*}} : f16 to f32
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c64 step %{{.*}} iter_args
// LOOPS: arith.mulf
// LOOPS-NEXT: arith.truncf %{{.*}} : f32 to f16
// LOOPS-NEXT: arith.extf %{{.*}} : f16 to f32
// LOOPS-NEXT: arith.addf
// The row sum of exp(x·w): two lanes per row, each folding vectors of 4.
// LOOPS: scf.forall
// LOOPS: vector.load %{{.*}} : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<4xf16>
// LOOPS: vector.load %{{.*}} : memref<1x128xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// LOOPS-COUNT-4: math.exp2
// LOOPS-COUNT-4: arith.truncf %{{.*}} : f32 to f16
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c16 step %{{.*}} iter_args
// LOOPS: vector.load %{{.*}} : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<4xf16>
// LOOPS-COUNT-4: math.exp2
// LOOPS: mirage_kernel.reduction_fold
// exp(x) keeps its phase, which stores its tile.
// LOOPS: scf.forall
// LOOPS: vector.store %{{.*}} : memref<64x128xf16, #gpu.address_space<workgroup>>, vector<4xf16>

module {
  func.func @f(%x: tensor<64x256xf16>, %w: tensor<1x128xf16>) -> (tensor<1x128xf16>, tensor<64x1xf16>, tensor<64x1xf16>, tensor<64x128xf16>) {
    %0:4 = mirage_kernel.graph "graph0"(%x, %w) : (tensor<64x256xf16>, tensor<1x128xf16>) -> (tensor<1x128xf16>, tensor<64x1xf16>, tensor<64x1xf16>, tensor<64x128xf16>) {
    ^bb0(%a: tensor<64x256xf16>, %b: tensor<1x128xf16>):
      %1:4 = mirage_kernel.custom(%a, %b) grid = [1, 1, 1] forloop = 2 : (tensor<64x256xf16>, tensor<1x128xf16>) -> (tensor<1x128xf16>, tensor<64x1xf16>, tensor<64x1xf16>, tensor<64x128xf16>) {
      ^bb0(%xa: tensor<64x256xf16>, %wa: tensor<1x128xf16>):
        %xt = mirage_block.input_iterator %xa imap = [-1, -1, -1] fmap = 1 : tensor<64x256xf16> -> tensor<64x128xf16>
        %wt = mirage_block.input_iterator %wa imap = [-1, -1, -1] fmap = -1 : tensor<1x128xf16> -> tensor<1x128xf16>
        %sq = mirage_block.binary mul %xt, %xt : tensor<64x128xf16>, tensor<64x128xf16> -> tensor<64x128xf16>
        %cs = mirage_block.reduce sum %sq dim 0 to 1 : tensor<64x128xf16> -> tensor<1x128xf16>
        %csa = mirage_block.accum sum %cs : tensor<1x128xf16> -> tensor<1x128xf16>
        %cso = mirage_block.output_saver %csa omap = [-1, -1, -1] : tensor<1x128xf16> -> tensor<1x128xf16>
        %t = mirage_block.thread_graph(%xt, %wt) : (tensor<64x128xf16>, tensor<1x128xf16>) -> tensor<64x128xf16> {
        ^bb0(%p: f16, %q: f16):
          %r = mirage_thread.binary mul %p, %q : f16
          %s = mirage_thread.unary exp %r : f16
          mirage_thread.yield %s : f16
        }
        %rs = mirage_block.reduce sum %t dim 1 to 1 : tensor<64x128xf16> -> tensor<64x1xf16>
        %rsa = mirage_block.accum sum %rs : tensor<64x1xf16> -> tensor<64x1xf16>
        %rso = mirage_block.output_saver %rsa omap = [-1, -1, -1] : tensor<64x1xf16> -> tensor<64x1xf16>
        %e = mirage_block.unary exp %xt : tensor<64x128xf16>
        %m = mirage_block.reduce max %e dim 1 to 1 : tensor<64x128xf16> -> tensor<64x1xf16>
        %ma = mirage_block.accum sum %m : tensor<64x1xf16> -> tensor<64x1xf16>
        %mo = mirage_block.output_saver %ma omap = [-1, -1, -1] : tensor<64x1xf16> -> tensor<64x1xf16>
        %ea = mirage_block.accum sum %e : tensor<64x128xf16> -> tensor<64x128xf16>
        %half = mirage_block.unary mul_scalar %ea scalar(5.000000e-01) : tensor<64x128xf16>
        %eo = mirage_block.output_saver %half omap = [-1, -1, -1] : tensor<64x128xf16> -> tensor<64x128xf16>
        mirage_block.yield %cso, %rso, %mo, %eo : tensor<1x128xf16>, tensor<64x1xf16>, tensor<64x1xf16>, tensor<64x128xf16>
      }
      mirage_kernel.yield %1#0, %1#1, %1#2, %1#3 : tensor<1x128xf16>, tensor<64x1xf16>, tensor<64x1xf16>, tensor<64x128xf16>
    }
    return %0#0, %0#1, %0#2, %0#3 : tensor<1x128xf16>, tensor<64x1xf16>, tensor<64x1xf16>, tensor<64x128xf16>
  }
}

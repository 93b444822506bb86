// f32 matmuls on register micro-tiles (docs/Rationale/FmaMicroTiles.md).
//
// graph0_opt: each block computes 13 rows x 32 columns of x·W over K = 256,
// in four iterations of 64, summed in an accumulator. The plan gives each
// thread 2 rows x 4 columns (the least pipe demand: 7 row groups x 8 column
// groups = 56 items, two warps, 8 FMAs per 6 shared loads): 13 is not a
// multiple of 2, so the last group's second row is clamped to row 12 and
// not stored. graph1_opt: a batch of 2 products of 13 x 64 by 64 x 16 per
// block, not into an accumulator (exp of the product is saved). The CPU
// runs the lowered loops and compares them with the evaluator.
//
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0_opt.sm_90.ptx %}

// VERIFY-DAG: remark: graph 'graph0_opt' is equivalent to reference 'graph0'
// VERIFY-DAG: remark: graph 'graph1_opt' is equivalent to reference 'graph1'
// CPU-DAG: remark: graph 'graph0_opt' on the CPU matches the evaluator
// CPU-DAG: remark: graph 'graph1_opt' on the CPU matches the evaluator
// CPU-NOT: error:

// LOOPS-LABEL: func.func @graph0_opt_k0(
// In the loop, a thread phase over the 56 micro-tiles: the rows of each,
// the second clamped to the tile's last; 8 accumulators read from the
// accumulator's state, 2 + 4 loads and 8 FMAs per K step.
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c4 step
// LOOPS: scf.forall (%[[T:.*]]) in (128)
// LOOPS: arith.cmpi ult, %[[T]], %c56
// LOOPS: arith.minsi %{{.*}}, %c12
// LOOPS-COUNT-8: memref.load
// LOOPS: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// LOOPS-COUNT-6: memref.load
// LOOPS-COUNT-8: math.fma
// LOOPS: scf.yield
// LOOPS-COUNT-4: memref.store
// Only the second row's stores are guarded.
// LOOPS: arith.cmpi slt, %{{.*}}, %c13
// LOOPS: scf.if
// LOOPS-COUNT-4: memref.store
// LOOPS-LABEL: func.func @graph1_opt_k0(
// LOOPS: scf.for {{.*}} iter_args({{.*}}) -> (f32,
// LOOPS: math.fma
// Eight FMAs per K step, each on registers loaded from shared memory.
// PTX: .entry graph0_opt_k0
// PTX-COUNT-8: fma.rn.f32

module {
  func.func @f(%x: tensor<1x13x256xf32>, %w: tensor<1x256x64xf32>,
               %y: tensor<2x13x64xf32>, %v: tensor<2x64x32xf32>)
      -> (tensor<1x13x64xf32>, tensor<2x13x32xf32>) {
    %0 = mirage_kernel.graph "graph0"(%x, %w) : (tensor<1x13x256xf32>, tensor<1x256x64xf32>) -> tensor<1x13x64xf32> {
    ^bb0(%a: tensor<1x13x256xf32>, %b: tensor<1x256x64xf32>):
      %m = mirage_kernel.matmul %a, %b : tensor<1x13x256xf32>, tensor<1x256x64xf32> -> tensor<1x13x64xf32>
      mirage_kernel.yield %m : tensor<1x13x64xf32>
    }
    %1 = mirage_kernel.graph "graph0_opt" reference "graph0"(%x, %w) : (tensor<1x13x256xf32>, tensor<1x256x64xf32>) -> tensor<1x13x64xf32> {
    ^bb0(%a: tensor<1x13x256xf32>, %b: tensor<1x256x64xf32>):
      %2 = mirage_kernel.custom(%a, %b) grid = [2, 1, 1] forloop = 4 : (tensor<1x13x256xf32>, tensor<1x256x64xf32>) -> tensor<1x13x64xf32> {
      ^bb0(%xa: tensor<1x13x256xf32>, %wb: tensor<1x256x64xf32>):
        %xt = mirage_block.input_iterator %xa imap = [-1, -1, -1] fmap = 2 : tensor<1x13x256xf32> -> tensor<1x13x64xf32>
        %wt = mirage_block.input_iterator %wb imap = [2, -1, -1] fmap = 1 : tensor<1x256x64xf32> -> tensor<1x64x32xf32>
        %m = mirage_block.matmul %xt, %wt : tensor<1x13x64xf32>, tensor<1x64x32xf32> -> tensor<1x13x32xf32>
        %acc = mirage_block.accum sum %m : tensor<1x13x32xf32> -> tensor<1x13x32xf32>
        %o = mirage_block.output_saver %acc omap = [2, -1, -1] : tensor<1x13x32xf32> -> tensor<1x13x64xf32>
        mirage_block.yield %o : tensor<1x13x64xf32>
      }
      mirage_kernel.yield %2 : tensor<1x13x64xf32>
    }
    %3 = mirage_kernel.graph "graph1"(%y, %v) : (tensor<2x13x64xf32>, tensor<2x64x32xf32>) -> tensor<2x13x32xf32> {
    ^bb0(%a: tensor<2x13x64xf32>, %b: tensor<2x64x32xf32>):
      %m = mirage_kernel.matmul %a, %b : tensor<2x13x64xf32>, tensor<2x64x32xf32> -> tensor<2x13x32xf32>
      %e = mirage_kernel.unary exp %m : tensor<2x13x32xf32>
      mirage_kernel.yield %e : tensor<2x13x32xf32>
    }
    %4 = mirage_kernel.graph "graph1_opt" reference "graph1"(%y, %v) : (tensor<2x13x64xf32>, tensor<2x64x32xf32>) -> tensor<2x13x32xf32> {
    ^bb0(%a: tensor<2x13x64xf32>, %b: tensor<2x64x32xf32>):
      %5 = mirage_kernel.custom(%a, %b) grid = [2, 1, 1] forloop = 1 : (tensor<2x13x64xf32>, tensor<2x64x32xf32>) -> tensor<2x13x32xf32> {
      ^bb0(%ya: tensor<2x13x64xf32>, %vb: tensor<2x64x32xf32>):
        %yt = mirage_block.input_iterator %ya imap = [-1, -1, -1] fmap = -1 : tensor<2x13x64xf32> -> tensor<2x13x64xf32>
        %vt = mirage_block.input_iterator %vb imap = [2, -1, -1] fmap = -1 : tensor<2x64x32xf32> -> tensor<2x64x16xf32>
        %m = mirage_block.matmul %yt, %vt : tensor<2x13x64xf32>, tensor<2x64x16xf32> -> tensor<2x13x16xf32>
        %e = mirage_block.unary exp %m : tensor<2x13x16xf32>
        %acc = mirage_block.accum sum %e : tensor<2x13x16xf32> -> tensor<2x13x16xf32>
        %o = mirage_block.output_saver %acc omap = [2, -1, -1] : tensor<2x13x16xf32> -> tensor<2x13x32xf32>
        mirage_block.yield %o : tensor<2x13x32xf32>
      }
      mirage_kernel.yield %5 : tensor<2x13x32xf32>
    }
    return %1, %4 : tensor<1x13x64xf32>, tensor<2x13x32xf32>
  }
}

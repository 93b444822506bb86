// A block matmul whose warps hold more fragments than the warp phase
// unrolls (docs/Rationale/MmaChains.md, "A warp's fragments in one K
// loop"): each block multiplies a 64x64 tile of x by the 64x64 weight, 4x8
// output fragments of 16x8 over 4 warps, 8 per warp. The warp phase loops
// over chunks of 4 of a warp's items (w + 16c + 4j): one K loop of 4 steps
// carries the chunk's 4 accumulators, and each step reads the 2 A
// fragments (rows 0 and 1 of the chunk) and the 2 B fragments (columns w
// and w + 4) once, where one loop per fragment read 8. The CPU runs the
// lowered loops and compares them with the evaluator.
//
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | mirage-opt --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=mma}))' | FileCheck %s --check-prefix=MMA
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0_opt.sm_90.ptx %}

// VERIFY: remark: graph 'graph0_opt' is equivalent to reference 'graph0'
// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator
// CPU-NOT: error:

// LOOPS-LABEL: func.func @graph0_opt_k0(
// LOOPS: scf.forall (%[[W:.*]]) in (4)
// LOOPS: scf.for %{{.*}} = %[[W]] to %c32 step %c16 {
// LOOPS: scf.for {{.*}} iter_args(%[[C0:.*]] = %{{.*}}, %[[C1:.*]] = %{{.*}}, %[[C2:.*]] = %{{.*}}, %[[C3:.*]] = %{{.*}}) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>)
// LOOPS: %[[A0:.*]] = vector.transfer_read {{.*}} vector<16x16xf16>
// LOOPS: %[[B0:.*]] = vector.transfer_read {{.*}} vector<8x16xf16>
// LOOPS: %[[R0:.*]] = vector.contract {{.*}} %[[A0]], %[[B0]], %[[C0]]
// LOOPS: %[[B1:.*]] = vector.transfer_read {{.*}} vector<8x16xf16>
// LOOPS: %[[R1:.*]] = vector.contract {{.*}} %[[A0]], %[[B1]], %[[C1]]
// LOOPS: %[[A1:.*]] = vector.transfer_read {{.*}} vector<16x16xf16>
// LOOPS-NOT: vector.transfer_read
// LOOPS: %[[R2:.*]] = vector.contract {{.*}} %[[A1]], %[[B0]], %[[C2]]
// LOOPS-NOT: vector.transfer_read
// LOOPS: %[[R3:.*]] = vector.contract {{.*}} %[[A1]], %[[B1]], %[[C3]]
// LOOPS: scf.yield %[[R0]], %[[R1]], %[[R2]], %[[R3]]
// LOOPS-COUNT-4: vector.transfer_write {{.*}} : vector<16x8xf32>
// LOOPS: } {mapping = [#gpu.warp<linear_dim_0>]}

// Stage 2 unrolls the 4 steps: 16 mma.sync in the chunk's body, then the
// saver's phase.
// MMA-LABEL: func.func @graph0_opt_k0(
// MMA: scf.for %{{.*}} = %{{.*}} to %c32 step %c16 {
// MMA-NOT: scf.for
// MMA-COUNT-16: nvgpu.mma.sync
// MMA-NOT: nvgpu.mma.sync
// MMA: scf.for %{{.*}} = %thread_id_x to %c1024 step %c128

// PTX: .entry graph0_opt_k0
// PTX-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

module {
  func.func @f(%x: tensor<128x64xf16>, %w: tensor<64x64xf16>) -> tensor<128x64xf16> {
    %0 = mirage_kernel.graph "graph0"(%x, %w) : (tensor<128x64xf16>, tensor<64x64xf16>) -> tensor<128x64xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x64xf16>):
      %m = mirage_kernel.matmul %a, %b : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf16>
      mirage_kernel.yield %m : tensor<128x64xf16>
    }
    %1 = mirage_kernel.graph "graph0_opt" reference "graph0"(%x, %w) : (tensor<128x64xf16>, tensor<64x64xf16>) -> tensor<128x64xf16> {
    ^bb0(%a: tensor<128x64xf16>, %b: tensor<64x64xf16>):
      %2 = mirage_kernel.custom(%a, %b) grid = [2, 1, 1] forloop = 1 : (tensor<128x64xf16>, tensor<64x64xf16>) -> tensor<128x64xf16> {
      ^bb0(%xa: tensor<128x64xf16>, %wb: tensor<64x64xf16>):
        %xt = mirage_block.input_iterator %xa imap = [0, -1, -1] fmap = -1 : tensor<128x64xf16> -> tensor<64x64xf16>
        %wt = mirage_block.input_iterator %wb imap = [-1, -1, -1] fmap = -1 : tensor<64x64xf16> -> tensor<64x64xf16>
        %m = mirage_block.matmul %xt, %wt : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
        %acc = mirage_block.accum sum %m : tensor<64x64xf16> -> tensor<64x64xf16>
        %o = mirage_block.output_saver %acc omap = [0, -1, -1] : tensor<64x64xf16> -> tensor<128x64xf16>
        mirage_block.yield %o : tensor<128x64xf16>
      }
      mirage_kernel.yield %2 : tensor<128x64xf16>
    }
    return %1 : tensor<128x64xf16>
  }
}

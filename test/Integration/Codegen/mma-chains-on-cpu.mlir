// A decode GEMV's tensor-core matmul split into independent chains
// (docs/Rationale/MmaChains.md), computed transposed
// (docs/Rationale/TransposedDecodeMma.md). Each block computes 4 tokens x 16
// columns of x·W over K = 1024, in two iterations of 512 (32 MMA K steps):
// transposed, the 16 columns are one fragment of the MMA's 16 rows by the
// tokens (padded to 8), a chain of 32 dependent mma.sync for one of four
// warps. The plan splits K into 4 slices (one per warp) x 2 chains per warp:
// 8 partials of 4 steps in an f32 scratch of 8 x 16 rows (Cᵀ's columns) of
// 8 tokens. The matmul adds into an accumulator, so the partials persist
// across the loop (zeroed before it, each chain resuming from its own) and
// are added into the accumulator once, after it. The CPU runs the lowered
// loops and compares them with the evaluator.
//
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0_opt.sm_90.ptx %}

// VERIFY: remark: graph 'graph0_opt' is equivalent to reference 'graph0'
// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator
// CPU-NOT: error:

// LOOPS-LABEL: func.func @graph0_opt_k0(
// LOOPS: %[[P:.*]] = memref.alloc() : memref<128x8xf32, #gpu.address_space<workgroup>>
// Before the loop the accumulator and the partials start at 0.
// LOOPS: scf.forall
// LOOPS: memref.store %{{.*}}, %[[P]]
// The loop of 2 iterations; in it, the warp phase of (fragment, slice)
// items, one per warp, each a loop of 4 steps carrying 2 accumulators,
// read from and written back to their partials: the weight tile read
// transposed as the 16x16 operand, the tokens' tile as stored.
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c2 step
// LOOPS: scf.forall (%{{.*}}) in (4)
// LOOPS-COUNT-2: vector.transfer_read %[[P]]
// LOOPS: scf.for {{.*}} iter_args({{.*}}) -> (vector<16x8xf32>, vector<16x8xf32>)
// LOOPS: vector.transfer_read {{.*}} permutation_map = #{{.*}} : memref<512x16xf16, {{.*}}>, vector<16x16xf16>
// LOOPS: vector.transfer_read {{.*}} : memref<8x512xf16, {{.*}}>, vector<8x16xf16>
// LOOPS-COUNT-2: vector.contract
// LOOPS: scf.yield
// LOOPS-COUNT-2: vector.transfer_write {{.*}}, %[[P]]
// LOOPS: } {mapping = [#gpu.warp<linear_dim_0>]}
// After the loop: the accumulator and its 8 partials, then the saver.
// LOOPS: scf.forall
// LOOPS-COUNT-8: memref.load %[[P]]
// LOOPS-NOT: memref.load %[[P]]
// LOOPS: vector.transfer_write {{.*}} : vector<{{[0-9]+}}xf16>, memref<1x4x64xf16>
// On the GPU each warp carries its two partials in registers across the
// for-loop (MmaChains.md, "Partials in registers across the loop"): read
// from the scratch once before it, written once after it.
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | mirage-opt --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=map}))' | FileCheck %s --check-prefix=MAP
// MAP: %[[S:.*]] = memref.alloc() : memref<128x8xf32, #gpu.address_space<workgroup>>
// MAP-COUNT-2: vector.transfer_read %[[S]]
// MAP: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> (vector<16x8xf32>, vector<16x8xf32>)
// MAP-NOT: %[[S]]
// MAP: scf.yield
// MAP-COUNT-2: vector.transfer_write {{.*}}, %[[S]]
// MAP-NEXT: gpu.barrier

// Two independent mma.sync in the loop body of each warp, each fed by a
// transposed ldmatrix.x4 of the weight and an ldmatrix.x2 of the tokens.
// PTX: .entry graph0_opt_k0
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX-COUNT-2: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

module {
  func.func @f(%x: tensor<1x4x1024xf16>, %w: tensor<1x1024x64xf16>) -> tensor<1x4x64xf16> {
    %0 = mirage_kernel.graph "graph0"(%x, %w) : (tensor<1x4x1024xf16>, tensor<1x1024x64xf16>) -> tensor<1x4x64xf16> {
    ^bb0(%a: tensor<1x4x1024xf16>, %b: tensor<1x1024x64xf16>):
      %m = mirage_kernel.matmul %a, %b : tensor<1x4x1024xf16>, tensor<1x1024x64xf16> -> tensor<1x4x64xf16>
      mirage_kernel.yield %m : tensor<1x4x64xf16>
    }
    %1 = mirage_kernel.graph "graph0_opt" reference "graph0"(%x, %w) : (tensor<1x4x1024xf16>, tensor<1x1024x64xf16>) -> tensor<1x4x64xf16> {
    ^bb0(%a: tensor<1x4x1024xf16>, %b: tensor<1x1024x64xf16>):
      %2 = mirage_kernel.custom(%a, %b) grid = [4, 1, 1] forloop = 2 : (tensor<1x4x1024xf16>, tensor<1x1024x64xf16>) -> tensor<1x4x64xf16> {
      ^bb0(%xa: tensor<1x4x1024xf16>, %wb: tensor<1x1024x64xf16>):
        %xt = mirage_block.input_iterator %xa imap = [-1, -1, -1] fmap = 2 : tensor<1x4x1024xf16> -> tensor<1x4x512xf16>
        %wt = mirage_block.input_iterator %wb imap = [2, -1, -1] fmap = 1 : tensor<1x1024x64xf16> -> tensor<1x512x16xf16>
        %m = mirage_block.matmul %xt, %wt : tensor<1x4x512xf16>, tensor<1x512x16xf16> -> tensor<1x4x16xf16>
        %acc = mirage_block.accum sum %m : tensor<1x4x16xf16> -> tensor<1x4x16xf16>
        %o = mirage_block.output_saver %acc omap = [2, -1, -1] : tensor<1x4x16xf16> -> tensor<1x4x64xf16>
        mirage_block.yield %o : tensor<1x4x64xf16>
      }
      mirage_kernel.yield %2 : tensor<1x4x64xf16>
    }
    return %1 : tensor<1x4x64xf16>
  }
}

// A decode GEMV of 3 tokens computed transposed on tensor cores
// (docs/Rationale/TransposedDecodeMma.md): Cᵀ = Wᵀ·xᵀ, the weight's 16
// columns as the MMA's 16 rows (read transposed), the 3 tokens as its
// columns (the x tile padded to 8 rows, never written past the third). Each
// block computes 3 x 16 of x·W over K = 256 in two iterations of 128 (8 MMA
// K steps: too short to split, one partial). The fragment goes to the
// scratch of Cᵀ (16 columns x 8 tokens) across the loop, and joins the
// accumulator's 3 real rows once, after it. The CPU runs the lowered loops
// and compares them with the evaluator; the PTX reads the weight with
// ldmatrix.x4.trans and the tokens with ldmatrix.x2, and swaps the
// transposed fragment's middle registers (UpstreamWorkarounds.h).
//
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0_opt.sm_90.ptx %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=MANIFEST --input-file=%t/graph0_opt.sm_90.manifest.json %}

// VERIFY: remark: graph 'graph0_opt' is equivalent to reference 'graph0'
// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator
// CPU-NOT: error:

// LOOPS-LABEL: func.func @graph0_opt_k0(
// LOOPS: memref.alloc() : memref<2x1x8x{{[0-9]+}}xf16, #gpu.address_space<workgroup>>
// LOOPS: %[[P:.*]] = memref.alloc() : memref<16x8xf32, #gpu.address_space<workgroup>>
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c2 step
// LOOPS: scf.forall (%{{.*}}) in (4)
// LOOPS: vector.transfer_read %[[P]]
// LOOPS: scf.for {{.*}} iter_args({{.*}}) -> (vector<16x8xf32>)
// LOOPS: vector.transfer_read {{.*}} permutation_map = #{{.*}} : memref<128x16xf16, {{.*}}>, vector<16x16xf16>
// LOOPS: vector.transfer_read {{.*}} : memref<8x128xf16, {{.*}}>, vector<8x16xf16>
// LOOPS: vector.contract
// LOOPS: vector.transfer_write {{.*}}, %[[P]]
// After the loop the partial joins the accumulator's real rows: 3 x 16.
// LOOPS: scf.forall
// LOOPS: memref.load %[[P]]
// LOOPS-NOT: memref.load %[[P]]

// PTX: .entry graph0_opt_k0
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {[[A0:%r[0-9]+]], [[A1:%r[0-9]+]], [[A2:%r[0-9]+]], [[A3:%r[0-9]+]]}
// PTX: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NEXT: {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}},
// PTX-NEXT: {[[A0]], [[A2]], [[A1]], [[A3]]},

// MANIFEST: "tensor_core_matmuls":1,"transposed_matmuls":1

module {
  func.func @f(%x: tensor<1x3x256xf16>, %w: tensor<1x256x64xf16>) -> tensor<1x3x64xf16> {
    %0 = mirage_kernel.graph "graph0"(%x, %w) : (tensor<1x3x256xf16>, tensor<1x256x64xf16>) -> tensor<1x3x64xf16> {
    ^bb0(%a: tensor<1x3x256xf16>, %b: tensor<1x256x64xf16>):
      %m = mirage_kernel.matmul %a, %b : tensor<1x3x256xf16>, tensor<1x256x64xf16> -> tensor<1x3x64xf16>
      mirage_kernel.yield %m : tensor<1x3x64xf16>
    }
    %1 = mirage_kernel.graph "graph0_opt" reference "graph0"(%x, %w) : (tensor<1x3x256xf16>, tensor<1x256x64xf16>) -> tensor<1x3x64xf16> {
    ^bb0(%a: tensor<1x3x256xf16>, %b: tensor<1x256x64xf16>):
      %2 = mirage_kernel.custom(%a, %b) grid = [4, 1, 1] forloop = 2 : (tensor<1x3x256xf16>, tensor<1x256x64xf16>) -> tensor<1x3x64xf16> {
      ^bb0(%xa: tensor<1x3x256xf16>, %wb: tensor<1x256x64xf16>):
        %xt = mirage_block.input_iterator %xa imap = [-1, -1, -1] fmap = 2 : tensor<1x3x256xf16> -> tensor<1x3x128xf16>
        %wt = mirage_block.input_iterator %wb imap = [2, -1, -1] fmap = 1 : tensor<1x256x64xf16> -> tensor<1x128x16xf16>
        %m = mirage_block.matmul %xt, %wt : tensor<1x3x128xf16>, tensor<1x128x16xf16> -> tensor<1x3x16xf16>
        %acc = mirage_block.accum sum %m : tensor<1x3x16xf16> -> tensor<1x3x16xf16>
        %o = mirage_block.output_saver %acc omap = [2, -1, -1] : tensor<1x3x16xf16> -> tensor<1x3x64xf16>
        mirage_block.yield %o : tensor<1x3x64xf16>
      }
      mirage_kernel.yield %2 : tensor<1x3x64xf16>
    }
    return %1 : tensor<1x3x64xf16>
  }
}

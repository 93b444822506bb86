// A batched product whose B operand is stored transposed
// (docs/Rationale/OperandLayouts.md): scores Q·Kᵀ of 4 heads with K as the
// attention's K tensor lies, [heads, keys, head dim], read as Kᵀ. Each block
// holds all 4 heads (the tile's batch 4) of 16 keys, over the head dim in
// two iterations of 32. The K tile is stored as K lies (4 x 16 x 32); the
// MMA reads each head's B fragment from the stacked stored rows at
// (head · 16 + key, dim), without `.trans` (a plain B operand is read
// transposed; a stored-transposed one is not). The CPU runs the lowered
// loops against the evaluator.
//
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0_opt.sm_90.ptx %}

// VERIFY: remark: graph 'graph0_opt' is equivalent to reference 'graph0'
// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator
// CPU-NOT: error:

// LOOPS-LABEL: func.func @graph0_opt_k0(
// LOOPS-SAME: memref<4x16x64xf16>, %[[K:.*]]: memref<4x32x64xf16>
// LOOPS: memref.alloc() : memref<2x4x16x{{32|40}}xf16, #gpu.address_space<workgroup>>
// LOOPS: vector.transfer_read %[[K]]{{.*}} : memref<4x32x64xf16>, vector<8xf16>
// The B fragment: the stored rows of one head, read as they lie.
// LOOPS: vector.transfer_read {{.*}} {in_bounds = [true, true]} : memref<64x{{32|40}}xf16, {{.*}}>, vector<8x16xf16>
// LOOPS: vector.contract

// PTX: .entry graph0_opt_k0
// PTX-NOT: .trans
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

module {
  func.func @f(%q: tensor<4x16x64xf16>, %k: tensor<4x32x64xf16>) -> tensor<4x16x32xf16> {
    %0 = mirage_kernel.graph "graph0"(%q, %k) attributes {transposed_inputs = array<i64: 1>} : (tensor<4x16x64xf16>, tensor<4x32x64xf16>) -> tensor<4x16x32xf16> {
    ^bb0(%a: tensor<4x16x64xf16>, %b: tensor<4x64x32xf16>):
      %m = mirage_kernel.matmul %a, %b : tensor<4x16x64xf16>, tensor<4x64x32xf16> -> tensor<4x16x32xf16>
      mirage_kernel.yield %m : tensor<4x16x32xf16>
    }
    %1 = mirage_kernel.graph "graph0_opt" reference "graph0"(%q, %k) attributes {transposed_inputs = array<i64: 1>} : (tensor<4x16x64xf16>, tensor<4x32x64xf16>) -> tensor<4x16x32xf16> {
    ^bb0(%a: tensor<4x16x64xf16>, %b: tensor<4x64x32xf16>):
      %2 = mirage_kernel.custom(%a, %b) grid = [2, 1, 1] forloop = 2 : (tensor<4x16x64xf16>, tensor<4x64x32xf16>) -> tensor<4x16x32xf16> {
      ^bb0(%qa: tensor<4x16x64xf16>, %kb: tensor<4x64x32xf16>):
        %qt = mirage_block.input_iterator %qa imap = [-1, -1, -1] fmap = 2 : tensor<4x16x64xf16> -> tensor<4x16x32xf16>
        %kt = mirage_block.input_iterator %kb imap = [2, -1, -1] fmap = 1 : tensor<4x64x32xf16> -> tensor<4x32x16xf16>
        %m = mirage_block.matmul %qt, %kt : tensor<4x16x32xf16>, tensor<4x32x16xf16> -> tensor<4x16x16xf16>
        %acc = mirage_block.accum sum %m : tensor<4x16x16xf16> -> tensor<4x16x16xf16>
        %o = mirage_block.output_saver %acc omap = [2, -1, -1] : tensor<4x16x16xf16> -> tensor<4x16x32xf16>
        mirage_block.yield %o : tensor<4x16x32xf16>
      }
      mirage_kernel.yield %2 : tensor<4x16x32xf16>
    }
    return %1 : tensor<4x16x32xf16>
  }
}

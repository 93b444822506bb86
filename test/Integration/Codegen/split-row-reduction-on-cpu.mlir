// A reduce of few long rows (Lowering.md, "a reduce of few long rows splits
// them"): 8 rows of 65,536 f16 (1 MB) would run on 8 blocks, one a row. The
// expansion splits each row into 128 chunks of 512: kernel 1 runs 8 × 128
// blocks, each reducing its chunk into an [8, 128] partial tensor, and the
// fold of the partials (one block a row: it reads only what its row's 128
// blocks wrote) runs in kernel 1's tail (TailCombine.md), so each reduce is
// one launch of 1,024 blocks. Max and sum, run on the CPU against the
// float64 evaluator, and lowered for sm_90.
//
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null 2>/dev/null && FileCheck %s --check-prefix=MANIFEST --input-file=%t/rows.sm_90.manifest.json
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/rows.sm_90.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/rows.sm_90.ptx -o /dev/null %}

// CPU: remark: graph 'rows' on the CPU matches the evaluator: {{.*}} 2 kernels, ran in

// The partials, a counter per row group, and two launches of 8 × 128 blocks.
// MANIFEST: "name":"t{{[0-9]+}}","role":"temp","shape":[8,128]
// MANIFEST: "name":"t{{[0-9]+}}","role":"temp","shape":[8,128]
// MANIFEST: {"dtype":"i32","name":"t{{[0-9]+}}","role":"temp","shape":[8]}
// MANIFEST: "grid":[8,128,1]
// MANIFEST: "grid":[8,128,1]
// MANIFEST-NOT: "grid":

// PTX: .visible .entry rows_k0(
// PTX: atom.global.add.u32
// PTX: .visible .entry rows_k2(
// PTX: atom.global.add.u32

module {
  func.func @f(%x: tensor<8x65536xf16>) -> (tensor<8x1xf16>, tensor<8x1xf16>) {
    %0:2 = mirage_kernel.graph "rows"(%x) : (tensor<8x65536xf16>) -> (tensor<8x1xf16>, tensor<8x1xf16>) {
    ^bb0(%a: tensor<8x65536xf16>):
      %m = mirage_kernel.reduce max %a dim 1 : tensor<8x65536xf16> -> tensor<8x1xf16>
      %s = mirage_kernel.reduce sum %a dim 1 : tensor<8x65536xf16> -> tensor<8x1xf16>
      mirage_kernel.yield %m, %s : tensor<8x1xf16>, tensor<8x1xf16>
    }
    return %0#0, %0#1 : tensor<8x1xf16>, tensor<8x1xf16>
  }
}

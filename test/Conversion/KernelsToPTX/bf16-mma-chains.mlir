// RUN: rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/gemv.sm_90.ptx
//
// A bf16 decode GEMV whose tensor-core chain the plan splits
// (docs/Rationale/MmaChains.md): four chains per warp read the same A and
// B tiles. The bf16 operands are read through one f16 view per buffer
// (TensorCores.cpp): a view per read gave identical casts that CSE merged,
// and the stage that turns them back read a freed one (a crash).

// CHECK: remark: graph 'gemv': wrote {{.*}}gemv.sm_90.ptx {{.*}}(1 kernel, 1 of 1 matmuls on tensor cores)
// PTX: .entry gemv_k0
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

module {
  func.func @f(%x: tensor<1x4x1024xbf16>, %w: tensor<1x1024x64xbf16>) -> tensor<1x4x64xbf16> {
    %0 = mirage_kernel.graph "gemv"(%x, %w) : (tensor<1x4x1024xbf16>, tensor<1x1024x64xbf16>) -> tensor<1x4x64xbf16> {
    ^bb0(%a: tensor<1x4x1024xbf16>, %b: tensor<1x1024x64xbf16>):
      %1 = mirage_kernel.custom(%a, %b) grid = [4, 1, 1] forloop = 2 : (tensor<1x4x1024xbf16>, tensor<1x1024x64xbf16>) -> tensor<1x4x64xbf16> {
      ^bb0(%xa: tensor<1x4x1024xbf16>, %wb: tensor<1x1024x64xbf16>):
        %xt = mirage_block.input_iterator %xa imap = [-1, -1, -1] fmap = 2 : tensor<1x4x1024xbf16> -> tensor<1x4x512xbf16>
        %wt = mirage_block.input_iterator %wb imap = [2, -1, -1] fmap = 1 : tensor<1x1024x64xbf16> -> tensor<1x512x16xbf16>
        %m = mirage_block.matmul %xt, %wt : tensor<1x4x512xbf16>, tensor<1x512x16xbf16> -> tensor<1x4x16xbf16>
        %acc = mirage_block.accum sum %m : tensor<1x4x16xbf16> -> tensor<1x4x16xbf16>
        %o = mirage_block.output_saver %acc omap = [2, -1, -1] : tensor<1x4x16xbf16> -> tensor<1x4x64xbf16>
        mirage_block.yield %o : tensor<1x4x64xbf16>
      }
      mirage_kernel.yield %1 : tensor<1x4x64xbf16>
    }
    return %0 : tensor<1x4x64xbf16>
  }
}

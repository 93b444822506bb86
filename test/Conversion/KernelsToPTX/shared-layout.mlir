// What ptxas allocates is the launch plan's shared memory to the byte. The
// reciprocal of an 8x4x1 row sum (a kernel of Llama-3-8B decode attention's
// unfused reference) keeps three buffers: the 8-byte input tile, the 8-byte
// result and a 16-byte f32 accumulator. The plan aligns each to 16 bytes:
// 48. As three .shared symbols ptxas laid them out in declaration order
// without padding the last one, 40 bytes (the audit's PLAN-SMEM-MISMATCH);
// as views of one 48-byte buffer it allocates 48.

// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/recip.sm_90.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/recip.sm_90.manifest.json
// RUN: %if ptxas %{ %ptxas -arch=sm_90 -v %t/recip.sm_90.ptx -o %t/recip.cubin 2> %t/ptxas.log %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTXAS --input-file=%t/ptxas.log %}

// PTX: .shared .align 16 .b8 __mirage_smem[48];
// PTX-NOT: .shared .align
// MANIFEST: "shared_bytes":48,
// MANIFEST: "static_shared_bytes":48
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers, 48 bytes smem

func.func @recip(%arg0: tensor<8x4x1xf16>) -> tensor<8x4x1xf16> {
  %0 = mirage_kernel.graph "recip"(%arg0) : (tensor<8x4x1xf16>) -> tensor<8x4x1xf16> {
  ^bb0(%arg1: tensor<8x4x1xf16>):
    %1 = mirage_kernel.unary reciprocal %arg1 : tensor<8x4x1xf16>
    mirage_kernel.yield %1 : tensor<8x4x1xf16>
  }
  return %0 : tensor<8x4x1xf16>
}

// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/scores.sm_90.manifest.json
// RUN: mirage-run %t/scores.sm_90.manifest.json --dry-run | FileCheck %s --check-prefix=DRY
//
// docs/Rationale/GridLimits.md: the scaled scores of a 32-head, 2048-token
// prefill attention, 134 M f16 elements. Tiles for 4096 blocks need 263,168
// bytes of shared memory (more than H100's 232,448) and the graph did not
// lower; the expansion now tiles for the rule's grid limit: 65,536 blocks of
// 2048 elements, 16 KiB of shared memory each, every axis within 65,535.

// REMARK: remark: graph 'scores': wrote {{.*}}scores.sm_90.ptx and {{.*}}scores.sm_90.manifest.json (1 kernel, 0 of 0 matmuls on tensor cores)
// MANIFEST: "grid":[8,256,32],"name":"scores_k0"
// MANIFEST-SAME: "shared_bytes":16384
// DRY: kernel scores_k0

func.func @scores(%s: tensor<32x2048x2048xf16>) -> tensor<32x2048x2048xf16> {
  %0 = mirage_kernel.graph "scores"(%s) : (tensor<32x2048x2048xf16>) -> tensor<32x2048x2048xf16> {
  ^bb0(%a: tensor<32x2048x2048xf16>):
    %1 = mirage_kernel.unary mul_scalar %a scalar(0.08837890625) : tensor<32x2048x2048xf16>
    mirage_kernel.yield %1 : tensor<32x2048x2048xf16>
  }
  return %0 : tensor<32x2048x2048xf16>
}

// The same for a matmul: the scores of an 8192-token prefill, 32 heads. On
// 4096 blocks its tiles need 2.6 MB; tiled for the rule's limit it lowers,
// on more than 4096 blocks, within shared memory.
// REMARK: remark: graph 'qk8k': wrote {{.*}}qk8k.sm_90.ptx and {{.*}}qk8k.sm_90.manifest.json (1 kernel, 1 of 1 matmuls on tensor cores)
// RUN: FileCheck %s --check-prefix=QK --input-file=%t/qk8k.sm_90.manifest.json
// QK: "grid":[64,64,32],"name":"qk8k_k0"
// RUN: mirage-run %t/qk8k.sm_90.manifest.json --dry-run | FileCheck %s --check-prefix=QKDRY
// QKDRY: resident blocks per SM: {{[1-9]}}

func.func @qk8k(%q: tensor<32x8192x128xf16>, %k: tensor<32x128x8192xf16>) -> tensor<32x8192x8192xf16> {
  %0 = mirage_kernel.graph "qk8k"(%q, %k) : (tensor<32x8192x128xf16>, tensor<32x128x8192xf16>) -> tensor<32x8192x8192xf16> {
  ^bb0(%a: tensor<32x8192x128xf16>, %b: tensor<32x128x8192xf16>):
    %1 = mirage_kernel.matmul %a, %b : tensor<32x8192x128xf16>, tensor<32x128x8192xf16> -> tensor<32x8192x8192xf16>
    mirage_kernel.yield %1 : tensor<32x8192x8192xf16>
  }
  return %0 : tensor<32x8192x8192xf16>
}

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

// Issue 23: a chip that is not a target's reached the NVPTX back end, which
// aborts on the instructions the lowering emits (sm_75 has no cp.async:
// "Cannot select"). Every entry point refuses it first, naming the chips it
// supports.

// RUN: not mirage-opt %s --pass-pipeline='builtin.module(mirage-kernels-to-gpu{chip=sm_75})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: error: unsupported chip 'sm_75' (supported: sm_80, sm_90, sm_90a)
// GPU-NOT: LLVM ERROR

// sm_80a is no chip of LLVM's (only sm_90 has an architecture-specific
// variant here).
// RUN: not mirage-opt %s --pass-pipeline='builtin.module(mirage-kernels-to-gpu{chip=sm_80a})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: error: unsupported chip 'sm_80a' (supported: sm_80, sm_90, sm_90a)

// RUN: not mirage-opt %s --mirage-kernels-to-ptx="chip=sm_75 output-dir=%t" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTX
// PTX: error: unsupported chip 'sm_75' (supported: sm_80, sm_90, sm_90a)

// The supported chips still lower.
// RUN: mirage-opt %s --pass-pipeline='builtin.module(mirage-kernels-to-gpu{chip=sm_90a})' | FileCheck %s --check-prefix=OK
// OK: gpu.binary @mirage_kernels_ptx

func.func @add(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %o = mirage_kernel.graph "add" (%x, %y) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>):
    %s = mirage_kernel.binary add %a, %b : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    mirage_kernel.yield %s : tensor<64x64xf32>
  }
  return %o : tensor<64x64xf32>
}

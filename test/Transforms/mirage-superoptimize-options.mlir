// Option values outside their domain are refused with a diagnostic before
// any search, and the IR is left alone.
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off cost-gap=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GAP1
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off cost-gap=-0.5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GAPNEG
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off target=v100" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// The exact bound (cost-gap=0) and the default gap find the same kernel
// here: its plain fusion reaches the lowest floor.
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2 cost-gap=0" 2>&1 | FileCheck %s --check-prefix=FOUND
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2" 2>&1 | FileCheck %s --check-prefix=FOUND

func.func @rmsnorm_matmul(%x: tensor<8x256xf16>, %w: tensor<256x512xf16>) -> tensor<8x512xf16> {
  %r = mirage_kernel.graph "rms" (%x, %w) : (tensor<8x256xf16>, tensor<256x512xf16>) -> tensor<8x512xf16> {
  ^bb0(%a: tensor<8x256xf16>, %b: tensor<256x512xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<8x256xf16> -> tensor<8x256xf16>
    %m = mirage_kernel.matmul %n, %b : tensor<8x256xf16>, tensor<256x512xf16> -> tensor<8x512xf16>
    mirage_kernel.yield %m : tensor<8x512xf16>
  }
  return %r : tensor<8x512xf16>
}

// GAP1: error: cost-gap must be in [0, 1), got 1
// GAPNEG: error: cost-gap must be in [0, 1), got -0.5
// TARGET: error: unknown target 'v100'
// FOUND: remark: superoptimized 'rms': 2 kernel(s) -> 1, estimated [[IN:.*]] us -> [[OUT:.*]] us

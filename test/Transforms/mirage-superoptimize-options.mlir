// Option values outside their domain are refused with a diagnostic before
// any search, and the IR is left alone.
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off cost-gap=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GAP1
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off cost-gap=-0.5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GAPNEG
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off target=v100" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// Issue 23: a NaN budget never expired; negative and infinite ones are no
// budgets either.
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off time-budget=nan" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET-NAN
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off time-budget=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET-NEG
// RUN: not mirage-opt %s --mirage-superoptimize="cache=off time-budget=inf" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET-INF
// A search that runs out of time says so; it has not seen the whole space.
// RUN: mirage-opt %s --mirage-superoptimize="cache=off time-budget=0 report=%t.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=TIMEOUT-REPORT
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
// BUDGET-NAN: error: time-budget must be a finite number of seconds >= 0, got nan
// BUDGET-NEG: error: time-budget must be a finite number of seconds >= 0, got -1
// BUDGET-INF: error: time-budget must be a finite number of seconds >= 0, got inf
// TIMEOUT: remark: graph 'rms' left unchanged: the search timed out (time-budget 0 s) before it found a fused kernel
// TIMEOUT-NOT: search space
// TIMEOUT-REPORT: "timed_out": true
// FOUND: remark: superoptimized 'rms': 2 kernel(s) -> 1, estimated [[IN:.*]] us -> [[OUT:.*]] us

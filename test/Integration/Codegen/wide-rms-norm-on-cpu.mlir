// rms_norm over rows too wide for one block (32,768 f16 columns: the
// one-kernel form's tiles are over the H100's 227 KiB of shared memory;
// 16,384 fit since the weighing is computed where its saver writes it,
// ElementsInReductions.md) is expanded into two kernels: the
// rows' rms folded over a for-loop of column chunks, then the division and
// the weight on a grid over rows and columns. The generated code runs on the
// CPU and matches the float64 evaluator of the graph as written; the
// manifest-level structure (two kernels for one rms_norm) is checked too.
//
// RUN: mirage-opt %s --mirage-check-on-cpu -o /dev/null 2>&1 | FileCheck %s
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - 2>&1 | FileCheck %s --check-prefix=LOOPS

func.func @wide(%x: tensor<2x32768xf16>, %w: tensor<1x32768xf16>) -> tensor<2x32768xf16> {
  %o = mirage_kernel.graph "wide_rms" (%x, %w)
      : (tensor<2x32768xf16>, tensor<1x32768xf16>) -> tensor<2x32768xf16> {
  ^bb0(%a: tensor<2x32768xf16>, %g: tensor<1x32768xf16>):
    %n = mirage_kernel.rms_norm %a weight %g eps(1.0e-5) : tensor<2x32768xf16>, tensor<1x32768xf16> -> tensor<2x32768xf16>
    mirage_kernel.yield %n : tensor<2x32768xf16>
  }
  return %o : tensor<2x32768xf16>
}

// CHECK: remark: graph 'wide_rms' on the CPU matches the evaluator: {{.*}} 2 kernels
// CHECK-NOT: error

// LOOPS: func.func @wide_rms_k0
// LOOPS-SAME: mirage_kernel.grid = array<i64: 2, 1, 1>
// LOOPS: func.func @wide_rms_k1
// LOOPS-NOT: func.func @wide_rms_k2

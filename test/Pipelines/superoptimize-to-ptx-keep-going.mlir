// Issue 22: a whole program is never failed by one graph. In the
// superoptimize-to-ptx pipeline a graph that cannot be lowered (here f64,
// which has no GPU path) gets a warning and no files; the module's other
// graphs are searched and written, and the pipeline succeeds. A wrong chip
// or a chip of another target still fails the whole run, before any graph.
// RUN: rm -rf %t && mirage-opt %s --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{output-dir=%t cache=off})" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// The standalone pass keeps failing on such a graph unless asked not to.
// RUN: not mirage-opt %s --mirage-kernels-to-ptx="output-dir=%t.strict" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: mirage-opt %s --mirage-kernels-to-ptx="output-dir=%t.kg keep-going=true" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: not mirage-opt %s --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{output-dir=%t.bad chip=sm_75 cache=off})" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not mirage-opt %s --pass-pipeline="builtin.module(mirage-superoptimize-to-ptx{output-dir=%t.bad target=a100 chip=sm_90 cache=off})" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PAIR

func.func @f(%x: tensor<4x8xf64>, %y: tensor<8x64xf16>, %w: tensor<64x32xf16>) -> (tensor<4x8xf64>, tensor<8x32xf16>) {
  %o = mirage_kernel.graph "double" (%x) : (tensor<4x8xf64>) -> tensor<4x8xf64> {
  ^bb0(%a: tensor<4x8xf64>):
    %e = mirage_kernel.unary exp %a : tensor<4x8xf64>
    mirage_kernel.yield %e : tensor<4x8xf64>
  }
  %m = mirage_kernel.graph "mm" (%y, %w) : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf16> {
  ^bb0(%a: tensor<8x64xf16>, %b: tensor<64x32xf16>):
    %r = mirage_kernel.matmul %a, %b : tensor<8x64xf16>, tensor<64x32xf16> -> tensor<8x32xf16>
    %z = mirage_kernel.unary exp %r : tensor<8x32xf16>
    mirage_kernel.yield %z : tensor<8x32xf16>
  }
  return %o, %m : tensor<4x8xf64>, tensor<8x32xf16>
}

// CHECK: remark: superoptimized 'mm'
// CHECK: warning: graph 'double': f64 tensors have no GPU path (f16, bf16 and f32 do) (graph 'double' left without PTX; the other graphs are written)
// CHECK: remark: graph 'mm': wrote
// CHECK: remark: graph 'mm_opt': wrote
// CHECK-NOT: error

// FILES-NOT: double
// FILES: mm.sm_90.ptx
// FILES: mm_opt.sm_90.ptx
// FILES-NOT: double

// STRICT: error: graph 'double': f64 tensors have no GPU path

// KEEP: warning: graph 'double': f64 tensors have no GPU path
// KEEP: remark: graph 'mm': wrote
// KEEP-NOT: error

// CHIP: error: unsupported chip 'sm_75' (supported: sm_80, sm_90, sm_90a)
// CHIP-NOT: remark: graph 'mm': wrote

// PAIR: error: chip 'sm_90' is not the chip of target 'a100' (sm_80); name one of them, or target=h100
// PAIR-NOT: remark: graph 'mm': wrote

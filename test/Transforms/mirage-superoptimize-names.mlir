// Issue 23: the winner of graph "rms" was always named "rms_opt", even in a
// module that already has a graph of that name; the pair was then looked up
// by name and the pipeline failed it as "not equivalent". It takes the first
// free "rms_opt_<n>" instead, and the module verifies.

// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2" 2>/dev/null | FileCheck %s
// RUN: mirage-opt %s --mirage-superoptimize="cache=off threads=2" 2>/dev/null | mirage-opt --mirage-verify-equivalence="seed=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY

// CHECK-DAG: mirage_kernel.graph "rms"(
// CHECK-DAG: mirage_kernel.graph "rms_opt"(
// CHECK-DAG: mirage_kernel.graph "rms_opt_1" reference "rms"(
// VERIFY: remark: graph 'rms_opt_1' is equivalent to reference 'rms'
// VERIFY-NOT: error

func.func @rmsnorm_matmul(%x: tensor<8x256xf16>, %w: tensor<256x512xf16>) -> (tensor<8x512xf16>, tensor<8x256xf16>) {
  %r = mirage_kernel.graph "rms" (%x, %w) : (tensor<8x256xf16>, tensor<256x512xf16>) -> tensor<8x512xf16> {
  ^bb0(%a: tensor<8x256xf16>, %b: tensor<256x512xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<8x256xf16> -> tensor<8x256xf16>
    %m = mirage_kernel.matmul %n, %b : tensor<8x256xf16>, tensor<256x512xf16> -> tensor<8x512xf16>
    mirage_kernel.yield %m : tensor<8x512xf16>
  }
  // Another graph that happens to have the name the winner used to get.
  %s = mirage_kernel.graph "rms_opt" (%x) : (tensor<8x256xf16>) -> tensor<8x256xf16> {
  ^bb0(%a: tensor<8x256xf16>):
    %d = mirage_kernel.unary mul_scalar %a scalar(2.0) : tensor<8x256xf16>
    mirage_kernel.yield %d : tensor<8x256xf16>
  }
  return %r, %s : tensor<8x512xf16>, tensor<8x256xf16>
}

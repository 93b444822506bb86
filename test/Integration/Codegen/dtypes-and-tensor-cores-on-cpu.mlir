// The tensor-core form of block matmuls (warp-level native 16x8x16
// vector.contract) and the per-thread form, in f16, bf16 and f32, executed
// on the CPU and compared with the float64 evaluator within each dtype's
// tolerance. A tolerance below the rounding of f16 must make the check fail:
// the comparison is real.
//
// RUN: mirage-opt %s --mirage-check-on-cpu -o /dev/null 2>&1 | FileCheck %s
// RUN: mirage-opt %s --mirage-check-on-cpu=seed=12345 -o /dev/null 2>&1 | FileCheck %s
// RUN: not mirage-opt %s --mirage-check-on-cpu=tolerance=1e-9 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIGHT

func.func @f(%a: tensor<2x32x64xf16>, %b: tensor<2x64x48xf16>, %c: tensor<32x64xbf16>,
             %d: tensor<64x32xbf16>, %e: tensor<16x48xf32>, %g: tensor<48x40xf32>)
    -> (tensor<2x32x48xf16>, tensor<32x32xbf16>, tensor<16x40xf32>) {
  // Batched f16 matmul then exp: tensor cores, 2 batch entries per grid z.
  %o1 = mirage_kernel.graph "f16_batched" (%a, %b)
      : (tensor<2x32x64xf16>, tensor<2x64x48xf16>) -> tensor<2x32x48xf16> {
  ^bb0(%x: tensor<2x32x64xf16>, %y: tensor<2x64x48xf16>):
    %m = mirage_kernel.matmul %x, %y : tensor<2x32x64xf16>, tensor<2x64x48xf16> -> tensor<2x32x48xf16>
    %s = mirage_kernel.unary mul_scalar %m {scalar = 0.125 : f64} : tensor<2x32x48xf16>
    %z = mirage_kernel.unary exp %s : tensor<2x32x48xf16>
    mirage_kernel.yield %z : tensor<2x32x48xf16>
  }
  // bf16 with a silu epilogue.
  %o2 = mirage_kernel.graph "bf16_silu" (%c, %d)
      : (tensor<32x64xbf16>, tensor<64x32xbf16>) -> tensor<32x32xbf16> {
  ^bb0(%x: tensor<32x64xbf16>, %y: tensor<64x32xbf16>):
    %m = mirage_kernel.matmul %x, %y : tensor<32x64xbf16>, tensor<64x32xbf16> -> tensor<32x32xbf16>
    %s = mirage_kernel.unary silu %m : tensor<32x32xbf16>
    mirage_kernel.yield %s : tensor<32x32xbf16>
  }
  // f32 (FMA), odd sizes, a row reduction and a broadcast division.
  %o3 = mirage_kernel.graph "f32_softmax" (%e, %g)
      : (tensor<16x48xf32>, tensor<48x40xf32>) -> tensor<16x40xf32> {
  ^bb0(%x: tensor<16x48xf32>, %y: tensor<48x40xf32>):
    %m = mirage_kernel.matmul %x, %y : tensor<16x48xf32>, tensor<48x40xf32> -> tensor<16x40xf32>
    %t = mirage_kernel.unary exp %m : tensor<16x40xf32>
    %r = mirage_kernel.reduce sum %t dim 1 : tensor<16x40xf32> -> tensor<16x1xf32>
    %q = mirage_kernel.binary div %t, %r : tensor<16x40xf32>, tensor<16x1xf32> -> tensor<16x40xf32>
    mirage_kernel.yield %q : tensor<16x40xf32>
  }
  return %o1, %o2, %o3 : tensor<2x32x48xf16>, tensor<32x32xbf16>, tensor<16x40xf32>
}

// CHECK: remark: graph 'f16_batched' on the CPU matches the evaluator: max relative error {{.*}} (f16 tolerance 1e-02, 2 kernels, ran in
// CHECK: remark: graph 'bf16_silu' on the CPU matches the evaluator: max relative error {{.*}} (bf16 tolerance 6e-02, 1 kernel, ran in
// CHECK: remark: graph 'f32_softmax' on the CPU matches the evaluator: max relative error {{.*}}e-0{{[6-9]}} (f32 tolerance 1e-05, 2 kernels, ran in

// TIGHT: error: graph 'f16_batched' on the CPU differs from the evaluator: output 0 max relative error {{.*}} > tolerance 1.0e-09

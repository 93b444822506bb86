// A row maximum over NaNs: the emitted max (arith.maximumf on the CPU, PTX
// max.NaN on the GPU) is NaN when either operand is, and so is the
// evaluator's (FloatSemantics.h), whatever the fold order. rsqrt(x + 0.2) is
// NaN for the seeded x below -0.2, about one element in ten, so about half
// the rows hold a NaN and the others are compared. Found by the
// code-generation campaign (bench/fuzz/codegen.sh): the evaluator's
// std::max kept the first operand against a NaN, so the CPU check called
// right code wrong.
//
// RUN: mirage-opt %s --mirage-check-on-cpu -o /dev/null 2>&1 | FileCheck %s
// RUN: mirage-opt %s --mirage-check-on-cpu=seed=99 -o /dev/null 2>&1 | FileCheck %s

func.func @f(%a: tensor<64x8xf32>) -> tensor<64x1xf32> {
  %o = mirage_kernel.graph "nan_rows" (%a) : (tensor<64x8xf32>) -> tensor<64x1xf32> {
  ^bb0(%x: tensor<64x8xf32>):
    %s = mirage_kernel.unary add_scalar %x {scalar = 0.2 : f64} : tensor<64x8xf32>
    %r = mirage_kernel.unary rsqrt %s : tensor<64x8xf32>
    %m = mirage_kernel.reduce max %r dim 1 : tensor<64x8xf32> -> tensor<64x1xf32>
    mirage_kernel.yield %m : tensor<64x1xf32>
  }
  return %o : tensor<64x1xf32>
}

// CHECK: remark: graph 'nan_rows' on the CPU matches the evaluator: max relative error {{.*}} (f32 tolerance 1e-05,
// CHECK-NOT: error:

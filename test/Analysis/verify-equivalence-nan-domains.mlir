// Issue 23, item 1 (NaN domains): the field check treats relu, max and sqrt
// as free functions, so r/r = 1 and sqrt(u)·rsqrt(u) = 1 hold formally. A
// candidate may be undefined only where the reference is (refinement,
// docs/Rationale/Verification.md §4.6): each pair below is finite
// everywhere in the reference and NaN somewhere in the candidate, and must
// not be verified under any seed. The last two pairs divide by the same
// values as their references and must still verify.
//
// RUN: mirage-opt %s --mirage-verify-equivalence="seed=42" -split-input-file -verify-diagnostics
// RUN: not mirage-opt %s --mirage-verify-equivalence="seed=1" -split-input-file 2>&1 | FileCheck %s
// RUN: not mirage-opt %s --mirage-verify-equivalence="seed=7" -split-input-file 2>&1 | FileCheck %s
// RUN: not mirage-opt %s --mirage-verify-equivalence="seed=123456789" -split-input-file 2>&1 | FileCheck %s
// RUN: not mirage-opt %s --mirage-verify-equivalence -split-input-file 2>&1 | FileCheck %s

// x·2·(r/r) with r = relu(x + 1 + 2^-16): NaN for every x <= -1 - 2^-16.
// CHECK: error: graph 'relu_ratio' is not verified against reference 'ref': the candidate divides by a relu output that the reference never divides by
func.func @relu_ratio(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary mul_scalar %a scalar(2.0) : tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'relu_ratio' is not verified against reference 'ref': the candidate divides by a relu output that the reference never divides by and that may be zero, so the candidate may be undefined where the reference is defined (Verification.md §4.6) (seed 42)}}
  %o = mirage_kernel.graph "relu_ratio" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary mul_scalar %a scalar(2.0) : tensor<4x8xf32>
    %u = mirage_kernel.unary add_scalar %a scalar(1.0000152587890625) : tensor<4x8xf32>
    %q = mirage_kernel.unary relu %u : tensor<4x8xf32>
    %t = mirage_kernel.binary div %q, %q : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %y = mirage_kernel.binary mul %s, %t : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %y : tensor<4x8xf32>
  }
  return %r, %o : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// x·d/d with d = max(row mean, 1) − row mean: NaN for every row whose mean
// is at least 1.
// CHECK: error: graph 'max_minus_mean' is not verified against reference 'ref': the candidate divides by a sum or difference
func.func @max_minus_mean(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary mul_scalar %a scalar(1.0) : tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'max_minus_mean' is not verified against reference 'ref': the candidate divides by a sum or difference (add, sub, a reduction or a matmul) that the reference never divides by}}
  %o = mirage_kernel.graph "max_minus_mean" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %sum = mirage_kernel.reduce sum %a dim 1 : tensor<4x8xf32> -> tensor<4x1xf32>
    %mean = mirage_kernel.unary mul_scalar %sum scalar(0.125) : tensor<4x1xf32>
    %z = mirage_kernel.unary mul_scalar %mean scalar(0.0) : tensor<4x1xf32>
    %one = mirage_kernel.unary add_scalar %z scalar(1.0) : tensor<4x1xf32>
    %c = mirage_kernel.concat %mean, %one dim 1 : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x2xf32>
    %m = mirage_kernel.reduce max %c dim 1 : tensor<4x2xf32> -> tensor<4x1xf32>
    %d = mirage_kernel.binary sub %m, %mean : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
    %n = mirage_kernel.binary mul %a, %d : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    %y = mirage_kernel.binary div %n, %d : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %y : tensor<4x8xf32>
  }
  return %r, %o : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// x·sqrt(1 − x)·rsqrt(1 − x): NaN for x > 1 (and x = 1).
// CHECK: error: graph 'sqrt_rsqrt' is not verified against reference 'ref': the candidate takes the sqrt (or rsqrt) of a sum or difference
func.func @sqrt_rsqrt(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary mul_scalar %a scalar(1.0) : tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'sqrt_rsqrt' is not verified against reference 'ref': the candidate takes the sqrt (or rsqrt) of a sum or difference (add, sub, a reduction or a matmul), which the reference never takes the sqrt of}}
  %o = mirage_kernel.graph "sqrt_rsqrt" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %n = mirage_kernel.unary mul_scalar %a scalar(-1.0) : tensor<4x8xf32>
    %u = mirage_kernel.unary add_scalar %n scalar(1.0) : tensor<4x8xf32>
    %s = mirage_kernel.unary sqrt %u : tensor<4x8xf32>
    %q = mirage_kernel.unary rsqrt %u : tensor<4x8xf32>
    %p = mirage_kernel.binary mul %a, %s : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %y = mirage_kernel.binary mul %p, %q : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %y : tensor<4x8xf32>
  }
  return %r, %o : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Model-scale style: Y·r/r with Y = X·W and r = relu(4096 − Y).
// CHECK: error: graph 'matmul_relu_ratio' is not verified against reference 'ref': the candidate divides by a relu output
func.func @matmul_relu_ratio(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %r = mirage_kernel.graph "ref" (%x, %w) : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>):
    %y = mirage_kernel.matmul %a, %b : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
    mirage_kernel.yield %y : tensor<8x32xf32>
  }
  // expected-error @+1 {{graph 'matmul_relu_ratio' is not verified against reference 'ref': the candidate divides by a relu output that the reference never divides by}}
  %o = mirage_kernel.graph "matmul_relu_ratio" reference "ref" (%x, %w) : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>):
    %y = mirage_kernel.matmul %a, %b : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
    %n = mirage_kernel.unary mul_scalar %y scalar(-1.0) : tensor<8x32xf32>
    %u = mirage_kernel.unary add_scalar %n scalar(4096.0) : tensor<8x32xf32>
    %q = mirage_kernel.unary relu %u : tensor<8x32xf32>
    %p = mirage_kernel.binary mul %y, %q : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
    %z = mirage_kernel.binary div %p, %q : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
    mirage_kernel.yield %z : tensor<8x32xf32>
  }
  return %r, %o : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// Same divisors as the reference: rms_norm without eps divides by
// sqrt(mean(x²)); the candidate spells it out. Verified.
// CHECK: remark: graph 'rms_spelled_out' is equivalent to reference 'ref'
func.func @rms_spelled_out(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %n = mirage_kernel.rms_norm %a : tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %n : tensor<4x8xf32>
  }
  // expected-remark @+1 {{graph 'rms_spelled_out' is equivalent to reference 'ref'}}
  %o = mirage_kernel.graph "rms_spelled_out" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %sq = mirage_kernel.unary square %a : tensor<4x8xf32>
    %s = mirage_kernel.reduce sum %sq dim 1 : tensor<4x8xf32> -> tensor<4x1xf32>
    %m = mirage_kernel.unary mul_scalar %s scalar(0.125) : tensor<4x1xf32>
    %q = mirage_kernel.unary rsqrt %m : tensor<4x1xf32>
    %y = mirage_kernel.binary mul %a, %q : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %y : tensor<4x8xf32>
  }
  return %r, %o : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Softmax divided by a partial sum's complement: the candidate divides by a
// sum of exps, which is positive wherever defined. Verified.
// CHECK: remark: graph 'softmax_split' is equivalent to reference 'ref'
func.func @softmax_split(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %e = mirage_kernel.unary exp %a : tensor<4x8xf32>
    %s = mirage_kernel.reduce sum %e dim 1 : tensor<4x8xf32> -> tensor<4x1xf32>
    %y = mirage_kernel.binary div %e, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %y : tensor<4x8xf32>
  }
  // expected-remark @+1 {{graph 'softmax_split' is equivalent to reference 'ref'}}
  %o = mirage_kernel.graph "softmax_split" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %e = mirage_kernel.unary exp %a : tensor<4x8xf32>
    %p = mirage_kernel.reduce sum %e dim 1 to 2 : tensor<4x8xf32> -> tensor<4x2xf32>
    %s = mirage_kernel.reduce sum %p dim 1 : tensor<4x2xf32> -> tensor<4x1xf32>
    %i = mirage_kernel.unary reciprocal %s : tensor<4x1xf32>
    %y = mirage_kernel.binary mul %e, %i : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %y : tensor<4x8xf32>
  }
  return %r, %o : tensor<4x8xf32>, tensor<4x8xf32>
}

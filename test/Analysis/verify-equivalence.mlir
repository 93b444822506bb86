// RUN: mirage-opt %s --mirage-verify-equivalence -split-input-file -verify-diagnostics | FileCheck %s
// RUN: mirage-opt %s --mirage-verify-equivalence="target-bits=128 seed=7" -split-input-file 2>&1 | FileCheck %s --check-prefix=BITS

// The paper's fused RMSNorm + MatMul: the division moves after the matmul,
// the rms becomes an accumulator; rms_norm's x / sqrt(mean) meets rms_last's
// sqrt under the same uninterpreted sqrt.

// CHECK-LABEL: func.func @rmsnorm_matmul
// BITS: remark: graph 'best' is equivalent to reference 'ref': {{[0-9]+ tests?}}, false-acceptance bound 2^-{{1[2-9][0-9]}}
func.func @rmsnorm_matmul(%x: tensor<4x64xf32>, %w: tensor<64x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %r = mirage_kernel.graph "ref" (%x, %w) : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %b: tensor<64x32xf32>):
    %n = mirage_kernel.rms_norm %a : tensor<4x64xf32> -> tensor<4x64xf32>
    %m = mirage_kernel.matmul %n, %b : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
    mirage_kernel.yield %m : tensor<4x32xf32>
  }
  // (2^-110 since the degree analysis shares the row's rms denominator
  // across the matmul's 64 terms.)
  // expected-remark @+1 {{graph 'best' is equivalent to reference 'ref': 1 test, false-acceptance bound 2^-110}}
  %o = mirage_kernel.graph "best" reference "ref" (%x, %w) : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %b: tensor<64x32xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [4, 1, 1] forloop = 4 : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
    ^bb0(%X: tensor<4x64xf32>, %W: tensor<64x32xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<4x64xf32> -> tensor<4x16xf32>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<64x32xf32> -> tensor<16x8xf32>
      %mm = mirage_block.matmul %xt, %wt : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
      %acc = mirage_block.accum sum %mm : tensor<4x8xf32> -> tensor<4x8xf32>
      %rms = mirage_block.accum rms_last %xt : tensor<4x16xf32> -> tensor<4x1xf32>
      %d = mirage_block.thread_graph (%acc, %rms) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32> {
      ^bb0(%p: f32, %q: f32):
        %z = mirage_thread.binary div %p, %q : f32
        mirage_thread.yield %z : f32
      }
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<4x8xf32> -> tensor<4x32xf32>
      mirage_block.yield %s : tensor<4x32xf32>
    }
    mirage_kernel.yield %k : tensor<4x32xf32>
  }
  return %r, %o : tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// rsqrt is 1/sqrt, silu is x·sigmoid(x): the uninterpreted functions keep
// their definitions.

// CHECK-LABEL: func.func @definitions
func.func @definitions(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary sqrt %a : tensor<4x8xf32>
    %i = mirage_kernel.unary reciprocal %s : tensor<4x8xf32>
    %g = mirage_kernel.unary sigmoid %a : tensor<4x8xf32>
    %m = mirage_kernel.binary mul %a, %g : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %i, %m : tensor<4x8xf32>, tensor<4x8xf32>
  }
  // expected-remark @+1 {{graph 'best' is equivalent to reference 'ref': 1 test,}}
  %b:2 = mirage_kernel.graph "best" reference "ref" (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %i = mirage_kernel.unary rsqrt %a : tensor<4x8xf32>
    %m = mirage_kernel.unary silu %a : tensor<4x8xf32>
    mirage_kernel.yield %i, %m : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %r#0, %b#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// exp(a)·exp(b) = exp(a + b) holds only with exp interpreted (LAX).

// CHECK-LABEL: func.func @exp_homomorphism
func.func @exp_homomorphism(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mirage_kernel.graph "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %s = mirage_kernel.binary add %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %e = mirage_kernel.unary exp %s : tensor<4x8xf32>
    mirage_kernel.yield %e : tensor<4x8xf32>
  }
  // expected-remark @+1 {{exp interpreted as ω^x, Theorem 2 with k = 2}}
  %b = mirage_kernel.graph "best" reference "ref" (%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %ea = mirage_kernel.unary exp %a : tensor<4x8xf32>
    %eb = mirage_kernel.unary exp %b : tensor<4x8xf32>
    %m = mirage_kernel.binary mul %ea, %eb : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %m : tensor<4x8xf32>
  }
  return %b : tensor<4x8xf32>
}

// -----

// Equivalent, but exp overflows f16: the dtype check warns.

// CHECK-LABEL: func.func @f16_overflow
func.func @f16_overflow(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf16>) -> tensor<4x8xf16> {
  ^bb0(%a: tensor<4x8xf16>):
    %s = mirage_kernel.unary mul_scalar %a scalar(20.0) : tensor<4x8xf16>
    %e = mirage_kernel.unary exp %s : tensor<4x8xf16>
    mirage_kernel.yield %e : tensor<4x8xf16>
  }
  // expected-remark @+2 {{graph 'best' is equivalent to reference 'ref'}}
  // expected-warning @+1 {{graph 'best' in f16: produces non-finite values (overflow)}}
  %b = mirage_kernel.graph "best" reference "ref" (%x) : (tensor<4x8xf16>) -> tensor<4x8xf16> {
  ^bb0(%a: tensor<4x8xf16>):
    %s = mirage_kernel.unary mul_scalar %a scalar(20.0) : tensor<4x8xf16>
    %e = mirage_kernel.unary exp %s : tensor<4x8xf16>
    mirage_kernel.yield %e : tensor<4x8xf16>
  }
  return %b : tensor<4x8xf16>
}

// -----

// With a frontend's eps and weight: the weight scales x before the matmul,
// and rms_last carries rms_norm's eps, so both forms take the sqrt oracle of
// the same mean + eps.

// CHECK-LABEL: func.func @rmsnorm_eps_weight_matmul
func.func @rmsnorm_eps_weight_matmul(%x: tensor<4x64xf32>, %g: tensor<1x64xf32>, %w: tensor<64x32xf32>) -> tensor<4x32xf32> {
  %r = mirage_kernel.graph "ref" (%x, %g, %w) : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %c: tensor<1x64xf32>, %b: tensor<64x32xf32>):
    %n = mirage_kernel.rms_norm %a weight %c eps(1.0e-05) : tensor<4x64xf32>, tensor<1x64xf32> -> tensor<4x64xf32>
    %m = mirage_kernel.matmul %n, %b : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
    mirage_kernel.yield %m : tensor<4x32xf32>
  }
  // expected-remark @+1 {{graph 'best' is equivalent to reference 'ref'}}
  %o = mirage_kernel.graph "best" reference "ref" (%x, %g, %w) : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %c: tensor<1x64xf32>, %b: tensor<64x32xf32>):
    %k = mirage_kernel.custom (%a, %c, %b) grid = [4, 1, 1] forloop = 4 : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
    ^bb0(%X: tensor<4x64xf32>, %G: tensor<1x64xf32>, %W: tensor<64x32xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<4x64xf32> -> tensor<4x16xf32>
      %gt = mirage_block.input_iterator %G imap = [-1, -1, -1] fmap = 1 : tensor<1x64xf32> -> tensor<1x16xf32>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<64x32xf32> -> tensor<16x8xf32>
      %xg = mirage_block.binary mul %xt, %gt : tensor<4x16xf32>, tensor<1x16xf32> -> tensor<4x16xf32>
      %mm = mirage_block.matmul %xg, %wt : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
      %acc = mirage_block.accum sum %mm : tensor<4x8xf32> -> tensor<4x8xf32>
      %rms = mirage_block.accum rms_last %xt eps(1.0e-05) : tensor<4x16xf32> -> tensor<4x1xf32>
      %d = mirage_block.binary div %acc, %rms : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<4x8xf32> -> tensor<4x32xf32>
      mirage_block.yield %s : tensor<4x32xf32>
    }
    mirage_kernel.yield %k : tensor<4x32xf32>
  }
  return %o : tensor<4x32xf32>
}

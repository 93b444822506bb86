// RUN: mirage-opt %s --mirage-verify-equivalence="formal=true dtype-check=false" -split-input-file -verify-diagnostics
// RUN: not mirage-opt %s --mirage-verify-equivalence="formal=true formal-max-elements=64 dtype-check=false" -split-input-file 2>&1 | FileCheck %s --check-prefix=LIMIT

// The Z3 formal check (formal=true): both graphs run symbolically over the
// reals with sqrt uninterpreted; unsat proves the fused RMSNorm+MatMul equal
// to the reference for every real input at these shapes.

// LIMIT: remark: graph 'best' formal check skipped: 96 input and 8 output elements exceed the limit of 64
func.func @rmsnorm_matmul(%x: tensor<2x16xf32>, %w: tensor<16x4xf32>) -> tensor<2x4xf32> {
  %r = mirage_kernel.graph "ref" (%x, %w) : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<2x16xf32>, %b: tensor<16x4xf32>):
    %n = mirage_kernel.rms_norm %a : tensor<2x16xf32> -> tensor<2x16xf32>
    %m = mirage_kernel.matmul %n, %b : tensor<2x16xf32>, tensor<16x4xf32> -> tensor<2x4xf32>
    mirage_kernel.yield %m : tensor<2x4xf32>
  }
  // expected-remark @+2 {{graph 'best' is formally equivalent to reference 'ref' at these shapes (Z3: unsat}}
  // expected-remark @+1 {{graph 'best' is equivalent to reference 'ref': 1 test,}}
  %o = mirage_kernel.graph "best" reference "ref" (%x, %w) : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<2x16xf32>, %b: tensor<16x4xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [2, 1, 1] forloop = 4 : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32> {
    ^bb0(%X: tensor<2x16xf32>, %W: tensor<16x4xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<2x16xf32> -> tensor<2x4xf32>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<16x4xf32> -> tensor<4x2xf32>
      %mm = mirage_block.matmul %xt, %wt : tensor<2x4xf32>, tensor<4x2xf32> -> tensor<2x2xf32>
      %acc = mirage_block.accum sum %mm : tensor<2x2xf32> -> tensor<2x2xf32>
      %rms = mirage_block.accum rms_last %xt : tensor<2x4xf32> -> tensor<2x1xf32>
      %d = mirage_block.binary div %acc, %rms : tensor<2x2xf32>, tensor<2x1xf32> -> tensor<2x2xf32>
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<2x2xf32> -> tensor<2x4xf32>
      mirage_block.yield %s : tensor<2x4xf32>
    }
    mirage_kernel.yield %k : tensor<2x4xf32>
  }
  return %o : tensor<2x4xf32>
}

// -----

// A wrong fmap: A is iterated along dim 0 (1x4 row tiles) instead of dim 1
// (4x1 column tiles); both broadcast against B, so the mutant is well formed
// but computes Σ_t A[t,:]·B instead of Σ_t A[:,t]·B. Z3 finds real inputs
// where they differ.

// LIMIT: error: graph 'bad' formal check: counterexample to equivalence with reference 'good': sat: output #0 element
func.func @wrong_fmap(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = mirage_kernel.graph "good" (%x, %y) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [1, 1, 1] forloop = 4 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
    ^bb0(%A: tensor<4x4xf32>, %B: tensor<4x4xf32>):
      %at = mirage_block.input_iterator %A imap = [-1, -1, -1] fmap = 1 : tensor<4x4xf32> -> tensor<4x1xf32>
      %bt = mirage_block.input_iterator %B imap = [-1, -1, -1] fmap = -1 : tensor<4x4xf32> -> tensor<4x4xf32>
      %m = mirage_block.binary mul %at, %bt : tensor<4x1xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
      %s = mirage_block.accum sum %m : tensor<4x4xf32> -> tensor<4x4xf32>
      %o = mirage_block.output_saver %s omap = [-1, -1, -1] : tensor<4x4xf32> -> tensor<4x4xf32>
      mirage_block.yield %o : tensor<4x4xf32>
    }
    mirage_kernel.yield %k : tensor<4x4xf32>
  }
  // expected-error @+2 {{graph 'bad' formal check: counterexample to equivalence with reference 'good': sat: output #0 element}}
  // expected-error @+1 {{graph 'bad' is not equivalent to reference 'good'}}
  %b = mirage_kernel.graph "bad" reference "good" (%x, %y) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [1, 1, 1] forloop = 4 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
    ^bb0(%A: tensor<4x4xf32>, %B: tensor<4x4xf32>):
      %at = mirage_block.input_iterator %A imap = [-1, -1, -1] fmap = 0 : tensor<4x4xf32> -> tensor<1x4xf32>
      %bt = mirage_block.input_iterator %B imap = [-1, -1, -1] fmap = -1 : tensor<4x4xf32> -> tensor<4x4xf32>
      %m = mirage_block.binary mul %at, %bt : tensor<1x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
      %s = mirage_block.accum sum %m : tensor<4x4xf32> -> tensor<4x4xf32>
      %o = mirage_block.output_saver %s omap = [-1, -1, -1] : tensor<4x4xf32> -> tensor<4x4xf32>
      mirage_block.yield %o : tensor<4x4xf32>
    }
    mirage_kernel.yield %k : tensor<4x4xf32>
  }
  return %b : tensor<4x4xf32>
}

// -----

// With rms_norm's eps and weight: rms_last carries the eps, so Z3 sees the
// same uninterpreted sqrt(Σx²/n + eps) on both sides.

func.func @rmsnorm_eps_weight_matmul(%x: tensor<2x16xf32>, %g: tensor<1x16xf32>, %w: tensor<16x4xf32>) -> tensor<2x4xf32> {
  %r = mirage_kernel.graph "ref" (%x, %g, %w) : (tensor<2x16xf32>, tensor<1x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<2x16xf32>, %c: tensor<1x16xf32>, %b: tensor<16x4xf32>):
    %n = mirage_kernel.rms_norm %a weight %c eps(1.0e-05) : tensor<2x16xf32>, tensor<1x16xf32> -> tensor<2x16xf32>
    %m = mirage_kernel.matmul %n, %b : tensor<2x16xf32>, tensor<16x4xf32> -> tensor<2x4xf32>
    mirage_kernel.yield %m : tensor<2x4xf32>
  }
  // expected-remark @+2 {{graph 'best' is formally equivalent to reference 'ref' at these shapes (Z3: unsat}}
  // expected-remark @+1 {{graph 'best' is equivalent to reference 'ref': 2 tests}}
  %o = mirage_kernel.graph "best" reference "ref" (%x, %g, %w) : (tensor<2x16xf32>, tensor<1x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<2x16xf32>, %c: tensor<1x16xf32>, %b: tensor<16x4xf32>):
    %k = mirage_kernel.custom (%a, %c, %b) grid = [2, 1, 1] forloop = 4 : (tensor<2x16xf32>, tensor<1x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32> {
    ^bb0(%X: tensor<2x16xf32>, %G: tensor<1x16xf32>, %W: tensor<16x4xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<2x16xf32> -> tensor<2x4xf32>
      %gt = mirage_block.input_iterator %G imap = [-1, -1, -1] fmap = 1 : tensor<1x16xf32> -> tensor<1x4xf32>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<16x4xf32> -> tensor<4x2xf32>
      %xg = mirage_block.binary mul %xt, %gt : tensor<2x4xf32>, tensor<1x4xf32> -> tensor<2x4xf32>
      %mm = mirage_block.matmul %xg, %wt : tensor<2x4xf32>, tensor<4x2xf32> -> tensor<2x2xf32>
      %acc = mirage_block.accum sum %mm : tensor<2x2xf32> -> tensor<2x2xf32>
      %rms = mirage_block.accum rms_last %xt eps(1.0e-05) : tensor<2x4xf32> -> tensor<2x1xf32>
      %d = mirage_block.binary div %acc, %rms : tensor<2x2xf32>, tensor<2x1xf32> -> tensor<2x2xf32>
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<2x2xf32> -> tensor<2x4xf32>
      mirage_block.yield %s : tensor<2x4xf32>
    }
    mirage_kernel.yield %k : tensor<2x4xf32>
  }
  return %o : tensor<2x4xf32>
}

// RUN: mirage-opt %s --mirage-verify-equivalence -split-input-file -verify-diagnostics

// A mean instead of an rms accumulator: the fused graph builds, but computes
// acc / mean(x) in place of acc / sqrt(mean(x²)).

func.func @wrong_accumulator(%x: tensor<4x64xf32>, %w: tensor<64x32xf32>) -> tensor<4x32xf32> {
  %r = mirage_kernel.graph "ref" (%x, %w) : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %b: tensor<64x32xf32>):
    %n = mirage_kernel.rms_norm %a : tensor<4x64xf32> -> tensor<4x64xf32>
    %m = mirage_kernel.matmul %n, %b : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
    mirage_kernel.yield %m : tensor<4x32xf32>
  }
  // expected-error @+1 {{graph 'best' is not equivalent to reference 'ref': output #0 differs in test 0}}
  %o = mirage_kernel.graph "best" reference "ref" (%x, %w) : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %b: tensor<64x32xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [4, 1, 1] forloop = 4 : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
    ^bb0(%X: tensor<4x64xf32>, %W: tensor<64x32xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<4x64xf32> -> tensor<4x16xf32>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<64x32xf32> -> tensor<16x8xf32>
      %mm = mirage_block.matmul %xt, %wt : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
      %acc = mirage_block.accum sum %mm : tensor<4x8xf32> -> tensor<4x8xf32>
      %rms = mirage_block.accum mean_last %xt : tensor<4x16xf32> -> tensor<4x1xf32>
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
  return %o : tensor<4x32xf32>
}

// -----

// The original Mirage fingerprint approximates silu(x) by x·e^x; here silu is
// uninterpreted (x·sigmoid(x) with a random sigmoid), so the surrogate fails
// in both exp semantics.

func.func @silu_surrogate(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary silu %a : tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'surrogate' is not equivalent to reference 'ref': output #0 differs in test 0}}
  %b = mirage_kernel.graph "surrogate" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %e = mirage_kernel.unary exp %a : tensor<4x8xf32>
    %m = mirage_kernel.binary mul %a, %e : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    mirage_kernel.yield %m : tensor<4x8xf32>
  }
  return %b : tensor<4x8xf32>
}

// -----

// The same two functions, yielded in the other order.

func.func @permuted_outputs(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r:2 = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %e = mirage_kernel.unary exp %a : tensor<4x8xf32>
    %s = mirage_kernel.unary square %a : tensor<4x8xf32>
    mirage_kernel.yield %e, %s : tensor<4x8xf32>, tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'best' is not equivalent to reference 'ref': its outputs match the reference's only when permuted as [1, 0]}}
  %b:2 = mirage_kernel.graph "best" reference "ref" (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.binary mul %a, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %e = mirage_kernel.unary exp %a : tensor<4x8xf32>
    mirage_kernel.yield %s, %e : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %b#0 : tensor<4x8xf32>
}

// -----

// sqrt is not its own reciprocal: rms_norm needs x / sqrt, not x · sqrt.

func.func @sqrt_vs_rsqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mirage_kernel.graph "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary rsqrt %a : tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  // expected-error @+1 {{graph 'best' is not equivalent to reference 'ref': output #0 differs in test 0}}
  %b = mirage_kernel.graph "best" reference "ref" (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = mirage_kernel.unary sqrt %a : tensor<4x8xf32>
    mirage_kernel.yield %s : tensor<4x8xf32>
  }
  return %b : tensor<4x8xf32>
}

// -----

// rms_last with another eps than the rms_norm it replaces.

func.func @wrong_eps(%x: tensor<4x64xf32>, %g: tensor<1x64xf32>, %w: tensor<64x32xf32>) -> tensor<4x32xf32> {
  %r = mirage_kernel.graph "ref" (%x, %g, %w) : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %c: tensor<1x64xf32>, %b: tensor<64x32xf32>):
    %n = mirage_kernel.rms_norm %a weight %c eps(1.0e-05) : tensor<4x64xf32>, tensor<1x64xf32> -> tensor<4x64xf32>
    %m = mirage_kernel.matmul %n, %b : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
    mirage_kernel.yield %m : tensor<4x32xf32>
  }
  // expected-error @+1 {{graph 'best' is not equivalent to reference 'ref': output #0 differs in test 0}}
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
      %rms = mirage_block.accum rms_last %xt eps(2.0e-05) : tensor<4x16xf32> -> tensor<4x1xf32>
      %d = mirage_block.binary div %acc, %rms : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<4x8xf32> -> tensor<4x32xf32>
      mirage_block.yield %s : tensor<4x32xf32>
    }
    mirage_kernel.yield %k : tensor<4x32xf32>
  }
  return %o : tensor<4x32xf32>
}

// -----

// rms_last without the rms_norm's eps.

func.func @missing_eps(%x: tensor<4x64xf32>, %g: tensor<1x64xf32>, %w: tensor<64x32xf32>) -> tensor<4x32xf32> {
  %r = mirage_kernel.graph "ref" (%x, %g, %w) : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %c: tensor<1x64xf32>, %b: tensor<64x32xf32>):
    %n = mirage_kernel.rms_norm %a weight %c eps(1.0e-05) : tensor<4x64xf32>, tensor<1x64xf32> -> tensor<4x64xf32>
    %m = mirage_kernel.matmul %n, %b : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
    mirage_kernel.yield %m : tensor<4x32xf32>
  }
  // expected-error @+1 {{graph 'best' is not equivalent to reference 'ref': output #0 differs in test 0}}
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
      %rms = mirage_block.accum rms_last %xt : tensor<4x16xf32> -> tensor<4x1xf32>
      %d = mirage_block.binary div %acc, %rms : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<4x8xf32> -> tensor<4x32xf32>
      mirage_block.yield %s : tensor<4x32xf32>
    }
    mirage_kernel.yield %k : tensor<4x32xf32>
  }
  return %o : tensor<4x32xf32>
}

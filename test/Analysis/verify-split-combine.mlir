// Split-KV pairs under the finite-field verifier (docs/Rationale/MultiKernel.md,
// "Why the split form stays verifiable"): the two-kernel form of GQA
// attention is accepted with a bound below 2^-64, and combines with the two
// classic bugs are rejected. Q 2x16x8, K 2x8x64, V 2x64x8; kernel 1 splits the
// 64 keys over grid z (4 splits of 16, walked in 2 steps).
// RUN: mirage-opt %s --mirage-verify-equivalence="seed=5 dtype-check=false" -split-input-file -verify-diagnostics -o /dev/null
// The accepted pair's bound is at most 2^-64:
// RUN: not mirage-opt %s --mirage-verify-equivalence="seed=5 dtype-check=false" -split-input-file -o /dev/null 2>&1 | FileCheck %s
// CHECK: graph 'split' is equivalent to reference 'ref': {{[0-9]+ tests?}}, false-acceptance bound 2^-{{(6[4-9]|[7-9][0-9]|[1-9][0-9][0-9])}} (seed 5)
// CHECK-COUNT-2: error: graph 'split' is not equivalent to reference 'ref': output #0 differs
// A correct split-KV pair: per-split exp-sums and exp-weighted V sums, then
// one kernel that sums each over the 4 splits and divides.
func.func @good(%q: tensor<2x16x8xf32>, %k: tensor<2x8x64xf32>, %v: tensor<2x64x8xf32>) -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>) {
  %r = mirage_kernel.graph "ref" (%q, %k, %v) : (tensor<2x16x8xf32>, tensor<2x8x64xf32>, tensor<2x64x8xf32>) -> tensor<2x16x8xf32> {
  ^bb0(%Q: tensor<2x16x8xf32>, %K: tensor<2x8x64xf32>, %V: tensor<2x64x8xf32>):
    %s = mirage_kernel.matmul %Q, %K : tensor<2x16x8xf32>, tensor<2x8x64xf32> -> tensor<2x16x64xf32>
    %e = mirage_kernel.unary exp %s : tensor<2x16x64xf32>
    %d = mirage_kernel.reduce sum %e dim 2 : tensor<2x16x64xf32> -> tensor<2x16x1xf32>
    %p = mirage_kernel.binary div %e, %d : tensor<2x16x64xf32>, tensor<2x16x1xf32> -> tensor<2x16x64xf32>
    %o = mirage_kernel.matmul %p, %V : tensor<2x16x64xf32>, tensor<2x64x8xf32> -> tensor<2x16x8xf32>
    mirage_kernel.yield %o : tensor<2x16x8xf32>
  }
  // expected-remark @+1 {{graph 'split' is equivalent to reference 'ref'}}
  %b = mirage_kernel.graph "split" reference "ref" (%q, %k, %v) : (tensor<2x16x8xf32>, tensor<2x8x64xf32>, tensor<2x64x8xf32>) -> tensor<2x16x8xf32> {
  ^bb0(%Q: tensor<2x16x8xf32>, %K: tensor<2x8x64xf32>, %V: tensor<2x64x8xf32>):
    %den, %num = mirage_kernel.custom (%Q, %K, %V) grid = [2, 2, 4] forloop = 2 : (tensor<2x16x8xf32>, tensor<2x8x64xf32>, tensor<2x64x8xf32>) -> (tensor<2x16x4xf32>, tensor<2x16x32xf32>) {
    ^bb0(%Qd: tensor<2x16x8xf32>, %Kd: tensor<2x8x64xf32>, %Vd: tensor<2x64x8xf32>):
      %qt = mirage_block.input_iterator %Qd imap = [0, 1, -1] fmap = -1 : tensor<2x16x8xf32> -> tensor<1x8x8xf32>
      %kt = mirage_block.input_iterator %Kd imap = [0, -1, 2] fmap = 2 : tensor<2x8x64xf32> -> tensor<1x8x8xf32>
      %vt = mirage_block.input_iterator %Vd imap = [0, -1, 1] fmap = 1 : tensor<2x64x8xf32> -> tensor<1x8x8xf32>
      %s = mirage_block.matmul %qt, %kt : tensor<1x8x8xf32>, tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %e = mirage_block.unary exp %s : tensor<1x8x8xf32>
      %ad = mirage_block.accum sum_last %e : tensor<1x8x8xf32> -> tensor<1x8x1xf32>
      %n = mirage_block.matmul %e, %vt : tensor<1x8x8xf32>, tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %an = mirage_block.accum sum %n : tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %od = mirage_block.output_saver %ad omap = [0, 1, 2] : tensor<1x8x1xf32> -> tensor<2x16x4xf32>
      %on = mirage_block.output_saver %an omap = [0, 1, 2] : tensor<1x8x8xf32> -> tensor<2x16x32xf32>
      mirage_block.yield %od, %on : tensor<2x16x4xf32>, tensor<2x16x32xf32>
    }
    %o = mirage_kernel.custom (%den, %num) grid = [2, 2, 1] forloop = 4 : (tensor<2x16x4xf32>, tensor<2x16x32xf32>) -> tensor<2x16x8xf32> {
    ^bb0(%D: tensor<2x16x4xf32>, %N: tensor<2x16x32xf32>):
      %dt = mirage_block.input_iterator %D imap = [0, 1, -1] fmap = 2 : tensor<2x16x4xf32> -> tensor<1x8x1xf32>
      %sd = mirage_block.accum sum %dt : tensor<1x8x1xf32> -> tensor<1x8x1xf32>
      %nt = mirage_block.input_iterator %N imap = [0, 1, -1] fmap = 2 : tensor<2x16x32xf32> -> tensor<1x8x8xf32>
      %sn = mirage_block.accum sum %nt : tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %qo = mirage_block.binary div %sn, %sd : tensor<1x8x8xf32>, tensor<1x8x1xf32> -> tensor<1x8x8xf32>
      %os = mirage_block.output_saver %qo omap = [0, 1, -1] : tensor<1x8x8xf32> -> tensor<2x16x8xf32>
      mirage_block.yield %os : tensor<2x16x8xf32>
    }
    mirage_kernel.yield %o : tensor<2x16x8xf32>
  }
  return %r, %b : tensor<2x16x8xf32>, tensor<2x16x8xf32>
}

// -----

// Broken combine: the exp-sums are read whole in every iteration of the
// combine's loop, so the denominator is counted 4 times.
func.func @double(%q: tensor<2x16x8xf32>, %k: tensor<2x8x64xf32>, %v: tensor<2x64x8xf32>) -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>) {
  %r = mirage_kernel.graph "ref" (%q, %k, %v) : (tensor<2x16x8xf32>, tensor<2x8x64xf32>, tensor<2x64x8xf32>) -> tensor<2x16x8xf32> {
  ^bb0(%Q: tensor<2x16x8xf32>, %K: tensor<2x8x64xf32>, %V: tensor<2x64x8xf32>):
    %s = mirage_kernel.matmul %Q, %K : tensor<2x16x8xf32>, tensor<2x8x64xf32> -> tensor<2x16x64xf32>
    %e = mirage_kernel.unary exp %s : tensor<2x16x64xf32>
    %d = mirage_kernel.reduce sum %e dim 2 : tensor<2x16x64xf32> -> tensor<2x16x1xf32>
    %p = mirage_kernel.binary div %e, %d : tensor<2x16x64xf32>, tensor<2x16x1xf32> -> tensor<2x16x64xf32>
    %o = mirage_kernel.matmul %p, %V : tensor<2x16x64xf32>, tensor<2x64x8xf32> -> tensor<2x16x8xf32>
    mirage_kernel.yield %o : tensor<2x16x8xf32>
  }
  // expected-error @+1 {{graph 'split' is not equivalent to reference 'ref'}}
  %b = mirage_kernel.graph "split" reference "ref" (%q, %k, %v) : (tensor<2x16x8xf32>, tensor<2x8x64xf32>, tensor<2x64x8xf32>) -> tensor<2x16x8xf32> {
  ^bb0(%Q: tensor<2x16x8xf32>, %K: tensor<2x8x64xf32>, %V: tensor<2x64x8xf32>):
    %den, %num = mirage_kernel.custom (%Q, %K, %V) grid = [2, 2, 4] forloop = 2 : (tensor<2x16x8xf32>, tensor<2x8x64xf32>, tensor<2x64x8xf32>) -> (tensor<2x16x4xf32>, tensor<2x16x32xf32>) {
    ^bb0(%Qd: tensor<2x16x8xf32>, %Kd: tensor<2x8x64xf32>, %Vd: tensor<2x64x8xf32>):
      %qt = mirage_block.input_iterator %Qd imap = [0, 1, -1] fmap = -1 : tensor<2x16x8xf32> -> tensor<1x8x8xf32>
      %kt = mirage_block.input_iterator %Kd imap = [0, -1, 2] fmap = 2 : tensor<2x8x64xf32> -> tensor<1x8x8xf32>
      %vt = mirage_block.input_iterator %Vd imap = [0, -1, 1] fmap = 1 : tensor<2x64x8xf32> -> tensor<1x8x8xf32>
      %s = mirage_block.matmul %qt, %kt : tensor<1x8x8xf32>, tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %e = mirage_block.unary exp %s : tensor<1x8x8xf32>
      %ad = mirage_block.accum sum_last %e : tensor<1x8x8xf32> -> tensor<1x8x1xf32>
      %n = mirage_block.matmul %e, %vt : tensor<1x8x8xf32>, tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %an = mirage_block.accum sum %n : tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %od = mirage_block.output_saver %ad omap = [0, 1, 2] : tensor<1x8x1xf32> -> tensor<2x16x4xf32>
      %on = mirage_block.output_saver %an omap = [0, 1, 2] : tensor<1x8x8xf32> -> tensor<2x16x32xf32>
      mirage_block.yield %od, %on : tensor<2x16x4xf32>, tensor<2x16x32xf32>
    }
    %o = mirage_kernel.custom (%den, %num) grid = [2, 2, 1] forloop = 4 : (tensor<2x16x4xf32>, tensor<2x16x32xf32>) -> tensor<2x16x8xf32> {
    ^bb0(%D: tensor<2x16x4xf32>, %N: tensor<2x16x32xf32>):
      %dt = mirage_block.input_iterator %D imap = [0, 1, -1] fmap = -1 : tensor<2x16x4xf32> -> tensor<1x8x4xf32>
      %sd = mirage_block.accum sum_last %dt : tensor<1x8x4xf32> -> tensor<1x8x1xf32>
      %nt = mirage_block.input_iterator %N imap = [0, 1, -1] fmap = 2 : tensor<2x16x32xf32> -> tensor<1x8x8xf32>
      %sn = mirage_block.accum sum %nt : tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %qo = mirage_block.binary div %sn, %sd : tensor<1x8x8xf32>, tensor<1x8x1xf32> -> tensor<1x8x8xf32>
      %os = mirage_block.output_saver %qo omap = [0, 1, -1] : tensor<1x8x8xf32> -> tensor<2x16x8xf32>
      mirage_block.yield %os : tensor<2x16x8xf32>
    }
    mirage_kernel.yield %o : tensor<2x16x8xf32>
  }
  return %r, %b : tensor<2x16x8xf32>, tensor<2x16x8xf32>
}

// -----

// Broken combine: every split's partial is normalised by its own exp-sum
// and the normalised partials are summed (flash-decoding without the
// split weights).
func.func @pernorm(%q: tensor<2x16x8xf32>, %k: tensor<2x8x64xf32>, %v: tensor<2x64x8xf32>) -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>) {
  %r = mirage_kernel.graph "ref" (%q, %k, %v) : (tensor<2x16x8xf32>, tensor<2x8x64xf32>, tensor<2x64x8xf32>) -> tensor<2x16x8xf32> {
  ^bb0(%Q: tensor<2x16x8xf32>, %K: tensor<2x8x64xf32>, %V: tensor<2x64x8xf32>):
    %s = mirage_kernel.matmul %Q, %K : tensor<2x16x8xf32>, tensor<2x8x64xf32> -> tensor<2x16x64xf32>
    %e = mirage_kernel.unary exp %s : tensor<2x16x64xf32>
    %d = mirage_kernel.reduce sum %e dim 2 : tensor<2x16x64xf32> -> tensor<2x16x1xf32>
    %p = mirage_kernel.binary div %e, %d : tensor<2x16x64xf32>, tensor<2x16x1xf32> -> tensor<2x16x64xf32>
    %o = mirage_kernel.matmul %p, %V : tensor<2x16x64xf32>, tensor<2x64x8xf32> -> tensor<2x16x8xf32>
    mirage_kernel.yield %o : tensor<2x16x8xf32>
  }
  // expected-error @+1 {{graph 'split' is not equivalent to reference 'ref'}}
  %b = mirage_kernel.graph "split" reference "ref" (%q, %k, %v) : (tensor<2x16x8xf32>, tensor<2x8x64xf32>, tensor<2x64x8xf32>) -> tensor<2x16x8xf32> {
  ^bb0(%Q: tensor<2x16x8xf32>, %K: tensor<2x8x64xf32>, %V: tensor<2x64x8xf32>):
    %den, %num = mirage_kernel.custom (%Q, %K, %V) grid = [2, 2, 4] forloop = 2 : (tensor<2x16x8xf32>, tensor<2x8x64xf32>, tensor<2x64x8xf32>) -> (tensor<2x16x4xf32>, tensor<2x16x32xf32>) {
    ^bb0(%Qd: tensor<2x16x8xf32>, %Kd: tensor<2x8x64xf32>, %Vd: tensor<2x64x8xf32>):
      %qt = mirage_block.input_iterator %Qd imap = [0, 1, -1] fmap = -1 : tensor<2x16x8xf32> -> tensor<1x8x8xf32>
      %kt = mirage_block.input_iterator %Kd imap = [0, -1, 2] fmap = 2 : tensor<2x8x64xf32> -> tensor<1x8x8xf32>
      %vt = mirage_block.input_iterator %Vd imap = [0, -1, 1] fmap = 1 : tensor<2x64x8xf32> -> tensor<1x8x8xf32>
      %s = mirage_block.matmul %qt, %kt : tensor<1x8x8xf32>, tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %e = mirage_block.unary exp %s : tensor<1x8x8xf32>
      %ad = mirage_block.accum sum_last %e : tensor<1x8x8xf32> -> tensor<1x8x1xf32>
      %n = mirage_block.matmul %e, %vt : tensor<1x8x8xf32>, tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %an = mirage_block.accum sum %n : tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %od = mirage_block.output_saver %ad omap = [0, 1, 2] : tensor<1x8x1xf32> -> tensor<2x16x4xf32>
      %on = mirage_block.output_saver %an omap = [0, 1, 2] : tensor<1x8x8xf32> -> tensor<2x16x32xf32>
      mirage_block.yield %od, %on : tensor<2x16x4xf32>, tensor<2x16x32xf32>
    }
    %o = mirage_kernel.custom (%den, %num) grid = [2, 2, 1] forloop = 4 : (tensor<2x16x4xf32>, tensor<2x16x32xf32>) -> tensor<2x16x8xf32> {
    ^bb0(%D: tensor<2x16x4xf32>, %N: tensor<2x16x32xf32>):
      %dt = mirage_block.input_iterator %D imap = [0, 1, -1] fmap = 2 : tensor<2x16x4xf32> -> tensor<1x8x1xf32>
      %nt = mirage_block.input_iterator %N imap = [0, 1, -1] fmap = 2 : tensor<2x16x32xf32> -> tensor<1x8x8xf32>
      %ps = mirage_block.binary div %nt, %dt : tensor<1x8x8xf32>, tensor<1x8x1xf32> -> tensor<1x8x8xf32>
      %qo = mirage_block.accum sum %ps : tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %os = mirage_block.output_saver %qo omap = [0, 1, -1] : tensor<1x8x8xf32> -> tensor<2x16x8xf32>
      mirage_block.yield %os : tensor<2x16x8xf32>
    }
    mirage_kernel.yield %o : tensor<2x16x8xf32>
  }
  return %r, %b : tensor<2x16x8xf32>, tensor<2x16x8xf32>
}

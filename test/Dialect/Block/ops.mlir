// RUN: mirage-opt %s | FileCheck %s
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s -mlir-print-op-generic | mirage-opt | FileCheck %s

// Iterators with a partitioned and a replicated input, an in-loop matmul, a
// sum accumulator and a saver (default target).

// CHECK-LABEL: func.func @iterator_matmul_sum
func.func @iterator_matmul_sum(%x: tensor<4x64xf32>, %w: tensor<64x32xf32>) -> tensor<4x32xf32> {
  %o = mirage_kernel.graph (%x, %w) : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %b: tensor<64x32xf32>):
    // CHECK: mirage_kernel.custom(%{{.*}}, %{{.*}}) grid = [4, 1, 1] forloop = 4 : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
    // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: tensor<64x32xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [4, 1, 1] forloop = 4 : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
    ^bb0(%X: tensor<4x64xf32>, %W: tensor<64x32xf32>):
      // CHECK-NEXT: %[[XT:.*]] = mirage_block.input_iterator %[[X]] imap = [-1, -1, -1] fmap = 1 : tensor<4x64xf32> -> tensor<4x16xf32>
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<4x64xf32> -> tensor<4x16xf32>
      // CHECK-NEXT: %[[WT:.*]] = mirage_block.input_iterator %[[W]] imap = [1, -1, -1] fmap = 0 : tensor<64x32xf32> -> tensor<16x8xf32>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<64x32xf32> -> tensor<16x8xf32>
      // CHECK-NEXT: %[[M:.*]] = mirage_block.matmul %[[XT]], %[[WT]] : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
      %m = mirage_block.matmul %xt, %wt : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
      // CHECK-NEXT: %[[A:.*]] = mirage_block.accum sum %[[M]] : tensor<4x8xf32> -> tensor<4x8xf32>
      %acc = mirage_block.accum sum %m : tensor<4x8xf32> -> tensor<4x8xf32>
      // CHECK-NEXT: %[[S:.*]] = mirage_block.output_saver %[[A]] omap = [1, -1, -1] : tensor<4x8xf32> -> tensor<4x32xf32>
      %s = mirage_block.output_saver %acc omap = [1, -1, -1] : tensor<4x8xf32> -> tensor<4x32xf32>
      // CHECK-NEXT: mirage_block.yield %[[S]] : tensor<4x32xf32>
      mirage_block.yield %s : tensor<4x32xf32>
    }
    mirage_kernel.yield %k : tensor<4x32xf32>
  }
  return %o : tensor<4x32xf32>
}

// Every accumulator kind, with and without `to` and `rescale`, and a custom
// kernel with several results.

// CHECK-LABEL: func.func @accumulator_kinds
func.func @accumulator_kinds(%x: tensor<8x64xf32>) -> (tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>) {
  %o:6 = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> (tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>) {
  ^bb0(%a: tensor<8x64xf32>):
    // CHECK: mirage_kernel.custom(%{{.*}}) grid = [2, 1, 1] forloop = 4 : (tensor<8x64xf32>) -> (tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>)
    %k:6 = mirage_kernel.custom (%a) grid = [2, 1, 1] forloop = 4 : (tensor<8x64xf32>) -> (tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>) {
    ^bb0(%X: tensor<8x64xf32>):
      // CHECK: %[[XT:.*]] = mirage_block.input_iterator %{{.*}} imap = [0, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<4x16xf32>
      %xt = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<4x16xf32>
      // CHECK: %[[SL:.*]] = mirage_block.accum sum_last %[[XT]] to 4 : tensor<4x16xf32> -> tensor<4x4xf32>
      %sl = mirage_block.accum sum_last %xt to 4 : tensor<4x16xf32> -> tensor<4x4xf32>
      // CHECK: %[[ML:.*]] = mirage_block.accum mean_last %[[XT]] : tensor<4x16xf32> -> tensor<4x1xf32>
      %ml = mirage_block.accum mean_last %xt : tensor<4x16xf32> -> tensor<4x1xf32>
      // CHECK: %[[RL:.*]] = mirage_block.accum rms_last %[[XT]] : tensor<4x16xf32> -> tensor<4x1xf32>
      %rl = mirage_block.accum rms_last %xt : tensor<4x16xf32> -> tensor<4x1xf32>
      // CHECK: %[[MX:.*]] = mirage_block.accum max %[[XT]] : tensor<4x16xf32> -> tensor<4x16xf32>
      %mx = mirage_block.accum max %xt : tensor<4x16xf32> -> tensor<4x16xf32>
      // CHECK: %[[E:.*]] = mirage_block.unary exp %[[XT]] : tensor<4x16xf32>
      %e = mirage_block.unary exp %xt : tensor<4x16xf32>
      // CHECK: %[[R:.*]] = mirage_block.reduce max %[[XT]] dim 1 : tensor<4x16xf32> -> tensor<4x1xf32>
      %r = mirage_block.reduce max %xt dim 1 : tensor<4x16xf32> -> tensor<4x1xf32>
      // CHECK: %[[RS:.*]] = mirage_block.accum sum %[[E]] rescale %[[R]] : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
      %rs = mirage_block.accum sum %e rescale %r : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
      // CHECK: %[[RSL:.*]] = mirage_block.accum sum_last %[[E]] rescale %[[R]] to 4 : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x4xf32>
      %rsl = mirage_block.accum sum_last %e rescale %r to 4 : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x4xf32>
      // CHECK-DAG: %[[S0:.*]] = mirage_block.output_saver %[[SL]] omap = [0, -1, -1] : tensor<4x4xf32> -> tensor<8x4xf32>
      // CHECK-DAG: %[[S1:.*]] = mirage_block.output_saver %[[ML]] omap = [0, -1, -1] : tensor<4x1xf32> -> tensor<8x1xf32>
      // CHECK-DAG: %[[S2:.*]] = mirage_block.output_saver %[[RL]] omap = [0, -1, -1] : tensor<4x1xf32> -> tensor<8x1xf32>
      // CHECK-DAG: %[[S3:.*]] = mirage_block.output_saver %[[MX]] omap = [0, -1, -1] : tensor<4x16xf32> -> tensor<8x16xf32>
      // CHECK-DAG: %[[S4:.*]] = mirage_block.output_saver %[[RS]] omap = [0, -1, -1] : tensor<4x16xf32> -> tensor<8x16xf32>
      // CHECK-DAG: %[[S5:.*]] = mirage_block.output_saver %[[RSL]] omap = [0, -1, -1] : tensor<4x4xf32> -> tensor<8x4xf32>
      %s0 = mirage_block.output_saver %sl omap = [0, -1, -1] : tensor<4x4xf32> -> tensor<8x4xf32>
      %s1 = mirage_block.output_saver %ml omap = [0, -1, -1] : tensor<4x1xf32> -> tensor<8x1xf32>
      %s2 = mirage_block.output_saver %rl omap = [0, -1, -1] : tensor<4x1xf32> -> tensor<8x1xf32>
      %s3 = mirage_block.output_saver %mx omap = [0, -1, -1] : tensor<4x16xf32> -> tensor<8x16xf32>
      %s4 = mirage_block.output_saver %rs omap = [0, -1, -1] : tensor<4x16xf32> -> tensor<8x16xf32>
      %s5 = mirage_block.output_saver %rsl omap = [0, -1, -1] : tensor<4x4xf32> -> tensor<8x4xf32>
      // CHECK: mirage_block.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]], %[[S4]], %[[S5]] : tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>
      mirage_block.yield %s0, %s1, %s2, %s3, %s4, %s5 : tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>
    }
    mirage_kernel.yield %k#0, %k#1, %k#2, %k#3, %k#4, %k#5 : tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>
  }
  return %o#0, %o#1, %o#2, %o#3, %o#4, %o#5 : tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>
}

// After-loop operators (rms_norm with weight, concat, reduce to a size,
// unary with a scalar, broadcasting binary), a thread graph with two results,
// and the a100 target.

// CHECK-LABEL: func.func @after_loop_ops
func.func @after_loop_ops(%x: tensor<8x64xf16>, %g: tensor<1x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  %o:2 = mirage_kernel.graph (%x, %g) : (tensor<8x64xf16>, tensor<1x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
  ^bb0(%a: tensor<8x64xf16>, %b: tensor<1x64xf16>):
    // CHECK: mirage_kernel.custom(%{{.*}}, %{{.*}}) grid = [2, 1, 1] forloop = 1 attributes {target = "a100"} : (tensor<8x64xf16>, tensor<1x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>)
    %k:2 = mirage_kernel.custom (%a, %b) grid = [2, 1, 1] forloop = 1 attributes {target = "a100"} : (tensor<8x64xf16>, tensor<1x64xf16>) -> (tensor<8x64xf16>, tensor<8x64xf16>) {
    ^bb0(%X: tensor<8x64xf16>, %G: tensor<1x64xf16>):
      // CHECK: %[[XT:.*]] = mirage_block.input_iterator %{{.*}} imap = [0, -1, -1] fmap = -1 : tensor<8x64xf16> -> tensor<4x64xf16>
      %xt = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = -1 : tensor<8x64xf16> -> tensor<4x64xf16>
      // CHECK: %[[GT:.*]] = mirage_block.input_iterator %{{.*}} imap = [-1, -1, -1] fmap = -1 : tensor<1x64xf16> -> tensor<1x64xf16>
      %gt = mirage_block.input_iterator %G imap = [-1, -1, -1] fmap = -1 : tensor<1x64xf16> -> tensor<1x64xf16>
      // CHECK: %[[AX:.*]] = mirage_block.accum sum %[[XT]]
      %ax = mirage_block.accum sum %xt : tensor<4x64xf16> -> tensor<4x64xf16>
      // CHECK: %[[AG:.*]] = mirage_block.accum sum %[[GT]]
      %ag = mirage_block.accum sum %gt : tensor<1x64xf16> -> tensor<1x64xf16>
      // CHECK: %[[N:.*]] = mirage_block.rms_norm %[[AX]] weight %[[AG]] eps(9.9999999999999995E-7) : tensor<4x64xf16>, tensor<1x64xf16> -> tensor<4x64xf16>
      %n = mirage_block.rms_norm %ax weight %ag eps(1.0e-6) : tensor<4x64xf16>, tensor<1x64xf16> -> tensor<4x64xf16>
      // CHECK: %[[N2:.*]] = mirage_block.rms_norm %[[N]] : tensor<4x64xf16> -> tensor<4x64xf16>
      %n2 = mirage_block.rms_norm %n : tensor<4x64xf16> -> tensor<4x64xf16>
      // CHECK: %[[C:.*]] = mirage_block.concat %[[N2]], %[[N]] dim 1 : tensor<4x64xf16>, tensor<4x64xf16> -> tensor<4x128xf16>
      %c = mirage_block.concat %n2, %n dim 1 : tensor<4x64xf16>, tensor<4x64xf16> -> tensor<4x128xf16>
      // CHECK: %[[R:.*]] = mirage_block.reduce sum %[[C]] dim 1 to 64 : tensor<4x128xf16> -> tensor<4x64xf16>
      %r = mirage_block.reduce sum %c dim 1 to 64 : tensor<4x128xf16> -> tensor<4x64xf16>
      // CHECK: %[[U:.*]] = mirage_block.unary mul_scalar %[[R]] scalar(5.000000e-01) : tensor<4x64xf16>
      %u = mirage_block.unary mul_scalar %r scalar(0.5) : tensor<4x64xf16>
      // CHECK: %[[B:.*]] = mirage_block.binary add %[[U]], %[[AG]] : tensor<4x64xf16>, tensor<1x64xf16> -> tensor<4x64xf16>
      %bb = mirage_block.binary add %u, %ag : tensor<4x64xf16>, tensor<1x64xf16> -> tensor<4x64xf16>
      // CHECK: %[[TG:.*]]:2 = mirage_block.thread_graph(%[[B]], %[[AX]]) : (tensor<4x64xf16>, tensor<4x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
      // CHECK-NEXT: ^bb0(%[[P:.*]]: f16, %[[Q:.*]]: f16):
      // CHECK-NEXT: %[[PQ:.*]] = mirage_thread.binary mul %[[P]], %[[Q]] : f16
      // CHECK-NEXT: %[[EX:.*]] = mirage_thread.unary exp %[[PQ]] : f16
      // CHECK-NEXT: mirage_thread.yield %[[PQ]], %[[EX]] : f16, f16
      // CHECK-NEXT: }
      %t:2 = mirage_block.thread_graph (%bb, %ax) : (tensor<4x64xf16>, tensor<4x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
      ^bb0(%p: f16, %q: f16):
        %pq = mirage_thread.binary mul %p, %q : f16
        %ex = mirage_thread.unary exp %pq : f16
        mirage_thread.yield %pq, %ex : f16, f16
      }
      // CHECK: %[[S0:.*]] = mirage_block.output_saver %[[TG]]#0 omap = [0, -1, -1] : tensor<4x64xf16> -> tensor<8x64xf16>
      %s0 = mirage_block.output_saver %t#0 omap = [0, -1, -1] : tensor<4x64xf16> -> tensor<8x64xf16>
      // CHECK: %[[S1:.*]] = mirage_block.output_saver %[[TG]]#1 omap = [0, -1, -1] : tensor<4x64xf16> -> tensor<8x64xf16>
      %s1 = mirage_block.output_saver %t#1 omap = [0, -1, -1] : tensor<4x64xf16> -> tensor<8x64xf16>
      // CHECK: mirage_block.yield %[[S0]], %[[S1]] : tensor<8x64xf16>, tensor<8x64xf16>
      mirage_block.yield %s0, %s1 : tensor<8x64xf16>, tensor<8x64xf16>
    }
    mirage_kernel.yield %k#0, %k#1 : tensor<8x64xf16>, tensor<8x64xf16>
  }
  return %o#0, %o#1 : tensor<8x64xf16>, tensor<8x64xf16>
}

// A three-dimensional grid over a rank-3 bf16 tensor: every grid axis
// partitions its own dim, the for-loop walks the last dim, and in-loop
// element-wise operators feed a max accumulator.

// CHECK-LABEL: func.func @grid_3d
func.func @grid_3d(%x: tensor<2x16x64xbf16>) -> tensor<2x16x8xbf16> {
  %o = mirage_kernel.graph (%x) : (tensor<2x16x64xbf16>) -> tensor<2x16x8xbf16> {
  ^bb0(%a: tensor<2x16x64xbf16>):
    // CHECK: mirage_kernel.custom(%{{.*}}) grid = [2, 4, 2] forloop = 4 : (tensor<2x16x64xbf16>) -> tensor<2x16x8xbf16>
    %k = mirage_kernel.custom (%a) grid = [2, 4, 2] forloop = 4 : (tensor<2x16x64xbf16>) -> tensor<2x16x8xbf16> {
    ^bb0(%X: tensor<2x16x64xbf16>):
      // CHECK: %[[XT:.*]] = mirage_block.input_iterator %{{.*}} imap = [0, 1, 2] fmap = 2 : tensor<2x16x64xbf16> -> tensor<1x4x8xbf16>
      %xt = mirage_block.input_iterator %X imap = [0, 1, 2] fmap = 2 : tensor<2x16x64xbf16> -> tensor<1x4x8xbf16>
      // CHECK: %[[SQ:.*]] = mirage_block.unary square %[[XT]] : tensor<1x4x8xbf16>
      %sq = mirage_block.unary square %xt : tensor<1x4x8xbf16>
      // CHECK: %[[D:.*]] = mirage_block.binary sub %[[SQ]], %[[XT]] : tensor<1x4x8xbf16>, tensor<1x4x8xbf16> -> tensor<1x4x8xbf16>
      %d = mirage_block.binary sub %sq, %xt : tensor<1x4x8xbf16>, tensor<1x4x8xbf16> -> tensor<1x4x8xbf16>
      // CHECK: %[[SUM:.*]] = mirage_block.reduce sum %[[D]] dim 2 to 4 : tensor<1x4x8xbf16> -> tensor<1x4x4xbf16>
      %sum = mirage_block.reduce sum %d dim 2 to 4 : tensor<1x4x8xbf16> -> tensor<1x4x4xbf16>
      // CHECK: %[[M:.*]] = mirage_block.accum max %[[SUM]] : tensor<1x4x4xbf16> -> tensor<1x4x4xbf16>
      %m = mirage_block.accum max %sum : tensor<1x4x4xbf16> -> tensor<1x4x4xbf16>
      // CHECK: %[[S:.*]] = mirage_block.output_saver %[[M]] omap = [0, 1, 2] : tensor<1x4x4xbf16> -> tensor<2x16x8xbf16>
      %s = mirage_block.output_saver %m omap = [0, 1, 2] : tensor<1x4x4xbf16> -> tensor<2x16x8xbf16>
      mirage_block.yield %s : tensor<2x16x8xbf16>
    }
    mirage_kernel.yield %k : tensor<2x16x8xbf16>
  }
  return %o : tensor<2x16x8xbf16>
}

// A batched in-loop matmul whose operand comes from an in-loop thread graph;
// the saver concatenates along a dim other than the one the iterator split.

// CHECK-LABEL: func.func @in_loop_thread_graph
func.func @in_loop_thread_graph(%q: tensor<2x8x64xf32>, %kk: tensor<2x64x16xf32>) -> tensor<2x8x16xf32> {
  %o = mirage_kernel.graph (%q, %kk) : (tensor<2x8x64xf32>, tensor<2x64x16xf32>) -> tensor<2x8x16xf32> {
  ^bb0(%a: tensor<2x8x64xf32>, %b: tensor<2x64x16xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [1, 2, 1] forloop = 2 : (tensor<2x8x64xf32>, tensor<2x64x16xf32>) -> tensor<2x8x16xf32> {
    ^bb0(%Q: tensor<2x8x64xf32>, %K: tensor<2x64x16xf32>):
      // CHECK: %[[QT:.*]] = mirage_block.input_iterator %{{.*}} imap = [-1, -1, -1] fmap = 2 : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
      %qt = mirage_block.input_iterator %Q imap = [-1, -1, -1] fmap = 2 : tensor<2x8x64xf32> -> tensor<2x8x32xf32>
      // CHECK: %[[KT:.*]] = mirage_block.input_iterator %{{.*}} imap = [-1, 2, -1] fmap = 1 : tensor<2x64x16xf32> -> tensor<2x32x8xf32>
      %kt = mirage_block.input_iterator %K imap = [-1, 2, -1] fmap = 1 : tensor<2x64x16xf32> -> tensor<2x32x8xf32>
      // CHECK: %[[T:.*]] = mirage_block.thread_graph(%[[QT]]) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
      %t = mirage_block.thread_graph (%qt) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
      ^bb0(%v: f32):
        %s = mirage_thread.unary silu %v : f32
        mirage_thread.yield %s : f32
      }
      // CHECK: %[[M:.*]] = mirage_block.matmul %[[T]], %[[KT]] : tensor<2x8x32xf32>, tensor<2x32x8xf32> -> tensor<2x8x8xf32>
      %m = mirage_block.matmul %t, %kt : tensor<2x8x32xf32>, tensor<2x32x8xf32> -> tensor<2x8x8xf32>
      %acc = mirage_block.accum sum %m : tensor<2x8x8xf32> -> tensor<2x8x8xf32>
      // CHECK: mirage_block.output_saver %{{.*}} omap = [-1, 2, -1] : tensor<2x8x8xf32> -> tensor<2x8x16xf32>
      %sv = mirage_block.output_saver %acc omap = [-1, 2, -1] : tensor<2x8x8xf32> -> tensor<2x8x16xf32>
      mirage_block.yield %sv : tensor<2x8x16xf32>
    }
    mirage_kernel.yield %k : tensor<2x8x16xf32>
  }
  return %o : tensor<2x8x16xf32>
}

// rms_last with an eps (the epsilon of the rms_norm it fuses): printed only
// when non-zero, kept through the generic form.

// CHECK-LABEL: func.func @rms_last_eps
func.func @rms_last_eps(%x: tensor<8x64xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>) {
  %o:2 = mirage_kernel.graph (%x) : (tensor<8x64xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>) {
  ^bb0(%a: tensor<8x64xf32>):
    %k:2 = mirage_kernel.custom (%a) grid = [2, 1, 1] forloop = 4 : (tensor<8x64xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>) {
    ^bb0(%X: tensor<8x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [0, -1, -1] fmap = 1 : tensor<8x64xf32> -> tensor<4x16xf32>
      // CHECK: mirage_block.accum rms_last %{{.*}} eps(1.000000e-05) : tensor<4x16xf32> -> tensor<4x1xf32>
      %r = mirage_block.accum rms_last %xt eps(1.0e-05) : tensor<4x16xf32> -> tensor<4x1xf32>
      // An explicit zero eps is the default and is not printed.
      // CHECK: mirage_block.accum rms_last %{{.*}} : tensor<4x16xf32> -> tensor<4x1xf32>
      %z = mirage_block.accum rms_last %xt eps(0.0) : tensor<4x16xf32> -> tensor<4x1xf32>
      %s0 = mirage_block.output_saver %r omap = [0, -1, -1] : tensor<4x1xf32> -> tensor<8x1xf32>
      %s1 = mirage_block.output_saver %z omap = [0, -1, -1] : tensor<4x1xf32> -> tensor<8x1xf32>
      mirage_block.yield %s0, %s1 : tensor<8x1xf32>, tensor<8x1xf32>
    }
    mirage_kernel.yield %k#0, %k#1 : tensor<8x1xf32>, tensor<8x1xf32>
  }
  return %o#0, %o#1 : tensor<8x1xf32>, tensor<8x1xf32>
}

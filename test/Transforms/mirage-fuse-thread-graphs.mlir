// RUN: mirage-opt %s -split-input-file --mirage-fuse-thread-graphs | FileCheck %s
// RUN: mirage-opt %s -split-input-file --mirage-fuse-thread-graphs | mirage-opt -split-input-file --mirage-compare -o /dev/null 2>&1 | FileCheck %s --check-prefix=CMP
// RUN: mirage-opt %s -split-input-file --mirage-fuse-thread-graphs | mirage-opt -split-input-file --mirage-verify-equivalence="dtype-check=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// Every case evaluates to the same values before and after fusion:
// RUN: mirage-opt %s -split-input-file --mirage-evaluate -o /dev/null 2>&1 | grep -o "remark:.*" > %t.unfused
// RUN: mirage-opt %s -split-input-file --mirage-fuse-thread-graphs | mirage-opt -split-input-file --mirage-evaluate -o /dev/null 2>&1 | grep -o "remark:.*" > %t.fused
// RUN: diff %t.unfused %t.fused

// After the loop: div by the rms accumulator, then silu → one thread graph.
// CHECK-LABEL: func.func @after_loop_chain
// CHECK: %[[ACC:.*]] = mirage_block.accum sum
// CHECK: %[[RMS:.*]] = mirage_block.accum rms_last
// CHECK: %[[TG:.*]] = mirage_block.thread_graph(%[[ACC]], %[[RMS]]) : (tensor<16x32xf32>, tensor<16x1xf32>) -> tensor<16x32xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[R:.*]]: f32):
// CHECK-NEXT: %[[Q:.*]] = mirage_thread.binary div %[[A]], %[[R]] : f32
// CHECK-NEXT: %[[S:.*]] = mirage_thread.unary silu %[[Q]] : f32
// CHECK-NEXT: mirage_thread.yield %[[S]] : f32
// CHECK: mirage_block.output_saver %[[TG]]
// CHECK-NOT: mirage_block.unary
// CHECK-NOT: mirage_block.binary
func.func @after_loop_chain(%x: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %g = mirage_kernel.graph "g" (%x) : (tensor<16x64xf32>) -> tensor<16x32xf32> {
  ^bb0(%a: tensor<16x64xf32>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<16x64xf32>) -> tensor<16x32xf32> {
    ^bb0(%X: tensor<16x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
      %acc = mirage_block.accum sum %xt : tensor<16x32xf32> -> tensor<16x32xf32>
      %rms = mirage_block.accum rms_last %xt : tensor<16x32xf32> -> tensor<16x1xf32>
      %q = mirage_block.binary div %acc, %rms : tensor<16x32xf32>, tensor<16x1xf32> -> tensor<16x32xf32>
      %s = mirage_block.unary silu %q : tensor<16x32xf32>
      %o = mirage_block.output_saver %s omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      mirage_block.yield %o : tensor<16x32xf32>
    }
    mirage_kernel.yield %k : tensor<16x32xf32>
  }
  return %g : tensor<16x32xf32>
}

// -----

// In the loop: exp(x·w) · (x·w) + scale feeds an accumulator; the thread
// graph stays before the accum, and the scalar of mul_scalar is kept.
// CHECK-LABEL: func.func @in_loop_chain
// CHECK: %[[MM:.*]] = mirage_block.matmul
// CHECK: %[[TG:.*]] = mirage_block.thread_graph(%[[MM]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[M:.*]]: f32):
// CHECK-NEXT: %[[E:.*]] = mirage_thread.unary exp %[[M]] : f32
// CHECK-NEXT: %[[P:.*]] = mirage_thread.binary mul %[[E]], %[[M]] : f32
// CHECK-NEXT: %[[T:.*]] = mirage_thread.unary mul_scalar %[[P]] scalar(5.000000e-01) : f32
// CHECK-NEXT: mirage_thread.yield %[[T]] : f32
// CHECK: mirage_block.accum sum %[[TG]]
func.func @in_loop_chain(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %g = mirage_kernel.graph "g" (%x, %w) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [1, 1, 1] forloop = 4 : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%X: tensor<4x16xf32>, %W: tensor<16x8xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<4x16xf32> -> tensor<4x4xf32>
      %wt = mirage_block.input_iterator %W imap = [-1, -1, -1] fmap = 0 : tensor<16x8xf32> -> tensor<4x8xf32>
      %mm = mirage_block.matmul %xt, %wt : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
      %e = mirage_block.unary exp %mm : tensor<4x8xf32>
      %p = mirage_block.binary mul %e, %mm : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
      %t = mirage_block.unary mul_scalar %p scalar(0.5) : tensor<4x8xf32>
      %acc = mirage_block.accum sum %t : tensor<4x8xf32> -> tensor<4x8xf32>
      %o = mirage_block.output_saver %acc omap = [-1, -1, -1] : tensor<4x8xf32> -> tensor<4x8xf32>
      mirage_block.yield %o : tensor<4x8xf32>
    }
    mirage_kernel.yield %k : tensor<4x8xf32>
  }
  return %g : tensor<4x8xf32>
}

// -----

// Before the loop (LoopInvariantOps.md): exp and the scaling of Y's
// loop-invariant tile (fmap -1) run once, before the loop, and fuse with
// each other; the add of X's in-loop tile runs in every iteration and stays
// apart, so the fused pair is not pulled back into the loop.
// CHECK-LABEL: func.func @before_loop_chain
// CHECK: %[[XT:.*]] = mirage_block.input_iterator %{{.*}} fmap = 1
// CHECK: %[[YT:.*]] = mirage_block.input_iterator %{{.*}} fmap = -1
// CHECK: %[[TG:.*]] = mirage_block.thread_graph(%[[YT]]) : (tensor<16x32xf32>) -> tensor<16x32xf32> {
// CHECK-NEXT: ^bb0(%[[Y:.*]]: f32):
// CHECK-NEXT: %[[E:.*]] = mirage_thread.unary exp %[[Y]] : f32
// CHECK-NEXT: %[[S:.*]] = mirage_thread.unary mul_scalar %[[E]] scalar(5.000000e-01) : f32
// CHECK-NEXT: mirage_thread.yield %[[S]] : f32
// CHECK: mirage_block.binary add %[[XT]], %[[TG]]
func.func @before_loop_chain(%x: tensor<16x64xf32>, %y: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %g = mirage_kernel.graph "g" (%x, %y) : (tensor<16x64xf32>, tensor<16x32xf32>) -> tensor<16x32xf32> {
  ^bb0(%a: tensor<16x64xf32>, %b: tensor<16x32xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [1, 1, 1] forloop = 2 : (tensor<16x64xf32>, tensor<16x32xf32>) -> tensor<16x32xf32> {
    ^bb0(%X: tensor<16x64xf32>, %Y: tensor<16x32xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
      %yt = mirage_block.input_iterator %Y imap = [-1, -1, -1] fmap = -1 : tensor<16x32xf32> -> tensor<16x32xf32>
      %e = mirage_block.unary exp %yt : tensor<16x32xf32>
      %h = mirage_block.unary mul_scalar %e scalar(5.000000e-01) : tensor<16x32xf32>
      %t = mirage_block.binary add %xt, %h : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
      %acc = mirage_block.accum sum %t : tensor<16x32xf32> -> tensor<16x32xf32>
      %o = mirage_block.output_saver %acc omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      mirage_block.yield %o : tensor<16x32xf32>
    }
    mirage_kernel.yield %k : tensor<16x32xf32>
  }
  return %g : tensor<16x32xf32>
}

// -----

// %q is used inside the group (silu) and outside it (a saver): it becomes a
// second result of the thread graph.
// CHECK-LABEL: func.func @extra_result
// CHECK: %[[TG:.*]]:2 = mirage_block.thread_graph(%[[ACC:.*]], %[[RMS:.*]]) : (tensor<16x32xf32>, tensor<16x1xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
// CHECK: %[[Q:.*]] = mirage_thread.binary div
// CHECK: %[[S:.*]] = mirage_thread.unary silu %[[Q]]
// CHECK: %[[P:.*]] = mirage_thread.binary mul %[[S]], %{{.*}} : f32
// CHECK: mirage_thread.yield %[[Q]], %[[P]] : f32, f32
// CHECK-DAG: mirage_block.output_saver %[[TG]]#0
// CHECK-DAG: mirage_block.output_saver %[[TG]]#1
func.func @extra_result(%x: tensor<16x64xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %g:2 = mirage_kernel.graph "g" (%x) : (tensor<16x64xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  ^bb0(%a: tensor<16x64xf32>):
    %k:2 = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<16x64xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
    ^bb0(%X: tensor<16x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
      %acc = mirage_block.accum sum %xt : tensor<16x32xf32> -> tensor<16x32xf32>
      %rms = mirage_block.accum rms_last %xt : tensor<16x32xf32> -> tensor<16x1xf32>
      %q = mirage_block.binary div %acc, %rms : tensor<16x32xf32>, tensor<16x1xf32> -> tensor<16x32xf32>
      %oq = mirage_block.output_saver %q omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      %s = mirage_block.unary silu %q : tensor<16x32xf32>
      %p = mirage_block.binary mul %s, %acc : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
      %op = mirage_block.output_saver %p omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      mirage_block.yield %oq, %op : tensor<16x32xf32>, tensor<16x32xf32>
    }
    mirage_kernel.yield %k#0, %k#1 : tensor<16x32xf32>, tensor<16x32xf32>
  }
  return %g#0, %g#1 : tensor<16x32xf32>, tensor<16x32xf32>
}

// -----

// In-loop and after-loop element-wise ops are connected only through the
// accumulator: two thread graphs, one on each side, never one.
// CHECK-LABEL: func.func @mixed_phase
// CHECK: %[[IN:.*]] = mirage_block.thread_graph(%{{.*}}) : (tensor<16x32xf32>) -> tensor<16x32xf32> {
// CHECK: mirage_thread.unary exp
// CHECK: mirage_thread.binary mul
// CHECK: %[[ACC:.*]] = mirage_block.accum sum %[[IN]]
// CHECK: mirage_block.thread_graph(%[[ACC]]) : (tensor<16x32xf32>) -> tensor<16x32xf32> {
// CHECK: mirage_thread.unary silu
// CHECK: mirage_thread.binary mul
func.func @mixed_phase(%x: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %g = mirage_kernel.graph "g" (%x) : (tensor<16x64xf32>) -> tensor<16x32xf32> {
  ^bb0(%a: tensor<16x64xf32>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<16x64xf32>) -> tensor<16x32xf32> {
    ^bb0(%X: tensor<16x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
      %e = mirage_block.unary exp %xt : tensor<16x32xf32>
      %f = mirage_block.binary mul %e, %xt : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
      %acc = mirage_block.accum sum %f : tensor<16x32xf32> -> tensor<16x32xf32>
      %s = mirage_block.unary silu %acc : tensor<16x32xf32>
      %p = mirage_block.binary mul %s, %acc : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
      %o = mirage_block.output_saver %p omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      mirage_block.yield %o : tensor<16x32xf32>
    }
    mirage_kernel.yield %k : tensor<16x32xf32>
  }
  return %g : tensor<16x32xf32>
}

// -----

// A lone element-wise op is left alone.
// CHECK-LABEL: func.func @single_op
// CHECK-NOT: mirage_block.thread_graph
// CHECK: mirage_block.unary silu
// CHECK-NOT: mirage_block.thread_graph
// CHECK: return
func.func @single_op(%x: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %g = mirage_kernel.graph "g" (%x) : (tensor<16x64xf32>) -> tensor<16x32xf32> {
  ^bb0(%a: tensor<16x64xf32>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<16x64xf32>) -> tensor<16x32xf32> {
    ^bb0(%X: tensor<16x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
      %acc = mirage_block.accum sum %xt : tensor<16x32xf32> -> tensor<16x32xf32>
      %s = mirage_block.unary silu %acc : tensor<16x32xf32>
      %o = mirage_block.output_saver %s omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      mirage_block.yield %o : tensor<16x32xf32>
    }
    mirage_kernel.yield %k : tensor<16x32xf32>
  }
  return %g : tensor<16x32xf32>
}

// -----

// Shapes: sqrt(%rms) is 16x1. In @small_inside it is used only by the 16x32
// div, so it joins as a register temporary. In @small_shared it is also
// saved, which a 16x32 thread graph cannot return: it stays a block op and
// feeds the thread graph as an input.
// CHECK-LABEL: func.func @small_inside
// CHECK: mirage_block.thread_graph(%{{.*}}, %{{.*}}) : (tensor<16x1xf32>, tensor<16x32xf32>) -> tensor<16x32xf32> {
// CHECK: mirage_thread.unary sqrt
// CHECK: mirage_thread.binary div
// CHECK: mirage_thread.unary silu
// CHECK-NOT: mirage_block.unary
// CHECK-LABEL: func.func @small_shared
// CHECK: %[[SQ:.*]] = mirage_block.unary sqrt
// CHECK: mirage_block.thread_graph(%{{.*}}, %[[SQ]]) : (tensor<16x32xf32>, tensor<16x1xf32>) -> tensor<16x32xf32> {
// CHECK: mirage_block.output_saver %[[SQ]]
func.func @small_inside(%x: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %g = mirage_kernel.graph "g" (%x) : (tensor<16x64xf32>) -> tensor<16x32xf32> {
  ^bb0(%a: tensor<16x64xf32>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<16x64xf32>) -> tensor<16x32xf32> {
    ^bb0(%X: tensor<16x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
      %acc = mirage_block.accum sum %xt : tensor<16x32xf32> -> tensor<16x32xf32>
      %rms = mirage_block.accum mean_last %xt : tensor<16x32xf32> -> tensor<16x1xf32>
      %sq = mirage_block.unary sqrt %rms : tensor<16x1xf32>
      %q = mirage_block.binary div %acc, %sq : tensor<16x32xf32>, tensor<16x1xf32> -> tensor<16x32xf32>
      %s = mirage_block.unary silu %q : tensor<16x32xf32>
      %o = mirage_block.output_saver %s omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      mirage_block.yield %o : tensor<16x32xf32>
    }
    mirage_kernel.yield %k : tensor<16x32xf32>
  }
  return %g : tensor<16x32xf32>
}
func.func @small_shared(%x: tensor<16x64xf32>) -> (tensor<16x32xf32>, tensor<16x1xf32>) {
  %g:2 = mirage_kernel.graph "g2" (%x) : (tensor<16x64xf32>) -> (tensor<16x32xf32>, tensor<16x1xf32>) {
  ^bb0(%a: tensor<16x64xf32>):
    %k:2 = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<16x64xf32>) -> (tensor<16x32xf32>, tensor<16x1xf32>) {
    ^bb0(%X: tensor<16x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
      %acc = mirage_block.accum sum %xt : tensor<16x32xf32> -> tensor<16x32xf32>
      %rms = mirage_block.accum mean_last %xt : tensor<16x32xf32> -> tensor<16x1xf32>
      %sq = mirage_block.unary sqrt %rms : tensor<16x1xf32>
      %q = mirage_block.binary div %acc, %sq : tensor<16x32xf32>, tensor<16x1xf32> -> tensor<16x32xf32>
      %s = mirage_block.unary silu %q : tensor<16x32xf32>
      %o = mirage_block.output_saver %s omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      %o2 = mirage_block.output_saver %sq omap = [-1, -1, -1] : tensor<16x1xf32> -> tensor<16x1xf32>
      mirage_block.yield %o, %o2 : tensor<16x32xf32>, tensor<16x1xf32>
    }
    mirage_kernel.yield %k#0, %k#1 : tensor<16x32xf32>, tensor<16x1xf32>
  }
  return %g#0, %g#1 : tensor<16x32xf32>, tensor<16x1xf32>
}

// -----

// Softmax-like: exp and div are connected directly, but also through a
// reduce that is not element-wise; fusing them would make the thread graph
// depend on its own result, so both stay (single) block ops.
// CHECK-LABEL: func.func @not_convex
// CHECK-NOT: mirage_block.thread_graph
// CHECK: return
func.func @not_convex(%x: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %g = mirage_kernel.graph "g" (%x) : (tensor<16x64xf32>) -> tensor<16x32xf32> {
  ^bb0(%a: tensor<16x64xf32>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<16x64xf32>) -> tensor<16x32xf32> {
    ^bb0(%X: tensor<16x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
      %acc = mirage_block.accum sum %xt : tensor<16x32xf32> -> tensor<16x32xf32>
      %e = mirage_block.unary exp %acc : tensor<16x32xf32>
      %s = mirage_block.reduce sum %e dim 1 : tensor<16x32xf32> -> tensor<16x1xf32>
      %d = mirage_block.binary div %e, %s : tensor<16x32xf32>, tensor<16x1xf32> -> tensor<16x32xf32>
      %o = mirage_block.output_saver %d omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      mirage_block.yield %o : tensor<16x32xf32>
    }
    mirage_kernel.yield %k : tensor<16x32xf32>
  }
  return %g : tensor<16x32xf32>
}

// -----

// An existing thread graph is merged with its element-wise consumer.
// CHECK-LABEL: func.func @merge_existing
// CHECK-COUNT-1: mirage_block.thread_graph
// CHECK-NOT: mirage_block.thread_graph
// CHECK: mirage_thread.unary silu
// CHECK: mirage_thread.binary mul
// CHECK-NOT: mirage_block.binary
func.func @merge_existing(%x: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %g = mirage_kernel.graph "g" (%x) : (tensor<16x64xf32>) -> tensor<16x32xf32> {
  ^bb0(%a: tensor<16x64xf32>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 2 : (tensor<16x64xf32>) -> tensor<16x32xf32> {
    ^bb0(%X: tensor<16x64xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
      %acc = mirage_block.accum sum %xt : tensor<16x32xf32> -> tensor<16x32xf32>
      %t = mirage_block.thread_graph (%acc) : (tensor<16x32xf32>) -> tensor<16x32xf32> {
      ^bb0(%v: f32):
        %u = mirage_thread.unary silu %v : f32
        mirage_thread.yield %u : f32
      }
      %p = mirage_block.binary mul %t, %acc : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
      %o = mirage_block.output_saver %p omap = [-1, -1, -1] : tensor<16x32xf32> -> tensor<16x32xf32>
      mirage_block.yield %o : tensor<16x32xf32>
    }
    mirage_kernel.yield %k : tensor<16x32xf32>
  }
  return %g : tensor<16x32xf32>
}

// -----

// Workload: GatedMLP's best μGraph (test/Workloads/gated_mlp.mlir). The
// after-loop silu(acc1) * acc2 becomes one thread graph, and the fused graph
// still matches its reference (CMP, VERIFY).
// CHECK-LABEL: func.func @gated_mlp
// CHECK: mirage_kernel.graph "gated_mlp_best" reference "gated_mlp_ref"
// CHECK-COUNT-2: mirage_block.accum sum
// CHECK: %[[TG:.*]] = mirage_block.thread_graph(%{{.*}}, %{{.*}}) : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16> {
// CHECK-NEXT: ^bb0(%[[A1:.*]]: f16, %[[A2:.*]]: f16):
// CHECK-NEXT: %[[S:.*]] = mirage_thread.unary silu %[[A1]] : f16
// CHECK-NEXT: %[[P:.*]] = mirage_thread.binary mul %[[S]], %[[A2]] : f16
// CHECK-NEXT: mirage_thread.yield %[[P]] : f16
// CHECK: mirage_block.output_saver %[[TG]] omap = [1, -1, -1]
// CMP: remark: graph 'gated_mlp_best' matches reference 'gated_mlp_ref'
// VERIFY: remark: graph 'gated_mlp_best' is equivalent to reference 'gated_mlp_ref'
func.func @gated_mlp(%x: tensor<4x64xf16>, %w1: tensor<64x64xf16>, %w2: tensor<64x64xf16>)
    -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %r = mirage_kernel.graph "gated_mlp_ref" (%x, %w1, %w2)
      : (tensor<4x64xf16>, tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%a: tensor<4x64xf16>, %b1: tensor<64x64xf16>, %b2: tensor<64x64xf16>):
    %m1 = mirage_kernel.matmul %a, %b1 : tensor<4x64xf16>, tensor<64x64xf16> -> tensor<4x64xf16>
    %m2 = mirage_kernel.matmul %a, %b2 : tensor<4x64xf16>, tensor<64x64xf16> -> tensor<4x64xf16>
    %s = mirage_kernel.unary silu %m1 : tensor<4x64xf16>
    %o = mirage_kernel.binary mul %s, %m2 : tensor<4x64xf16>, tensor<4x64xf16> -> tensor<4x64xf16>
    mirage_kernel.yield %o : tensor<4x64xf16>
  }
  %b = mirage_kernel.graph "gated_mlp_best" reference "gated_mlp_ref" (%x, %w1, %w2)
      : (tensor<4x64xf16>, tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%a: tensor<4x64xf16>, %b1: tensor<64x64xf16>, %b2: tensor<64x64xf16>):
    %k = mirage_kernel.custom (%a, %b1, %b2) grid = [8, 1, 1] forloop = 4
        : (tensor<4x64xf16>, tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<4x64xf16> {
    ^bb0(%X: tensor<4x64xf16>, %W1: tensor<64x64xf16>, %W2: tensor<64x64xf16>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<4x64xf16> -> tensor<4x16xf16>
      %w1t = mirage_block.input_iterator %W1 imap = [1, -1, -1] fmap = 0 : tensor<64x64xf16> -> tensor<16x8xf16>
      %w2t = mirage_block.input_iterator %W2 imap = [1, -1, -1] fmap = 0 : tensor<64x64xf16> -> tensor<16x8xf16>
      %m1 = mirage_block.matmul %xt, %w1t : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf16>
      %m2 = mirage_block.matmul %xt, %w2t : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf16>
      %a1 = mirage_block.accum sum %m1 : tensor<4x8xf16> -> tensor<4x8xf16>
      %a2 = mirage_block.accum sum %m2 : tensor<4x8xf16> -> tensor<4x8xf16>
      %s = mirage_block.unary silu %a1 : tensor<4x8xf16>
      %p = mirage_block.binary mul %s, %a2 : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
      %o = mirage_block.output_saver %p omap = [1, -1, -1] : tensor<4x8xf16> -> tensor<4x64xf16>
      mirage_block.yield %o : tensor<4x64xf16>
    }
    mirage_kernel.yield %k : tensor<4x64xf16>
  }
  return %r, %b : tensor<4x64xf16>, tensor<4x64xf16>
}

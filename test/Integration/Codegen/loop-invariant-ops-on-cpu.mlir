// Operators over loop-invariant tiles run once, before the for-loop
// (docs/Rationale/LoopInvariantOps.md). The fused kernel computes
// Σ_i (rms_norm(Q)·0.125) @ K_i over 4 iterations of 64-column chunks of K:
// Q's tile (fmap -1) is the same in every iteration, so rms_norm(Q) (a row
// reduction with its tree) and the scaling run once, before the pipeline's
// prologue, and the loop runs only K's copy, the matmul and the accumulator.
// The CPU runs the lowered loops and compares them with the evaluator, which
// evaluates those ops in the first iteration only.
//
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | FileCheck %s --check-prefix=LOOPS
// RUN: mirage-opt %s --mirage-fuse-thread-graphs -o - | FileCheck %s --check-prefix=FUSE
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | mirage-opt --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=copies}))' -o - | FileCheck %s --check-prefix=COPIES
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && FileCheck %s --check-prefix=PTX --input-file=%t/graph0_opt.sm_90.ptx %}

// VERIFY: remark: graph 'graph0_opt' is equivalent to reference 'graph0'
// CPU: remark: graph 'graph0_opt' on the CPU matches the evaluator

// LOOPS-LABEL: func.func @graph0_opt_k0(
// Q's tile joins the first group of K's pipeline (4 stages); the
// prologue's last group (2) waits for all but itself and group 1, so that
// group 0, and Q with it, is complete before the operators over Q run.
// LOOPS: mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 4 : i64
// LOOPS: mirage_kernel.prefetch_group = 0 : i64, mirage_kernel.prefetch_stages = 4 : i64
// LOOPS: mirage_kernel.prefetch_group = 1 : i64, mirage_kernel.prefetch_stages = 4 : i64
// LOOPS-NOT: prefetch_wait
// LOOPS: mirage_kernel.prefetch_group = 2 : i64, mirage_kernel.prefetch_stages = 4 : i64, mirage_kernel.prefetch_wait = 2 : i64
// rms_norm(Q): its squares, the row tree, 1/rms, then the scaling by
// 0.125, all before the loop.
// LOOPS: mirage_kernel.reduction_fold
// LOOPS: mirage_kernel.reduction_tree
// LOOPS: math.sqrt
// LOOPS: mirage_kernel.reduction_finish
// LOOPS: arith.constant 1.250000e-01
// Then the loop of 4.
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c4 step
// LOOPS-NOT: mirage_kernel.reduction_
// LOOPS-NOT: math.sqrt
// LOOPS-NOT: arith.constant 1.250000e-01
// LOOPS: mirage_kernel.prefetch_group = 3 : i64, mirage_kernel.prefetch_stages = 4 : i64
// LOOPS-NOT: mirage_kernel.reduction_
// LOOPS-NOT: math.sqrt
// LOOPS-NOT: arith.constant 1.250000e-01
// LOOPS: vector.contract
// LOOPS-NOT: mirage_kernel.reduction_
// LOOPS-NOT: math.sqrt
// LOOPS-NOT: arith.constant 1.250000e-01
// LOOPS: } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}

// On the GPU path the copies become cp.async groups: three for the
// prologue, the third committed with a wait for all but two and a barrier
// right after its copies, before rms_norm reads Q (even where the barrier
// after that phase would be eliminated: it orders only K's buffers).
// COPIES-LABEL: func.func @graph0_opt_k0(
// COPIES: nvvm.cp.async.commit.group
// COPIES-NOT: nvvm.cp.async.wait.group
// COPIES: nvvm.cp.async.commit.group
// COPIES-NOT: nvvm.cp.async.wait.group
// COPIES: nvvm.cp.async.commit.group
// COPIES-NEXT: nvvm.cp.async.wait.group 2
// COPIES-NEXT: gpu.barrier
// COPIES: math.sqrt
// COPIES: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// COPIES: nvvm.cp.async.wait.group 3

// The scaling is not fused with anything in the loop (nothing element-wise
// is there), and stays a phase of its own before it.
// FUSE: mirage_block.rms_norm
// FUSE-NEXT: mirage_block.unary mul_scalar

// PTX: .entry graph0_opt_k0
// PTX: cp.async.wait_group 2;
// PTX-NEXT: bar.sync
// PTX: sqrt.approx.f32
// PTX: cp.async.wait_group 3;

module {
  func.func @f(%q: tensor<2x16x64xf16>, %k: tensor<2x64x256xf16>) -> tensor<2x16x64xf16> {
    %0 = mirage_kernel.graph "graph0"(%q, %k) : (tensor<2x16x64xf16>, tensor<2x64x256xf16>) -> tensor<2x16x64xf16> {
    ^bb0(%a: tensor<2x16x64xf16>, %b: tensor<2x64x256xf16>):
      %n = mirage_kernel.rms_norm %a eps(1.0e-6) : tensor<2x16x64xf16> -> tensor<2x16x64xf16>
      %s = mirage_kernel.unary mul_scalar %n scalar(1.250000e-01) : tensor<2x16x64xf16>
      %m = mirage_kernel.matmul %s, %b : tensor<2x16x64xf16>, tensor<2x64x256xf16> -> tensor<2x16x256xf16>
      %r = mirage_kernel.reduce sum %m dim 2 to 64 : tensor<2x16x256xf16> -> tensor<2x16x64xf16>
      mirage_kernel.yield %r : tensor<2x16x64xf16>
    }
    %1 = mirage_kernel.graph "graph0_opt" reference "graph0"(%q, %k) : (tensor<2x16x64xf16>, tensor<2x64x256xf16>) -> tensor<2x16x64xf16> {
    ^bb0(%a: tensor<2x16x64xf16>, %b: tensor<2x64x256xf16>):
      %2 = mirage_kernel.custom(%a, %b) grid = [2, 1, 1] forloop = 4 : (tensor<2x16x64xf16>, tensor<2x64x256xf16>) -> tensor<2x16x64xf16> {
      ^bb0(%x: tensor<2x16x64xf16>, %y: tensor<2x64x256xf16>):
        %qt = mirage_block.input_iterator %x imap = [0, -1, -1] fmap = -1 : tensor<2x16x64xf16> -> tensor<1x16x64xf16>
        %kt = mirage_block.input_iterator %y imap = [0, -1, -1] fmap = 2 : tensor<2x64x256xf16> -> tensor<1x64x64xf16>
        %n = mirage_block.rms_norm %qt eps(1.0e-6) : tensor<1x16x64xf16> -> tensor<1x16x64xf16>
        %s = mirage_block.unary mul_scalar %n scalar(1.250000e-01) : tensor<1x16x64xf16>
        %m = mirage_block.matmul %s, %kt : tensor<1x16x64xf16>, tensor<1x64x64xf16> -> tensor<1x16x64xf16>
        %acc = mirage_block.accum sum %m : tensor<1x16x64xf16> -> tensor<1x16x64xf16>
        %o = mirage_block.output_saver %acc omap = [0, -1, -1] : tensor<1x16x64xf16> -> tensor<2x16x64xf16>
        mirage_block.yield %o : tensor<2x16x64xf16>
      }
      mirage_kernel.yield %2 : tensor<2x16x64xf16>
    }
    return %1 : tensor<2x16x64xf16>
  }
}

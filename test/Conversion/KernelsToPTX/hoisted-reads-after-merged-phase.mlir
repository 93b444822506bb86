// Regression: the attention scores of llama_decoder_tosa.mlir (the frontend
// corpus) as the search found them once K's transposes were read as they
// lie (OperandLayouts.md): 4 pipeline stages, tiles of four inputs stored
// transposed, and a thread graph over loop-invariant tiles run before the
// loop (LoopInvariantOps.md). The prologue's last group waits for the
// first (wait_group 2) before those reads. Its last copy phase and the
// hoisted op's phase have the same thread guard: once the barrier between
// them was dropped and their scf.if combined, the reads sat before the
// wait, and the async-copy check refused the kernel (no PTX). The reads
// now move to an scf.if of their own after the wait and its barrier
// (AsyncCopies.cpp, splitReadsAfterCopies). The CPU runs the lowered
// loops against the evaluator.
//
// RUN: rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG --allow-empty
// RUN: FileCheck %s --input-file=%t/scores_opt.sm_90.ptx
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU

// DIAG-NOT: warning
// DIAG-NOT: error

// CHECK: .entry scores_opt_k0
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group 2;
// CHECK-NEXT: bar.sync 0;
// CHECK: ld.shared
// CHECK: mul.f32

// CPU: remark: graph 'scores_opt' on the CPU matches the evaluator

func.func @f(%a0: tensor<1x4x16x16xf32>, %a1: tensor<1x1x16x16xf32>, %a2: tensor<1x4x16x16xf32>, %a3: tensor<1x1x16x16xf32>, %a4: tensor<1x1x16x16xf32>, %a5: tensor<1x4x16x16xf32>, %a6: tensor<1x1x16x16xf32>, %a7: tensor<1x4x16x16xf32>, %a8: tensor<1x1x16x16xf32>, %a9: tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32> {
    %14 = mirage_kernel.graph "scores_opt"(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9) attributes {transposed_inputs = array<i64: 6, 7, 8, 9>} : (tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32> {
    ^bb0(%arg13: tensor<1x4x16x16xf32>, %arg14: tensor<1x1x16x16xf32>, %arg15: tensor<1x4x16x16xf32>, %arg16: tensor<1x1x16x16xf32>, %arg17: tensor<1x1x16x16xf32>, %arg18: tensor<1x4x16x16xf32>, %arg19: tensor<1x1x16x16xf32>, %arg20: tensor<1x4x16x16xf32>, %arg21: tensor<1x1x16x16xf32>, %arg22: tensor<1x4x16x16xf32>):
      %25 = mirage_kernel.custom(%arg13, %arg14, %arg15, %arg16, %arg17, %arg18, %arg19, %arg20, %arg21, %arg22) grid = [16, 2, 1] forloop = 4 : (tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32> {
      ^bb0(%arg23: tensor<1x4x16x16xf32>, %arg24: tensor<1x1x16x16xf32>, %arg25: tensor<1x4x16x16xf32>, %arg26: tensor<1x1x16x16xf32>, %arg27: tensor<1x1x16x16xf32>, %arg28: tensor<1x4x16x16xf32>, %arg29: tensor<1x1x16x16xf32>, %arg30: tensor<1x4x16x16xf32>, %arg31: tensor<1x1x16x16xf32>, %arg32: tensor<1x4x16x16xf32>):
        %26 = mirage_block.input_iterator %arg23 imap = [2, -1, -1] fmap = -1 : tensor<1x4x16x16xf32> -> tensor<1x4x1x16xf32>
        %27 = mirage_block.input_iterator %arg24 imap = [2, -1, -1] fmap = -1 : tensor<1x1x16x16xf32> -> tensor<1x1x1x16xf32>
        %28 = mirage_block.input_iterator %arg25 imap = [2, -1, -1] fmap = -1 : tensor<1x4x16x16xf32> -> tensor<1x4x1x16xf32>
        %29 = mirage_block.input_iterator %arg26 imap = [2, -1, -1] fmap = -1 : tensor<1x1x16x16xf32> -> tensor<1x1x1x16xf32>
        %30 = mirage_block.input_iterator %arg27 imap = [2, -1, -1] fmap = 3 : tensor<1x1x16x16xf32> -> tensor<1x1x1x4xf32>
        %31 = mirage_block.input_iterator %arg28 imap = [-1, 3, -1] fmap = 2 : tensor<1x4x16x16xf32> -> tensor<1x4x4x8xf32>
        %32 = mirage_block.input_iterator %arg29 imap = [-1, -1, -1] fmap = 3 : tensor<1x1x16x16xf32> -> tensor<1x1x16x4xf32>
        %33 = mirage_block.input_iterator %arg30 imap = [-1, -1, -1] fmap = 3 : tensor<1x4x16x16xf32> -> tensor<1x4x16x4xf32>
        %34 = mirage_block.input_iterator %arg31 imap = [-1, -1, -1] fmap = 3 : tensor<1x1x16x16xf32> -> tensor<1x1x16x4xf32>
        %35 = mirage_block.input_iterator %arg32 imap = [-1, -1, -1] fmap = 3 : tensor<1x4x16x16xf32> -> tensor<1x4x16x4xf32>
        %36 = mirage_block.thread_graph(%33, %32, %35, %34) : (tensor<1x4x16x4xf32>, tensor<1x1x16x4xf32>, tensor<1x4x16x4xf32>, tensor<1x1x16x4xf32>) -> tensor<1x4x16x4xf32> {
        ^bb0(%arg33: f32, %arg34: f32, %arg35: f32, %arg36: f32):
          %48 = mirage_thread.binary mul %arg33, %arg34 : f32
          %49 = mirage_thread.binary mul %arg35, %arg36 : f32
          %50 = mirage_thread.binary add %49, %48 : f32
          %51 = mirage_thread.unary add_scalar %50 scalar(0.000000e+00) : f32
          mirage_thread.yield %51 : f32
        }
        %37 = mirage_block.thread_graph(%26, %27, %28, %29) : (tensor<1x4x1x16xf32>, tensor<1x1x1x16xf32>, tensor<1x4x1x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x4x1x16xf32> {
        ^bb0(%arg33: f32, %arg34: f32, %arg35: f32, %arg36: f32):
          %48 = mirage_thread.binary mul %arg33, %arg34 : f32
          %49 = mirage_thread.binary mul %arg35, %arg36 : f32
          %50 = mirage_thread.binary add %48, %49 : f32
          %51 = mirage_thread.unary add_scalar %50 scalar(0.000000e+00) : f32
          %52 = mirage_thread.unary mul_scalar %51 scalar(2.500000e-01) : f32
          mirage_thread.yield %52 : f32
        }
        %38 = mirage_block.unary add_scalar %31 scalar(0.000000e+00) : tensor<1x4x4x8xf32>
        %39 = mirage_block.matmul %37, %36 : tensor<1x4x1x16xf32>, tensor<1x4x16x4xf32> -> tensor<1x4x1x4xf32>
        %40 = mirage_block.binary add %39, %30 : tensor<1x4x1x4xf32>, tensor<1x1x1x4xf32> -> tensor<1x4x1x4xf32>
        %prev, %cur = mirage_block.running_max %40 dim 3 : tensor<1x4x1x4xf32> -> tensor<1x4x1x1xf32>
        %41 = mirage_block.thread_graph(%40, %cur) : (tensor<1x4x1x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x1x4xf32> {
        ^bb0(%arg33: f32, %arg34: f32):
          %48 = mirage_thread.binary sub %arg33, %arg34 : f32
          %49 = mirage_thread.unary exp %48 : f32
          mirage_thread.yield %49 : f32
        }
        %42 = mirage_block.thread_graph(%prev, %cur) : (tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32> {
        ^bb0(%arg33: f32, %arg34: f32):
          %48 = mirage_thread.binary sub %arg33, %arg34 : f32
          %49 = mirage_thread.unary exp %48 : f32
          mirage_thread.yield %49 : f32
        }
        %43 = mirage_block.matmul %41, %38 : tensor<1x4x1x4xf32>, tensor<1x4x4x8xf32> -> tensor<1x4x1x8xf32>
        %44 = mirage_block.accum sum_last %41 rescale %42 : tensor<1x4x1x4xf32>, tensor<1x4x1x1xf32> -> tensor<1x4x1x1xf32>
        %45 = mirage_block.accum sum %43 rescale %42 : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32> -> tensor<1x4x1x8xf32>
        %46 = mirage_block.binary div %45, %44 : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32> -> tensor<1x4x1x8xf32>
        %47 = mirage_block.output_saver %46 omap = [2, 3, -1] : tensor<1x4x1x8xf32> -> tensor<1x4x16x16xf32>
        mirage_block.yield %47 : tensor<1x4x16x16xf32>
      }
      mirage_kernel.yield %25 : tensor<1x4x16x16xf32>
    }
    return %14 : tensor<1x4x16x16xf32>
}

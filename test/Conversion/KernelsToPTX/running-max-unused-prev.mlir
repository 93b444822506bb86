// A running max whose prev no op reads (a split kernel of one iteration,
// from 12-layer GPT-2's attention) keeps no tile for prev: the GPU stages
// drop a store-only buffer, so a plan that counted one priced 32 bytes the
// kernel never allocated, and mirage-kernels-to-ptx refused the graph
// ("allocated 3296 bytes of shared memory, its launch plan 3328"). The
// lowered code still matches the evaluator on the host.

// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU

// PTX: remark: graph 'split': wrote {{.*}}split.sm_90.ptx
// PTX-NOT: error
// CPU: remark: graph 'split' on the CPU matches the evaluator

func.func @split(%q: tensor<4x8x16xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x8x16xf32>, %s: tensor<1x8x8xf32>, %b: tensor<1x8x8xf32>) -> (tensor<4x16x1xf32>, tensor<4x16x16xf32>, tensor<4x16x1xf32>) {
  %r:3 = mirage_kernel.graph "split"(%q, %k, %v, %s, %b) : (tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> (tensor<4x16x1xf32>, tensor<4x16x16xf32>, tensor<4x16x1xf32>) {
  ^bb0(%arg148: tensor<4x8x16xf32>, %arg149: tensor<4x16x8xf32>, %arg150: tensor<4x8x16xf32>, %arg151: tensor<1x8x8xf32>, %arg152: tensor<1x8x8xf32>):
    %158:3 = mirage_kernel.custom(%arg148, %arg149, %arg150, %arg151, %arg152) grid = [4, 2, 1] forloop = 1 : (tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> (tensor<4x16x1xf32>, tensor<4x16x16xf32>, tensor<4x16x1xf32>) {
    ^bb0(%arg153: tensor<4x8x16xf32>, %arg154: tensor<4x16x8xf32>, %arg155: tensor<4x8x16xf32>, %arg156: tensor<1x8x8xf32>, %arg157: tensor<1x8x8xf32>):
      %160 = mirage_block.input_iterator %arg153 imap = [0, -1, -1] fmap = -1 : tensor<4x8x16xf32> -> tensor<1x8x16xf32>
      %161 = mirage_block.input_iterator %arg154 imap = [0, 2, -1] fmap = 2 : tensor<4x16x8xf32> -> tensor<1x16x4xf32>
      %162 = mirage_block.input_iterator %arg155 imap = [0, 1, -1] fmap = 1 : tensor<4x8x16xf32> -> tensor<1x4x16xf32>
      %163 = mirage_block.input_iterator %arg156 imap = [-1, 2, -1] fmap = 2 : tensor<1x8x8xf32> -> tensor<1x8x4xf32>
      %164 = mirage_block.input_iterator %arg157 imap = [-1, 2, -1] fmap = 2 : tensor<1x8x8xf32> -> tensor<1x8x4xf32>
      %165 = mirage_block.unary mul_scalar %160 scalar(2.500000e-01) : tensor<1x8x16xf32>
      %166 = mirage_block.matmul %165, %161 : tensor<1x8x16xf32>, tensor<1x16x4xf32> -> tensor<1x8x4xf32>
      %167 = mirage_block.binary mul %166, %163 : tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
      %168 = mirage_block.binary add %167, %164 : tensor<1x8x4xf32>, tensor<1x8x4xf32> -> tensor<1x8x4xf32>
      %prev, %cur = mirage_block.running_max %168 dim 2 : tensor<1x8x4xf32> -> tensor<1x8x1xf32>
      %169 = mirage_block.binary sub %168, %cur : tensor<1x8x4xf32>, tensor<1x8x1xf32> -> tensor<1x8x4xf32>
      %170 = mirage_block.unary exp %169 : tensor<1x8x4xf32>
      %171 = mirage_block.matmul %170, %162 : tensor<1x8x4xf32>, tensor<1x4x16xf32> -> tensor<1x8x16xf32>
      %172 = mirage_block.accum sum_last %170 : tensor<1x8x4xf32> -> tensor<1x8x1xf32>
      %173 = mirage_block.accum sum %171 : tensor<1x8x16xf32> -> tensor<1x8x16xf32>
      %174 = mirage_block.output_saver %172 omap = [0, 1, -1] : tensor<1x8x1xf32> -> tensor<4x16x1xf32>
      %175 = mirage_block.output_saver %173 omap = [0, 1, -1] : tensor<1x8x16xf32> -> tensor<4x16x16xf32>
      %176 = mirage_block.accum max %cur : tensor<1x8x1xf32> -> tensor<1x8x1xf32>
      %177 = mirage_block.output_saver %176 omap = [0, 1, -1] : tensor<1x8x1xf32> -> tensor<4x16x1xf32>
      mirage_block.yield %174, %175, %177 : tensor<4x16x1xf32>, tensor<4x16x16xf32>, tensor<4x16x1xf32>
    }
    mirage_kernel.yield %158#0, %158#1, %158#2 : tensor<4x16x1xf32>, tensor<4x16x16xf32>, tensor<4x16x1xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4x16x1xf32>, tensor<4x16x16xf32>, tensor<4x16x1xf32>
}

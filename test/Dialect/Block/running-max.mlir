// RUN: mirage-opt %s | FileCheck %s
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s -mlir-print-op-generic | mirage-opt | FileCheck %s

// One flash-attention kernel (docs/Rationale/OnlineSoftmax.md): a Q tile per
// block, a for-loop over key tiles, the running max of the score row, the
// tile shifted by cur and the sums rescaled by exp(prev - cur).

// CHECK-LABEL: func.func @flash_attention
func.func @flash_attention(%q: tensor<8x16xf32>, %k: tensor<16x64xf32>, %v: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %o = mirage_kernel.graph (%q, %k, %v) : (tensor<8x16xf32>, tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%a: tensor<8x16xf32>, %b: tensor<16x64xf32>, %c: tensor<64x16xf32>):
    %r = mirage_kernel.custom (%a, %b, %c) grid = [2, 1, 1] forloop = 4 : (tensor<8x16xf32>, tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%Q: tensor<8x16xf32>, %K: tensor<16x64xf32>, %V: tensor<64x16xf32>):
      %qt = mirage_block.input_iterator %Q imap = [0, -1, -1] fmap = -1 : tensor<8x16xf32> -> tensor<4x16xf32>
      %kt = mirage_block.input_iterator %K imap = [-1, -1, -1] fmap = 1 : tensor<16x64xf32> -> tensor<16x16xf32>
      %vt = mirage_block.input_iterator %V imap = [-1, -1, -1] fmap = 0 : tensor<64x16xf32> -> tensor<16x16xf32>
      // CHECK: %[[S:.*]] = mirage_block.matmul
      %s = mirage_block.matmul %qt, %kt : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
      // CHECK-NEXT: %[[P:[a-z0-9_]+]], %[[C:[a-z0-9_]+]] = mirage_block.running_max %[[S]] dim 1 : tensor<4x16xf32> -> tensor<4x1xf32>
      %prev, %cur = mirage_block.running_max %s dim 1 : tensor<4x16xf32> -> tensor<4x1xf32>
      // CHECK-NEXT: mirage_block.binary sub %[[S]], %[[C]] : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
      %d = mirage_block.binary sub %s, %cur : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
      %e = mirage_block.unary exp %d : tensor<4x16xf32>
      // CHECK: mirage_block.binary sub %[[P]], %[[C]] : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
      %rd = mirage_block.binary sub %prev, %cur : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
      %rs = mirage_block.unary exp %rd : tensor<4x1xf32>
      %l = mirage_block.accum sum_last %e rescale %rs : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
      %pv = mirage_block.matmul %e, %vt : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
      %acc = mirage_block.accum sum %pv rescale %rs : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
      %out = mirage_block.binary div %acc, %l : tensor<4x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
      %sv = mirage_block.output_saver %out omap = [0, -1, -1] : tensor<4x16xf32> -> tensor<8x16xf32>
      mirage_block.yield %sv : tensor<8x16xf32>
    }
    mirage_kernel.yield %r : tensor<8x16xf32>
  }
  return %o : tensor<8x16xf32>
}

// The running max of another dim (the rows of a 3-d tile): the result keeps
// every other dim.

// CHECK-LABEL: func.func @running_max_dim_0
func.func @running_max_dim_0(%x: tensor<2x8x32xf16>) -> tensor<1x8x8xf16> {
  %o = mirage_kernel.graph (%x) : (tensor<2x8x32xf16>) -> tensor<1x8x8xf16> {
  ^bb0(%a: tensor<2x8x32xf16>):
    %r = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 4 : (tensor<2x8x32xf16>) -> tensor<1x8x8xf16> {
    ^bb0(%X: tensor<2x8x32xf16>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 2 : tensor<2x8x32xf16> -> tensor<2x8x8xf16>
      // CHECK: mirage_block.running_max %{{.*}} dim 0 : tensor<2x8x8xf16> -> tensor<1x8x8xf16>
      %prev, %cur = mirage_block.running_max %xt dim 0 : tensor<2x8x8xf16> -> tensor<1x8x8xf16>
      %m = mirage_block.accum max %cur : tensor<1x8x8xf16> -> tensor<1x8x8xf16>
      %s = mirage_block.output_saver %m omap = [-1, -1, -1] : tensor<1x8x8xf16> -> tensor<1x8x8xf16>
      mirage_block.yield %s : tensor<1x8x8xf16>
    }
    mirage_kernel.yield %r : tensor<1x8x8xf16>
  }
  return %o : tensor<1x8x8xf16>
}

// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mirage-compare -o /dev/null 2>&1 | FileCheck %s --check-prefix=CMP
//
// GatedMLP (Falcon-7B; paper Fig. 10b; reference §6.5), scaled down from
// X 8x4096, W1/W2 4096x4096 (grid 128, forloop 64) to X 4x64, W1/W2 64x64
// (grid 8, forloop 4). O = silu(X @ W1) * (X @ W2).
//
// Reference: four kernels: matmul, matmul, silu, mul.
//
// Best μGraph: ONE graph-defined kernel holding both matmuls:
//   * grid [8,1,1]: block b owns output columns [8b, 8b+8);
//   * X: imap {x:φ}, fmap 1 (one X tile per iteration, shared by both matmuls);
//   * W1, W2: imap {x:1} (column slice per block), fmap 0 (loop walks h);
//   * in the loop: matmul(X_i, W1_i) → accum sum, matmul(X_i, W2_i) → accum sum;
//   * after the loop: silu(acc1) * acc2 on the 4x8 tiles (block unary + binary);
//   * output saver omap {x:1}: 4x8 tiles → 4x64.

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

// CHECK-LABEL: mirage_kernel.graph "gated_mlp_ref"
// CHECK-COUNT-2: mirage_kernel.matmul
// CHECK: mirage_kernel.unary silu
// CHECK: mirage_kernel.binary mul
// CHECK-LABEL: mirage_kernel.graph "gated_mlp_best" reference "gated_mlp_ref"
// CHECK: mirage_kernel.custom
// CHECK-SAME: grid = [8, 1, 1] forloop = 4
// CHECK-NOT: mirage_kernel.custom
// CHECK: input_iterator %{{.*}} imap = [-1, -1, -1] fmap = 1
// CHECK-COUNT-2: input_iterator %{{.*}} imap = [1, -1, -1] fmap = 0
// CHECK-COUNT-2: mirage_block.matmul
// CHECK-COUNT-2: mirage_block.accum sum
// CHECK: mirage_block.unary silu
// CHECK: mirage_block.binary mul
// CHECK: output_saver %{{.*}} omap = [1, -1, -1]
// CHECK-NOT: mirage_kernel.custom
// CHECK: return

// CMP: remark: graph 'gated_mlp_best' matches reference 'gated_mlp_ref'

// GatedMLP at the paper's shapes (Falcon-7B, reference §6.5): X 8x4096,
// W1, W2 4096x4096; O = silu(X @ W1) * (X @ W2). Small version with the full
// explanation: test/Workloads/gated_mlp.mlir.
// Best μGraph: one custom kernel, grid [128,1,1], forloop 64; X imap {x:φ}
// fmap 1, W1/W2 imap {x:1} fmap 0; two matmuls → two accum sum; silu and mul
// after the loop; saver omap {x:1}.
func.func @gated_mlp(%x: tensor<8x4096xf16>, %w1: tensor<4096x4096xf16>, %w2: tensor<4096x4096xf16>) -> (tensor<8x4096xf16>, tensor<8x4096xf16>) {
  %r = mirage_kernel.graph "gated_mlp_ref" (%x, %w1, %w2) : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  ^bb0(%a: tensor<8x4096xf16>, %b1: tensor<4096x4096xf16>, %b2: tensor<4096x4096xf16>):
    %m1 = mirage_kernel.matmul %a, %b1 : tensor<8x4096xf16>, tensor<4096x4096xf16> -> tensor<8x4096xf16>
    %m2 = mirage_kernel.matmul %a, %b2 : tensor<8x4096xf16>, tensor<4096x4096xf16> -> tensor<8x4096xf16>
    %s = mirage_kernel.unary silu %m1 : tensor<8x4096xf16>
    %p = mirage_kernel.binary mul %s, %m2 : tensor<8x4096xf16>, tensor<8x4096xf16> -> tensor<8x4096xf16>
    mirage_kernel.yield %p : tensor<8x4096xf16>
  }
  %b = mirage_kernel.graph "gated_mlp_best" reference "gated_mlp_ref" (%x, %w1, %w2) : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
  ^bb0(%a: tensor<8x4096xf16>, %b1: tensor<4096x4096xf16>, %b2: tensor<4096x4096xf16>):
    %k = mirage_kernel.custom (%a, %b1, %b2) grid = [128, 1, 1] forloop = 64 : (tensor<8x4096xf16>, tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<8x4096xf16> {
    ^bb0(%X: tensor<8x4096xf16>, %W1: tensor<4096x4096xf16>, %W2: tensor<4096x4096xf16>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<8x4096xf16> -> tensor<8x64xf16>
      %w1t = mirage_block.input_iterator %W1 imap = [1, -1, -1] fmap = 0 : tensor<4096x4096xf16> -> tensor<64x32xf16>
      %w2t = mirage_block.input_iterator %W2 imap = [1, -1, -1] fmap = 0 : tensor<4096x4096xf16> -> tensor<64x32xf16>
      %m1 = mirage_block.matmul %xt, %w1t : tensor<8x64xf16>, tensor<64x32xf16> -> tensor<8x32xf16>
      %m2 = mirage_block.matmul %xt, %w2t : tensor<8x64xf16>, tensor<64x32xf16> -> tensor<8x32xf16>
      %a1 = mirage_block.accum sum %m1 : tensor<8x32xf16> -> tensor<8x32xf16>
      %a2 = mirage_block.accum sum %m2 : tensor<8x32xf16> -> tensor<8x32xf16>
      %s = mirage_block.unary silu %a1 : tensor<8x32xf16>
      %p = mirage_block.binary mul %s, %a2 : tensor<8x32xf16>, tensor<8x32xf16> -> tensor<8x32xf16>
      %os = mirage_block.output_saver %p omap = [1, -1, -1] : tensor<8x32xf16> -> tensor<8x4096xf16>
      mirage_block.yield %os : tensor<8x4096xf16>
    }
    mirage_kernel.yield %k : tensor<8x4096xf16>
  }
  return %r, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
}

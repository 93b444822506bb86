// RUN: mirage-opt %s --verify-diagnostics -o /dev/null
//
// Why the one-kernel LoRA μGraph (test/Workloads/lora.mlir) uses forloop 1:
// splitting the reduction dim h over the for-loop makes X@A an accumulated
// (after-loop) value, and multiplying it by the in-loop B tile mixes phases,
// which the μGraph rules forbid (every input→output path crosses exactly one
// accumulator). B would have to be accumulated too, which sums it forloop
// times.

func.func @f(%x: tensor<4x32xf16>, %w: tensor<32x64xf16>, %a: tensor<32x4xf16>, %b: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %c = mirage_kernel.graph "lora_split_k" (%x, %w, %a, %b)
      : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%X: tensor<4x32xf16>, %W: tensor<32x64xf16>, %A: tensor<32x4xf16>, %B: tensor<4x64xf16>):
    %k = mirage_kernel.custom (%X, %W, %A, %B) grid = [8, 1, 1] forloop = 2
        : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
    ^bb0(%Xd: tensor<4x32xf16>, %Wd: tensor<32x64xf16>, %Ad: tensor<32x4xf16>, %Bd: tensor<4x64xf16>):
      %xt = mirage_block.input_iterator %Xd imap = [-1, -1, -1] fmap = 1 : tensor<4x32xf16> -> tensor<4x16xf16>
      %at = mirage_block.input_iterator %Ad imap = [-1, -1, -1] fmap = 0 : tensor<32x4xf16> -> tensor<16x4xf16>
      %bt = mirage_block.input_iterator %Bd imap = [1, -1, -1] fmap = -1 : tensor<4x64xf16> -> tensor<4x8xf16>
      %xa = mirage_block.matmul %xt, %at : tensor<4x16xf16>, tensor<16x4xf16> -> tensor<4x4xf16>
      %acc = mirage_block.accum sum %xa : tensor<4x4xf16> -> tensor<4x4xf16>
      // expected-error @+1 {{mixes an after-loop value with an in-loop value}}
      %xab = mirage_block.matmul %acc, %bt : tensor<4x4xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
      %o = mirage_block.output_saver %xab omap = [1, -1, -1] : tensor<4x8xf16> -> tensor<4x64xf16>
      mirage_block.yield %o : tensor<4x64xf16>
    }
    mirage_kernel.yield %k : tensor<4x64xf16>
  }
  return %c : tensor<4x64xf16>
}

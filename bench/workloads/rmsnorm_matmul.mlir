// RMSNorm + MatMul at the paper's shapes (LLaMA-2-7B, reference §6.3):
// X 16x4096, W 4096x6144; O = rms_norm(X) @ W. Small version with the full
// explanation: test/Workloads/rmsnorm_matmul.mlir.
// Best μGraph: one custom kernel, grid [192,1,1] (32 output columns per
// block), forloop 64; X imap {x:φ} fmap 1, W imap {x:1} fmap 0; in the loop
// matmul → accum sum and X → accum rms_last; after the loop a thread graph
// divides; saver omap {x:1}.
func.func @rmsnorm_matmul(%x: tensor<16x4096xf16>, %w: tensor<4096x6144xf16>) -> (tensor<16x6144xf16>, tensor<16x6144xf16>) {
  %r = mirage_kernel.graph "rmsnorm_matmul_ref" (%x, %w) : (tensor<16x4096xf16>, tensor<4096x6144xf16>) -> tensor<16x6144xf16> {
  ^bb0(%a: tensor<16x4096xf16>, %b: tensor<4096x6144xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<16x4096xf16> -> tensor<16x4096xf16>
    %m = mirage_kernel.matmul %n, %b : tensor<16x4096xf16>, tensor<4096x6144xf16> -> tensor<16x6144xf16>
    mirage_kernel.yield %m : tensor<16x6144xf16>
  }
  %o = mirage_kernel.graph "rmsnorm_matmul_best" reference "rmsnorm_matmul_ref" (%x, %w) : (tensor<16x4096xf16>, tensor<4096x6144xf16>) -> tensor<16x6144xf16> {
  ^bb0(%a: tensor<16x4096xf16>, %b: tensor<4096x6144xf16>):
    %k = mirage_kernel.custom (%a, %b) grid = [192, 1, 1] forloop = 64 : (tensor<16x4096xf16>, tensor<4096x6144xf16>) -> tensor<16x6144xf16> {
    ^bb0(%X: tensor<16x4096xf16>, %W: tensor<4096x6144xf16>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<16x4096xf16> -> tensor<16x64xf16>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<4096x6144xf16> -> tensor<64x32xf16>
      %mm = mirage_block.matmul %xt, %wt : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf16>
      %acc = mirage_block.accum sum %mm : tensor<16x32xf16> -> tensor<16x32xf16>
      %rms = mirage_block.accum rms_last %xt : tensor<16x64xf16> -> tensor<16x1xf16>
      %d = mirage_block.thread_graph (%acc, %rms) : (tensor<16x32xf16>, tensor<16x1xf16>) -> tensor<16x32xf16> {
      ^bb0(%p: f16, %q: f16):
        %z = mirage_thread.binary div %p, %q : f16
        mirage_thread.yield %z : f16
      }
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<16x32xf16> -> tensor<16x6144xf16>
      mirage_block.yield %s : tensor<16x6144xf16>
    }
    mirage_kernel.yield %k : tensor<16x6144xf16>
  }
  return %r, %o : tensor<16x6144xf16>, tensor<16x6144xf16>
}

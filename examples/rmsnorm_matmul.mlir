// RMSNorm + MatMul (LLaMA-2-7B; paper §3, Fig. 3b), small shapes: X 4x64,
// W 64x32; O = rms_norm(X) @ W. `bash scripts/demo.sh` verifies, evaluates
// and compares the two graphs. The same workload with FileCheck tests is
// test/Workloads/rmsnorm_matmul.mlir; the paper's full shapes (X 16x4096,
// W 4096x6144) are in bench/workloads/rmsnorm_matmul.mlir.
//
// "ref": the unfused kernel graph, rms_norm then matmul (two kernels).
//
// "best": ONE graph-defined kernel. The division by the RMS moves past the
// matmul (rms_norm(X) @ W = (X @ W) / rms(X), one rms per row), so the RMS
// accumulation and the matmul accumulation share one for-loop over the
// reduction dim:
//   * grid [4,1,1]: block b owns output columns [8b, 8b+8);
//   * X: imap {x:φ} (all rows in every block), fmap 1 (the loop walks the
//     64 columns of X in 4 steps of 16);
//   * W: imap {x:1} (block b's column slice), fmap 0 (the same 4 steps over
//     W's rows);
//   * in the loop: matmul(X_i, W_i) → accum sum, and X_i → accum rms_last
//     (sqrt(Σx² / 64) per row);
//   * after the loop: a thread graph divides the matmul accumulator by the RMS
//     in registers;
//   * output saver omap {x:1}: the blocks' 4x8 tiles form the 4x32 output.

func.func @rmsnorm_matmul(%x: tensor<4x64xf32>, %w: tensor<64x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %r = mirage_kernel.graph "ref" (%x, %w) : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %b: tensor<64x32xf32>):
    %n = mirage_kernel.rms_norm %a : tensor<4x64xf32> -> tensor<4x64xf32>
    %m = mirage_kernel.matmul %n, %b : tensor<4x64xf32>, tensor<64x32xf32> -> tensor<4x32xf32>
    mirage_kernel.yield %m : tensor<4x32xf32>
  }
  %o = mirage_kernel.graph "best" reference "ref" (%x, %w) : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
  ^bb0(%a: tensor<4x64xf32>, %b: tensor<64x32xf32>):
    %k = mirage_kernel.custom (%a, %b) grid = [4, 1, 1] forloop = 4 : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32> {
    ^bb0(%X: tensor<4x64xf32>, %W: tensor<64x32xf32>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<4x64xf32> -> tensor<4x16xf32>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<64x32xf32> -> tensor<16x8xf32>
      %mm = mirage_block.matmul %xt, %wt : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
      %acc = mirage_block.accum sum %mm : tensor<4x8xf32> -> tensor<4x8xf32>
      %rms = mirage_block.accum rms_last %xt : tensor<4x16xf32> -> tensor<4x1xf32>
      %d = mirage_block.thread_graph (%acc, %rms) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32> {
      ^bb0(%p: f32, %q: f32):
        %z = mirage_thread.binary div %p, %q : f32
        mirage_thread.yield %z : f32
      }
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<4x8xf32> -> tensor<4x32xf32>
      mirage_block.yield %s : tensor<4x32xf32>
    }
    mirage_kernel.yield %k : tensor<4x32xf32>
  }
  return %r, %o : tensor<4x32xf32>, tensor<4x32xf32>
}

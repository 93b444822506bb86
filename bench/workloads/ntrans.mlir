// nTrans at the paper's shapes (nGPT-1B, reference §6.6): H, X, α 8x4096;
// O = rms_norm(X + α·(rms_norm(H) + X)). Small version with the full
// explanation: test/Workloads/ntrans.mlir.
// Best μGraph: one custom kernel, grid [8,1,1], forloop 1, rows split with
// imap {x:0} fmap φ; rms_norm(H) and a thread graph X + α·(n + X) in the
// loop, accum sum, rms_norm after the loop, saver omap {x:0}.
func.func @ntrans(%h: tensor<8x4096xf16>, %x: tensor<8x4096xf16>, %alpha: tensor<8x4096xf16>) -> (tensor<8x4096xf16>, tensor<8x4096xf16>) {
  %r = mirage_kernel.graph "ntrans_ref" (%h, %x, %alpha) : (tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  ^bb0(%H: tensor<8x4096xf16>, %X: tensor<8x4096xf16>, %A: tensor<8x4096xf16>):
    %hn = mirage_kernel.rms_norm %H : tensor<8x4096xf16> -> tensor<8x4096xf16>
    %s = mirage_kernel.binary add %hn, %X : tensor<8x4096xf16>, tensor<8x4096xf16> -> tensor<8x4096xf16>
    %u = mirage_kernel.binary mul %A, %s : tensor<8x4096xf16>, tensor<8x4096xf16> -> tensor<8x4096xf16>
    %v = mirage_kernel.binary add %X, %u : tensor<8x4096xf16>, tensor<8x4096xf16> -> tensor<8x4096xf16>
    %o = mirage_kernel.rms_norm %v : tensor<8x4096xf16> -> tensor<8x4096xf16>
    mirage_kernel.yield %o : tensor<8x4096xf16>
  }
  %b = mirage_kernel.graph "ntrans_best" reference "ntrans_ref" (%h, %x, %alpha) : (tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  ^bb0(%H: tensor<8x4096xf16>, %X: tensor<8x4096xf16>, %A: tensor<8x4096xf16>):
    %k = mirage_kernel.custom (%H, %X, %A) grid = [8, 1, 1] forloop = 1 : (tensor<8x4096xf16>, tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16> {
    ^bb0(%Hd: tensor<8x4096xf16>, %Xd: tensor<8x4096xf16>, %Ad: tensor<8x4096xf16>):
      %ht = mirage_block.input_iterator %Hd imap = [0, -1, -1] fmap = -1 : tensor<8x4096xf16> -> tensor<1x4096xf16>
      %xt = mirage_block.input_iterator %Xd imap = [0, -1, -1] fmap = -1 : tensor<8x4096xf16> -> tensor<1x4096xf16>
      %at = mirage_block.input_iterator %Ad imap = [0, -1, -1] fmap = -1 : tensor<8x4096xf16> -> tensor<1x4096xf16>
      %hn = mirage_block.rms_norm %ht : tensor<1x4096xf16> -> tensor<1x4096xf16>
      %v = mirage_block.thread_graph (%hn, %xt, %at) : (tensor<1x4096xf16>, tensor<1x4096xf16>, tensor<1x4096xf16>) -> tensor<1x4096xf16> {
      ^bb0(%n: f16, %y: f16, %al: f16):
        %s = mirage_thread.binary add %n, %y : f16
        %u = mirage_thread.binary mul %al, %s : f16
        %w = mirage_thread.binary add %y, %u : f16
        mirage_thread.yield %w : f16
      }
      %acc = mirage_block.accum sum %v : tensor<1x4096xf16> -> tensor<1x4096xf16>
      %o = mirage_block.rms_norm %acc : tensor<1x4096xf16> -> tensor<1x4096xf16>
      %os = mirage_block.output_saver %o omap = [0, -1, -1] : tensor<1x4096xf16> -> tensor<8x4096xf16>
      mirage_block.yield %os : tensor<8x4096xf16>
    }
    mirage_kernel.yield %k : tensor<8x4096xf16>
  }
  return %r, %b : tensor<8x4096xf16>, tensor<8x4096xf16>
}

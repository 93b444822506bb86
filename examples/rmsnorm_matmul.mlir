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

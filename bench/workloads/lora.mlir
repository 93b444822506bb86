// LoRA at the paper's shapes (GPT-3-7B-LoRA, reference §6.4): X 16x256,
// W 256x4096, A 256x16, B 16x4096; O = X@W + (X@A)@B. Small version with the
// full explanation: test/Workloads/lora.mlir.
// Best μGraph (paper Fig. 9b): one custom kernel, grid [64,1,1], forloop 1;
// X, A imap {x:φ} fmap φ, W, B imap {x:1} fmap φ;
// O = [X ‖ X@A] @ [W ; B] with two block concats and two block matmuls;
// accum sum; saver omap {x:1}. "lora_three_matmul" is the saved Mirage
// candidate (three block matmuls + add) with the same maps.
func.func @lora(%x: tensor<16x256xf16>, %w: tensor<256x4096xf16>, %a: tensor<256x16xf16>, %b: tensor<16x4096xf16>) -> (tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>) {
  %r = mirage_kernel.graph "lora_ref" (%x, %w, %a, %b) : (tensor<16x256xf16>, tensor<256x4096xf16>, tensor<256x16xf16>, tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  ^bb0(%X: tensor<16x256xf16>, %W: tensor<256x4096xf16>, %A: tensor<256x16xf16>, %B: tensor<16x4096xf16>):
    %xw = mirage_kernel.matmul %X, %W : tensor<16x256xf16>, tensor<256x4096xf16> -> tensor<16x4096xf16>
    %xa = mirage_kernel.matmul %X, %A : tensor<16x256xf16>, tensor<256x16xf16> -> tensor<16x16xf16>
    %xab = mirage_kernel.matmul %xa, %B : tensor<16x16xf16>, tensor<16x4096xf16> -> tensor<16x4096xf16>
    %o = mirage_kernel.binary add %xw, %xab : tensor<16x4096xf16>, tensor<16x4096xf16> -> tensor<16x4096xf16>
    mirage_kernel.yield %o : tensor<16x4096xf16>
  }
  %c = mirage_kernel.graph "lora_best" reference "lora_ref" (%x, %w, %a, %b) : (tensor<16x256xf16>, tensor<256x4096xf16>, tensor<256x16xf16>, tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  ^bb0(%X: tensor<16x256xf16>, %W: tensor<256x4096xf16>, %A: tensor<256x16xf16>, %B: tensor<16x4096xf16>):
    %k = mirage_kernel.custom (%X, %W, %A, %B) grid = [64, 1, 1] forloop = 1 : (tensor<16x256xf16>, tensor<256x4096xf16>, tensor<256x16xf16>, tensor<16x4096xf16>) -> tensor<16x4096xf16> {
    ^bb0(%Xd: tensor<16x256xf16>, %Wd: tensor<256x4096xf16>, %Ad: tensor<256x16xf16>, %Bd: tensor<16x4096xf16>):
      %xt = mirage_block.input_iterator %Xd imap = [-1, -1, -1] fmap = -1 : tensor<16x256xf16> -> tensor<16x256xf16>
      %wt = mirage_block.input_iterator %Wd imap = [1, -1, -1] fmap = -1 : tensor<256x4096xf16> -> tensor<256x64xf16>
      %at = mirage_block.input_iterator %Ad imap = [-1, -1, -1] fmap = -1 : tensor<256x16xf16> -> tensor<256x16xf16>
      %bt = mirage_block.input_iterator %Bd imap = [1, -1, -1] fmap = -1 : tensor<16x4096xf16> -> tensor<16x64xf16>
      %xa = mirage_block.matmul %xt, %at : tensor<16x256xf16>, tensor<256x16xf16> -> tensor<16x16xf16>
      %lhs = mirage_block.concat %xt, %xa dim 1 : tensor<16x256xf16>, tensor<16x16xf16> -> tensor<16x272xf16>
      %rhs = mirage_block.concat %wt, %bt dim 0 : tensor<256x64xf16>, tensor<16x64xf16> -> tensor<272x64xf16>
      %m = mirage_block.matmul %lhs, %rhs : tensor<16x272xf16>, tensor<272x64xf16> -> tensor<16x64xf16>
      %acc = mirage_block.accum sum %m : tensor<16x64xf16> -> tensor<16x64xf16>
      %o = mirage_block.output_saver %acc omap = [1, -1, -1] : tensor<16x64xf16> -> tensor<16x4096xf16>
      mirage_block.yield %o : tensor<16x4096xf16>
    }
    mirage_kernel.yield %k : tensor<16x4096xf16>
  }
  %t = mirage_kernel.graph "lora_three_matmul" reference "lora_ref" (%x, %w, %a, %b) : (tensor<16x256xf16>, tensor<256x4096xf16>, tensor<256x16xf16>, tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  ^bb0(%X: tensor<16x256xf16>, %W: tensor<256x4096xf16>, %A: tensor<256x16xf16>, %B: tensor<16x4096xf16>):
    %k = mirage_kernel.custom (%X, %W, %A, %B) grid = [64, 1, 1] forloop = 1 : (tensor<16x256xf16>, tensor<256x4096xf16>, tensor<256x16xf16>, tensor<16x4096xf16>) -> tensor<16x4096xf16> {
    ^bb0(%Xd: tensor<16x256xf16>, %Wd: tensor<256x4096xf16>, %Ad: tensor<256x16xf16>, %Bd: tensor<16x4096xf16>):
      %xt = mirage_block.input_iterator %Xd imap = [-1, -1, -1] fmap = -1 : tensor<16x256xf16> -> tensor<16x256xf16>
      %wt = mirage_block.input_iterator %Wd imap = [1, -1, -1] fmap = -1 : tensor<256x4096xf16> -> tensor<256x64xf16>
      %at = mirage_block.input_iterator %Ad imap = [-1, -1, -1] fmap = -1 : tensor<256x16xf16> -> tensor<256x16xf16>
      %bt = mirage_block.input_iterator %Bd imap = [1, -1, -1] fmap = -1 : tensor<16x4096xf16> -> tensor<16x64xf16>
      %xw = mirage_block.matmul %xt, %wt : tensor<16x256xf16>, tensor<256x64xf16> -> tensor<16x64xf16>
      %xa = mirage_block.matmul %xt, %at : tensor<16x256xf16>, tensor<256x16xf16> -> tensor<16x16xf16>
      %xab = mirage_block.matmul %xa, %bt : tensor<16x16xf16>, tensor<16x64xf16> -> tensor<16x64xf16>
      %s = mirage_block.binary add %xw, %xab : tensor<16x64xf16>, tensor<16x64xf16> -> tensor<16x64xf16>
      %acc = mirage_block.accum sum %s : tensor<16x64xf16> -> tensor<16x64xf16>
      %o = mirage_block.output_saver %acc omap = [1, -1, -1] : tensor<16x64xf16> -> tensor<16x4096xf16>
      mirage_block.yield %o : tensor<16x4096xf16>
    }
    mirage_kernel.yield %k : tensor<16x4096xf16>
  }
  return %r, %c, %t : tensor<16x4096xf16>, tensor<16x4096xf16>, tensor<16x4096xf16>
}

// GQA decoding attention at the paper's shapes (LLaMA-3-70B, 2 KV heads per
// GPU, reference §6.1): Q 2x256x64, K 2x64x4096, V 2x4096x64;
// O = (exp(Q@K) / Σ exp(Q@K)) @ V. Small version with the full explanation:
// test/Workloads/gqa.mlir.
// Best μGraph (split-KV flash-decoding, gqa_bs1.json #0): kernel 1 grid
// [2,8,16] forloop 4: Q imap {x:0,z:1} fmap φ, K imap {x:0,y:2} fmap 2,
// V imap {x:0,y:1} fmap 1; matmul → exp → accum sum, and matmul(exp, V) →
// accum sum; outputs tensor<2x256x1024xf16> and tensor<2x256x512xf16>, omap {x:0,y:2,z:1}.
// Kernel 2 grid [2,16,1] forloop 1: imap {x:0,y:1}; accum sum_last (denominator)
// and accum sum_last to 64 (strided sum over the 8 splits); div; omap {x:0,y:1}.
func.func @gqa(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> (tensor<2x256x64xf16>, tensor<2x256x64xf16>) {
  %r = mirage_kernel.graph "gqa_ref" (%q, %k, %v) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  ^bb0(%Q: tensor<2x256x64xf16>, %K: tensor<2x64x4096xf16>, %V: tensor<2x4096x64xf16>):
    %s = mirage_kernel.matmul %Q, %K : tensor<2x256x64xf16>, tensor<2x64x4096xf16> -> tensor<2x256x4096xf16>
    %e = mirage_kernel.unary exp %s : tensor<2x256x4096xf16>
    %d = mirage_kernel.reduce sum %e dim 2 : tensor<2x256x4096xf16> -> tensor<2x256x1xf16>
    %p = mirage_kernel.binary div %e, %d : tensor<2x256x4096xf16>, tensor<2x256x1xf16> -> tensor<2x256x4096xf16>
    %o = mirage_kernel.matmul %p, %V : tensor<2x256x4096xf16>, tensor<2x4096x64xf16> -> tensor<2x256x64xf16>
    mirage_kernel.yield %o : tensor<2x256x64xf16>
  }
  %b = mirage_kernel.graph "gqa_best" reference "gqa_ref" (%q, %k, %v) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  ^bb0(%Q: tensor<2x256x64xf16>, %K: tensor<2x64x4096xf16>, %V: tensor<2x4096x64xf16>):
    %den, %num = mirage_kernel.custom (%Q, %K, %V) grid = [2, 8, 16] forloop = 4 : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> (tensor<2x256x1024xf16>, tensor<2x256x512xf16>) {
    ^bb0(%Qd: tensor<2x256x64xf16>, %Kd: tensor<2x64x4096xf16>, %Vd: tensor<2x4096x64xf16>):
      %qt = mirage_block.input_iterator %Qd imap = [0, -1, 1] fmap = -1 : tensor<2x256x64xf16> -> tensor<1x16x64xf16>
      %kt = mirage_block.input_iterator %Kd imap = [0, 2, -1] fmap = 2 : tensor<2x64x4096xf16> -> tensor<1x64x128xf16>
      %vt = mirage_block.input_iterator %Vd imap = [0, 1, -1] fmap = 1 : tensor<2x4096x64xf16> -> tensor<1x128x64xf16>
      %s = mirage_block.matmul %qt, %kt : tensor<1x16x64xf16>, tensor<1x64x128xf16> -> tensor<1x16x128xf16>
      %e = mirage_block.unary exp %s : tensor<1x16x128xf16>
      %ad = mirage_block.accum sum %e : tensor<1x16x128xf16> -> tensor<1x16x128xf16>
      %n = mirage_block.matmul %e, %vt : tensor<1x16x128xf16>, tensor<1x128x64xf16> -> tensor<1x16x64xf16>
      %an = mirage_block.accum sum %n : tensor<1x16x64xf16> -> tensor<1x16x64xf16>
      %od = mirage_block.output_saver %ad omap = [0, 2, 1] : tensor<1x16x128xf16> -> tensor<2x256x1024xf16>
      %on = mirage_block.output_saver %an omap = [0, 2, 1] : tensor<1x16x64xf16> -> tensor<2x256x512xf16>
      mirage_block.yield %od, %on : tensor<2x256x1024xf16>, tensor<2x256x512xf16>
    }
    %o = mirage_kernel.custom (%den, %num) grid = [2, 16, 1] forloop = 1 : (tensor<2x256x1024xf16>, tensor<2x256x512xf16>) -> tensor<2x256x64xf16> {
    ^bb0(%D: tensor<2x256x1024xf16>, %N: tensor<2x256x512xf16>):
      %dt = mirage_block.input_iterator %D imap = [0, 1, -1] fmap = 2 : tensor<2x256x1024xf16> -> tensor<1x16x1024xf16>
      %nt = mirage_block.input_iterator %N imap = [0, 1, -1] fmap = 2 : tensor<2x256x512xf16> -> tensor<1x16x512xf16>
      %sd = mirage_block.accum sum_last %dt : tensor<1x16x1024xf16> -> tensor<1x16x1xf16>
      %sn = mirage_block.accum sum_last %nt to 64 : tensor<1x16x512xf16> -> tensor<1x16x64xf16>
      %qo = mirage_block.binary div %sn, %sd : tensor<1x16x64xf16>, tensor<1x16x1xf16> -> tensor<1x16x64xf16>
      %os = mirage_block.output_saver %qo omap = [0, 1, -1] : tensor<1x16x64xf16> -> tensor<2x256x64xf16>
      mirage_block.yield %os : tensor<2x256x64xf16>
    }
    mirage_kernel.yield %o : tensor<2x256x64xf16>
  }
  return %r, %b : tensor<2x256x64xf16>, tensor<2x256x64xf16>
}

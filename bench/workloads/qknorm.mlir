// QKNorm attention at the paper's shapes (Chameleon-7B, reference §6.2):
// Q 2x256x64, K 2x64x4096, V 2x4096x64;
// O = softmax(rms_norm(Q) @ K) @ rms_norm(V) (norms on Q and V as in
// qknorm_gqa.py; softmax without max subtraction). Small version with the
// full explanation: test/Workloads/qknorm.mlir.
// Best μGraph: one custom kernel, grid [2,16,1], forloop 64; Q imap {x:0,y:1}
// fmap φ, K imap {x:0} fmap 2, V imap {x:0} fmap 1; rms_norm of the Q and V
// tiles in the loop, matmul → exp → accum sum_last and matmul(exp, V) →
// accum sum; div after the loop; saver omap {x:0,y:1}.
func.func @qknorm(%q: tensor<2x256x64xf16>, %k: tensor<2x64x4096xf16>, %v: tensor<2x4096x64xf16>) -> (tensor<2x256x64xf16>, tensor<2x256x64xf16>) {
  %r = mirage_kernel.graph "qknorm_ref" (%q, %k, %v) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  ^bb0(%Q: tensor<2x256x64xf16>, %K: tensor<2x64x4096xf16>, %V: tensor<2x4096x64xf16>):
    %qn = mirage_kernel.rms_norm %Q eps(1.0e-6) : tensor<2x256x64xf16> -> tensor<2x256x64xf16>
    %vn = mirage_kernel.rms_norm %V eps(1.0e-6) : tensor<2x4096x64xf16> -> tensor<2x4096x64xf16>
    %s = mirage_kernel.matmul %qn, %K : tensor<2x256x64xf16>, tensor<2x64x4096xf16> -> tensor<2x256x4096xf16>
    %e = mirage_kernel.unary exp %s : tensor<2x256x4096xf16>
    %d = mirage_kernel.reduce sum %e dim 2 : tensor<2x256x4096xf16> -> tensor<2x256x1xf16>
    %p = mirage_kernel.binary div %e, %d : tensor<2x256x4096xf16>, tensor<2x256x1xf16> -> tensor<2x256x4096xf16>
    %o = mirage_kernel.matmul %p, %vn : tensor<2x256x4096xf16>, tensor<2x4096x64xf16> -> tensor<2x256x64xf16>
    mirage_kernel.yield %o : tensor<2x256x64xf16>
  }
  %b = mirage_kernel.graph "qknorm_best" reference "qknorm_ref" (%q, %k, %v) : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
  ^bb0(%Q: tensor<2x256x64xf16>, %K: tensor<2x64x4096xf16>, %V: tensor<2x4096x64xf16>):
    %o = mirage_kernel.custom (%Q, %K, %V) grid = [2, 16, 1] forloop = 64 : (tensor<2x256x64xf16>, tensor<2x64x4096xf16>, tensor<2x4096x64xf16>) -> tensor<2x256x64xf16> {
    ^bb0(%Qd: tensor<2x256x64xf16>, %Kd: tensor<2x64x4096xf16>, %Vd: tensor<2x4096x64xf16>):
      %qt = mirage_block.input_iterator %Qd imap = [0, 1, -1] fmap = -1 : tensor<2x256x64xf16> -> tensor<1x16x64xf16>
      %kt = mirage_block.input_iterator %Kd imap = [0, -1, -1] fmap = 2 : tensor<2x64x4096xf16> -> tensor<1x64x64xf16>
      %vt = mirage_block.input_iterator %Vd imap = [0, -1, -1] fmap = 1 : tensor<2x4096x64xf16> -> tensor<1x64x64xf16>
      %qn = mirage_block.rms_norm %qt eps(1.0e-6) : tensor<1x16x64xf16> -> tensor<1x16x64xf16>
      %vn = mirage_block.rms_norm %vt eps(1.0e-6) : tensor<1x64x64xf16> -> tensor<1x64x64xf16>
      %s = mirage_block.matmul %qn, %kt : tensor<1x16x64xf16>, tensor<1x64x64xf16> -> tensor<1x16x64xf16>
      %e = mirage_block.unary exp %s : tensor<1x16x64xf16>
      %ad = mirage_block.accum sum_last %e : tensor<1x16x64xf16> -> tensor<1x16x1xf16>
      %n = mirage_block.matmul %e, %vn : tensor<1x16x64xf16>, tensor<1x64x64xf16> -> tensor<1x16x64xf16>
      %an = mirage_block.accum sum %n : tensor<1x16x64xf16> -> tensor<1x16x64xf16>
      %qo = mirage_block.binary div %an, %ad : tensor<1x16x64xf16>, tensor<1x16x1xf16> -> tensor<1x16x64xf16>
      %os = mirage_block.output_saver %qo omap = [0, 1, -1] : tensor<1x16x64xf16> -> tensor<2x256x64xf16>
      mirage_block.yield %os : tensor<2x256x64xf16>
    }
    mirage_kernel.yield %o : tensor<2x256x64xf16>
  }
  return %r, %b : tensor<2x256x64xf16>, tensor<2x256x64xf16>
}

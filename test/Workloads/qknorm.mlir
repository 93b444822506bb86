// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mirage-compare -o /dev/null 2>&1 | FileCheck %s --check-prefix=CMP
//
// QKNorm attention (Chameleon-7B; paper Fig. 8b; reference §6.2), scaled down
// from Q 2x256x64, K 2x64x4096, V 2x4096x64 (grid [2,16,1], forloop 64) to
// Q 2x16x8, K 2x8x64, V 2x64x8 (grid [2,2,1], forloop 4).
// O = softmax(rms_norm(Q) @ K) @ rms_norm(V), softmax without max subtraction.
// As in Mirage's benchmark script (qknorm_gqa.py), the second normalisation
// is applied to V: K is stored transposed (head dim first) and rms_norm only
// normalises the last dim. Both norms use eps 1e-6.
//
// Reference: seven kernels: rms_norm(Q), rms_norm(V), matmul, exp,
// reduce sum (keys), div, matmul.
//
// Best μGraph: ONE graph-defined kernel that fuses both normalisations into a
// FlashAttention-style loop over the keys:
//   * grid [2,2,1] = batch/KV-head × query tiles of 8 rows, forloop 4 over
//     the 64 keys (16 per iteration);
//   * Q: imap {x:0, y:1}, fmap φ (the block's query rows in every iteration);
//   * K: imap {x:0}, fmap 2; V: imap {x:0}, fmap 1 (the loop walks the keys);
//   * in the loop: rms_norm(Q_t) and rms_norm(V_i) on the tiles (each tile
//     row is a full head-dim row, so the tile norm is exact), E =
//     exp(rms_norm(Q_t) @ K_i) → accum sum_last (denominator, 8x1), and
//     E @ rms_norm(V_i) → accum sum (numerator, 8x8);
//   * after the loop: div, saved with omap {x:0, y:1} → 2x16x8.

func.func @qknorm(%q: tensor<2x16x8xf16>, %k: tensor<2x8x64xf16>, %v: tensor<2x64x8xf16>)
    -> (tensor<2x16x8xf16>, tensor<2x16x8xf16>) {
  %r = mirage_kernel.graph "qknorm_ref" (%q, %k, %v)
      : (tensor<2x16x8xf16>, tensor<2x8x64xf16>, tensor<2x64x8xf16>) -> tensor<2x16x8xf16> {
  ^bb0(%Q: tensor<2x16x8xf16>, %K: tensor<2x8x64xf16>, %V: tensor<2x64x8xf16>):
    %qn = mirage_kernel.rms_norm %Q eps(1.0e-6) : tensor<2x16x8xf16> -> tensor<2x16x8xf16>
    %vn = mirage_kernel.rms_norm %V eps(1.0e-6) : tensor<2x64x8xf16> -> tensor<2x64x8xf16>
    %s = mirage_kernel.matmul %qn, %K : tensor<2x16x8xf16>, tensor<2x8x64xf16> -> tensor<2x16x64xf16>
    %e = mirage_kernel.unary exp %s : tensor<2x16x64xf16>
    %d = mirage_kernel.reduce sum %e dim 2 : tensor<2x16x64xf16> -> tensor<2x16x1xf16>
    %p = mirage_kernel.binary div %e, %d : tensor<2x16x64xf16>, tensor<2x16x1xf16> -> tensor<2x16x64xf16>
    %o = mirage_kernel.matmul %p, %vn : tensor<2x16x64xf16>, tensor<2x64x8xf16> -> tensor<2x16x8xf16>
    mirage_kernel.yield %o : tensor<2x16x8xf16>
  }
  %b = mirage_kernel.graph "qknorm_best" reference "qknorm_ref" (%q, %k, %v)
      : (tensor<2x16x8xf16>, tensor<2x8x64xf16>, tensor<2x64x8xf16>) -> tensor<2x16x8xf16> {
  ^bb0(%Q: tensor<2x16x8xf16>, %K: tensor<2x8x64xf16>, %V: tensor<2x64x8xf16>):
    %o = mirage_kernel.custom (%Q, %K, %V) grid = [2, 2, 1] forloop = 4
        : (tensor<2x16x8xf16>, tensor<2x8x64xf16>, tensor<2x64x8xf16>) -> tensor<2x16x8xf16> {
    ^bb0(%Qd: tensor<2x16x8xf16>, %Kd: tensor<2x8x64xf16>, %Vd: tensor<2x64x8xf16>):
      %qt = mirage_block.input_iterator %Qd imap = [0, 1, -1] fmap = -1 : tensor<2x16x8xf16> -> tensor<1x8x8xf16>
      %kt = mirage_block.input_iterator %Kd imap = [0, -1, -1] fmap = 2 : tensor<2x8x64xf16> -> tensor<1x8x16xf16>
      %vt = mirage_block.input_iterator %Vd imap = [0, -1, -1] fmap = 1 : tensor<2x64x8xf16> -> tensor<1x16x8xf16>
      %qn = mirage_block.rms_norm %qt eps(1.0e-6) : tensor<1x8x8xf16> -> tensor<1x8x8xf16>
      %vn = mirage_block.rms_norm %vt eps(1.0e-6) : tensor<1x16x8xf16> -> tensor<1x16x8xf16>
      %s = mirage_block.matmul %qn, %kt : tensor<1x8x8xf16>, tensor<1x8x16xf16> -> tensor<1x8x16xf16>
      %e = mirage_block.unary exp %s : tensor<1x8x16xf16>
      %ad = mirage_block.accum sum_last %e : tensor<1x8x16xf16> -> tensor<1x8x1xf16>
      %n = mirage_block.matmul %e, %vn : tensor<1x8x16xf16>, tensor<1x16x8xf16> -> tensor<1x8x8xf16>
      %an = mirage_block.accum sum %n : tensor<1x8x8xf16> -> tensor<1x8x8xf16>
      %qo = mirage_block.binary div %an, %ad : tensor<1x8x8xf16>, tensor<1x8x1xf16> -> tensor<1x8x8xf16>
      %os = mirage_block.output_saver %qo omap = [0, 1, -1] : tensor<1x8x8xf16> -> tensor<2x16x8xf16>
      mirage_block.yield %os : tensor<2x16x8xf16>
    }
    mirage_kernel.yield %o : tensor<2x16x8xf16>
  }
  return %r, %b : tensor<2x16x8xf16>, tensor<2x16x8xf16>
}

// CHECK-LABEL: mirage_kernel.graph "qknorm_ref"
// CHECK-COUNT-2: mirage_kernel.rms_norm
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.unary exp
// CHECK: mirage_kernel.reduce sum
// CHECK: mirage_kernel.binary div
// CHECK: mirage_kernel.matmul
// CHECK-LABEL: mirage_kernel.graph "qknorm_best" reference "qknorm_ref"
// CHECK: mirage_kernel.custom
// CHECK-SAME: grid = [2, 2, 1] forloop = 4
// CHECK-NOT: mirage_kernel.custom
// CHECK: input_iterator %{{.*}} imap = [0, 1, -1] fmap = -1
// CHECK: input_iterator %{{.*}} imap = [0, -1, -1] fmap = 2
// CHECK: input_iterator %{{.*}} imap = [0, -1, -1] fmap = 1
// CHECK-COUNT-2: mirage_block.rms_norm
// CHECK: mirage_block.matmul
// CHECK: mirage_block.unary exp
// CHECK: mirage_block.accum sum_last
// CHECK: mirage_block.matmul
// CHECK: mirage_block.accum sum
// CHECK: mirage_block.binary div
// CHECK: output_saver %{{.*}} omap = [0, 1, -1]
// CHECK-NOT: mirage_kernel.custom
// CHECK: return

// CMP: remark: graph 'qknorm_best' matches reference 'qknorm_ref'

// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mirage-compare -o /dev/null 2>&1 | FileCheck %s --check-prefix=CMP
//
// GQA decoding attention (LLaMA-3-70B, 2 KV heads per GPU; reference §6.1),
// scaled down from Q 2x256x64, K 2x64x4096, V 2x4096x64 (kernel 1 grid
// [2,8,16] forloop 4, kernel 2 grid [2,16,1]) to Q 2x16x8, K 2x8x64,
// V 2x64x8 (kernel 1 grid [2,4,2] forloop 2, kernel 2 grid [2,2,1] forloop 2).
// O = (exp(Q@K) / Σ_keys exp(Q@K)) @ V: softmax without max subtraction, as
// in the paper's benchmark graph.
//
// Reference: five kernels: matmul → exp → reduce sum (keys) → div → matmul.
//
// Best μGraph (split-KV "flash-decoding", gqa_bs1.json #0): two custom kernels.
//   Kernel 1, grid [2,4,2] = batch/KV-head × 4 KV splits × 2 query tiles,
//   forloop 2 over the keys of one split:
//     * Q: imap {x:0, z:1}, fmap φ (the block's 8 query rows, every iteration);
//     * K: imap {x:0, y:2}, fmap 2; V: imap {x:0, y:1}, fmap 1 (the block's
//       split of 16 keys, walked in 2 steps of 8: split outer, step inner);
//     * in the loop: E = exp(Q_t @ K_i) → accum sum (no reduction: per-key
//       partial denominators), and E @ V_i → accum sum (partial numerators);
//     * two outputs, both with omap {x:0, y:2, z:1}: the denominators
//       2x16x32 (4 splits × 8 key slots) and numerators 2x16x32 (4 splits ×
//       head dim 8).
//   Kernel 2, grid [2,2,1] (batch × query tiles), forloop 2 over dim 2:
//     * denominators: imap {x:0, y:1}, fmap 2 → accum sum_last (to 1);
//     * numerators: imap {x:0, y:1}, fmap 2 → accum sum_last to 8 (strided:
//       sums the 4 splits' chunks of width 8, undoing kernel 1's concat);
//     * after the loop: div, saved with omap {x:0, y:1} → 2x16x8.

func.func @gqa(%q: tensor<2x16x8xf16>, %k: tensor<2x8x64xf16>, %v: tensor<2x64x8xf16>)
    -> (tensor<2x16x8xf16>, tensor<2x16x8xf16>) {
  %r = mirage_kernel.graph "gqa_ref" (%q, %k, %v)
      : (tensor<2x16x8xf16>, tensor<2x8x64xf16>, tensor<2x64x8xf16>) -> tensor<2x16x8xf16> {
  ^bb0(%Q: tensor<2x16x8xf16>, %K: tensor<2x8x64xf16>, %V: tensor<2x64x8xf16>):
    %s = mirage_kernel.matmul %Q, %K : tensor<2x16x8xf16>, tensor<2x8x64xf16> -> tensor<2x16x64xf16>
    %e = mirage_kernel.unary exp %s : tensor<2x16x64xf16>
    %d = mirage_kernel.reduce sum %e dim 2 : tensor<2x16x64xf16> -> tensor<2x16x1xf16>
    %p = mirage_kernel.binary div %e, %d : tensor<2x16x64xf16>, tensor<2x16x1xf16> -> tensor<2x16x64xf16>
    %o = mirage_kernel.matmul %p, %V : tensor<2x16x64xf16>, tensor<2x64x8xf16> -> tensor<2x16x8xf16>
    mirage_kernel.yield %o : tensor<2x16x8xf16>
  }
  %b = mirage_kernel.graph "gqa_best" reference "gqa_ref" (%q, %k, %v)
      : (tensor<2x16x8xf16>, tensor<2x8x64xf16>, tensor<2x64x8xf16>) -> tensor<2x16x8xf16> {
  ^bb0(%Q: tensor<2x16x8xf16>, %K: tensor<2x8x64xf16>, %V: tensor<2x64x8xf16>):
    %den, %num = mirage_kernel.custom (%Q, %K, %V) grid = [2, 4, 2] forloop = 2
        : (tensor<2x16x8xf16>, tensor<2x8x64xf16>, tensor<2x64x8xf16>) -> (tensor<2x16x32xf16>, tensor<2x16x32xf16>) {
    ^bb0(%Qd: tensor<2x16x8xf16>, %Kd: tensor<2x8x64xf16>, %Vd: tensor<2x64x8xf16>):
      %qt = mirage_block.input_iterator %Qd imap = [0, -1, 1] fmap = -1 : tensor<2x16x8xf16> -> tensor<1x8x8xf16>
      %kt = mirage_block.input_iterator %Kd imap = [0, 2, -1] fmap = 2 : tensor<2x8x64xf16> -> tensor<1x8x8xf16>
      %vt = mirage_block.input_iterator %Vd imap = [0, 1, -1] fmap = 1 : tensor<2x64x8xf16> -> tensor<1x8x8xf16>
      %s = mirage_block.matmul %qt, %kt : tensor<1x8x8xf16>, tensor<1x8x8xf16> -> tensor<1x8x8xf16>
      %e = mirage_block.unary exp %s : tensor<1x8x8xf16>
      %ad = mirage_block.accum sum %e : tensor<1x8x8xf16> -> tensor<1x8x8xf16>
      %n = mirage_block.matmul %e, %vt : tensor<1x8x8xf16>, tensor<1x8x8xf16> -> tensor<1x8x8xf16>
      %an = mirage_block.accum sum %n : tensor<1x8x8xf16> -> tensor<1x8x8xf16>
      %od = mirage_block.output_saver %ad omap = [0, 2, 1] : tensor<1x8x8xf16> -> tensor<2x16x32xf16>
      %on = mirage_block.output_saver %an omap = [0, 2, 1] : tensor<1x8x8xf16> -> tensor<2x16x32xf16>
      mirage_block.yield %od, %on : tensor<2x16x32xf16>, tensor<2x16x32xf16>
    }
    %o = mirage_kernel.custom (%den, %num) grid = [2, 2, 1] forloop = 2
        : (tensor<2x16x32xf16>, tensor<2x16x32xf16>) -> tensor<2x16x8xf16> {
    ^bb0(%D: tensor<2x16x32xf16>, %N: tensor<2x16x32xf16>):
      %dt = mirage_block.input_iterator %D imap = [0, 1, -1] fmap = 2 : tensor<2x16x32xf16> -> tensor<1x8x16xf16>
      %nt = mirage_block.input_iterator %N imap = [0, 1, -1] fmap = 2 : tensor<2x16x32xf16> -> tensor<1x8x16xf16>
      %sd = mirage_block.accum sum_last %dt : tensor<1x8x16xf16> -> tensor<1x8x1xf16>
      %sn = mirage_block.accum sum_last %nt to 8 : tensor<1x8x16xf16> -> tensor<1x8x8xf16>
      %qo = mirage_block.binary div %sn, %sd : tensor<1x8x8xf16>, tensor<1x8x1xf16> -> tensor<1x8x8xf16>
      %os = mirage_block.output_saver %qo omap = [0, 1, -1] : tensor<1x8x8xf16> -> tensor<2x16x8xf16>
      mirage_block.yield %os : tensor<2x16x8xf16>
    }
    mirage_kernel.yield %o : tensor<2x16x8xf16>
  }
  return %r, %b : tensor<2x16x8xf16>, tensor<2x16x8xf16>
}

// CHECK-LABEL: mirage_kernel.graph "gqa_ref"
// CHECK: mirage_kernel.matmul
// CHECK: mirage_kernel.unary exp
// CHECK: mirage_kernel.reduce sum %{{.*}} dim 2
// CHECK: mirage_kernel.binary div
// CHECK: mirage_kernel.matmul
// CHECK-LABEL: mirage_kernel.graph "gqa_best" reference "gqa_ref"
// CHECK: mirage_kernel.custom
// CHECK-SAME: grid = [2, 4, 2] forloop = 2
// CHECK: input_iterator %{{.*}} imap = [0, -1, 1] fmap = -1
// CHECK: input_iterator %{{.*}} imap = [0, 2, -1] fmap = 2
// CHECK: input_iterator %{{.*}} imap = [0, 1, -1] fmap = 1
// CHECK: mirage_block.matmul
// CHECK: mirage_block.unary exp
// CHECK: mirage_block.accum sum
// CHECK: mirage_block.matmul
// CHECK: mirage_block.accum sum
// CHECK-COUNT-2: output_saver %{{.*}} omap = [0, 2, 1]
// CHECK: mirage_kernel.custom
// CHECK-SAME: grid = [2, 2, 1] forloop = 2
// CHECK-COUNT-2: input_iterator %{{.*}} imap = [0, 1, -1] fmap = 2
// CHECK: mirage_block.accum sum_last %{{.*}} :
// CHECK: mirage_block.accum sum_last %{{.*}} to 8
// CHECK: mirage_block.binary div
// CHECK: output_saver %{{.*}} omap = [0, 1, -1]
// CHECK-NOT: mirage_kernel.custom
// CHECK: return

// CMP: remark: graph 'gqa_best' matches reference 'gqa_ref'

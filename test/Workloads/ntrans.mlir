// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mirage-compare -o /dev/null 2>&1 | FileCheck %s --check-prefix=CMP
//
// nTrans, the normalised-transformer update (nGPT-1B; reference §6.6),
// scaled down from H, X, α 8x4096 (grid 8, forloop 1) to 4x64 (grid 4,
// forloop 1). O = rms_norm(X + α·(rms_norm(H) + X)) (Mirage's script writes
// the L2 norms and the subtraction of nGPT as rms_norm and add).
//
// Reference: five kernels: rms_norm, add, mul, add, rms_norm.
//
// Best μGraph (ntrans_bs1.json #0): ONE graph-defined kernel that keeps every
// intermediate on chip:
//   * grid [4,1,1], forloop 1: block b owns row b (a whole 64-wide row, so
//     both row norms are local to the block);
//   * H, X, α: imap {x:0}, fmap φ → 1x64 tiles;
//   * in the loop: rms_norm(H_t), then one thread graph computes
//     X + α·(rms_norm(H) + X) element-wise in registers;
//   * accum sum (a single iteration, so the identity), rms_norm after the
//     loop, output saver omap {x:0} → 4x64.

func.func @ntrans(%h: tensor<4x64xf16>, %x: tensor<4x64xf16>, %alpha: tensor<4x64xf16>)
    -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %r = mirage_kernel.graph "ntrans_ref" (%h, %x, %alpha)
      : (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%H: tensor<4x64xf16>, %X: tensor<4x64xf16>, %A: tensor<4x64xf16>):
    %hn = mirage_kernel.rms_norm %H : tensor<4x64xf16> -> tensor<4x64xf16>
    %t = mirage_kernel.binary add %hn, %X : tensor<4x64xf16>, tensor<4x64xf16> -> tensor<4x64xf16>
    %u = mirage_kernel.binary mul %A, %t : tensor<4x64xf16>, tensor<4x64xf16> -> tensor<4x64xf16>
    %v = mirage_kernel.binary add %X, %u : tensor<4x64xf16>, tensor<4x64xf16> -> tensor<4x64xf16>
    %o = mirage_kernel.rms_norm %v : tensor<4x64xf16> -> tensor<4x64xf16>
    mirage_kernel.yield %o : tensor<4x64xf16>
  }
  %b = mirage_kernel.graph "ntrans_best" reference "ntrans_ref" (%h, %x, %alpha)
      : (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%H: tensor<4x64xf16>, %X: tensor<4x64xf16>, %A: tensor<4x64xf16>):
    %k = mirage_kernel.custom (%H, %X, %A) grid = [4, 1, 1] forloop = 1
        : (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
    ^bb0(%Hd: tensor<4x64xf16>, %Xd: tensor<4x64xf16>, %Ad: tensor<4x64xf16>):
      %ht = mirage_block.input_iterator %Hd imap = [0, -1, -1] fmap = -1 : tensor<4x64xf16> -> tensor<1x64xf16>
      %xt = mirage_block.input_iterator %Xd imap = [0, -1, -1] fmap = -1 : tensor<4x64xf16> -> tensor<1x64xf16>
      %at = mirage_block.input_iterator %Ad imap = [0, -1, -1] fmap = -1 : tensor<4x64xf16> -> tensor<1x64xf16>
      %hn = mirage_block.rms_norm %ht : tensor<1x64xf16> -> tensor<1x64xf16>
      %v = mirage_block.thread_graph (%hn, %xt, %at)
          : (tensor<1x64xf16>, tensor<1x64xf16>, tensor<1x64xf16>) -> tensor<1x64xf16> {
      ^bb0(%n: f16, %y: f16, %al: f16):
        %t = mirage_thread.binary add %n, %y : f16
        %u = mirage_thread.binary mul %al, %t : f16
        %w = mirage_thread.binary add %y, %u : f16
        mirage_thread.yield %w : f16
      }
      %acc = mirage_block.accum sum %v : tensor<1x64xf16> -> tensor<1x64xf16>
      %o = mirage_block.rms_norm %acc : tensor<1x64xf16> -> tensor<1x64xf16>
      %s = mirage_block.output_saver %o omap = [0, -1, -1] : tensor<1x64xf16> -> tensor<4x64xf16>
      mirage_block.yield %s : tensor<4x64xf16>
    }
    mirage_kernel.yield %k : tensor<4x64xf16>
  }
  return %r, %b : tensor<4x64xf16>, tensor<4x64xf16>
}

// CHECK-LABEL: mirage_kernel.graph "ntrans_ref"
// CHECK: mirage_kernel.rms_norm
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.binary mul
// CHECK: mirage_kernel.binary add
// CHECK: mirage_kernel.rms_norm
// CHECK-LABEL: mirage_kernel.graph "ntrans_best" reference "ntrans_ref"
// CHECK: mirage_kernel.custom
// CHECK-SAME: grid = [4, 1, 1] forloop = 1
// CHECK-NOT: mirage_kernel.custom
// CHECK-COUNT-3: input_iterator %{{.*}} imap = [0, -1, -1] fmap = -1
// CHECK: mirage_block.rms_norm
// CHECK: mirage_block.thread_graph
// CHECK: mirage_thread.binary add
// CHECK: mirage_thread.binary mul
// CHECK: mirage_thread.binary add
// CHECK: mirage_block.accum sum
// CHECK: mirage_block.rms_norm
// CHECK: output_saver %{{.*}} omap = [0, -1, -1]
// CHECK-NOT: mirage_kernel.custom
// CHECK: return

// CMP: remark: graph 'ntrans_best' matches reference 'ntrans_ref'

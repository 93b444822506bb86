// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mirage-compare -o /dev/null 2>&1 | FileCheck %s --check-prefix=CMP
//
// RMSNorm + MatMul (LLaMA-2-7B; paper §3, Fig. 3b; reference §6.3), scaled
// down from X 16x4096, W 4096x6144 (grid 192, forloop 64) to X 4x64,
// W 64x48 (grid 6, forloop 4). O = rms_norm(X) @ W.
//
// Reference: two kernels, rms_norm then matmul.
//
// Best μGraph: ONE graph-defined kernel. The division by the RMS is moved
// past the matmul (rms_norm(X) @ W = (X @ W) / rms(X), rms per row), so the
// RMS accumulation and the matmul accumulation share one for-loop over the
// reduction dim h:
//   * grid [6,1,1]: block b owns output columns [8b, 8b+8);
//   * X: imap {x:φ} (every block sees all rows), fmap 1 (the loop walks h);
//   * W: imap {x:1} (block b gets its column slice), fmap 0 (the loop walks h);
//   * in the loop: matmul(X_i, W_i) → accum sum, and X_i → accum rms_last
//     (sqrt(Σx² / h) per row);
//   * after the loop: a thread graph divides the matmul accumulator by the RMS;
//   * output saver omap {x:1} concatenates the blocks' 4x8 tiles into 4x48.

func.func @rmsnorm_matmul(%x: tensor<4x64xf16>, %w: tensor<64x48xf16>)
    -> (tensor<4x48xf16>, tensor<4x48xf16>) {
  %r = mirage_kernel.graph "rmsnorm_matmul_ref" (%x, %w)
      : (tensor<4x64xf16>, tensor<64x48xf16>) -> tensor<4x48xf16> {
  ^bb0(%a: tensor<4x64xf16>, %b: tensor<64x48xf16>):
    %n = mirage_kernel.rms_norm %a : tensor<4x64xf16> -> tensor<4x64xf16>
    %m = mirage_kernel.matmul %n, %b : tensor<4x64xf16>, tensor<64x48xf16> -> tensor<4x48xf16>
    mirage_kernel.yield %m : tensor<4x48xf16>
  }
  %o = mirage_kernel.graph "rmsnorm_matmul_best" reference "rmsnorm_matmul_ref" (%x, %w)
      : (tensor<4x64xf16>, tensor<64x48xf16>) -> tensor<4x48xf16> {
  ^bb0(%a: tensor<4x64xf16>, %b: tensor<64x48xf16>):
    %k = mirage_kernel.custom (%a, %b) grid = [6, 1, 1] forloop = 4
        : (tensor<4x64xf16>, tensor<64x48xf16>) -> tensor<4x48xf16> {
    ^bb0(%X: tensor<4x64xf16>, %W: tensor<64x48xf16>):
      %xt = mirage_block.input_iterator %X imap = [-1, -1, -1] fmap = 1 : tensor<4x64xf16> -> tensor<4x16xf16>
      %wt = mirage_block.input_iterator %W imap = [1, -1, -1] fmap = 0 : tensor<64x48xf16> -> tensor<16x8xf16>
      %mm = mirage_block.matmul %xt, %wt : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf16>
      %acc = mirage_block.accum sum %mm : tensor<4x8xf16> -> tensor<4x8xf16>
      %rms = mirage_block.accum rms_last %xt : tensor<4x16xf16> -> tensor<4x1xf16>
      %d = mirage_block.thread_graph (%acc, %rms) : (tensor<4x8xf16>, tensor<4x1xf16>) -> tensor<4x8xf16> {
      ^bb0(%p: f16, %q: f16):
        %z = mirage_thread.binary div %p, %q : f16
        mirage_thread.yield %z : f16
      }
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<4x8xf16> -> tensor<4x48xf16>
      mirage_block.yield %s : tensor<4x48xf16>
    }
    mirage_kernel.yield %k : tensor<4x48xf16>
  }
  return %r, %o : tensor<4x48xf16>, tensor<4x48xf16>
}

// CHECK-LABEL: mirage_kernel.graph "rmsnorm_matmul_ref"
// CHECK: mirage_kernel.rms_norm
// CHECK: mirage_kernel.matmul
// CHECK-LABEL: mirage_kernel.graph "rmsnorm_matmul_best" reference "rmsnorm_matmul_ref"
// CHECK-COUNT-1: mirage_kernel.custom
// CHECK-SAME: grid = [6, 1, 1] forloop = 4
// CHECK-NOT: mirage_kernel.custom
// CHECK: input_iterator %{{.*}} imap = [-1, -1, -1] fmap = 1
// CHECK: input_iterator %{{.*}} imap = [1, -1, -1] fmap = 0
// CHECK: mirage_block.matmul
// CHECK: mirage_block.accum sum
// CHECK: mirage_block.accum rms_last
// CHECK: mirage_block.thread_graph
// CHECK: mirage_thread.binary div
// CHECK: output_saver %{{.*}} omap = [1, -1, -1]
// CHECK-NOT: mirage_kernel.custom
// CHECK: return

// CMP: remark: graph 'rmsnorm_matmul_best' matches reference 'rmsnorm_matmul_ref'

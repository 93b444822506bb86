// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s --mirage-compare -o /dev/null 2>&1 | FileCheck %s --check-prefix=CMP
//
// LoRA (GPT-3-7B-LoRA; paper Fig. 9b; reference §6.4), scaled down from
// X 16x256, W 256x4096, A 256x16, B 16x4096 (grid 64, forloop 1) to X 4x32,
// W 32x64, A 32x4, B 4x64 (grid 8, forloop 1). O = X@W + (X@A)@B.
//
// Reference: four kernels: matmul X@W, matmul X@A, matmul (X@A)@B, add.
//
// Best μGraph (paper Fig. 9b, the concat form): ONE graph-defined kernel using
// W×X + B×A×X = (W‖B)×(X‖(A×X)), written row-major as
//   O = [X ‖ X@A] @ [W ; B]   (concat X with X@A along columns, W with B
//                              along rows; in shared memory both concats are
//                              pointer offsets).
//   * grid [8,1,1], forloop 1: block b owns output columns [8b, 8b+8);
//   * X, A: imap {x:φ}, fmap φ (every block loads them whole);
//   * W, B: imap {x:1} (column slice per block), fmap φ;
//   * block ops: matmul(X, A) → concat(X, XA, dim 1) and concat(W_b, B_b,
//     dim 0) → matmul → accum sum (forloop 1, so the identity) → saver {x:1}.
// Why forloop 1: X@A must be complete (summed over all of h) before it is
// multiplied by B or concatenated with X, and an accumulated (after-loop)
// value cannot meet an in-loop tile again; with a single iteration the
// in-loop X@A is already complete. The k-loop of X@W therefore cannot be
// split over iterations in this one-kernel form.
//
// A second graph, "lora_three_matmul", is the saved Mirage candidate
// (single_lora.json): the same grid and maps with three block matmuls and an
// add instead of the concats.

func.func @lora(%x: tensor<4x32xf16>, %w: tensor<32x64xf16>, %a: tensor<32x4xf16>, %b: tensor<4x64xf16>)
    -> (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) {
  %r = mirage_kernel.graph "lora_ref" (%x, %w, %a, %b)
      : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%X: tensor<4x32xf16>, %W: tensor<32x64xf16>, %A: tensor<32x4xf16>, %B: tensor<4x64xf16>):
    %xw = mirage_kernel.matmul %X, %W : tensor<4x32xf16>, tensor<32x64xf16> -> tensor<4x64xf16>
    %xa = mirage_kernel.matmul %X, %A : tensor<4x32xf16>, tensor<32x4xf16> -> tensor<4x4xf16>
    %xab = mirage_kernel.matmul %xa, %B : tensor<4x4xf16>, tensor<4x64xf16> -> tensor<4x64xf16>
    %o = mirage_kernel.binary add %xw, %xab : tensor<4x64xf16>, tensor<4x64xf16> -> tensor<4x64xf16>
    mirage_kernel.yield %o : tensor<4x64xf16>
  }
  %c = mirage_kernel.graph "lora_best" reference "lora_ref" (%x, %w, %a, %b)
      : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%X: tensor<4x32xf16>, %W: tensor<32x64xf16>, %A: tensor<32x4xf16>, %B: tensor<4x64xf16>):
    %k = mirage_kernel.custom (%X, %W, %A, %B) grid = [8, 1, 1] forloop = 1
        : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
    ^bb0(%Xd: tensor<4x32xf16>, %Wd: tensor<32x64xf16>, %Ad: tensor<32x4xf16>, %Bd: tensor<4x64xf16>):
      %xt = mirage_block.input_iterator %Xd imap = [-1, -1, -1] fmap = -1 : tensor<4x32xf16> -> tensor<4x32xf16>
      %wt = mirage_block.input_iterator %Wd imap = [1, -1, -1] fmap = -1 : tensor<32x64xf16> -> tensor<32x8xf16>
      %at = mirage_block.input_iterator %Ad imap = [-1, -1, -1] fmap = -1 : tensor<32x4xf16> -> tensor<32x4xf16>
      %bt = mirage_block.input_iterator %Bd imap = [1, -1, -1] fmap = -1 : tensor<4x64xf16> -> tensor<4x8xf16>
      %xa = mirage_block.matmul %xt, %at : tensor<4x32xf16>, tensor<32x4xf16> -> tensor<4x4xf16>
      %lhs = mirage_block.concat %xt, %xa dim 1 : tensor<4x32xf16>, tensor<4x4xf16> -> tensor<4x36xf16>
      %rhs = mirage_block.concat %wt, %bt dim 0 : tensor<32x8xf16>, tensor<4x8xf16> -> tensor<36x8xf16>
      %m = mirage_block.matmul %lhs, %rhs : tensor<4x36xf16>, tensor<36x8xf16> -> tensor<4x8xf16>
      %acc = mirage_block.accum sum %m : tensor<4x8xf16> -> tensor<4x8xf16>
      %o = mirage_block.output_saver %acc omap = [1, -1, -1] : tensor<4x8xf16> -> tensor<4x64xf16>
      mirage_block.yield %o : tensor<4x64xf16>
    }
    mirage_kernel.yield %k : tensor<4x64xf16>
  }
  %t = mirage_kernel.graph "lora_three_matmul" reference "lora_ref" (%x, %w, %a, %b)
      : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%X: tensor<4x32xf16>, %W: tensor<32x64xf16>, %A: tensor<32x4xf16>, %B: tensor<4x64xf16>):
    %k = mirage_kernel.custom (%X, %W, %A, %B) grid = [8, 1, 1] forloop = 1
        : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
    ^bb0(%Xd: tensor<4x32xf16>, %Wd: tensor<32x64xf16>, %Ad: tensor<32x4xf16>, %Bd: tensor<4x64xf16>):
      %xt = mirage_block.input_iterator %Xd imap = [-1, -1, -1] fmap = -1 : tensor<4x32xf16> -> tensor<4x32xf16>
      %wt = mirage_block.input_iterator %Wd imap = [1, -1, -1] fmap = -1 : tensor<32x64xf16> -> tensor<32x8xf16>
      %at = mirage_block.input_iterator %Ad imap = [-1, -1, -1] fmap = -1 : tensor<32x4xf16> -> tensor<32x4xf16>
      %bt = mirage_block.input_iterator %Bd imap = [1, -1, -1] fmap = -1 : tensor<4x64xf16> -> tensor<4x8xf16>
      %xw = mirage_block.matmul %xt, %wt : tensor<4x32xf16>, tensor<32x8xf16> -> tensor<4x8xf16>
      %xa = mirage_block.matmul %xt, %at : tensor<4x32xf16>, tensor<32x4xf16> -> tensor<4x4xf16>
      %xab = mirage_block.matmul %xa, %bt : tensor<4x4xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
      %s = mirage_block.binary add %xw, %xab : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
      %acc = mirage_block.accum sum %s : tensor<4x8xf16> -> tensor<4x8xf16>
      %o = mirage_block.output_saver %acc omap = [1, -1, -1] : tensor<4x8xf16> -> tensor<4x64xf16>
      mirage_block.yield %o : tensor<4x64xf16>
    }
    mirage_kernel.yield %k : tensor<4x64xf16>
  }
  return %r, %c, %t : tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>
}

// CHECK-LABEL: mirage_kernel.graph "lora_ref"
// CHECK-COUNT-3: mirage_kernel.matmul
// CHECK: mirage_kernel.binary add
// CHECK-LABEL: mirage_kernel.graph "lora_best" reference "lora_ref"
// CHECK: mirage_kernel.custom
// CHECK-SAME: grid = [8, 1, 1] forloop = 1
// CHECK-NOT: mirage_kernel.custom
// CHECK: input_iterator %{{.*}} imap = [-1, -1, -1] fmap = -1
// CHECK: input_iterator %{{.*}} imap = [1, -1, -1] fmap = -1
// CHECK: input_iterator %{{.*}} imap = [-1, -1, -1] fmap = -1
// CHECK: input_iterator %{{.*}} imap = [1, -1, -1] fmap = -1
// CHECK: mirage_block.matmul
// CHECK: mirage_block.concat %{{.*}} dim 1
// CHECK: mirage_block.concat %{{.*}} dim 0
// CHECK: mirage_block.matmul
// CHECK: mirage_block.accum sum
// CHECK: output_saver %{{.*}} omap = [1, -1, -1]
// CHECK-NOT: mirage_kernel.custom
// CHECK-LABEL: mirage_kernel.graph "lora_three_matmul" reference "lora_ref"
// CHECK: mirage_kernel.custom
// CHECK-SAME: grid = [8, 1, 1] forloop = 1
// CHECK-COUNT-3: mirage_block.matmul
// CHECK: mirage_block.binary add
// CHECK: mirage_block.accum sum
// CHECK-NOT: mirage_kernel.custom
// CHECK: return

// CMP-DAG: remark: graph 'lora_best' matches reference 'lora_ref'
// CMP-DAG: remark: graph 'lora_three_matmul' matches reference 'lora_ref'

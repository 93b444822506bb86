// RUN: mirage-opt %s --mirage-compare -o /dev/null 2>&1 | FileCheck %s --check-prefix=CMP
// RUN: mirage-opt %s --mirage-verify-equivalence -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// The GPU lowering's checks (async copies landed before their readers, no
// shared-memory races) accept it, and ptxas assembles it.
// RUN: %if ptxas %{ rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null && %ptxas -arch=sm_90 %t/lora_split_k.sm_90.ptx -o /dev/null %}
//
// LoRA with the reduction dim h split over the for-loop (lora.mlir keeps
// forloop 1). X@A and X@W are summed by accumulators; after the loop the
// sum X@A meets B's tile, which is the same in every iteration (fmap -1,
// loop-invariant), and the product is added to X@W. Mirage's rule (every
// input-to-output path crosses exactly one accumulator) forbade reading B
// after the loop; a loop-invariant tile may be read there
// (docs/Rationale/AfterLoopInvariants.md). The evaluator, the verifier and
// the CPU run of the lowered kernel all agree with the reference.

// CMP: remark: graph 'lora_split_k' matches reference 'lora_ref'
// VERIFY: remark: graph 'lora_split_k' is equivalent to reference 'lora_ref'
// CPU: remark: graph 'lora_split_k' on the CPU matches the evaluator
// CPU-NOT: error:

func.func @f(%x: tensor<4x32xf16>, %w: tensor<32x64xf16>, %a: tensor<32x4xf16>, %b: tensor<4x64xf16>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
  %r = mirage_kernel.graph "lora_ref" (%x, %w, %a, %b)
      : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%X: tensor<4x32xf16>, %W: tensor<32x64xf16>, %A: tensor<32x4xf16>, %B: tensor<4x64xf16>):
    %xw = mirage_kernel.matmul %X, %W : tensor<4x32xf16>, tensor<32x64xf16> -> tensor<4x64xf16>
    %xa = mirage_kernel.matmul %X, %A : tensor<4x32xf16>, tensor<32x4xf16> -> tensor<4x4xf16>
    %xab = mirage_kernel.matmul %xa, %B : tensor<4x4xf16>, tensor<4x64xf16> -> tensor<4x64xf16>
    %o = mirage_kernel.binary add %xw, %xab : tensor<4x64xf16>, tensor<4x64xf16> -> tensor<4x64xf16>
    mirage_kernel.yield %o : tensor<4x64xf16>
  }
  %c = mirage_kernel.graph "lora_split_k" reference "lora_ref" (%x, %w, %a, %b)
      : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
  ^bb0(%X: tensor<4x32xf16>, %W: tensor<32x64xf16>, %A: tensor<32x4xf16>, %B: tensor<4x64xf16>):
    %k = mirage_kernel.custom (%X, %W, %A, %B) grid = [8, 1, 1] forloop = 2
        : (tensor<4x32xf16>, tensor<32x64xf16>, tensor<32x4xf16>, tensor<4x64xf16>) -> tensor<4x64xf16> {
    ^bb0(%Xd: tensor<4x32xf16>, %Wd: tensor<32x64xf16>, %Ad: tensor<32x4xf16>, %Bd: tensor<4x64xf16>):
      %xt = mirage_block.input_iterator %Xd imap = [-1, -1, -1] fmap = 1 : tensor<4x32xf16> -> tensor<4x16xf16>
      %wt = mirage_block.input_iterator %Wd imap = [1, -1, -1] fmap = 0 : tensor<32x64xf16> -> tensor<16x8xf16>
      %at = mirage_block.input_iterator %Ad imap = [-1, -1, -1] fmap = 0 : tensor<32x4xf16> -> tensor<16x4xf16>
      %bt = mirage_block.input_iterator %Bd imap = [1, -1, -1] fmap = -1 : tensor<4x64xf16> -> tensor<4x8xf16>
      %xw = mirage_block.matmul %xt, %wt : tensor<4x16xf16>, tensor<16x8xf16> -> tensor<4x8xf16>
      %xa = mirage_block.matmul %xt, %at : tensor<4x16xf16>, tensor<16x4xf16> -> tensor<4x4xf16>
      %sw = mirage_block.accum sum %xw : tensor<4x8xf16> -> tensor<4x8xf16>
      %sa = mirage_block.accum sum %xa : tensor<4x4xf16> -> tensor<4x4xf16>
      %xab = mirage_block.matmul %sa, %bt : tensor<4x4xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
      %o = mirage_block.binary add %sw, %xab : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
      %s = mirage_block.output_saver %o omap = [1, -1, -1] : tensor<4x8xf16> -> tensor<4x64xf16>
      mirage_block.yield %s : tensor<4x64xf16>
    }
    mirage_kernel.yield %k : tensor<4x64xf16>
  }
  return %r, %c : tensor<4x64xf16>, tensor<4x64xf16>
}

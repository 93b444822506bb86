// REQUIRES: ptxas
// bench/kernel_audit.sh --main-loop on a bundle that mirage-kernels-to-ptx
// writes for the kernel graph below: a for-loop of 8 iterations, each
// copying a 64x128 f16 tile, taking exp and adding it into an accumulator
// (8, not 2: with its copies straight code, LLVM unrolls a 2-trip loop
// whole, and no loop is left to audit).
// The table gives, per thread and trip of the main loop (the loop that
// copies and waits), the statements and the issue kinds, each weighted by
// the trips of the phase loops around it.
//
// Per trip: 8192 elements in steps of 4 (VectorElementPhases.md) over 128
// threads, 16 steps per thread. exp (stored in f16: exp2,
// HalfPrecisionExp.md) reads one vector and writes one per step (16 + 16);
// the combine reads the contribution and the state and writes the state
// (32 + 16): 48 ld.shared, 32 st.shared, 4 ex2 per step: 64.
//
// RUN: rm -rf %t && mkdir -p %t/sub
// RUN: mirage-opt %s --pass-pipeline='builtin.module(mirage-kernels-to-ptx{chip=sm_90 output-dir=%t/sub})' --mlir-print-op-on-diagnostic=false -o /dev/null
// RUN: %mirage_src_root/bench/kernel_audit.sh --main-loop %t | FileCheck %s
// RUN: %mirage_src_root/bench/kernel_audit.sh --json %t | FileCheck %s --check-prefix=JSON

// CHECK:      kernels: 1;
// CHECK-EMPTY:
// CHECK-NEXT: Main loops, per thread (and so per warp) and trip:
// CHECK-EMPTY:
// CHECK-NEXT: | graph | chip | kernel | instructions | ld.shared | st.shared | ldmatrix | mma.sync | ex2 | bar.sync | loops of unknown trips |
// CHECK-NEXT: |---|
// CHECK-NEXT: | audit_loop | sm_90 | audit_loop_k0 | {{[1-9][0-9]*}} | 48 | 32 | 0 | 0 | 64 | {{[1-9]}} | 0 |

// JSON: "main_loop": {"instructions": {{[0-9.]+}}, "ld.shared": 48, "st.shared": 32, "ldmatrix": 0, "mma.sync": 0, "ex2": 64, "bar.sync": {{[1-9]}}, "unknown_loops": 0}

func.func @f(%x: tensor<64x1024xf16>) -> tensor<64x128xf16> {
  %o = mirage_kernel.graph "audit_loop" (%x) : (tensor<64x1024xf16>) -> tensor<64x128xf16> {
  ^bb0(%a: tensor<64x1024xf16>):
    %k = mirage_kernel.custom (%a) grid = [1, 1, 1] forloop = 8 : (tensor<64x1024xf16>) -> tensor<64x128xf16> {
    ^bb0(%xa: tensor<64x1024xf16>):
      %xt = mirage_block.input_iterator %xa imap = [-1, -1, -1] fmap = 1 : tensor<64x1024xf16> -> tensor<64x128xf16>
      %e = mirage_block.unary exp %xt : tensor<64x128xf16>
      %acc = mirage_block.accum sum %e : tensor<64x128xf16> -> tensor<64x128xf16>
      %s = mirage_block.output_saver %acc omap = [-1, -1, -1] : tensor<64x128xf16> -> tensor<64x128xf16>
      mirage_block.yield %s : tensor<64x128xf16>
    }
    mirage_kernel.yield %k : tensor<64x128xf16>
  }
  return %o : tensor<64x128xf16>
}

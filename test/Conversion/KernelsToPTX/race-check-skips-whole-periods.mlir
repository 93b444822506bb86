// Regression, found by the code-generation campaign (bench/fuzz/codegen.sh,
// bf16 program 600045; here in f16): a 32-iteration loop with a 3-stage
// pipeline of Q and K tiles. The shared-memory race check runs a long
// loop's first and last iterations only; it skipped 16, not a multiple of
// the 3 stage buffers, so the iteration after the gap read the slot of a
// copy the real loop had retired long before, and the check reported a
// race that cannot happen and left the graph without PTX. It now skips
// whole periods of every pipeline depth (SharedMemoryRaces.md).
//
// RUN: rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --input-file=%t/g.sm_90.ptx

// DIAG-NOT: shared-memory race
// DIAG: remark: graph 'g': wrote {{.*}}g.sm_90.ptx and {{.*}}g.sm_90.manifest.json (1 kernel, 1 of 1 matmuls on tensor cores)

// Three stages: two groups in flight while an iteration computes.
// CHECK: cp.async.wait_group 2;

func.func @f(%a: tensor<1x1024x512xf16>, %b: tensor<1x512x1024xf16>) -> (tensor<1x1024x1024xf16>, tensor<1x1024x1024xf16>) {
  %o:2 = mirage_kernel.graph "g" (%a, %b) : (tensor<1x1024x512xf16>, tensor<1x512x1024xf16>) -> (tensor<1x1024x1024xf16>, tensor<1x1024x1024xf16>) {
  ^bb0(%x: tensor<1x1024x512xf16>, %y: tensor<1x512x1024xf16>):
    %k:2 = mirage_kernel.custom(%x, %y) grid = [64, 1, 1] forloop = 32 : (tensor<1x1024x512xf16>, tensor<1x512x1024xf16>) -> (tensor<1x1024x1024xf16>, tensor<1x1024x1024xf16>) {
    ^bb0(%bx: tensor<1x1024x512xf16>, %by: tensor<1x512x1024xf16>):
      %q = mirage_block.input_iterator %bx imap = [1, -1, -1] fmap = 2 : tensor<1x1024x512xf16> -> tensor<1x16x16xf16>
      %kt = mirage_block.input_iterator %by imap = [-1, -1, -1] fmap = 1 : tensor<1x512x1024xf16> -> tensor<1x16x1024xf16>
      %qs = mirage_block.unary mul_scalar %q scalar(0.044189453125) : tensor<1x16x16xf16>
      %s = mirage_block.matmul %qs, %kt : tensor<1x16x16xf16>, tensor<1x16x1024xf16> -> tensor<1x16x1024xf16>
      %acc = mirage_block.accum sum %s : tensor<1x16x1024xf16> -> tensor<1x16x1024xf16>
      %e = mirage_block.unary exp %acc : tensor<1x16x1024xf16>
      %r = mirage_block.reduce sum %e dim 2 : tensor<1x16x1024xf16> -> tensor<1x16x1xf16>
      %p = mirage_block.binary div %e, %r : tensor<1x16x1024xf16>, tensor<1x16x1xf16> -> tensor<1x16x1024xf16>
      %o1 = mirage_block.output_saver %e omap = [1, -1, -1] : tensor<1x16x1024xf16> -> tensor<1x1024x1024xf16>
      %o2 = mirage_block.output_saver %p omap = [1, -1, -1] : tensor<1x16x1024xf16> -> tensor<1x1024x1024xf16>
      mirage_block.yield %o1, %o2 : tensor<1x1024x1024xf16>, tensor<1x1024x1024xf16>
    }
    mirage_kernel.yield %k#0, %k#1 : tensor<1x1024x1024xf16>, tensor<1x1024x1024xf16>
  }
  return %o#0, %o#1 : tensor<1x1024x1024xf16>, tensor<1x1024x1024xf16>
}

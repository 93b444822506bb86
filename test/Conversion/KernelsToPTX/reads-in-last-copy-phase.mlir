// Regression, found by the code-generation campaign (bench/fuzz/codegen.sh,
// f32 program 144): three input tiles of one stage (S = 1), the first
// copied through a collapsed view by one thread, the last by the same 16
// threads that compute the first matmul. While the copies were synchronous,
// gpu-eliminate-barriers dropped the barrier between the last copy and the
// matmul (which reads the other two tiles), and the two scf.if on the same
// thread guard combined: the group's last copy phase read the group's own
// tiles. The wait went before the first reader *after* that phase, the
// async-copy check refused the kernel, and the graph was left without PTX.
// The reads now move to a phase of their own before the wait is placed
// (AsyncCopies.cpp, splitReadsAfterCopies), as for an explicit wait
// (hoisted-reads-after-merged-phase.mlir).
//
// RUN: rm -rf %t && mirage-opt %s --mirage-kernels-to-ptx="chip=sm_90 output-dir=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --input-file=%t/g.sm_90.ptx
// RUN: mirage-opt %s --mirage-check-on-cpu --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU

// DIAG-NOT: error
// DIAG: remark: graph 'g': wrote {{.*}}g.sm_90.ptx and {{.*}}g.sm_90.manifest.json (1 kernel, 0 of 2 matmuls on tensor cores)

// Every copy of the stage, then one commit and wait, then a barrier, and
// only then the first read of shared memory.
// CHECK-COUNT-3: cp.async.cg.shared.global
// CHECK-NOT: ld.shared
// CHECK: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group 0;
// CHECK-NEXT: bar.sync 0;
// CHECK: ld.shared

// CPU: remark: graph 'g' on the CPU matches the evaluator

func.func @f(%a: tensor<1x2x2xf32>, %b: tensor<1x2x8xf32>, %c: tensor<1x8x8xf32>) -> tensor<1x2x8xf32> {
  %o = mirage_kernel.graph "g" (%a, %b, %c) : (tensor<1x2x2xf32>, tensor<1x2x8xf32>, tensor<1x8x8xf32>) -> tensor<1x2x8xf32> {
  ^bb0(%x: tensor<1x2x2xf32>, %y: tensor<1x2x8xf32>, %z: tensor<1x8x8xf32>):
    %k = mirage_kernel.custom(%x, %y, %z) grid = [1, 1, 1] forloop = 1 : (tensor<1x2x2xf32>, tensor<1x2x8xf32>, tensor<1x8x8xf32>) -> tensor<1x2x8xf32> {
    ^bb0(%bx: tensor<1x2x2xf32>, %by: tensor<1x2x8xf32>, %bz: tensor<1x8x8xf32>):
      %tx = mirage_block.input_iterator %bx imap = [-1, -1, -1] fmap = -1 : tensor<1x2x2xf32> -> tensor<1x2x2xf32>
      %ty = mirage_block.input_iterator %by imap = [-1, -1, -1] fmap = -1 : tensor<1x2x8xf32> -> tensor<1x2x8xf32>
      %tz = mirage_block.input_iterator %bz imap = [-1, -1, -1] fmap = -1 : tensor<1x8x8xf32> -> tensor<1x8x8xf32>
      %m1 = mirage_block.matmul %tx, %ty : tensor<1x2x2xf32>, tensor<1x2x8xf32> -> tensor<1x2x8xf32>
      %m2 = mirage_block.matmul %m1, %tz : tensor<1x2x8xf32>, tensor<1x8x8xf32> -> tensor<1x2x8xf32>
      %s = mirage_block.accum sum %m2 : tensor<1x2x8xf32> -> tensor<1x2x8xf32>
      %out = mirage_block.output_saver %s omap = [-1, -1, -1] : tensor<1x2x8xf32> -> tensor<1x2x8xf32>
      mirage_block.yield %out : tensor<1x2x8xf32>
    }
    mirage_kernel.yield %k : tensor<1x2x8xf32>
  }
  return %o : tensor<1x2x8xf32>
}

// A matmul run in a tail (TailCombine.md): its phases sit under the tail's
// "this block completed its group" condition, which every thread of the
// block reads from shared memory. Its accumulator tiles are carried in
// registers across the K loop and written after it (MmaChains.md); the
// phase after the loop reads tiles other warps wrote, so a barrier must
// follow the last hoisted write. It was added only for loops at the top
// level of the launch: here the race check refused the kernel (a thread
// reads a 64 × 8 f32 accumulator byte another thread writes with no
// barrier between). The input is the loops of a reference kernel whose
// P · V was the tail of the element-wise kernel before it.
//
// RUN: mirage-opt %S/Inputs/tail-matmul-loops.mlir --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=smem}))' -o /dev/null
// RUN: mirage-opt %S/Inputs/tail-matmul-loops.mlir --pass-pipeline='builtin.module(builtin.module(mirage-gpu-warp-reductions,mirage-gpu-map-foralls))' | FileCheck %s

// CHECK-LABEL: func.func @graph0_k7(
// CHECK: scf.if
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.transfer_write {{.*}} : vector<16x8xf32>, memref<64x8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier

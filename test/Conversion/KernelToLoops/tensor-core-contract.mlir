// RUN: mirage-opt %s --mirage-lower-kernels-to-loops | FileCheck %s
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops=tensor-cores=false | FileCheck %s --check-prefix=NOTC
//
// A pre-defined f16 matmul of tensor-core shape: the expansion gives a
// tiled kernel (32x64 output tile, K step 32, for-loop of 2) whose block
// matmul adds into its accumulator as warp-level native 16x8x16 contracts:
// A read (m,k), B read transposed (n,k), the f32 accumulator in iter_args.

func.func @f(%a: tensor<32x64xf16>, %b: tensor<64x64xf16>) -> tensor<32x64xf16> {
  %o = mirage_kernel.graph "mm" (%a, %b) : (tensor<32x64xf16>, tensor<64x64xf16>) -> tensor<32x64xf16> {
  ^bb0(%x: tensor<32x64xf16>, %y: tensor<64x64xf16>):
    %m = mirage_kernel.matmul %x, %y : tensor<32x64xf16>, tensor<64x64xf16> -> tensor<32x64xf16>
    mirage_kernel.yield %m : tensor<32x64xf16>
  }
  return %o : tensor<32x64xf16>
}

// CHECK: func.func @mm_k0
// CHECK-SAME: mirage_kernel.grid = array<i64: 1, 1, 1>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2
// CHECK: scf.forall (%[[W:.*]]) in (4)
// 2x8 output tiles of 16x8 over 4 warps: four items per warp, emitted
// without a loop (warpPhase), so that each tile's indices depend on the
// warp alone.
// CHECK-NOT: scf.for %{{.*}} = %[[W]] to
// The warp's four fragments (rows 0 and 16, columns w and w + 4 tiles) in
// one K loop (MmaChains.md, "A warp's fragments in one K loop"): each step
// reads the two A fragments and the two B fragments once, and issues four
// independent contracts.
// CHECK-COUNT-4: vector.transfer_read %{{.*}} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
// CHECK: scf.for {{.*}} iter_args(%[[ACC0:.*]] = %{{.*}}, %[[ACC1:.*]] = %{{.*}}, %[[ACC2:.*]] = %{{.*}}, %[[ACC3:.*]] = %{{.*}}) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>)
// The operand tiles are pipelined: views of one buffer of the stages. B's
// 128-byte rows are allocated 16 bytes longer (TilePlan::pitch: ldmatrix
// reads it), A's 64-byte rows are not.
// CHECK: %[[A0:.*]] = vector.transfer_read {{.*}} : memref<32x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<16x16xf16>
// CHECK: %[[B0:.*]] = vector.transfer_read {{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : memref<32x64xf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<8x16xf16>
// CHECK: %[[R0:.*]] = vector.contract {{.*}} %[[A0]], %[[B0]], %[[ACC0]] : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
// CHECK: %[[B1:.*]] = vector.transfer_read {{.*}}, vector<8x16xf16>
// CHECK: %[[R1:.*]] = vector.contract {{.*}} %[[A0]], %[[B1]], %[[ACC1]]
// CHECK: %[[A1:.*]] = vector.transfer_read {{.*}}, vector<16x16xf16>
// CHECK: %[[R2:.*]] = vector.contract {{.*}} %[[A1]], %[[B0]], %[[ACC2]]
// CHECK-NOT: vector.transfer_read
// CHECK: %[[R3:.*]] = vector.contract {{.*}} %[[A1]], %[[B1]], %[[ACC3]]
// CHECK: scf.yield %[[R0]], %[[R1]], %[[R2]], %[[R3]]
// CHECK-COUNT-4: vector.transfer_write {{.*}} : vector<16x8xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
// CHECK: } {mapping = [#gpu.warp<linear_dim_0>]}

// On the GPU the four fragments are carried in registers across the
// for-loop: read before it, written after it. Their rows are constants and
// their columns the warp's tile plus a constant (emitMatmul), so the stage
// can tell them apart.
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | mirage-opt --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=map}))' | FileCheck %s --check-prefix=MAP
// MAP-COUNT-4: vector.transfer_read {{.*}} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
// MAP-NEXT: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>)
// MAP-NOT: memref<32x64xf32
// MAP: gpu.barrier
// MAP: scf.yield {{.*}} : vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>
// MAP-NEXT: }
// MAP-COUNT-4: vector.transfer_write {{.*}} : vector<16x8xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>


// Stage 2 unrolls the two-step K loop (TensorCores.cpp,
// unrollShortMmaLoops): eight mma.sync per for-loop iteration on eight
// ldmatrix (two A and two B fragments per step), where one loop per
// fragment read sixteen.
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | mirage-opt --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=mma}))' | FileCheck %s --check-prefix=MMA
// RUN: mirage-opt %s --mirage-lower-kernels-to-loops -o - | mirage-opt --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=mma}))' | grep -c nvgpu.ldmatrix | FileCheck %s --check-prefix=LDM
// MMA: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// MMA-NOT: iter_args
// MMA-COUNT-8: nvgpu.mma.sync
// MMA-NOT: nvgpu.mma.sync
// MMA: scf.yield
// LDM: {{^}}8{{$}}

// NOTC-NOT: vector.contract
// NOTC: math.fma

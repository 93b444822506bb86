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
// CHECK: %[[C0:.*]] = vector.transfer_read %{{.*}} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[C0]]) -> (vector<16x8xf32>)
// The operand tiles are pipelined: views of one buffer of the stages. B's
// 128-byte rows are allocated 16 bytes longer (TilePlan::pitch: ldmatrix
// reads it), A's 64-byte rows are not.
// CHECK: vector.transfer_read {{.*}} : memref<32x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<16x16xf16>
// CHECK: vector.transfer_read {{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : memref<32x64xf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<8x16xf16>
// CHECK: vector.contract {{.*}} %[[ACC]] : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16x8xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-3: vector.contract
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


// NOTC-NOT: vector.contract
// NOTC: math.fma

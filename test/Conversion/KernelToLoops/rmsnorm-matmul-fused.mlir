// RUN: mirage-opt %s --mirage-lower-kernels-to-loops | FileCheck %s
//
// The paper's fused RMSNorm+MatMul kernel at loop level: one kernel over a
// 6-block grid, tiles in workgroup memory, accumulators started before the
// for-loop, iterators and combines in it, the division and the saver after.
// The loop's tiles are pipelined (the launch plan's stages: 4 for 4
// iterations): iterations 0-2 are copied before the loop, each iteration
// copies iteration min(it + 3, 3) into buffer (it + 3) mod 4 and computes on
// buffer it mod 4.
// The matmul feeds only `accum sum`, so it adds straight into that
// accumulator (no product tile); its 4 rows are padded to the MMA's 16 in
// the X tile and the accumulator state, so it runs as one native 16x8x16
// warp contract (rows past 4 are never stored). The original graph stays.

func.func @f(%x: tensor<4x64xf16>, %w: tensor<64x48xf16>) -> tensor<4x48xf16> {
  %o = mirage_kernel.graph "fused" (%x, %w)
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
      %d = mirage_block.binary div %acc, %rms : tensor<4x8xf16>, tensor<4x1xf16> -> tensor<4x8xf16>
      %s = mirage_block.output_saver %d omap = [1, -1, -1] : tensor<4x8xf16> -> tensor<4x48xf16>
      mirage_block.yield %s : tensor<4x48xf16>
    }
    mirage_kernel.yield %k : tensor<4x48xf16>
  }
  return %o : tensor<4x48xf16>
}

// CHECK: mirage_kernel.graph "fused"
// CHECK-LABEL: module @mirage_kernels
// CHECK: func.func @fused_k0(%[[X:[a-z0-9]+]]: memref<4x64xf16>, %[[W:[a-z0-9]+]]: memref<64x48xf16>, %[[O:[a-z0-9]+]]: memref<4x48xf16>)
// CHECK-SAME: mirage_kernel.block = array<i64: 128, 1, 1>, mirage_kernel.grid = array<i64: 6, 1, 1>, mirage_kernel.kernel, mirage_kernel.min_blocks_per_sm = 8 : i64
// CHECK: scf.forall (%[[BX:.*]], %[[BY:.*]], %[[BZ:.*]]) in (6, 1, 1)
// Tiles: X 4x16 f16 (padded to 16 rows) and W 16x8 f16, four buffers each,
// the two accumulator states in f32 (the matmul's padded to 16 rows) and
// the rms_last combine's lanes (4 rows x 16 lanes, f32); no tile for the
// matmul product, nor for the quotient, computed where its saver writes it
// (ElementsInReductions.md).
// CHECK-DAG: memref.alloc() : memref<4x16x16xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.alloc() : memref<4x16x8xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.alloc() : memref<16x8xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.alloc() : memref<4x1xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.alloc() : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// Accumulators start at 0 before the loop.
// CHECK: scf.forall (%{{.*}}) in (128)
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: } {mapping = [#gpu.thread<x>]}
// The prologue: three stages of X and W copies, marked for the GPU path.
// CHECK-COUNT-3: vector.transfer_write {{.*}} {in_bounds = [true], mirage_kernel.prefetch_group = {{[0-2]}} : i64, mirage_kernel.prefetch_stages = 4 : i64}
// CHECK: scf.for %[[IT:.*]] = %{{.*}} to %c4
// CHECK: affine.min #{{.*}}(%[[IT]])
// The X iterator: 16-byte vectors at column 16·min(it + 3, 3), into the
// buffer (it + 3) mod 4.
// CHECK: memref.subview
// CHECK: vector.transfer_read %[[X]][{{.*}}], %{{.*}} {in_bounds = [true]} : memref<4x64xf16>, vector<8xf16>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true], mirage_kernel.prefetch_group = 3 : i64, mirage_kernel.prefetch_stages = 4 : i64}
// The W iterator (8 columns: one 16-byte vector per row).
// CHECK: vector.transfer_read %[[W]]
// The product: a warp phase of native contracts into the accumulator state.
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: vector.contract {{.*}} : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
// CHECK: } {mapping = [#gpu.warp<linear_dim_0>]}
// The rms_last combine squares and sums the row: 16 lanes per row (one
// chunk each here) write the scratch (tagged as the tree's fold), then a
// tree of 4 phases folds lane
// l + h into lane l (h = 8, 4, 2, 1), each tagged as a level of the tree
// for the GPU path (WarpReductions.md), and one thread per row reads lane 0
// into the state (tagged as the tree's finish).
// CHECK: arith.mulf
// CHECK: memref.store {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_fold = array<i64: {{[0-9]+}}, 16, 4>}
// CHECK: scf.forall
// CHECK-COUNT-2: memref.load {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: {{[0-9]+}}, 8, 16, 4>}
// CHECK: scf.forall
// CHECK-COUNT-2: memref.load {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: {{[0-9]+}}, 4, 16, 4>}
// CHECK: scf.forall
// CHECK-COUNT-2: memref.load {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: {{[0-9]+}}, 2, 16, 4>}
// CHECK: scf.forall
// CHECK-COUNT-2: memref.load {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_tree = array<i64: {{[0-9]+}}, 1, 16, 4>}
// CHECK: scf.forall
// CHECK: memref.load {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.load {{.*}} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: } {mapping = [#gpu.thread<x>], mirage_kernel.reduction_finish = array<i64: {{[0-9]+}}, 4>}
// CHECK: }
// After the loop: sqrt(Σx²/64), then the saver computes the division
// (rounded to f16, the quotient's type) and stores it.
// CHECK: arith.constant 6.400000e+01 : f32
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[O]]
// CHECK: } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
// The host function calls the one kernel.
// CHECK: func.func @fused(%{{.*}}: memref<4x64xf16>, %{{.*}}: memref<64x48xf16>, %{{.*}}: memref<4x48xf16>)
// CHECK-SAME: mirage_kernel.host_graph = "fused"
// CHECK: call @fused_k0

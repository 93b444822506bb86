// Tiled f16 GEMM C = A * B (256^3) in the loop-level contract form: grid 4x4,
// block tile 64x64, K step 32, 4 warps of 32x32 (eight 16x8 mma tiles each),
// an f32 accumulator tile in shared memory that a thread phase zero-fills
// before the for-loop and another thread phase stores (truncated) to global.

// Stage 1: the accumulator tiles are carried in registers across the
// for-loop and written after it; a barrier after those writes orders them
// before the phase that reads every warp's tiles (without it, the shared-
// memory race check refuses the kernel: SharedMemoryRaces.md).
// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=map}))' | FileCheck %s --check-prefix=MAP
// MAP:      scf.yield {{.*}} : vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>
// MAP-NEXT: }
// MAP-COUNT-8: vector.transfer_write {{.*}} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
// MAP-NEXT: gpu.barrier
// MAP-NEXT: scf.for

// Stage 2: every contraction is on tensor cores, accumulators in registers.
// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=mma}))' | FileCheck %s --check-prefix=MMA
// MMA-NOT: vector.contract
// MMA: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// MMA-COUNT-2: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// MMA: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// MMA: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// MMA-NOT: vector.contract

// Stage 3: copies become one cp.async group per for-loop iteration.
// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=copies}))' | FileCheck %s --check-prefix=COPIES
// COPIES-COUNT-4: nvgpu.device_async_copy {{.*}} {bypassL1}
// COPIES: nvgpu.device_async_create_group
// COPIES: nvgpu.device_async_wait
// COPIES-NOT: nvgpu.device_async_wait

// Whole lowering: PTX in the gpu.binary, entry named like the kernel.
// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 ptx-file=%t.sm_80.ptx}))' | FileCheck %s --check-prefix=BIN
// BIN: module @mirage_kernels attributes {gpu.container_module}
// BIN-NOT: func.func
// BIN: gpu.binary @mirage_kernels_ptx {mirage_kernel.ptx_kernels = {G_k0 = array<i64: 0, 24576>}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// BIN-SAME: assembly = "
// BIN-SAME: .target sm_80
// BIN-SAME: .visible .entry G_k0(
// BIN-SAME: .param .u64 .ptr .align 1 G_k0_param_0,
// BIN-SAME: .param .u64 .ptr .align 1 G_k0_param_1,
// BIN-SAME: .param .u64 .ptr .align 1 G_k0_param_2
// BIN-SAME: .shared .align 16 .b8
// BIN-SAME: cp.async.cg.shared.global
// BIN-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// BIN-SAME: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// BIN-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// The PTX file: 16 mma.sync in the K loop body (8 tiles x 2 k-steps), no
// per-thread malloc for shared tiles.
// RUN: FileCheck %s --input-file=%t.sm_80.ptx --check-prefix=PTX
// RUN: not grep -q malloc %t.sm_80.ptx
// PTX: .version 8.0
// PTX: .target sm_80
// PTX-COUNT-4: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 0;
// PTX-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT: mma.sync

// Without cp.async the copies are plain 16-byte loads and stores.
// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 async-copies=false ptx-file=%t.sync.ptx}))' -o /dev/null
// RUN: FileCheck %s --input-file=%t.sync.ptx --check-prefix=SYNC
// RUN: not grep -q cp.async %t.sync.ptx
// SYNC: ld.global.v4.b32
// SYNC: st.shared.v4.b32
// SYNC-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// ptxas: see ptxas.mlir.

module {
  builtin.module @mirage_kernels {
    func.func @G_k0(%a0: memref<256x256xf16>, %a1: memref<256x256xf16>, %a2: memref<256x256xf16>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 4, 4, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %pad = arith.constant 0.000000e+00 : f16
      scf.forall (%bx, %by, %bz) in (4, 4, 1) {
        %As = memref.alloc() : memref<64x32xf16, #gpu.address_space<workgroup>>
        %Bs = memref.alloc() : memref<32x64xf16, #gpu.address_space<workgroup>>
        %Acc = memref.alloc() : memref<64x64xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %cn = arith.constant 4096 : index
          scf.for %i = %t to %cn step %c128 {
            %r = affine.apply affine_map<(d0) -> (d0 floordiv 64)>(%i)
            %c = affine.apply affine_map<(d0) -> (d0 mod 64)>(%i)
            memref.store %cst, %Acc[%r, %c] : memref<64x64xf32, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        %cK = arith.constant 256 : index
        %cBK = arith.constant 32 : index
        scf.for %k = %c0 to %cK step %cBK {
          scf.forall (%t) in (128) {
            %c128 = arith.constant 128 : index
            %na = arith.constant 256 : index
            scf.for %v = %t to %na step %c128 {
              %r = affine.apply affine_map<(d0) -> (d0 floordiv 4)>(%v)
              %c = affine.apply affine_map<(d0) -> ((d0 mod 4) * 8)>(%v)
              %gr = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%bx, %r)
              %gc = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%k, %c)
              %x = vector.transfer_read %a0[%gr, %gc], %pad {in_bounds = [true]} : memref<256x256xf16>, vector<8xf16>
              vector.transfer_write %x, %As[%r, %c] {in_bounds = [true]} : vector<8xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
            }
            %nb = arith.constant 256 : index
            scf.for %v = %t to %nb step %c128 {
              %r = affine.apply affine_map<(d0) -> (d0 floordiv 8)>(%v)
              %c = affine.apply affine_map<(d0) -> ((d0 mod 8) * 8)>(%v)
              %gr = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%k, %r)
              %gc = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%by, %c)
              %x = vector.transfer_read %a1[%gr, %gc], %pad {in_bounds = [true]} : memref<256x256xf16>, vector<8xf16>
              vector.transfer_write %x, %Bs[%r, %c] {in_bounds = [true]} : vector<8xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          scf.forall (%w) in (4) {
            %c16 = arith.constant 16 : index
            %cbk = arith.constant 32 : index
            %i0_0 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 0)>(%w)
            %j0_0 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 0)>(%w)
            %c0_0_0 = vector.transfer_read %Acc[%i0_0, %j0_0], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_0 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_0_0) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_0, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j0_0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_0, %Acc[%i0_0, %j0_0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i0_1 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 0)>(%w)
            %j0_1 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 8)>(%w)
            %c0_0_1 = vector.transfer_read %Acc[%i0_1, %j0_1], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_1 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_0_1) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_1, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j0_1], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_1, %Acc[%i0_1, %j0_1] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i0_2 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 0)>(%w)
            %j0_2 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 16)>(%w)
            %c0_0_2 = vector.transfer_read %Acc[%i0_2, %j0_2], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_2 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_0_2) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_2, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j0_2], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_2, %Acc[%i0_2, %j0_2] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i0_3 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 0)>(%w)
            %j0_3 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 24)>(%w)
            %c0_0_3 = vector.transfer_read %Acc[%i0_3, %j0_3], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_3 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_0_3) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_3, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j0_3], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_3, %Acc[%i0_3, %j0_3] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i1_0 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 16)>(%w)
            %j1_0 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 0)>(%w)
            %c0_1_0 = vector.transfer_read %Acc[%i1_0, %j1_0], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_0 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_1_0) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_0, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j1_0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_0, %Acc[%i1_0, %j1_0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i1_1 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 16)>(%w)
            %j1_1 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 8)>(%w)
            %c0_1_1 = vector.transfer_read %Acc[%i1_1, %j1_1], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_1 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_1_1) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_1, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j1_1], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_1, %Acc[%i1_1, %j1_1] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i1_2 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 16)>(%w)
            %j1_2 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 16)>(%w)
            %c0_1_2 = vector.transfer_read %Acc[%i1_2, %j1_2], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_2 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_1_2) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_2, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j1_2], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_2, %Acc[%i1_2, %j1_2] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i1_3 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 16)>(%w)
            %j1_3 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 24)>(%w)
            %c0_1_3 = vector.transfer_read %Acc[%i1_3, %j1_3], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_3 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_1_3) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_3, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j1_3], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_3, %Acc[%i1_3, %j1_3] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.warp<linear_dim_0>]}
        }
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %cn = arith.constant 4096 : index
          scf.for %i = %t to %cn step %c128 {
            %r = affine.apply affine_map<(d0) -> (d0 floordiv 64)>(%i)
            %c = affine.apply affine_map<(d0) -> (d0 mod 64)>(%i)
            %gr = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%bx, %r)
            %gc = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%by, %c)
            %v = memref.load %Acc[%r, %c] : memref<64x64xf32, #gpu.address_space<workgroup>>
            %h = arith.truncf %v : f32 to f16
            memref.store %h, %a2[%gr, %gc] : memref<256x256xf16>
          }
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
    func.func @G(%a0: memref<256x256xf16>, %a1: memref<256x256xf16>, %a2: memref<256x256xf16>) {
      call @G_k0(%a0, %a1, %a2) : (memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf16>) -> ()
      return
    }
  }
}

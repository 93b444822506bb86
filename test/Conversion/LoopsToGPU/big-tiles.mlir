// f16 GEMM with a 128x64 block tile and K step 64: A tile 16 KiB, B tile
// 8 KiB and an f32 accumulator tile of 32 KiB, 56 KiB in all, above the
// 48 KiB of static shared memory ptxas accepts. The buffers become views of
// dynamic shared memory after a 1 KiB reserve, 128-byte aligned:
// A at 1024, B at 17408, Acc at 25600; 58368 bytes for the launch.

// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{stop-after=smem}))' | FileCheck %s --check-prefix=SMEM
// SMEM-NOT: memref.alloc()
// SMEM: %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// SMEM-DAG: memref.view %[[DYN]][%c1024{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
// SMEM-DAG: memref.view %[[DYN]][%c17408{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
// SMEM-DAG: memref.view %[[DYN]][%c25600{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf32, #gpu.address_space<workgroup>>
// SMEM-NOT: memref.alloc()

// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 ptx-file=%t.ptx}))' | FileCheck %s --check-prefix=BIN
// BIN: gpu.binary @mirage_kernels_ptx {mirage_kernel.ptx_kernels = {G_k0 = array<i64: 58368, 0>}}

// The dynamic region is the CUDA-style extern array, no static .shared data.
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PTX
// RUN: not grep -q malloc %t.ptx
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX-NOT: .shared .align
// PTX: .visible .entry G_k0(
// PTX: cp.async.cg.shared.global
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

module {
  builtin.module @mirage_kernels {
    func.func @G_k0(%a0: memref<256x256xf16>, %a1: memref<256x256xf16>, %a2: memref<256x256xf16>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 2, 4, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %pad = arith.constant 0.000000e+00 : f16
      scf.forall (%bx, %by, %bz) in (2, 4, 1) {
        %As = memref.alloc() : memref<128x64xf16, #gpu.address_space<workgroup>>
        %Bs = memref.alloc() : memref<64x64xf16, #gpu.address_space<workgroup>>
        %Acc = memref.alloc() : memref<128x64xf32, #gpu.address_space<workgroup>>
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %cn = arith.constant 8192 : index
          scf.for %i = %t to %cn step %c128 {
            %r = affine.apply affine_map<(d0) -> (d0 floordiv 64)>(%i)
            %c = affine.apply affine_map<(d0) -> (d0 mod 64)>(%i)
            memref.store %cst, %Acc[%r, %c] : memref<128x64xf32, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        %cK = arith.constant 256 : index
        %cBK = arith.constant 64 : index
        scf.for %k = %c0 to %cK step %cBK {
          scf.forall (%t) in (128) {
            %c128 = arith.constant 128 : index
            %na = arith.constant 1024 : index
            scf.for %v = %t to %na step %c128 {
              %r = affine.apply affine_map<(d0) -> (d0 floordiv 8)>(%v)
              %c = affine.apply affine_map<(d0) -> ((d0 mod 8) * 8)>(%v)
              %gr = affine.apply affine_map<(d0, d1) -> (d0 * 128 + d1)>(%bx, %r)
              %gc = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%k, %c)
              %x = vector.transfer_read %a0[%gr, %gc], %pad {in_bounds = [true]} : memref<256x256xf16>, vector<8xf16>
              vector.transfer_write %x, %As[%r, %c] {in_bounds = [true]} : vector<8xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
            }
            %nb = arith.constant 512 : index
            scf.for %v = %t to %nb step %c128 {
              %r = affine.apply affine_map<(d0) -> (d0 floordiv 8)>(%v)
              %c = affine.apply affine_map<(d0) -> ((d0 mod 8) * 8)>(%v)
              %gr = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%k, %r)
              %gc = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%by, %c)
              %x = vector.transfer_read %a1[%gr, %gc], %pad {in_bounds = [true]} : memref<256x256xf16>, vector<8xf16>
              vector.transfer_write %x, %Bs[%r, %c] {in_bounds = [true]} : vector<8xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          scf.forall (%w) in (4) {
            %c16 = arith.constant 16 : index
            %cbk = arith.constant 64 : index
            %i0_0 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 0)>(%w)
            %j0_0 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 0)>(%w)
            %c0_0_0 = vector.transfer_read %Acc[%i0_0, %j0_0], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_0 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_0_0) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_0, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j0_0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_0, %Acc[%i0_0, %j0_0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i0_1 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 0)>(%w)
            %j0_1 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 8)>(%w)
            %c0_0_1 = vector.transfer_read %Acc[%i0_1, %j0_1], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_1 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_0_1) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_1, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j0_1], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_1, %Acc[%i0_1, %j0_1] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i0_2 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 0)>(%w)
            %j0_2 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 16)>(%w)
            %c0_0_2 = vector.transfer_read %Acc[%i0_2, %j0_2], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_2 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_0_2) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_2, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j0_2], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_2, %Acc[%i0_2, %j0_2] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i0_3 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 0)>(%w)
            %j0_3 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 24)>(%w)
            %c0_0_3 = vector.transfer_read %Acc[%i0_3, %j0_3], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_3 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_0_3) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_3, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j0_3], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_3, %Acc[%i0_3, %j0_3] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i1_0 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 16)>(%w)
            %j1_0 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 0)>(%w)
            %c0_1_0 = vector.transfer_read %Acc[%i1_0, %j1_0], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_0 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_1_0) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_0, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j1_0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_0, %Acc[%i1_0, %j1_0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i1_1 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 16)>(%w)
            %j1_1 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 8)>(%w)
            %c0_1_1 = vector.transfer_read %Acc[%i1_1, %j1_1], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_1 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_1_1) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_1, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j1_1], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_1, %Acc[%i1_1, %j1_1] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i1_2 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 16)>(%w)
            %j1_2 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 16)>(%w)
            %c0_1_2 = vector.transfer_read %Acc[%i1_2, %j1_2], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_2 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_1_2) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_2, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j1_2], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_2, %Acc[%i1_2, %j1_2] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i1_3 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 16)>(%w)
            %j1_3 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 24)>(%w)
            %c0_1_3 = vector.transfer_read %Acc[%i1_3, %j1_3], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_3 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_1_3) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_3, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j1_3], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_3, %Acc[%i1_3, %j1_3] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i2_0 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 32)>(%w)
            %j2_0 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 0)>(%w)
            %c0_2_0 = vector.transfer_read %Acc[%i2_0, %j2_0], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d2_0 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_2_0) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i2_0, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j2_0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d2_0, %Acc[%i2_0, %j2_0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i2_1 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 32)>(%w)
            %j2_1 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 8)>(%w)
            %c0_2_1 = vector.transfer_read %Acc[%i2_1, %j2_1], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d2_1 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_2_1) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i2_1, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j2_1], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d2_1, %Acc[%i2_1, %j2_1] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i2_2 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 32)>(%w)
            %j2_2 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 16)>(%w)
            %c0_2_2 = vector.transfer_read %Acc[%i2_2, %j2_2], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d2_2 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_2_2) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i2_2, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j2_2], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d2_2, %Acc[%i2_2, %j2_2] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i2_3 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 32)>(%w)
            %j2_3 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 24)>(%w)
            %c0_2_3 = vector.transfer_read %Acc[%i2_3, %j2_3], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d2_3 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_2_3) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i2_3, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j2_3], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d2_3, %Acc[%i2_3, %j2_3] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i3_0 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 48)>(%w)
            %j3_0 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 0)>(%w)
            %c0_3_0 = vector.transfer_read %Acc[%i3_0, %j3_0], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d3_0 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_3_0) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i3_0, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j3_0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d3_0, %Acc[%i3_0, %j3_0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i3_1 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 48)>(%w)
            %j3_1 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 8)>(%w)
            %c0_3_1 = vector.transfer_read %Acc[%i3_1, %j3_1], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d3_1 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_3_1) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i3_1, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j3_1], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d3_1, %Acc[%i3_1, %j3_1] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i3_2 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 48)>(%w)
            %j3_2 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 16)>(%w)
            %c0_3_2 = vector.transfer_read %Acc[%i3_2, %j3_2], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d3_2 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_3_2) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i3_2, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j3_2], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d3_2, %Acc[%i3_2, %j3_2] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
            %i3_3 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 64 + 48)>(%w)
            %j3_3 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 24)>(%w)
            %c0_3_3 = vector.transfer_read %Acc[%i3_3, %j3_3], %cst {in_bounds = [true, true]} : memref<128x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d3_3 = scf.for %kk = %c0 to %cbk step %c16 iter_args(%acc = %c0_3_3) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i3_3, %kk], %pad {in_bounds = [true, true]} : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
              %b = vector.transfer_read %Bs[%kk, %j3_3], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d3_3, %Acc[%i3_3, %j3_3] {in_bounds = [true, true]} : vector<16x8xf32>, memref<128x64xf32, #gpu.address_space<workgroup>>
          } {mapping = [#gpu.warp<linear_dim_0>]}
        }
        scf.forall (%t) in (128) {
          %c128 = arith.constant 128 : index
          %cn = arith.constant 8192 : index
          scf.for %i = %t to %cn step %c128 {
            %r = affine.apply affine_map<(d0) -> (d0 floordiv 64)>(%i)
            %c = affine.apply affine_map<(d0) -> (d0 mod 64)>(%i)
            %gr = affine.apply affine_map<(d0, d1) -> (d0 * 128 + d1)>(%bx, %r)
            %gc = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%by, %c)
            %v = memref.load %Acc[%r, %c] : memref<128x64xf32, #gpu.address_space<workgroup>>
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

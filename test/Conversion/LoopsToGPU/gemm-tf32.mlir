// An f32 GEMM with warp contractions of the tf32 shape m16n8k8. They map to
// tensor cores only with tf32=true (10-bit mantissa products); otherwise the
// lowering refuses them (the loop IR emits f32 graphs as FMA loops). The
// 32-byte copies (vector<8xf32>) are not cp.async-able and lower to plain
// vector loads and stores.

// RUN: mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_80 tf32=true ptx-file=%t.ptx}))' -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=TF32
// RUN: not grep -q cp.async %t.ptx
// TF32: ld.global.v4.b32
// TF32: st.shared.v4.b32
// TF32: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// TF32-COUNT-32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// TF32-NOT: mma.sync

// RUN: not mirage-opt %s --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu))' 2>&1 | FileCheck %s --check-prefix=NOTF32
// NOTF32: error: vector.contract vector<16x8xf32> x vector<8x8xf32> -> vector<16x8xf32> cannot be lowered: only f16/bf16 (and f32 with tf32=true) warp contractions map to tensor cores

module {
  builtin.module @mirage_kernels {
    func.func @G_k0(%a0: memref<256x256xf32>, %a1: memref<256x256xf32>, %a2: memref<256x256xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 4, 4, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %pad = arith.constant 0.000000e+00 : f32
      scf.forall (%bx, %by, %bz) in (4, 4, 1) {
        %As = memref.alloc() : memref<64x32xf32, #gpu.address_space<workgroup>>
        %Bs = memref.alloc() : memref<32x64xf32, #gpu.address_space<workgroup>>
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
              %x = vector.transfer_read %a0[%gr, %gc], %pad {in_bounds = [true]} : memref<256x256xf32>, vector<8xf32>
              vector.transfer_write %x, %As[%r, %c] {in_bounds = [true]} : vector<8xf32>, memref<64x32xf32, #gpu.address_space<workgroup>>
            }
            %nb = arith.constant 256 : index
            scf.for %v = %t to %nb step %c128 {
              %r = affine.apply affine_map<(d0) -> (d0 floordiv 8)>(%v)
              %c = affine.apply affine_map<(d0) -> ((d0 mod 8) * 8)>(%v)
              %gr = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%k, %r)
              %gc = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%by, %c)
              %x = vector.transfer_read %a1[%gr, %gc], %pad {in_bounds = [true]} : memref<256x256xf32>, vector<8xf32>
              vector.transfer_write %x, %Bs[%r, %c] {in_bounds = [true]} : vector<8xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
            }
          } {mapping = [#gpu.thread<x>]}
          scf.forall (%w) in (4) {
            %c8 = arith.constant 8 : index
            %cbk = arith.constant 32 : index
            %i0_0 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 0)>(%w)
            %j0_0 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 0)>(%w)
            %c0_0_0 = vector.transfer_read %Acc[%i0_0, %j0_0], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_0 = scf.for %kk = %c0 to %cbk step %c8 iter_args(%acc = %c0_0_0) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_0, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
              %b = vector.transfer_read %Bs[%kk, %j0_0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<8x8xf32>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x8xf32>, vector<8x8xf32> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_0, %Acc[%i0_0, %j0_0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i0_1 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 0)>(%w)
            %j0_1 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 8)>(%w)
            %c0_0_1 = vector.transfer_read %Acc[%i0_1, %j0_1], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_1 = scf.for %kk = %c0 to %cbk step %c8 iter_args(%acc = %c0_0_1) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_1, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
              %b = vector.transfer_read %Bs[%kk, %j0_1], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<8x8xf32>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x8xf32>, vector<8x8xf32> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_1, %Acc[%i0_1, %j0_1] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i0_2 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 0)>(%w)
            %j0_2 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 16)>(%w)
            %c0_0_2 = vector.transfer_read %Acc[%i0_2, %j0_2], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_2 = scf.for %kk = %c0 to %cbk step %c8 iter_args(%acc = %c0_0_2) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_2, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
              %b = vector.transfer_read %Bs[%kk, %j0_2], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<8x8xf32>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x8xf32>, vector<8x8xf32> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_2, %Acc[%i0_2, %j0_2] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i0_3 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 0)>(%w)
            %j0_3 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 24)>(%w)
            %c0_0_3 = vector.transfer_read %Acc[%i0_3, %j0_3], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d0_3 = scf.for %kk = %c0 to %cbk step %c8 iter_args(%acc = %c0_0_3) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i0_3, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
              %b = vector.transfer_read %Bs[%kk, %j0_3], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<8x8xf32>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x8xf32>, vector<8x8xf32> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d0_3, %Acc[%i0_3, %j0_3] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i1_0 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 16)>(%w)
            %j1_0 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 0)>(%w)
            %c0_1_0 = vector.transfer_read %Acc[%i1_0, %j1_0], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_0 = scf.for %kk = %c0 to %cbk step %c8 iter_args(%acc = %c0_1_0) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_0, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
              %b = vector.transfer_read %Bs[%kk, %j1_0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<8x8xf32>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x8xf32>, vector<8x8xf32> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_0, %Acc[%i1_0, %j1_0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i1_1 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 16)>(%w)
            %j1_1 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 8)>(%w)
            %c0_1_1 = vector.transfer_read %Acc[%i1_1, %j1_1], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_1 = scf.for %kk = %c0 to %cbk step %c8 iter_args(%acc = %c0_1_1) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_1, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
              %b = vector.transfer_read %Bs[%kk, %j1_1], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<8x8xf32>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x8xf32>, vector<8x8xf32> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_1, %Acc[%i1_1, %j1_1] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i1_2 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 16)>(%w)
            %j1_2 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 16)>(%w)
            %c0_1_2 = vector.transfer_read %Acc[%i1_2, %j1_2], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_2 = scf.for %kk = %c0 to %cbk step %c8 iter_args(%acc = %c0_1_2) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_2, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
              %b = vector.transfer_read %Bs[%kk, %j1_2], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<8x8xf32>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x8xf32>, vector<8x8xf32> into vector<16x8xf32>
              scf.yield %r : vector<16x8xf32>
            }
            vector.transfer_write %d1_2, %Acc[%i1_2, %j1_2] {in_bounds = [true, true]} : vector<16x8xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
            %i1_3 = affine.apply affine_map<(d0) -> ((d0 floordiv 2) * 32 + 16)>(%w)
            %j1_3 = affine.apply affine_map<(d0) -> ((d0 mod 2) * 32 + 24)>(%w)
            %c0_1_3 = vector.transfer_read %Acc[%i1_3, %j1_3], %cst {in_bounds = [true, true]} : memref<64x64xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
            %d1_3 = scf.for %kk = %c0 to %cbk step %c8 iter_args(%acc = %c0_1_3) -> (vector<16x8xf32>) {
              %a = vector.transfer_read %As[%i1_3, %kk], %pad {in_bounds = [true, true]} : memref<64x32xf32, #gpu.address_space<workgroup>>, vector<16x8xf32>
              %b = vector.transfer_read %Bs[%kk, %j1_3], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<32x64xf32, #gpu.address_space<workgroup>>, vector<8x8xf32>
              %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<16x8xf32>, vector<8x8xf32> into vector<16x8xf32>
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
            %h = arith.addf %v, %cst : f32
            memref.store %h, %a2[%gr, %gc] : memref<256x256xf32>
          }
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
    func.func @G(%a0: memref<256x256xf32>, %a1: memref<256x256xf32>, %a2: memref<256x256xf32>) {
      call @G_k0(%a0, %a1, %a2) : (memref<256x256xf32>, memref<256x256xf32>, memref<256x256xf32>) -> ()
      return
    }
  }
}

// Lowerings that cannot be done fail with one clear error and leave no
// partial output.

// RUN: not mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu))' 2>&1 | FileCheck %s

// A 16x16 accumulator tile is not the m16n8k16 mma.sync shape; upstream
// would build an invalid nvgpu.mma.sync from it.
// CHECK: error: vector.contract vector<16x16xf16> x vector<16x16xf16> -> vector<16x16xf32> cannot map to tensor cores (mma.sync): shape must be the native m16n8k16 tile (A 16x16, B 8x16, C 16x8)
module {
  builtin.module @mirage_kernels {
    func.func @G_k0(%a0: memref<16x16xf16>, %a1: memref<16x16xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %pad = arith.constant 0.0 : f16
      %cst = arith.constant 0.0 : f32
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %As = memref.alloc() : memref<16x16xf16, #gpu.address_space<workgroup>>
        %Acc = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
        scf.forall (%w) in (4) {
          %a = vector.transfer_read %As[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
          %b = vector.transfer_read %As[%c0, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
          %c = vector.transfer_read %Acc[%c0, %c0], %cst {in_bounds = [true, true]} : memref<16x16xf32, #gpu.address_space<workgroup>>, vector<16x16xf32>
          %d = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<16x16xf16>, vector<16x16xf16> into vector<16x16xf32>
          vector.transfer_write %d, %Acc[%c0, %c0] {in_bounds = [true, true]} : vector<16x16xf32>, memref<16x16xf32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.warp<linear_dim_0>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// An i8 contraction has no tensor-core path here.
// CHECK: error: vector.contract vector<16x16xi8> x vector<8x16xi8> -> vector<16x8xi32> cannot be lowered: only f16/bf16 (and f32 with tf32=true) warp contractions map to tensor cores
module {
  builtin.module @mirage_kernels {
    func.func @G_k0(%a0: memref<16x16xi8>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %pad = arith.constant 0 : i8
      %z = arith.constant dense<0> : vector<16x8xi32>
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %As = memref.alloc() : memref<16x16xi8, #gpu.address_space<workgroup>>
        %Acc = memref.alloc() : memref<16x8xi32, #gpu.address_space<workgroup>>
        scf.forall (%w) in (4) {
          %a = vector.transfer_read %As[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xi8, #gpu.address_space<workgroup>>, vector<16x16xi8>
          %b = vector.transfer_read %As[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xi8, #gpu.address_space<workgroup>>, vector<8x16xi8>
          %d = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %z : vector<16x16xi8>, vector<8x16xi8> into vector<16x8xi32>
          vector.transfer_write %d, %Acc[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xi32>, memref<16x8xi32, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.warp<linear_dim_0>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// CHECK: error: mirage kernel needs `mirage_kernel.block = array<i64: x, y, z>` with positive sizes
module {
  builtin.module @mirage_kernels {
    func.func @G_k0(%a0: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>} {
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// Math functions need libdevice; without it the PTX would keep unresolved
// __nv_* calls.
// RUN: not mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{cuda-path=/nonexistent}))' 2>&1 | FileCheck %s --check-prefix=LIBDEVICE
// LIBDEVICE: error: kernels call libdevice math functions but /nonexistent/nvvm/libdevice/libdevice.10.bc does not exist; set the CUDA toolkit path (cuda-path)
module {
  builtin.module @mirage_kernels {
    func.func @G_k0(%a0: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        scf.forall (%t) in (128) {
          %x = memref.load %a0[%t] : memref<128xf32>
          %e = math.exp %x : f32
          memref.store %e, %a0[%t] : memref<128xf32>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// A buffer in the default memory space inside the block forall has no
// placement; the conversion would turn it into a per-thread malloc.
// CHECK: error: memref.alloc inside a GPU kernel would become a per-thread malloc; workgroup buffers must be placed by mirage-workgroup-alloc-to-global
module {
  builtin.module @mirage_kernels {
    func.func @G_k0(%a0: memref<128xf32>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %tmp = memref.alloc() : memref<128xf32>
        scf.forall (%t) in (128) {
          %x = memref.load %a0[%t] : memref<128xf32>
          memref.store %x, %tmp[%t] : memref<128xf32>
          %y = memref.load %tmp[%t] : memref<128xf32>
          memref.store %y, %a0[%t] : memref<128xf32>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// The XOR swizzle of shared tiles (mirage-gpu-async-copies) only where it
// permutes each row: a power-of-two last dim (UpstreamWorkarounds.h,
// swizzlePermutesRows; upstream-swizzle-non-power-of-two.mlir). On the
// 2x36 tile of @odd_rows upstream would map row 1's column 32 to column 40,
// an element of another row: the hand-written LoRA kernel's 4x36 tile
// (test/Workloads/lora.mlir) had two threads storing to one address, which
// the shared-memory race check found. The 2x32 tile of @even_rows is still
// swizzled. Both kernels then pass the race check.

// RUN: mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=smem}))' | FileCheck %s

// CHECK-LABEL: func.func @odd_rows
// CHECK-NOT: arith.xori
// CHECK: gpu.terminator
module {
  builtin.module @mirage_kernels {
    func.func @odd_rows(%a: memref<2x36xf16>, %o: memref<2x36xf16>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %t = memref.alloc() : memref<2x36xf16, #gpu.address_space<workgroup>>
        scf.forall (%i) in (72) {
          %r = affine.apply affine_map<(d0) -> (d0 floordiv 36)>(%i)
          %c = affine.apply affine_map<(d0) -> (d0 mod 36)>(%i)
          %x = memref.load %a[%r, %c] : memref<2x36xf16>
          memref.store %x, %t[%r, %c] : memref<2x36xf16, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%i) in (72) {
          %r = affine.apply affine_map<(d0) -> (d0 floordiv 36)>(%i)
          %c = affine.apply affine_map<(d0) -> (d0 mod 36)>(%i)
          %n = affine.apply affine_map<(d0) -> ((d0 + 1) mod 36)>(%c)
          %y = memref.load %t[%r, %n] : memref<2x36xf16, #gpu.address_space<workgroup>>
          memref.store %y, %o[%r, %c] : memref<2x36xf16>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// CHECK-LABEL: func.func @even_rows
// CHECK: arith.xori
// CHECK: memref.store {{.*}} : memref<2x32xf16, #gpu.address_space<workgroup>>
module {
  builtin.module @mirage_kernels {
    func.func @even_rows(%a: memref<2x32xf16>, %o: memref<2x32xf16>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %t = memref.alloc() : memref<2x32xf16, #gpu.address_space<workgroup>>
        scf.forall (%i) in (64) {
          %r = affine.apply affine_map<(d0) -> (d0 floordiv 32)>(%i)
          %c = affine.apply affine_map<(d0) -> (d0 mod 32)>(%i)
          %x = memref.load %a[%r, %c] : memref<2x32xf16>
          memref.store %x, %t[%r, %c] : memref<2x32xf16, #gpu.address_space<workgroup>>
        } {mapping = [#gpu.thread<x>]}
        scf.forall (%i) in (64) {
          %r = affine.apply affine_map<(d0) -> (d0 floordiv 32)>(%i)
          %c = affine.apply affine_map<(d0) -> (d0 mod 32)>(%i)
          %n = affine.apply affine_map<(d0) -> ((d0 + 1) mod 32)>(%c)
          %y = memref.load %t[%r, %n] : memref<2x32xf16, #gpu.address_space<workgroup>>
          memref.store %y, %o[%r, %c] : memref<2x32xf16>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

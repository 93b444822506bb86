// The XOR swizzle of shared tiles (mirage-gpu-async-copies) moves every
// access of a tile or none (UpstreamWorkarounds.h, foldWorkgroupCollapseViews
// and swizzleSeesEveryAccess; upstream-swizzle-through-views.mlir). The
// matmul phases read a 1xRxC tile through a RxC collapse_shape view; upstream
// would swizzle the stores into the tile and leave the view's ldmatrix alone.
// @through_view: the view is folded into the ldmatrix, which then reads the
// tile with the stores' xor. @unfoldable_view: a 2x32x64 tile's 64x64 view
// merges two dims that are not 1; it is not folded and the tile is left
// unswizzled rather than swizzled half-way.

// RUN: mirage-opt %s -split-input-file --pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90 stop-after=copies}))' | FileCheck %s

// CHECK-LABEL: func.func @through_view
// CHECK: %[[COL:.*]] = arith.xori
// CHECK: memref.store %{{.*}}, %[[T:.*]][%{{.*}}, %[[ROW:.*]], %[[COL]]] : memref<1x64x64xf16
// CHECK-NOT: memref.collapse_shape
// CHECK: %[[MCOL:.*]] = arith.xori
// CHECK: nvgpu.ldmatrix %[[T]][%{{.*}}, %{{.*}}, %[[MCOL]]] {{.*}} : memref<1x64x64xf16

module {
  builtin.module @mirage_kernels {
    func.func @through_view(%a: memref<64x64xf16>, %o: memref<128x4x2xf16>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %t = memref.alloc() : memref<1x64x64xf16, #gpu.address_space<workgroup>>
        scf.forall (%tid) in (128) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c32 = arith.constant 32 : index
          scf.for %j = %c0 to %c32 step %c1 {
          %i = affine.apply affine_map<(d0, d1) -> (d0 + d1 * 128)>(%tid, %j)
          %r = affine.apply affine_map<(d0) -> (d0 floordiv 64)>(%i)
          %c = affine.apply affine_map<(d0) -> (d0 mod 64)>(%i)
          %x = memref.load %a[%r, %c] : memref<64x64xf16>
          memref.store %x, %t[%c0, %r, %c] : memref<1x64x64xf16, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        %view = memref.collapse_shape %t [[0, 1], [2]] : memref<1x64x64xf16, #gpu.address_space<workgroup>> into memref<64x64xf16, #gpu.address_space<workgroup>>
        scf.forall (%i) in (128) {
          %r = affine.apply affine_map<(d0) -> (d0 mod 64)>(%i)
          %c = affine.apply affine_map<(d0) -> ((d0 floordiv 64) * 8)>(%i)
          %m = nvgpu.ldmatrix %view[%r, %c] {numTiles = 4 : i32, transpose = false} : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
          %c0 = arith.constant 0 : index
          vector.store %m, %o[%i, %c0, %c0] : memref<128x4x2xf16>, vector<4x2xf16>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

// -----

// CHECK-LABEL: func.func @unfoldable_view
// CHECK-NOT: arith.xori
// CHECK: memref.collapse_shape
// CHECK-NOT: arith.xori
// CHECK: nvgpu.ldmatrix

module {
  builtin.module @mirage_kernels {
    func.func @unfoldable_view(%a: memref<64x64xf16>, %o: memref<128x4x2xf16>) attributes {mirage_kernel.kernel, mirage_kernel.grid = array<i64: 1, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      scf.forall (%bx, %by, %bz) in (1, 1, 1) {
        %t = memref.alloc() : memref<2x32x64xf16, #gpu.address_space<workgroup>>
        scf.forall (%tid) in (128) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c32 = arith.constant 32 : index
          scf.for %j = %c0 to %c32 step %c1 {
          %i = affine.apply affine_map<(d0, d1) -> (d0 + d1 * 128)>(%tid, %j)
          %h = affine.apply affine_map<(d0) -> (d0 floordiv 2048)>(%i)
          %r = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 32)>(%i)
          %r64 = affine.apply affine_map<(d0) -> (d0 floordiv 64)>(%i)
          %c = affine.apply affine_map<(d0) -> (d0 mod 64)>(%i)
          %x = memref.load %a[%r64, %c] : memref<64x64xf16>
          memref.store %x, %t[%h, %r, %c] : memref<2x32x64xf16, #gpu.address_space<workgroup>>
          }
        } {mapping = [#gpu.thread<x>]}
        %view = memref.collapse_shape %t [[0, 1], [2]] : memref<2x32x64xf16, #gpu.address_space<workgroup>> into memref<64x64xf16, #gpu.address_space<workgroup>>
        scf.forall (%i) in (128) {
          %r = affine.apply affine_map<(d0) -> (d0 mod 64)>(%i)
          %c = affine.apply affine_map<(d0) -> ((d0 floordiv 64) * 8)>(%i)
          %m = nvgpu.ldmatrix %view[%r, %c] {numTiles = 4 : i32, transpose = false} : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
          %c0 = arith.constant 0 : index
          vector.store %m, %o[%i, %c0, %c0] : memref<128x4x2xf16>, vector<4x2xf16>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
      return
    }
  }
}

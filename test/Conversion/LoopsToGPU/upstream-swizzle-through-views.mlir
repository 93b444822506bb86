// Pins the upstream behaviour behind foldWorkgroupCollapseViews and
// swizzleSeesEveryAccess (UpstreamWorkarounds.h): LLVM 22's nvgpu XOR
// swizzle (optimizeSharedMemoryReadsAndWrites, the
// nvgpu-optimize-shared-memory pass) moves the accesses of the buffer's own
// value and no others. The store into the 1x64x64 tile gets the xor; the
// ldmatrix through its 64x64 collapse_shape view keeps the plain index, so
// it reads another element than the one stored there. A QK-norm attention
// kernel computed wrong P·V on an H200 this way. When this test starts
// failing, upstream declines such buffers or follows the view itself.

// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(nvgpu-optimize-shared-memory))' | FileCheck %s
// CHECK-LABEL: func.func @k
// CHECK-SAME: (%[[V:.*]]: f16, %[[R:.*]]: index, %[[C:.*]]: index)
// CHECK: %[[COL:.*]] = arith.xori %[[C]]
// CHECK: memref.store %[[V]], %{{.*}}[%{{.*}}, %[[R]], %[[COL]]]
// CHECK: %[[VIEW:.*]] = memref.collapse_shape
// CHECK-NOT: arith.xori
// CHECK: nvgpu.ldmatrix %[[VIEW]][%[[R]], %[[C]]]

func.func @k(%v: f16, %r: index, %c: index) -> (vector<4x2xf16>, f16) {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  memref.store %v, %t[%c0, %r, %c] : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  %x = memref.load %t[%c0, %r, %c] : memref<1x64x64xf16, #gpu.address_space<workgroup>>
  %view = memref.collapse_shape %t [[0, 1], [2]] : memref<1x64x64xf16, #gpu.address_space<workgroup>> into memref<64x64xf16, #gpu.address_space<workgroup>>
  %m = nvgpu.ldmatrix %view[%r, %c] {numTiles = 4 : i32, transpose = false} : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  return %m, %x : vector<4x2xf16>, f16
}

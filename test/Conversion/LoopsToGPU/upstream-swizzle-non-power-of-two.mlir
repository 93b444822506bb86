// Pins the upstream behaviour behind swizzlePermutesRows
// (UpstreamWorkarounds.h): LLVM 22's nvgpu XOR swizzle
// (optimizeSharedMemoryReadsAndWrites, the nvgpu-optimize-shared-memory
// pass) permutes the last index of a 4x36 f16 tile with (row & 3) << 3 as
// if rows were 32 wide, so column 32 of row 1 becomes column 40, which is
// row 2's column 4: two elements at one address. When this test starts
// failing, upstream declines or handles such tiles itself.

// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(nvgpu-optimize-shared-memory))' | FileCheck %s
// CHECK:      %[[MASK:.*]] = arith.andi %{{.*}}, %c3
// CHECK-NEXT: %{{.*}} = arith.constant 3 : index
// CHECK-NEXT: %[[SHIFT:.*]] = arith.shli %[[MASK]]
// CHECK-NEXT: %[[COL:.*]] = arith.xori %{{.*}}, %[[SHIFT]]
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %[[COL]]] : memref<4x36xf16, #gpu.address_space<workgroup>>

func.func @k(%g: memref<4x36xf16>, %o: memref<4x36xf16>, %r: index, %c: index) {
  %t = memref.alloc() : memref<4x36xf16, #gpu.address_space<workgroup>>
  %x = memref.load %g[%r, %c] : memref<4x36xf16>
  memref.store %x, %t[%r, %c] : memref<4x36xf16, #gpu.address_space<workgroup>>
  %y = memref.load %t[%r, %c] : memref<4x36xf16, #gpu.address_space<workgroup>>
  memref.store %y, %o[%r, %c] : memref<4x36xf16>
  return
}

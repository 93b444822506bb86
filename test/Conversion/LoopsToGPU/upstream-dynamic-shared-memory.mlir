// Pins the upstream behaviour behind externalizeDynamicSharedMemory
// (UpstreamWorkarounds.h): LLVM 22's convert-gpu-to-nvvm lowers
// gpu.dynamic_shared_memory to an *internal* zero-length global, which
// NVPTX prints as a 1-byte static `.shared` variable instead of the
// `.extern .shared ... []` base of the dynamic region. When this test
// starts failing, check the linkage upstream gives it and drop the
// workaround if it is external.

// RUN: mlir-opt %s --convert-gpu-to-nvvm | FileCheck %s
// CHECK: llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>

gpu.module @m {
  gpu.func @k(%o: memref<4xf32>) kernel {
    %d = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %v = memref.view %d[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    %x = memref.load %v[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    memref.store %x, %o[%c0] : memref<4xf32>
    gpu.return
  }
}

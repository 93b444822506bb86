// Pins the upstream behaviour behind rejectKernelMallocs and the stage
// mirage-workgroup-alloc-to-global (UpstreamWorkarounds.h): LLVM 22's
// convert-gpu-to-nvvm lowers a workgroup memref.alloc inside a kernel to a
// per-thread malloc, silently. When this test starts failing, upstream
// rejects or places such allocs itself.

// RUN: mlir-opt %s --convert-gpu-to-nvvm | FileCheck %s
// CHECK: llvm.call @malloc

gpu.module @m {
  gpu.func @k(%o: memref<4xf32>) kernel {
    %t = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %x = memref.load %t[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    memref.store %x, %o[%c0] : memref<4xf32>
    gpu.return
  }
}

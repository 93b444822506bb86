//===- LoopsToGPUPasses.td - Loop-level kernels to PTX -------*- tablegen -*-===//
#ifndef MIRAGE_CONVERSION_LOOPSTOGPUPASSES_TD
#define MIRAGE_CONVERSION_LOOPSTOGPUPASSES_TD

include "mlir/Pass/PassBase.td"

def MirageWorkgroupAllocToGlobal
    : Pass<"mirage-workgroup-alloc-to-global", "::mlir::ModuleOp"> {
  let summary = "turn workgroup memref.alloc in kernels into .shared globals";
  let description = [{
    A `memref.alloc` in `#gpu.address_space<workgroup>` inside a GPU kernel
    silently becomes a per-thread `malloc` in `convert-gpu-to-nvvm`. This
    pass replaces each one by a module-level workgroup `memref.global` and a
    `memref.get_global`, which outlining copies into the `gpu.module` and
    NVPTX emits as `.shared` storage.

    Example:
    ```mlir
    %t = memref.alloc() : memref<64x32xf16, #gpu.address_space<workgroup>>
    // becomes
    memref.global "private" @__mirage_smem_0 : memref<64x32xf16, #gpu.address_space<workgroup>>
    %t = memref.get_global @__mirage_smem_0 : memref<64x32xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // MIRAGE_CONVERSION_LOOPSTOGPUPASSES_TD

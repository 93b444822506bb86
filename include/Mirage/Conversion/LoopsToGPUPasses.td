//===- LoopsToGPUPasses.td - Loop-level kernels to PTX -------*- tablegen -*-===//
#ifndef MIRAGE_CONVERSION_LOOPSTOGPUPASSES_TD
#define MIRAGE_CONVERSION_LOOPSTOGPUPASSES_TD

include "mlir/Pass/PassBase.td"

def MirageWorkgroupAllocToGlobal
    : Pass<"mirage-workgroup-alloc-to-global", "::mlir::ModuleOp"> {
  let summary = "place workgroup memref.allocs of kernels in .shared memory";
  let description = [{
    A `memref.alloc` in `#gpu.address_space<workgroup>` inside a GPU kernel
    silently becomes a per-thread `malloc` in `convert-gpu-to-nvvm`. For
    every `func.func` of the module this pass replaces each one by a
    module-level workgroup `memref.global` (16-byte aligned) and a
    `memref.get_global`, which NVPTX emits as `.shared` storage.

    When a function's workgroup buffers total more than `max-static-bytes`
    (ptxas refuses more than 48 KiB of static shared data), they become
    `memref.view`s of one `gpu.dynamic_shared_memory` at 128-byte aligned
    offsets starting at `dynamic-reserve`, and the function gets
    `mirage.dynamic_shared_bytes` (the size the launch must request). This
    form needs the allocs inside a `gpu.launch`.

    Example:
    ```mlir
    %t = memref.alloc() : memref<64x32xf16, #gpu.address_space<workgroup>>
    // becomes
    memref.global "private" @__mirage_smem : memref<64x32xf16, #gpu.address_space<workgroup>> {alignment = 16 : i64}
    %t = memref.get_global @__mirage_smem : memref<64x32xf16, #gpu.address_space<workgroup>>
    // or, above the budget, inside the gpu.launch
    %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = memref.view %dyn[%c1024][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x32xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let options = [
    Option<"maxStaticBytes", "max-static-bytes", "int64_t", "49152",
           "largest total of static workgroup buffers per function">,
    Option<"dynamicReserve", "dynamic-reserve", "int64_t", "1024",
           "bytes left unused at the start of dynamic shared memory">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect"];
}

def MirageLoopsToGPU : Pass<"mirage-loops-to-gpu", "::mlir::ModuleOp"> {
  let summary = "lower a @mirage_kernels module of loop-level kernels to PTX";
  let description = [{
    Runs the GPU half of the code generator on the module it is anchored on
    (the nested `@mirage_kernels` module, e.g.
    `--pass-pipeline='builtin.module(builtin.module(mirage-loops-to-gpu{chip=sm_90}))'`):

    1. the block `scf.forall` of each `mirage.kernel` function becomes a
       `gpu.launch` (block size from `mirage.block`), thread and warp
       foralls become thread-id guarded code with a barrier after each;
       accumulator tiles move into registers across the for-loop;
    2. warp `vector.contract`s become `ldmatrix` + `mma.sync` (f16, bf16,
       f32 only with `tf32`); any f16/bf16 contraction left is an error;
    3. 16-byte global-to-shared copies become `cp.async` groups and shared
       tiles are XOR-swizzled; the copies the loop IR marks as a pipeline
       (`mirage.prefetch_stages`/`mirage.prefetch_group`, the launch plan's
       stages) become one commit group per stage, waited for with
       `cp.async.wait_group stages - 1` in the loop;
    4. workgroup allocs become `.shared` globals, or views of dynamic shared
       memory above 48 KiB;
    5. everything is outlined into one `gpu.module` (entry names = kernel
       names, one `.u64` parameter per memref argument), lowered to NVVM and
       serialised to PTX. Host functions are erased.

    The module is left holding one `gpu.binary @mirage_kernels_ptx` whose
    object has `assembly = "<PTX>"`; the binary carries `mirage.kernels`,
    a dictionary of kernel name to `[dynamic shared bytes, static shared
    bytes]`. `ptx-file` also writes the PTX text to a file. `stop-after`
    (`map`, `mma`, `copies`, `smem`) stops early to inspect a stage.

    Example:
    ```mlir
    module {
      builtin.module @mirage_kernels {
        func.func @G_k0(%a: memref<256x256xf16>, ...) attributes {mirage.kernel,
            mirage.grid = array<i64: 4, 4, 1>, mirage.block = array<i64: 128, 1, 1>} {
          scf.forall (%bx, %by, %bz) in (4, 4, 1) { ... }
              {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
          return
        }
      }
    }
    // becomes
    module {
      builtin.module @mirage_kernels attributes {gpu.container_module} {
        gpu.binary @mirage_kernels_ptx [#gpu.object<#nvvm.target<...>,
            assembly = "...\09.visible .entry G_k0(...">]
      }
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90\"",
           "NVPTX target chip (the default target h100's): sm_80, sm_90 or "
           "sm_90a; any other is refused before lowering">,
    Option<"features", "features", "std::string", "\"+ptx80\"",
           "NVPTX target features (PTX ISA version)">,
    Option<"optLevel", "O", "int", "3", "NVPTX optimisation level">,
    Option<"tf32", "tf32", "bool", "false",
           "map f32 contractions to tf32 tensor cores">,
    Option<"fma", "fma", "bool", "true",
           "let f32 multiply-adds fuse into fma.rn (like nvcc -fmad=true)">,
    Option<"asyncCopies", "async-copies", "bool", "true",
           "16-byte global-to-shared copies become cp.async">,
    Option<"swizzle", "swizzle", "bool", "true",
           "XOR-swizzle shared tiles read by ldmatrix">,
    Option<"maxStaticSharedBytes", "max-static-shared-bytes", "int64_t",
           "49152", "above this, workgroup buffers use dynamic shared memory">,
    Option<"cudaPath", "cuda-path", "std::string", "\"\"",
           "CUDA toolkit root for libdevice (default: $CUDA_ROOT, "
           "$CUDA_HOME, $CUDA_PATH, /usr/local/cuda)">,
    Option<"ptxFile", "ptx-file", "std::string", "\"\"",
           "also write the PTX text to this file">,
    Option<"stopAfter", "stop-after", "std::string", "\"\"",
           "stop after stage map, mma, copies or smem (for tests)">,
  ];
}

#endif // MIRAGE_CONVERSION_LOOPSTOGPUPASSES_TD

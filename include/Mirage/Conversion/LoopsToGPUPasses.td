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
    every `func.func` of the module this pass replaces them by
    `memref.view`s, at 16-byte aligned offsets, of one module-level
    workgroup `memref.global` of i8 (NVPTX: one `.shared` array), and the
    function gets `mirage_kernel.static_shared_bytes` (its size). One array,
    not one per buffer: ptxas lays separate `.shared` symbols out in
    declaration order and does not pad the last one, so their total would
    depend on an order the launch plan cannot see.

    When a function's workgroup buffers total more than `max-static-bytes`
    (ptxas refuses more than 48 KiB of static shared data), they become
    `memref.view`s of one `gpu.dynamic_shared_memory` at 128-byte aligned
    offsets starting at `dynamic-reserve`, and the function gets
    `mirage_kernel.dynamic_shared_bytes` (the size the launch must request). This
    form needs the allocs inside a `gpu.launch`.

    Example:
    ```mlir
    %t = memref.alloc() : memref<64x32xf16, #gpu.address_space<workgroup>>
    // becomes
    memref.global "private" @__mirage_smem : memref<4096xi8, #gpu.address_space<workgroup>> {alignment = 16 : i64}
    %s = memref.get_global @__mirage_smem : memref<4096xi8, #gpu.address_space<workgroup>>
    %t = memref.view %s[%c0][] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<64x32xf16, #gpu.address_space<workgroup>>
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

// The stages of the GPU half of the code generator, one pass each, on the
// nested `@mirage_kernels` module and its `mirage_kernel.kernel` functions. The
// registered pipeline `mirage-loops-to-gpu` runs them in order (LoopsToGPU.h,
// buildLoopsToGPUPipeline), so `--mlir-print-ir-after`, `--mlir-timing` and
// crash reproducers work per stage.

def MirageGPUWarpReductions
    : Pass<"mirage-gpu-warp-reductions", "::mlir::ModuleOp"> {
  let summary = "stage 0: fold each row-reduction tree in warps with "
                "shuffles";
  let description = [{
    For every `mirage_kernel.kernel` function: the levels of each row
    reduction's tree (the `scf.forall` phases tagged
    `mirage_kernel.reduction_tree = [id, half, lanes, outputs]` by
    `mirage-lower-kernels-to-loops`, one per level, a barrier after each
    once mapped) become one phase. Thread e loads lane e mod lanes of output
    e / lanes from the tree's scratch buffer, folds its `gpu.shuffle xor`
    partner at distances lanes/2, ..., 1 with the level's own combine (cloned
    from the tagged body, so the pairs and their order are the tree's), and
    lane 0 stores where the tree's lane 0 would. Every thread runs every
    shuffle; only the loads and the store are guarded. The phase before the
    tree that writes the lanes (tagged `mirage_kernel.reduction_fold`) joins
    it: each thread loads only the lanes it stored; so does the finish phase
    after it (`mirage_kernel.reduction_finish`), run by each output's lane 0
    on the value in its register. A tree whose levels
    are not back to back, or whose scratch is not f32, is left as it is
    (docs/Rationale/WarpReductions.md). The CPU runs the tree itself.

    Example (4 outputs, 32 lanes):
    ```mlir
    scf.forall (%t) in (128) { ... lane l of 4x16 folds lane l + 16 ... }
        {mapping = [#gpu.thread<x>],
         mirage_kernel.reduction_tree = array<i64: 3, 16, 32, 4>}
    ... four more levels (8, 4, 2, 1) ...
    // becomes
    scf.forall (%t) in (128) {
      %v = scf.if %valid -> (f32) { memref.load %scratch[%out, %lane] ... }
      %p16, %ok16 = gpu.shuffle xor %v, %c16, %c32 : f32
      %s16 = arith.addf %v, %p16 : f32
      ... distances 8, 4, 2, 1 ...
      scf.if %lane_is_0 { memref.store %s1, %scratch[%out, %c0] ... }
    } {mapping = [#gpu.thread<x>]}
    ```
  }];
  let statistics = [
    Statistic<"numTrees", "trees", "reduction trees seen">,
    Statistic<"numFolded", "folded", "trees folded in warps">,
    Statistic<"numKept", "kept", "trees left as phases">,
    Statistic<"numPhasesRemoved", "phases-removed",
              "phases (and barriers) removed">,
  ];
}

def MirageGPUMapForalls : Pass<"mirage-gpu-map-foralls", "::mlir::ModuleOp"> {
  let summary = "stage 1: map a kernel's foralls to a gpu.launch and thread "
                "ids";
  let description = [{
    For every `mirage_kernel.kernel` function: the block `scf.forall` becomes a
    `gpu.launch` whose grid is the forall's extents and whose block is the
    function's `mirage_kernel.block`; thread and warp foralls become thread-id
    guarded code with a barrier after each; loop invariants leave the
    for-loop and warp accumulator tiles are carried in registers across it.

    Example:
    ```mlir
    func.func @G_k0(...) attributes {mirage_kernel.kernel,
        mirage_kernel.grid = array<i64: 4, 1, 1>, mirage_kernel.block = array<i64: 128, 1, 1>} {
      scf.forall (%bx, %by, %bz) in (4, 1, 1) { ... }
          {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
    }
    // becomes
      gpu.launch blocks(...) in (%gx = %c4, ...) threads(...) in (%tx = %c128, ...) {
        %bx = gpu.block_id x
        ...
      }
    ```
  }];
}

def MirageGPUTensorCores : Pass<"mirage-gpu-tensor-cores", "::mlir::ModuleOp"> {
  let summary = "stage 2: warp vector.contracts to ldmatrix and mma.sync";
  let description = [{
    Every warp `vector.contract` of a `mirage_kernel.kernel` function becomes
    `nvgpu.ldmatrix` fragment loads and `mma.sync` (f16; bf16 through
    `nvvm.mma.sync`; f32 only with `tf32`). A contraction that cannot be
    mapped is an error on it. With `fma`, scalar f32 multiply-adds get
    `fastmath<contract>` so that they fuse into `fma.rn`.

    Example:
    ```mlir
    %c = vector.contract {...} %a, %b, %acc : vector<16x16xf16>, vector<16x8xf16> into vector<16x8xf32>
    // becomes
    %fa = nvgpu.ldmatrix %A[...] {numTiles = 4 : i32, transpose = false} : ...
    %c = nvgpu.mma.sync(%fa, %fb, %facc) {mmaShape = [16, 8, 16]} : ...
    ```
  }];
  let options = [
    Option<"tf32", "tf32", "bool", "false",
           "map f32 contractions to tf32 tensor cores">,
    Option<"fma", "fma", "bool", "true",
           "let f32 multiply-adds fuse into fma.rn (like nvcc -fmad=true)">,
  ];
}

def MirageGPUAsyncCopies : Pass<"mirage-gpu-async-copies", "::mlir::ModuleOp"> {
  let summary = "stage 3: cp.async copies, the plan's pipelines, swizzled "
                "tiles";
  let description = [{
    16-byte global-to-shared copies of a `mirage_kernel.kernel` function become
    `cp.async`; the copies the loop IR marks as a pipeline
    (`mirage_kernel.prefetch_stages`, `mirage_kernel.prefetch_group`: the launch plan's
    stages) become one commit group per stage, waited for with
    `cp.async.wait_group stages - 1` in the loop. A group whose copies carry
    `mirage_kernel.prefetch_wait = n` is committed with
    `cp.async.wait_group n` and a barrier right after its copies (the
    prologue's last group, when operators before the loop read the first
    group's tiles: docs/Rationale/LoopInvariantOps.md). A group that waits
    does so before the first phase that reads its tiles, with a barrier
    between, and the stage then checks that no shared tile one group writes
    is read before that group is retired and past a barrier (an error on the
    read otherwise: docs/Rationale/AsyncCopyOrder.md). Shared tiles read by
    `ldmatrix` are XOR-swizzled. Then every barrier is tested again with
    each `cp.async` counted as what a barrier orders of it (nothing when
    issued before it, a write of its tile when issued after it, and a wait
    before it as a write of every copied tile), and dropped when its two
    sides do not conflict (docs/Rationale/BarrierElimination.md, "Barriers
    once the copies are asynchronous").

    Example:
    ```mlir
    %v = vector.transfer_read %X[...] : memref<..xf16>, vector<8xf16>
    vector.transfer_write %v, %tile[...] : vector<8xf16>, memref<..xf16, #gpu.address_space<workgroup>>
    // becomes
    %t = nvgpu.device_async_copy %X[...], %tile[...], 8 {bypassL1} : ...
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    ```
  }];
  let options = [
    Option<"asyncCopies", "async-copies", "bool", "true",
           "16-byte global-to-shared copies become cp.async">,
    Option<"swizzle", "swizzle", "bool", "true",
           "XOR-swizzle shared tiles read by ldmatrix">,
    Option<"eliminateBarriers", "eliminate-barriers", "bool", "true",
           "drop the barriers that order nothing once the copies are "
           "cp.async (docs/Rationale/BarrierElimination.md)">,
  ];
  let statistics = [
    Statistic<"numIssueBarriers", "async-barriers-dropped",
              "barriers that order nothing once the copies are cp.async, "
              "dropped">,
  ];
}

def MirageGPUCheckConvergence
    : Pass<"mirage-gpu-check-convergence", "::mlir::ModuleOp"> {
  let summary = "check: barriers where every thread of the block arrives, "
                "warp collectives where every lane does";
  let description = [{
    For every `gpu.launch` of every `mirage_kernel.kernel` function: a
    forward analysis classes each value as uniform (the same in every
    thread of the block: constants, arguments, block ids, loads at a
    uniform address), warp-uniform (`tid floordiv 32k`, `tid < 32k`) or
    per-thread, and `scf.if`/`scf.for` results by what flows into them and
    the condition or bounds that decide it. Then every `gpu.barrier` must be
    under uniform control, and every `gpu.shuffle`, `nvgpu.ldmatrix` and
    `mma.sync` under warp-uniform control; otherwise the pass fails with an
    error on the op and a note at the condition that differs. The IR is not
    changed. The CPU path runs threads one after another and cannot see
    such a guard; on a GPU it is a hang or undefined behaviour
    (docs/Rationale/ConvergentOps.md). `mirage-loops-to-gpu` runs it after
    stage 4.

    Example (an error: threads 16-127 never reach the barrier):
    ```mlir
    %lt = arith.cmpi ult, %tid, %c16 : index
    scf.if %lt {
      gpu.barrier
    }
    ```
  }];
  let statistics = [
    Statistic<"numBarriers", "barriers", "barriers checked">,
    Statistic<"numWarpOps", "warp-ops",
              "shuffles, ldmatrix and mma.sync checked">,
  ];
}

def MirageGPUCheckSharedRaces
    : Pass<"mirage-gpu-check-shared-races", "::mlir::ModuleOp"> {
  let summary = "check: no two threads touch a shared byte between barriers "
                "unless both read";
  let description = [{
    For every `gpu.launch` of every `mirage_kernel.kernel` function: the
    kernel's index arithmetic (integers, `affine.apply`, `scf.for`/`scf.if`
    on known values, `memref.view`/`subview`/`collapse_shape`/
    `expand_shape`) runs once per thread of the block with block ids 0;
    data is unknown, and an `scf.if` on data runs both branches. Every
    access to workgroup memory (loads, stores, vector and transfer ops,
    `ldmatrix` rows, `cp.async` destinations from issue to the
    `cp.async.wait_group` that retires them) is recorded with its bytes and
    the barrier interval. Two threads touching a byte in one interval, one
    writing, fail the pass with an error on the later access and a note at
    the other. A launch whose shared addresses come from data gets a remark
    and is not checked. The IR is not changed. Loops longer than 16
    iterations without integer loop-carried values run their first and last
    8 (docs/Rationale/SharedMemoryRaces.md). `mirage-loops-to-gpu` runs it
    after the convergence check.

    Example (an error: thread t writes element t + 1, which thread t + 1
    reads before the barrier):
    ```mlir
    memref.store %v, %s[%t1] : memref<128xf32, #gpu.address_space<workgroup>>
    %x = memref.load %s[%t] : memref<128xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    ```
  }];
  let statistics = [
    Statistic<"numChecked", "launches-checked", "launches checked">,
    Statistic<"numSkipped", "launches-skipped",
              "launches whose addresses the check could not follow">,
    Statistic<"numAccesses", "accesses", "shared-memory accesses recorded">,
  ];
}

def MirageGPUSerializeToPTX
    : Pass<"mirage-gpu-serialize-to-ptx", "::mlir::ModuleOp"> {
  let summary = "stage 5: outline the kernels, lower to NVVM, write PTX";
  let description = [{
    Outlines the `gpu.launch` of every `mirage_kernel.kernel` function into one
    `gpu.module` (entry names = kernel names, one `.u64` parameter per memref
    argument, `.minnctapersm` from `mirage_kernel.min_blocks_per_sm`), lowers it to
    NVVM and serialises it to PTX; host functions are erased. A chip that is
    no target's is refused before anything is changed.

    The module is left holding one `gpu.binary @mirage_kernels_ptx` whose
    object has `assembly = "<PTX>"`; the binary carries `mirage_kernel.ptx_kernels`, a
    dictionary of kernel name to `[dynamic shared bytes, static shared
    bytes]`. `ptx-file` also writes the PTX text to a file.

    Example:
    ```mlir
    builtin.module @mirage_kernels {
      func.func @G_k0(...) attributes {mirage_kernel.kernel, ...} { gpu.launch ... }
    }
    // becomes
    builtin.module @mirage_kernels attributes {gpu.container_module} {
      gpu.binary @mirage_kernels_ptx {mirage_kernel.ptx_kernels = {G_k0 = array<i64: 0, 24576>}}
          [#gpu.object<#nvvm.target<chip = "sm_90", ...>, assembly = "...">]
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90\"",
           "NVPTX target chip: sm_80, sm_90 or sm_90a; any other is refused">,
    Option<"features", "features", "std::string", "\"+ptx80\"",
           "NVPTX target features (PTX ISA version)">,
    Option<"optLevel", "O", "int", "3", "NVPTX optimisation level">,
    Option<"cudaPath", "cuda-path", "std::string", "\"\"",
           "CUDA toolkit root for libdevice (default: $CUDA_ROOT, "
           "$CUDA_HOME, $CUDA_PATH, /usr/local/cuda)">,
    Option<"ptxFile", "ptx-file", "std::string", "\"\"",
           "also write the PTX text to this file">,
  ];
}

#endif // MIRAGE_CONVERSION_LOOPSTOGPUPASSES_TD

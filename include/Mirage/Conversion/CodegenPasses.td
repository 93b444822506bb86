//===- CodegenPasses.td - Kernel graphs to loops and the CPU -*- tablegen -*-===//
#ifndef MIRAGE_CONVERSION_CODEGENPASSES_TD
#define MIRAGE_CONVERSION_CODEGENPASSES_TD

include "mlir/Pass/PassBase.td"

def MirageLowerKernelsToLoops
    : Pass<"mirage-lower-kernels-to-loops", "::mlir::ModuleOp"> {
  let summary = "lower every kernel graph to target-neutral loop IR";
  let description = [{
    For every `mirage_kernel.graph` G in the module, expands its pre-defined
    kernel ops into graph-defined kernels (the same backend lowers the
    unfused reference and the fused μGraph) and emits, into a nested
    `builtin.module @mirage_kernels`, one `func.func @G_k<i>` per kernel and a
    host `func.func @G` that allocates the temporaries and calls the kernels
    in order. Arguments are static memrefs: the graph's inputs, then its
    outputs. The kernel graphs themselves are left unchanged.

    A kernel is an `scf.forall` over the grid (`#gpu.block`) whose body
    allocates its tiles in workgroup memory and runs the block graph's
    phases as sibling `scf.forall`s over threads (`#gpu.thread`) or warps
    (`#gpu.warp`, block matmuls as native 16x8x16 `vector.contract`), with an
    `scf.for` for the for-loop. Offsets, phases and accumulator rules come
    from `Semantics`; see docs/Rationale/Lowering.md. An element phase whose
    tile rows allow it gives each thread 4 (or 2) consecutive elements per
    step, read and written with aligned `vector.load`/`vector.store`
    (docs/Rationale/VectorElementPhases.md); one whose results are all
    stored in 16-bit floats computes exp as `math.exp2(x · log2 e)`
    (docs/Rationale/HalfPrecisionExp.md).

    A kernel that reads its predecessor's results only in tiles a group of
    the predecessor's blocks wrote, one of its blocks per group, and would
    be slower as its own launch, runs in the predecessor's function instead
    (`tail-combine`, docs/Rationale/TailCombine.md): each block counts
    itself into its group's counter (an `i32` argument the host function
    zeroes) between device-scope fences, and the last one of a group runs
    the group's block of the successor.

    Example (a 2-block kernel that doubles a 4x8 tensor):
    ```mlir
    module @mirage_kernels {
      func.func @g_k0(%in0: memref<4x8xf32>, %out0: memref<4x8xf32>)
          attributes {mirage_kernel.grid = array<i64: 2, 1, 1>, ...} {
        scf.forall (%bx, %by, %bz) in (2, 1, 1) {
          %t = memref.alloc() : memref<2x8xf32, #gpu.address_space<workgroup>>
          scf.forall (%tid) in (128) { ... } {mapping = [#gpu.thread<x>]}
          ...
        } {mapping = [#gpu.block<x>, #gpu.block<y>, #gpu.block<z>]}
        return
      }
      func.func @g(%in0: memref<4x8xf32>, %out0: memref<4x8xf32>) { ... }
    }
    ```
    A graph the lowering cannot handle gets an error naming the op and the
    reason; nothing is emitted for it.
  }];
  let options = [
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "emit block matmuls with f16/bf16 operands as warp-level native "
           "16x8x16 vector.contract (tensor cores on the GPU)">,
    Option<"tailCombine", "tail-combine", "bool", /*default=*/"true",
           "run a kernel that qualifies in its predecessor's launch, by the "
           "last block of each group (docs/Rationale/TailCombine.md)">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::vector::VectorDialect",
    "::mlir::affine::AffineDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
}

def MirageCheckOnCPU : Pass<"mirage-check-on-cpu", "::mlir::ModuleOp"> {
  let summary = "run every kernel graph's lowered code on the CPU and compare "
                "it with the float64 evaluator";
  let description = [{
    For every `mirage_kernel.graph`: lowers it to loops (as
    `mirage-lower-kernels-to-loops`), compiles the loop IR for the host
    (foralls to loops, workgroup tiles to stack buffers, vector to LLVM) and
    runs it with the MLIR ExecutionEngine on inputs drawn from `seed` by the
    counter-based generator that `mirage-run` also uses. Each output is
    compared with the float64 evaluator on the same inputs; the error is
    `max|got - ref| / max|ref|` and the tolerance depends on the dtype (f32
    1e-5, f16 1e-2, bf16 6e-2; see docs/Rationale/Lowering.md). A remark
    reports each graph; a mismatch, a NaN or a failure to compile is an
    error. The IR is not changed.

    An output the graph's element type cannot compute (f16 overflow, a
    power with a large exponent) is not called wrong code: where the
    evaluator rounding every value to that type misses float64 by more than
    the type's tolerance, the output is checked only within that (the
    lowered code may miss by the tolerance plus twice the rounded
    evaluator's miss, and be non-finite only where it is), with a warning
    that says so (docs/Rationale/Sanitizers.md, "The code-generation
    campaign"). A tolerance tighter than the type's own is never explained
    away.

    ```
    $ mirage-opt g.mlir --mirage-check-on-cpu -o /dev/null
    remark: graph 'rmsnorm_matmul_best' on the CPU matches the evaluator: max relative error 1.9e-04 (f16 tolerance 1.0e-02)
    ```
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", /*default=*/"1",
           "seed of the input values">,
    Option<"tolerance", "tolerance", "double", /*default=*/"0",
           "relative tolerance; 0 takes the dtype's default">,
    Option<"tailCombine", "tail-combine", "bool", /*default=*/"true",
           "run a kernel that qualifies in its predecessor's launch, by the "
           "last block of each group (docs/Rationale/TailCombine.md)">,
  ];
}

def MirageKernelsToPTX : Pass<"mirage-kernels-to-ptx", "::mlir::ModuleOp"> {
  let summary = "write PTX and a mirage-run manifest for every kernel graph";
  let description = [{
    For every `mirage_kernel.graph` G: lowers it to loops (as
    `mirage-lower-kernels-to-loops`), then through the GPU path
    (`lowerLoopsToPTX`: blocks and threads, tensor cores, async copies,
    shared memory, NVVM) to one PTX module, and writes into `output-dir`:

    G is the graph's name with characters other than [A-Za-z0-9_] replaced
    by `_`, made unique: a name that is already a valid symbol is kept, and
    a graph whose name would repeat another's (ignoring case, for file
    systems that do) gets the first free `G_<n>`, so no file overwrites
    another graph's (`a/b` and `a_b` become `a_b_1` and `a_b`).

    * `G.<chip>.ptx`: the kernels of G, entry names `G_k0`, `G_k1`, ...;
    * `G.<chip>.manifest.json`: the launch plan for `mirage-run` (buffers with
      role, dtype and shape; kernels with grid, block, static and dynamic
      shared memory, arguments, and each kernel's launch plan
      (docs/Rationale/LaunchPlan.md): planned shared memory, pipeline
      stages, matmuls and how many on tensor cores, bytes in flight per SM,
      the cost model's estimate; the seed and the tolerance);
    * `G.out<i>.f32` (when the graph is small enough, see
      `expected-max-elements`): the float64 evaluator's outputs on the
      manifest's seeded inputs, so `mirage-run` checks the GPU's results
      against the host semantics.

    The chip and the target are one choice: `chip` names the code generator's
    chip, `target` the record (Target.h) the launch plans and the cost model
    use; either follows from the other (sm_90 is h100, sm_80 a100), neither
    given takes the graph's target, and a pair that disagrees is refused, as
    is a chip that is no target's (sm_75: the NVPTX back end would abort).
    A kernel whose plan cannot launch on the target (shared memory, threads)
    is an error naming the kernel and the limit, and so is a kernel whose
    lowering allocated other shared memory than its plan.

    A remark names the files. The IR is not changed. A graph that cannot be
    lowered gets an error naming the op and the reason.

    ```
    $ mirage-opt g.mlir --mirage-kernels-to-ptx="chip=sm_90 output-dir=out" -o /dev/null
    remark: graph 'rmsnorm_matmul_best': wrote out/rmsnorm_matmul_best.sm_90.ptx and out/rmsnorm_matmul_best.sm_90.manifest.json (1 kernel, 1 of 1 matmuls on tensor cores)
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "target record (Target.h: h100, a100) the launch plans are made "
           "for; empty: the chip's, else the graph's">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "NVPTX chip (sm_80, sm_90, sm_90a); empty: the target's. A chip "
           "that is not the target's is refused">,
    Option<"outputDir", "output-dir", "std::string", /*default=*/"\".\"",
           "directory the PTX, manifests and expected outputs go to">,
    Option<"seed", "seed", "uint64_t", /*default=*/"1",
           "seed of the inputs the expected outputs are computed on">,
    Option<"expectedMaxElements", "expected-max-elements", "int64_t",
           /*default=*/"4194304",
           "write expected outputs only for graphs with at most this many "
           "input and output elements (0: never)">,
    Option<"asyncCopies", "async-copies", "bool", /*default=*/"true",
           "turn 16-byte global-to-shared copies into cp.async">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "allow tf32 tensor cores for f32 matmuls">,
    Option<"swizzle", "swizzle", "bool", /*default=*/"true",
           "XOR-swizzle the shared tiles that ldmatrix reads (false: plain "
           "row-major tiles, to bisect a layout problem)">,
    Option<"tailCombine", "tail-combine", "bool", /*default=*/"true",
           "run a kernel that qualifies in its predecessor's launch, by the "
           "last block of each group (docs/Rationale/TailCombine.md); false "
           "launches every kernel">,
    Option<"warpReductions", "warp-reductions", "bool", /*default=*/"true",
           "fold row-reduction trees in warps with shuffles "
           "(docs/Rationale/WarpReductions.md); false keeps a phase and a "
           "barrier per level">,
    Option<"eliminateBarriers", "eliminate-barriers", "bool",
           /*default=*/"true",
           "drop the barriers between phases whose memory effects do not "
           "conflict (upstream gpu-eliminate-barriers, and stage 3 once the "
           "copies are cp.async; docs/Rationale/BarrierElimination.md)">,
    Option<"keepGoing", "keep-going", "bool", /*default=*/"false",
           "a graph that cannot be lowered gets a warning and no files, and "
           "the module's other graphs are still written (the "
           "mirage-superoptimize-to-ptx pipeline sets it); a wrong target "
           "or chip still fails the pass">,
  ];
  let statistics = [
    Statistic<"numGraphsWritten", "graphs-written",
              "kernel graphs written as PTX and a manifest">,
    Statistic<"numKernels", "kernels", "GPU kernels written">,
    Statistic<"numMatmuls", "matmuls", "block matmuls in the kernels">,
    Statistic<"numTensorCoreMatmuls", "tensor-core-matmuls",
              "block matmuls on tensor cores (mma.sync), by the launch plan">,
    Statistic<"numPipelinedKernels", "pipelined-kernels",
              "kernels whose for-loop copies run in a multi-stage cp.async "
              "pipeline">,
    Statistic<"numAsyncCopies", "async-copies",
              "tile copies issued as grouped 16-byte cp.async">,
    Statistic<"numDependentLaunches", "dependent-launches",
              "kernels launched as programmatic dependents of the kernel "
              "before them (griddepcontrol.wait, sm_90)">,
  ];
}

#endif // MIRAGE_CONVERSION_CODEGENPASSES_TD

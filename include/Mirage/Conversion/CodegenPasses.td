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
    from `Semantics`; see docs/Rationale/Lowering.md.

    Example (a 2-block kernel that doubles a 4x8 tensor):
    ```mlir
    module @mirage_kernels {
      func.func @g_k0(%in0: memref<4x8xf32>, %out0: memref<4x8xf32>)
          attributes {mirage.grid = array<i64: 2, 1, 1>, ...} {
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
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::vector::VectorDialect",
    "::mlir::affine::AffineDialect", "::mlir::gpu::GPUDialect"
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
  ];
}

#endif // MIRAGE_CONVERSION_CODEGENPASSES_TD

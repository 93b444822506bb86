//===- LoopsToGPU.h - Loop-level kernels to PTX ----------------*- C++ -*-===//
//
// The GPU half of the code generator: takes the target-neutral loop IR of
// mirage-lower-kernels-to-loops (scf.forall over #gpu.block / #gpu.thread /
// #gpu.warp, workgroup memref.alloc tiles, vector.contract) to PTX.
// See docs/Rationale/Lowering.md ("GPU path").
//
// Stages, one file each under lib/Conversion/LoopsToGPU/:
//   1. MapToGPU.cpp       foralls -> gpu.launch, LICM, accumulators into
//                         registers (hoisted vector transfers)
//   2. TensorCores.cpp    vector.contract -> nvgpu.ldmatrix + mma.sync (f16,
//                         bf16 through nvvm.mma.sync)
//   3. AsyncCopies.cpp    16-byte global->shared copies -> cp.async groups,
//                         XOR-swizzled shared tiles, the launch plan's
//                         multi-stage pipelines as cp.async groups
//   4. WorkgroupAllocToGlobal.cpp  workgroup allocs -> .shared globals or
//                         views of dynamic shared memory
//   5. ToPTX.cpp          outlining into one gpu.module, NVVM, PTX
// StagePasses.cpp makes each a pass; LoopsToPTX.cpp chains them (the pipeline
// mirage-loops-to-gpu, lowerLoopsToPTX). UpstreamWorkarounds.{h,cpp}: every
// workaround of an upstream MLIR 22 defect, each pinned by a test.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_CONVERSION_LOOPSTOGPU_H
#define MIRAGE_CONVERSION_LOOPSTOGPU_H

#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace mirage {
#define GEN_PASS_DECL
#include "Mirage/Conversion/LoopsToGPUPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "Mirage/Conversion/LoopsToGPUPasses.h.inc"

/// Registers the passes and pipelines of this library.
void registerLoopsToGPU();
/// Registers the pipeline mirage-loops-to-gpu (part of registerLoopsToGPU).
void registerLoopsToGPUPipeline();

/// Attributes of a kernel function after stage 4 (SharedPlacement): the
/// dynamic shared bytes its launch must request, or its static .shared
/// bytes; absent when 0.
using kernel::kDynamicSharedBytesAttr;
using kernel::kStaticSharedBytesAttr;
/// Attribute of the gpu.binary stage 5 writes: kernel name ->
/// [dynamic shared bytes, static shared bytes].
using kernel::kPtxKernelsAttr;

/// Adds the dialects and extensions the GPU lowering creates or interprets
/// (gpu, nvgpu, nvvm, llvm, the NVVM target and LLVM IR translation
/// interfaces). A pass that calls lowerLoopsToPTX
/// must call this from its getDependentDialects, since dialects cannot be
/// loaded while a pass runs.
void registerLoopsToGPUDependentDialects(mlir::DialectRegistry &registry);

//===----------------------------------------------------------------------===//
// Whole lowering
//===----------------------------------------------------------------------===//

struct GpuCodegenOptions {
  /// NVPTX target; sm_80 and sm_90 are tested (sm_90a works the same way).
  /// The default is the default target's (Target.h: h100 is sm_90). Other
  /// chips are refused (lookupTargetByChip).
  std::string chip = "sm_90";
  /// PTX ISA; +ptx80 is valid for every chip above and needs a 12.0 driver.
  std::string features = "+ptx80";
  /// LLVM optimisation level of the NVPTX back end.
  int optLevel = 3;
  /// Map f32 warp contractions onto tf32 tensor cores (lower precision);
  /// off, they are rejected (the loop IR emits f32 graphs as FMA loops).
  bool tf32 = false;
  /// Let f32 multiply-adds fuse into fma.rn (nvcc's default -fmad=true).
  bool fmaContraction = true;
  /// Stage 3: global->shared 16-byte copies become cp.async groups.
  bool asyncCopies = true;
  /// Stage 3: XOR-swizzle shared tiles read by ldmatrix.
  bool swizzleSharedMemory = true;
  /// Stage 0: reduction trees folded in warps with shuffles.
  bool warpReductions = true;
  /// After stage 1: upstream's gpu-eliminate-barriers drops the barriers
  /// between phases whose memory effects do not conflict, and stage 3 those
  /// that order nothing once the copies are cp.async
  /// (docs/Rationale/BarrierElimination.md).
  bool eliminateBarriers = true;
  /// Above this many bytes of workgroup buffers a kernel uses dynamic shared
  /// memory (ptxas rejects more than 48 KiB of static .shared data).
  int64_t maxStaticSharedBytes = 48 * 1024;
  /// Bytes left unused at the start of dynamic shared memory (see
  /// gpu-lowering.md 7.3: the position of the dynamic base relative to other
  /// .shared symbols is unverified on hardware).
  int64_t dynamicSharedReserve = 1024;
  /// CUDA toolkit root, for libdevice (math functions); empty: CUDA_ROOT,
  /// CUDA_HOME, CUDA_PATH, else /usr/local/cuda. No other toolkit part is
  /// used (the output is PTX text).
  std::string cudaPath;
  /// Also write the PTX text to this file (the pipeline's ptx-file).
  std::string ptxFile;
};

struct PtxKernelInfo {
  /// Entry name in the PTX (= the kernel func.func's name).
  std::string name;
  /// Bytes the launcher must pass as dynamic shared memory (and set as
  /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES when above 48 KiB).
  int64_t dynamicSharedBytes = 0;
  /// Bytes of static .shared data of the kernel (informational).
  int64_t staticSharedBytes = 0;
};

struct PtxModule {
  std::string ptx;
  llvm::SmallVector<PtxKernelInfo> kernels;
};

/// Lowers a @mirage_kernels module (the contract in Lowering.md) in place to
/// PTX and returns the PTX text: one PTX module holding every kernel of the
/// module, entry names equal to the kernel function names, one .u64 parameter
/// per memref argument in order. On failure, errors are emitted on the module
/// and failure is returned. Host functions of the module are erased; on
/// success the module holds one gpu.binary named @mirage_kernels_ptx.
///
/// The dialects of registerLoopsToGPUDependentDialects must be loaded.
llvm::FailureOr<PtxModule> lowerLoopsToPTX(mlir::ModuleOp kernels,
                                           const GpuCodegenOptions &opts);

/// The stages of the lowering, in order; a pipeline may stop after any.
enum class GpuStage { Map, Mma, Copies, Smem, Ptx };

/// Adds the stage passes, up to and including `last`, to `pm` (anchored on
/// the @mirage_kernels module): mirage-gpu-warp-reductions (with
/// `opts.warpReductions`), mirage-gpu-map-foralls, gpu-eliminate-barriers
/// on every function (with `opts.eliminateBarriers`),
/// mirage-gpu-tensor-cores, mirage-gpu-async-copies,
/// mirage-workgroup-alloc-to-global, mirage-gpu-check-convergence,
/// mirage-gpu-check-shared-races, mirage-gpu-serialize-to-ptx. This is
/// the registered pipeline `mirage-loops-to-gpu` and what lowerLoopsToPTX
/// runs.
void buildLoopsToGPUPipeline(mlir::OpPassManager &pm,
                             const GpuCodegenOptions &opts,
                             GpuStage last = GpuStage::Ptx);

//===----------------------------------------------------------------------===//
// Stages (each usable on its own; lowerLoopsToPTX runs them in this order)
//===----------------------------------------------------------------------===//

/// Functions of `module` carrying the `mirage_kernel.kernel` attribute.
llvm::SmallVector<mlir::func::FuncOp> getMirageKernels(mlir::ModuleOp module);

/// What stage 0 did to a kernel's row-reduction trees.
struct WarpReductionCounts {
  int64_t trees = 0;         // tagged trees seen
  int64_t folded = 0;        // folded with shuffles
  int64_t kept = 0;          // left as phases (not a whole f32 tree)
  int64_t phasesRemoved = 0; // phases (and so barriers) fewer
};

/// Stage 0: the levels of every row-reduction tree of `kernel` (foralls
/// tagged `mirage_kernel.reduction_tree`) become one phase that folds each
/// output's lanes with `gpu.shuffle xor`, the level's own combine in the
/// tree's order (docs/Rationale/WarpReductions.md). A tree that is not whole
/// (its levels apart, another combine, non-f32 scratch) is left as it is.
mlir::LogicalResult foldReductionTreesInWarps(mlir::func::FuncOp kernel,
                                              WarpReductionCounts &counts);

/// Stage 1: maps the block forall of `kernel` to a gpu.launch with the grid of
/// the forall and the block of `mirage_kernel.block`, the nested thread and warp
/// foralls to thread ids (with a barrier after each), then hoists loop
/// invariants and keeps warp accumulators in registers across the for-loop.
mlir::LogicalResult mapKernelToGPU(mlir::func::FuncOp kernel);

/// Stage 2: maps every vector.contract of `kernel` to tensor cores (f16, bf16,
/// f32 with tf32), and fails with an error on the contract if one cannot be
/// mapped. With `fmaContraction`, scalar f32 mulf/addf/subf get
/// fastmath<contract> so that they fuse to fma.rn.
mlir::LogicalResult convertContractsToTensorCores(mlir::func::FuncOp kernel,
                                                  bool tf32,
                                                  bool fmaContraction = true);

/// Stage 3: cp.async for 16-byte global->shared copies and XOR swizzling of
/// shared tiles; the pipelined copies of the loop IR (kPrefetchStagesAttr)
/// become one cp.async group per stage with wait_group S-1 in the loop.
/// Copies that do not fit stay synchronous; fails on malformed pipeline
/// marks, and when a shared tile would be read before its copies landed
/// (verifyAsyncCopiesLand).
/// With `dropBarriers`, the barriers that order nothing once the copies are
/// cp.async go (dropBarriersOrderingNothing), and `droppedBarriers`, when
/// given, is incremented by their number.
mlir::LogicalResult
optimizeSharedMemoryCopies(mlir::func::FuncOp kernel, bool asyncCopies,
                           bool swizzle, bool dropBarriers = true,
                           int64_t *droppedBarriers = nullptr);

/// Stage 3's barrier clean-up (AsyncBarriers.cpp): drops every barrier of
/// `kernel` whose two sides do not conflict once its copies are cp.async,
/// a copy counting as a write where it is issued after the barrier and a
/// wait as a write of every copied tile before it (BarrierElimination.md);
/// returns how many.
int64_t dropBarriersOrderingNothing(mlir::func::FuncOp kernel);

/// Checks stage 3's output (AsyncCopyOrder.cpp): in program order, every
/// read of a shared tile that one cp.async group writes comes after a
/// cp.async.wait_group that retired the group and a barrier after it.
/// Fails with an error on the first read that does not.
mlir::LogicalResult verifyAsyncCopiesLand(mlir::func::FuncOp kernel);

/// What the convergence check saw.
struct ConvergenceCounts {
  int64_t barriers = 0; // block barriers checked
  int64_t warpOps = 0;  // shuffles, ldmatrix, mma.sync checked
};

/// Checks the last stage's output (ConvergentOps.cpp,
/// docs/Rationale/ConvergentOps.md): every barrier of a gpu.launch sits
/// under control that is the same in every thread of the block, every
/// shuffle, ldmatrix and mma.sync under control that is the same in every
/// lane of a warp. Fails with an error on the first op that does not, and a
/// note at the condition or loop that differs.
mlir::LogicalResult verifyConvergentOps(mlir::func::FuncOp kernel,
                                        ConvergenceCounts *counts = nullptr);

/// What the shared-memory race check saw.
struct SharedRaceCounts {
  int64_t checked = 0;  // launches checked
  int64_t skipped = 0;  // launches it could not follow (a remark says why)
  int64_t accesses = 0; // shared-memory accesses recorded
};

/// Checks the last stage's output (SharedRaces.cpp,
/// docs/Rationale/SharedMemoryRaces.md): the index arithmetic of every
/// gpu.launch runs once per thread; no two threads may touch a byte of
/// workgroup memory between two barriers unless both only read (cp.async
/// destinations count as written from issue to the wait that retires
/// them). Fails with an error on the first race; a launch whose addresses
/// it cannot follow gets a remark and is not checked.
mlir::LogicalResult verifySharedMemoryRaceFree(
    mlir::func::FuncOp kernel, SharedRaceCounts *counts = nullptr);

/// Where stage 4 put a kernel's workgroup buffers: bytes of static .shared
/// data, or the dynamic shared memory its launch must request (one of them
/// is 0).
struct SharedPlacement {
  int64_t staticBytes = 0;
  int64_t dynamicBytes = 0;
};

/// Stage 4: replaces the workgroup memref.allocs of `kernel` by module-level
/// workgroup memref.globals, or, when their total exceeds `maxStaticBytes`,
/// by memref.views of gpu.dynamic_shared_memory at offsets from `reserve` on.
llvm::FailureOr<SharedPlacement> placeWorkgroupBuffers(mlir::func::FuncOp kernel,
                                                       int64_t maxStaticBytes,
                                                       int64_t reserve);

/// Stage 5: outlines the gpu.launch of every kernel into one gpu.module
/// (entry = kernel name), erases host code, lowers to NVVM with the
/// bare-pointer ABI and serialises to PTX.
llvm::FailureOr<std::string> outlineAndSerializeToPTX(
    mlir::ModuleOp kernels, const GpuCodegenOptions &opts);

//===----------------------------------------------------------------------===//
// Pattern sets
//===----------------------------------------------------------------------===//

/// Rewrites `scf.for %i = %tid to %ub step %n` with %tid a thread id of a
/// dimension of size %n and %ub a multiple of %n into a loop with a constant
/// trip count (lb 0, step 1, body on %tid + %j * %n), so copy loops can be
/// fully unrolled; a loop of cp.async copies whose %ub is not a multiple
/// of %n gets its remainder trip as an `scf.if %tid < %ub mod %n` before
/// the normalised loop of its %ub / %n whole trips. `blockDims` are the
/// launch's block sizes.
void populateThreadStrideLoopNormalizationPatterns(
    mlir::RewritePatternSet &patterns, llvm::ArrayRef<int64_t> blockDims);

/// Lowers the vector.transfer_read/write that no GPU-specific stage took
/// (n-D ones fully unrolled to 1-D, then vector.load/store), since
/// convert-gpu-to-nvvm has no lowering for transfers.
void populateVectorTransferToLoadStorePatterns(
    mlir::RewritePatternSet &patterns);

/// Lowers `nvgpu.mma.sync` with bf16 multiplicands (which upstream
/// NVGPUToNVVM cannot lower in LLVM 22) to `nvvm.mma.sync` on i32-packed
/// bf16 pairs. Works before the LLVM conversion: operands stay builtin
/// vectors and the result is reassembled into the nvgpu fragment type.
void populateBF16MmaSyncToNVVMPatterns(mlir::RewritePatternSet &patterns);

} // namespace mirage

#endif // MIRAGE_CONVERSION_LOOPSTOGPU_H

//===- MapToGPU.cpp - Stage 1: foralls to gpu.launch, accumulators in regs ===//
//
// The block forall becomes a gpu.launch (grid = forall trip counts, block =
// `mirage_kernel.block`, the induction variables gpu.block_id), then thread and warp
// foralls become thread-id guarded bodies with a barrier after each
// (upstream's mapNestedForallToThreadsImpl, called from C++). Then
// loop-invariant code leaves the for-loop and the warp phases'
// read/contract/write of accumulator tiles becomes loop-carried registers
// (gpu-lowering.md 4).
//
// The block mapping is ours, not upstream's mapForallToBlocksImpl: that entry
// point and createGpuLaunch report errors through a transform op they require
// (a null one would be dereferenced on the error path), and the mapping of a
// normalized static forall onto a launch of the same extents is a few lines.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/VectorTransforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/Debug.h"

#include "SharedTiles.h"
#include "Simplify.h"

#define DEBUG_TYPE "mirage-loops-to-gpu"

using namespace mlir;

namespace mirage {
namespace detail {
/// Canonicalization patterns of every loaded dialect and registered op (what
/// the canonicalize pass uses), frozen once per call site.
FrozenRewritePatternSet getCanonicalizationPatterns(MLIRContext *ctx) {
  RewritePatternSet patterns(ctx);
  for (Dialect *d : ctx->getLoadedDialects())
    d->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  return FrozenRewritePatternSet(std::move(patterns));
}

void simplify(Operation *root) {
  (void)applyPatternsGreedily(root,
                              getCanonicalizationPatterns(root->getContext()));
  IRRewriter rewriter(root->getContext());
  DominanceInfo dom(root);
  eliminateCommonSubExpressions(rewriter, dom, root);
}
} // namespace detail
} // namespace mirage

SmallVector<func::FuncOp> mirage::getMirageKernels(ModuleOp module) {
  SmallVector<func::FuncOp> kernels;
  for (auto f : module.getOps<func::FuncOp>())
    if (f->hasAttr(mirage::kernel::kKernelAttr))
      kernels.push_back(f);
  return kernels;
}

/// Replaces `forall`, normalized with static extents and mapped to
/// #gpu.block<x|y|z>, by a gpu.launch whose grid is its extents (1 along an
/// unmapped dimension) and whose block is `blockDims`; its induction
/// variables become gpu.block_id along their mapped dimension.
static FailureOr<gpu::LaunchOp> launchOverBlocks(RewriterBase &rewriter,
                                                 scf::ForallOp forall,
                                                 ArrayRef<int64_t> blockDims) {
  Location loc = forall.getLoc();
  std::optional<SmallVector<int64_t>> lbs =
      getConstantIntValues(forall.getMixedLowerBound());
  std::optional<SmallVector<int64_t>> ubs =
      getConstantIntValues(forall.getMixedUpperBound());
  std::optional<SmallVector<int64_t>> steps =
      getConstantIntValues(forall.getMixedStep());
  if (!lbs || !ubs || !steps || forall.getNumResults() != 0 ||
      llvm::any_of(*lbs, [](int64_t v) { return v != 0; }) ||
      llvm::any_of(*steps, [](int64_t v) { return v != 1; }))
    return forall.emitError("the block forall must have static extents, "
                            "zero lower bounds, unit steps and no results");
  ArrayAttr mapping = *forall.getMapping();
  SmallVector<int64_t, 3> grid = {1, 1, 1};
  SmallVector<gpu::Dimension> dimOfIv;
  llvm::SmallBitVector used(3);
  for (auto [iv, attr] : llvm::enumerate(mapping)) {
    auto m = cast<gpu::GPUBlockMappingAttr>(attr);
    int64_t d = static_cast<int64_t>(m.getBlock()) -
                static_cast<int64_t>(gpu::MappingId::DimX);
    if (d < 0 || d > 2 || used.test(d))
      return forall.emitError("the block forall must map each induction "
                              "variable to a distinct #gpu.block<x|y|z>");
    used.set(d);
    grid[d] = (*ubs)[iv];
    dimOfIv.push_back(static_cast<gpu::Dimension>(d));
  }

  rewriter.setInsertionPoint(forall);
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  auto launch =
      gpu::LaunchOp::create(rewriter, loc, idx(grid[0]), idx(grid[1]),
                            idx(grid[2]), idx(blockDims[0]), idx(blockDims[1]),
                            idx(blockDims[2]));
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPointToStart(&body);
  SmallVector<Value> ids;
  for (gpu::Dimension d : dimOfIv)
    ids.push_back(gpu::BlockIdOp::create(rewriter, loc, d));
  // The forall's body without its (empty) in_parallel terminator.
  rewriter.eraseOp(forall.getBody()->getTerminator());
  rewriter.inlineBlockBefore(forall.getBody(), terminator, ids);
  rewriter.eraseOp(forall);
  return launch;
}

/// The hoisted accumulator writes land after the for-loop, past the
/// barrier at the end of its body that ordered them before the next phase
/// when they were inside it; the phase after the loop reads tiles other
/// warps wrote. A barrier after the last of them restores the order
/// (barrier elimination removes it where nothing reads them; the
/// shared-memory race check found the race: SharedMemoryRaces.md).
static void orderHoistedAccumulatorWrites(func::FuncOp kernel) {
  kernel.walk([](scf::ForOp loop) {
    // Only the launch's phase loops: a barrier in their body, so every
    // thread of the block runs them, at the top level of the launch or
    // under conditions alone (a tail's "this block completed its group",
    // TailCombine.md, which every thread reads from shared memory).
    Operation *parent = loop->getParentOp();
    while (isa_and_nonnull<scf::IfOp>(parent))
      parent = parent->getParentOp();
    const bool phaseLoop =
        isa_and_nonnull<gpu::LaunchOp>(parent) &&
        loop.getBody()
            ->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    if (!phaseLoop)
      return;
    Operation *lastWrite = nullptr;
    for (Operation *op = loop->getNextNode(); op; op = op->getNextNode()) {
      auto w = dyn_cast<vector::TransferWriteOp>(op);
      if (w && w.getVector().getDefiningOp() == loop.getOperation() &&
          mirage::detail::isSharedMemRef(w.getBase().getType()))
        lastWrite = op;
    }
    if (!lastWrite || isa_and_nonnull<gpu::BarrierOp>(lastWrite->getNextNode()))
      return;
    OpBuilder b(lastWrite->getContext());
    b.setInsertionPointAfter(lastWrite);
    gpu::BarrierOp::create(b, lastWrite->getLoc());
  });
}

LogicalResult mirage::mapKernelToGPU(func::FuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  auto block =
      kernel->getAttrOfType<DenseI64ArrayAttr>(mirage::kernel::kBlockAttr);
  if (!block || block.size() != 3 ||
      llvm::any_of(block.asArrayRef(), [](int64_t d) { return d <= 0; }))
    return kernel.emitError("mirage kernel needs `")
           << mirage::kernel::kBlockAttr
           << " = array<i64: x, y, z>` with positive sizes";
  auto foralls = llvm::to_vector(kernel.getOps<scf::ForallOp>());
  if (foralls.size() != 1 || !foralls.front().getMapping() ||
      !llvm::all_of(*foralls.front().getMapping(), [](Attribute a) {
        return isa<gpu::GPUBlockMappingAttr>(a);
      }))
    return kernel.emitError("mirage kernel body must be one scf.forall "
                            "mapped to #gpu.block<...>");

  IRRewriter rewriter(ctx);
  FailureOr<gpu::LaunchOp> launch =
      launchOverBlocks(rewriter, foralls.front(), block.asArrayRef());
  if (failed(launch))
    return failure();
  rewriter.setInsertionPointToStart(&launch->getBody().front());
  DiagnosedSilenceableFailure mapped =
      transform::gpu::mapNestedForallToThreadsImpl(
          rewriter, std::nullopt, *launch, block.asArrayRef(),
          /*warpSize=*/32, /*syncAfterDistribute=*/true);
  if (!mapped.succeeded()) {
    (void)mapped.silence();
    return kernel.emitError("mapping the kernel's thread and warp foralls to "
                            "the GPU failed");
  }
  LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] mapped " << kernel.getName()
                          << "\n");

  // The mapping syncs after every phase, the last one included; a barrier
  // right before the kernel ends orders nothing.
  kernel.walk([](gpu::LaunchOp launch) {
    Block &body = launch.getBody().back();
    Operation *term = body.getTerminator();
    if (auto barrier = dyn_cast_or_null<gpu::BarrierOp>(term->getPrevNode()))
      barrier.erase();
  });

  // Index math of the warp phases depends only on thread ids: hoist it so
  // that the accumulator transfers have loop-invariant indices.
  detail::simplify(kernel);
  kernel.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
  detail::simplify(kernel);
  // Accumulator tiles: read before / write after the for-loop, carried in
  // iter_args (legal: each warp alone touches its tiles inside the loop).
  linalg::hoistRedundantVectorTransfers(kernel);
  vector::transferOpflowOpt(rewriter, kernel);
  detail::simplify(kernel);
  orderHoistedAccumulatorWrites(kernel);
  return success();
}

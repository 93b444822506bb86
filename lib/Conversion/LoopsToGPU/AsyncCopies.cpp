//===- AsyncCopies.cpp - Stage 3: cp.async copies, swizzled shared tiles --===//
//
// Copy phases move global tiles to shared memory as 16-byte
// vector.transfer_read/write pairs inside per-thread loops
// `scf.for %i = %tid to %n step 128`. nvgpu::createAsyncGroups turns such
// pairs into cp.async, one group per straight-line run of copies; a loop
// around a copy would give one group and one wait per iteration
// (gpu-lowering.md 5), so the loops are first rewritten to a constant trip
// count and fully unrolled. Then nvgpu's XOR swizzle is applied to every
// shared tile whose accesses it understands (ldmatrix, cp.async, loads and
// stores) and whose rows it permutes (a power-of-two last dim); it declines
// the others without changing them.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Conversion/KernelToLoops.h"
#include "Mirage/Semantics/KernelPlan.h"
#include "UpstreamWorkarounds.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#include <map>

#include "SharedTiles.h"
#include "Simplify.h"

#define DEBUG_TYPE "mirage-loops-to-gpu"

using namespace mlir;

namespace {

bool isWorkgroup(Type t) { return mirage::detail::isSharedMemRef(t); }

/// scf.for %i = %tid.d to %ub step %n, %n = blockDims[d], %ub % %n == 0
/// ==> scf.for %j = 0 to %ub / %n step 1 { %i = %tid.d + %j * %n; ... }
/// A loop of cp.async copies whose %ub is not a multiple of %n also gets
/// its remainder trip, guarded (LaunchPlan.md, "Pipelines"):
/// ==> scf.if %tid.d < %ub mod %n { %i = %tid.d + (%ub / %n) * %n; ... }
///     scf.for %j = 0 to %ub / %n ...
struct NormalizeThreadStrideLoop : OpRewritePattern<scf::ForOp> {
  NormalizeThreadStrideLoop(MLIRContext *ctx, ArrayRef<int64_t> blockDims)
      : OpRewritePattern(ctx), blockDims(blockDims) {}

  LogicalResult matchAndRewrite(scf::ForOp loop,
                                PatternRewriter &rewriter) const override {
    auto tid = loop.getLowerBound().getDefiningOp<gpu::ThreadIdOp>();
    if (!tid)
      return failure();
    unsigned dim = static_cast<unsigned>(tid.getDimension());
    if (dim >= blockDims.size())
      return failure();
    int64_t n = blockDims[dim];
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    if (!step || !ub || *step != n || *ub < 0)
      return rewriter.notifyMatchFailure(loop, "not a whole-block stride");
    int64_t whole = *ub / n, rest = *ub % n;
    // A remainder is worth its guarded copy of the body only for cp.async
    // copies, which then join their group unrolled (LaunchPlan.md).
    bool copies = llvm::any_of(loop.getBody()->getOperations(), [](auto &op) {
      return isa<nvgpu::DeviceAsyncCopyOp>(op);
    });
    if (rest != 0 && (!copies || loop.getNumResults() != 0))
      return rewriter.notifyMatchFailure(loop, "a remainder of no copies");
    Location loc = loop.getLoc();
    AffineExpr t, j;
    bindDims(getContext(), t, j);
    if (rest != 0) {
      // The remainder trip first, in front of the loop: its body is cloned
      // before the loop's own is moved into the normalised loop.
      Value cond = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, tid,
          arith::ConstantIndexOp::create(rewriter, loc, rest));
      auto guard = scf::IfOp::create(rewriter, loc, cond,
                                     /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPointToStart(guard.thenBlock());
      IRMapping map;
      map.map(loop.getInductionVar(),
              affine::AffineApplyOp::create(rewriter, loc,
                                            AffineMap::get(1, 0, t + whole * n),
                                            ValueRange{tid.getResult()}));
      for (Operation &op : loop.getBody()->without_terminator())
        rewriter.clone(op, map);
    }
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value trips = arith::ConstantIndexOp::create(rewriter, loc, whole);
    auto newLoop = scf::ForOp::create(rewriter, loc, zero, trips, one,
                                      loop.getInitArgs());
    rewriter.setInsertionPointToStart(newLoop.getBody());
    Value iv = affine::AffineApplyOp::create(
        rewriter, loc, AffineMap::get(2, 0, t + j * n),
        ValueRange{tid, newLoop.getInductionVar()});
    SmallVector<Value> args{iv};
    llvm::append_range(args, newLoop.getRegionIterArgs());
    // The new body already holds its terminator; merge the old body in front.
    rewriter.eraseOp(newLoop.getBody()->getTerminator());
    rewriter.mergeBlocks(loop.getBody(), newLoop.getBody(), args);
    rewriter.replaceOp(loop, newLoop.getResults());
    return success();
  }

  SmallVector<int64_t> blockDims;
};

/// A global -> workgroup vector copy that createAsyncGroups can take.
bool isCopy(vector::TransferWriteOp w) {
  auto r = w.getVector().getDefiningOp<vector::TransferReadOp>();
  return r && isWorkgroup(w.getBase().getType()) &&
         !isWorkgroup(r.getBase().getType());
}

/// The ancestor of `op` (or `op`) that a gpu.barrier follows in its block:
/// the mapped phase the op belongs to.
Operation *phaseOf(Operation *op) {
  for (Operation *a = op; a; a = a->getParentOp())
    for (Operation *n = a->getNextNode(); n; n = n->getNextNode())
      if (isa<gpu::BarrierOp>(n))
        return a;
  return nullptr;
}

/// When the phase after a group's copies was merged into theirs (the
/// barrier between them dropped, as it saw synchronous copies to other
/// tiles, then the two scf.if on the same thread guard combined), the ops
/// after the group's last copy in `phase` that read `tiles` must wait for
/// an earlier group: they move to an scf.if of their own on the same
/// condition right after `phase` (pure ops they use are cloned along), so
/// that the wait and its barrier can go between. False when `phase` has
/// no such reads, or is not a plain scf.if whose ops allow the split.
bool splitReadsAfterCopies(RewriterBase &rw, Operation *phase,
                           ArrayRef<Operation *> copies,
                           const llvm::SmallSetVector<Value, 4> &tiles) {
  auto ifOp = dyn_cast<scf::IfOp>(phase);
  if (!ifOp || ifOp.getNumResults() != 0 || !ifOp.getElseRegion().empty())
    return false;
  Block *body = ifOp.thenBlock();
  Operation *lastCopy = nullptr;
  for (Operation *c : copies)
    if (Operation *a = body->findAncestorOpInBlock(*c))
      if (!lastCopy || lastCopy->isBeforeInBlock(a))
        lastCopy = a;
  if (!lastCopy)
    return false;
  SmallVector<Operation *> moved;
  bool reads = false;
  for (Operation *o = lastCopy->getNextNode(); o != body->getTerminator();
       o = o->getNextNode()) {
    moved.push_back(o);
    reads |= mirage::detail::readsAnyOf(o, tiles);
  }
  if (!reads)
    return false;
  // Values of the first part the moved ops use: pure, region-free ops
  // cloned into the new block (their operands from outside the if, or
  // cloned too); anything else keeps the phase whole.
  llvm::SetVector<Operation *> needed;
  SmallVector<Value> work;
  for (Operation *o : moved)
    o->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        work.push_back(v);
    });
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *d = v.getDefiningOp();
    if (!d || d->getBlock() != body || llvm::is_contained(moved, d) ||
        needed.contains(d))
      continue;
    if (!isPure(d) || d->getNumRegions() != 0)
      return false;
    needed.insert(d);
    for (Value x : d->getOperands())
      work.push_back(x);
  }
  rw.setInsertionPointAfter(ifOp);
  auto tail = scf::IfOp::create(rw, ifOp.getLoc(), ifOp.getCondition(),
                                /*withElseRegion=*/false);
  Block *tb = tail.thenBlock();
  IRMapping map;
  rw.setInsertionPointToStart(tb);
  for (Operation &o : *body)
    if (needed.contains(&o))
      rw.clone(o, map);
  for (Operation *o : moved)
    rw.moveOpBefore(o, tb->getTerminator());
  for (auto [from, to] : map.getValueMap())
    rw.replaceUsesWithIf(from, to, [&](OpOperand &use) {
      return tail->isProperAncestor(use.getOwner());
    });
  return true;
}

/// Grouped copies (kPrefetchStagesAttr, from the loop-level lowering):
/// each 16-byte copy becomes a cp.async without a wait of its own; each
/// group of copies (one per prologue stage, one per loop iteration, or the
/// tiles a stage of S = 1 loads together) is committed once, by every
/// thread. Group S-1 waits with wait_group S-1, before the first phase that
/// reads its tiles and with a barrier between — so the copies of iteration
/// i are complete and visible while those of the next S-1 iterations stay
/// in flight (S = 1: all of them complete, one round trip); the other
/// groups are committed right after their copies. A group whose copies
/// carry kPrefetchWaitAttr waits with that depth right after its copies:
/// the prologue's last group, when operators before the loop read tiles of
/// the first group (LoopInvariantOps.md). AsyncCopyOrder.md says why before
/// the first reader, and checks the result.
LogicalResult lowerPrefetchCopies(func::FuncOp kernel) {
  IRRewriter rewriter(kernel.getContext());
  SmallVector<Operation *> marked;
  kernel.walk([&](Operation *op) {
    if (op->hasAttr(mirage::kPrefetchStagesAttr))
      marked.push_back(op);
  });
  for (Operation *&op : marked) {
    auto w = dyn_cast<vector::TransferWriteOp>(op);
    if (!w || !isCopy(w) || w.getVectorType().getRank() != 1 ||
        w.getVectorType().getNumElements() *
                w.getVectorType().getElementTypeBitWidth() !=
            128)
      continue; // stays a synchronous copy, still in its group
    auto r = w.getVector().getDefiningOp<vector::TransferReadOp>();
    rewriter.setInsertionPoint(w);
    auto cp = nvgpu::DeviceAsyncCopyOp::create(
        rewriter, w.getLoc(),
        nvgpu::DeviceAsyncTokenType::get(rewriter.getContext()), w.getBase(),
        w.getIndices(), r.getBase(), r.getIndices(),
        rewriter.getIndexAttr(w.getVectorType().getNumElements()),
        /*srcElements=*/Value(), rewriter.getUnitAttr());
    cp->setDiscardableAttrs(w->getDiscardableAttrDictionary());
    rewriter.eraseOp(w);
    if (r->use_empty())
      rewriter.eraseOp(r);
    op = cp;
  }
  // (block, group) -> its stages, explicit wait and copies' phases
  struct Group {
    int64_t stages = 1;
    std::optional<int64_t> wait;
    SmallVector<Operation *> phases;
    llvm::SmallSetVector<Value, 4> tiles; // the allocs its copies write
  };
  std::map<std::pair<Block *, int64_t>, Group> groups;
  for (Operation *op : marked) {
    int64_t stages =
        cast<IntegerAttr>(op->getAttr(mirage::kPrefetchStagesAttr)).getInt();
    int64_t group =
        cast<IntegerAttr>(op->getAttr(mirage::kPrefetchGroupAttr)).getInt();
    Operation *phase = phaseOf(op);
    if (!phase)
      return op->emitError("pipelined copy without a barrier after its "
                           "phase (run the GPU mapping first)");
    Group &entry = groups[{phase->getBlock(), group}];
    if (!entry.phases.empty() && entry.stages != stages)
      return op->emitError("copies of one group with different pipeline "
                           "depths");
    entry.stages = stages;
    if (auto w = op->getAttrOfType<IntegerAttr>(mirage::kPrefetchWaitAttr))
      entry.wait = entry.wait ? std::min(*entry.wait, w.getInt()) : w.getInt();
    entry.phases.push_back(phase);
    // The tile written: by a cp.async, or a copy that stayed synchronous
    // (a narrower vector, or a scalar store).
    Value dst = mirage::detail::writtenMemref(op);
    if (Value a = dst ? mirage::detail::rootAlloc(dst) : Value())
      entry.tiles.insert(a);
  }
  // Every tile some group copies: a wait of the pipeline retires the
  // earlier groups too, so it goes before the first read of any of them
  // (a loop-invariant tile of the prologue's group 0 read before the
  // stage's own tiles, once a K loop is unrolled: TensorCores.cpp).
  llvm::SmallSetVector<Value, 4> pipelinedTiles;
  for (auto &[key, entry] : groups)
    pipelinedTiles.insert(entry.tiles.begin(), entry.tiles.end());
  for (auto &[key, entry] : groups) {
    int64_t group = key.second;
    const int64_t stages = entry.stages;
    SmallVector<Operation *> &phases = entry.phases;
    Operation *last = phases.front();
    for (Operation *p : phases)
      if (last->isBeforeInBlock(p))
        last = p;
    // The pipeline's rule: group S-1 (each iteration's) leaves S-1 pending;
    // a copy may ask for its own (kPrefetchWaitAttr).
    std::optional<int64_t> wait = entry.wait;
    if (!wait && group == stages - 1)
      wait = stages - 1;
    if (!wait) {
      // The commit only closes the group: right after its copies, before a
      // later group's copies can join it.
      rewriter.setInsertionPointAfter(last);
      NVVM::CpAsyncCommitGroupOp::create(rewriter, last->getLoc());
      continue;
    }
    // The group's last phase may itself read tiles: the phase after it
    // merged into it (same thread guard, the barrier between dropped while
    // the copies were synchronous). Its reads after the copies move to a
    // phase of their own, so that the wait goes between; the search for
    // the first reader below starts after `last` and would miss them.
    SmallVector<Operation *> copies;
    for (Operation *op : marked)
      if (cast<IntegerAttr>(op->getAttr(mirage::kPrefetchGroupAttr)).getInt() ==
              group &&
          last->isAncestor(op))
        copies.push_back(op);
    splitReadsAfterCopies(rewriter, last, copies, pipelinedTiles);
    Operation *barrier = last->getNextNode();
    if (entry.wait) {
      // An explicit wait is for tiles of an earlier group, whose readers
      // may follow at once: the barrier that ordered them after their
      // copies came before this group's (gpu-eliminate-barriers may have
      // dropped the one after this phase). So the wait and a barrier go
      // right after the phase.
      if (!isa<gpu::BarrierOp>(barrier)) {
        rewriter.setInsertionPointAfter(last);
        barrier = gpu::BarrierOp::create(rewriter, last->getLoc());
      }
    } else {
      // Before the first reader of these tiles, with a barrier between:
      // at the last barrier before it, or a new one right before it. (The
      // first barrier after the phase is not enough: gpu-eliminate-barriers
      // saw synchronous copies, and drops a barrier after them when the
      // next phases touch other tiles, so it may come after the reader.)
      // Copies of later groups issued before that point join this group,
      // and a later group committed before it takes these copies along:
      // either way they are retired no later than the wait says.
      Operation *lastBarrier = nullptr, *reader = nullptr;
      for (Operation *n = last->getNextNode(); n && !reader;
           n = n->getNextNode()) {
        if (isa<gpu::BarrierOp>(n))
          lastBarrier = n;
        else if (mirage::detail::readsAnyOf(n, pipelinedTiles))
          reader = n;
      }
      if (reader && !lastBarrier) {
        rewriter.setInsertionPoint(reader);
        barrier = gpu::BarrierOp::create(rewriter, reader->getLoc());
      } else if (lastBarrier) {
        barrier = lastBarrier;
      } else {
        // No reader after it here: the block's end.
        rewriter.setInsertionPoint(last->getBlock()->getTerminator());
        barrier = gpu::BarrierOp::create(rewriter, last->getLoc());
      }
    }
    rewriter.setInsertionPoint(barrier);
    NVVM::CpAsyncCommitGroupOp::create(rewriter, barrier->getLoc());
    NVVM::CpAsyncWaitGroupOp::create(rewriter, barrier->getLoc(),
                                     static_cast<uint32_t>(*wait));
  }
  return success();
}

SmallVector<int64_t> launchBlockDims(func::FuncOp kernel) {
  SmallVector<int64_t> dims{1, 1, 1};
  kernel.walk([&](gpu::LaunchOp launch) {
    std::array<Value, 3> sizes{launch.getBlockSizeX(), launch.getBlockSizeY(),
                               launch.getBlockSizeZ()};
    for (auto [i, v] : llvm::enumerate(sizes))
      dims[i] = getConstantIntValue(v).value_or(-1);
  });
  return dims;
}
} // namespace

void mirage::populateThreadStrideLoopNormalizationPatterns(
    RewritePatternSet &patterns, ArrayRef<int64_t> blockDims) {
  patterns.add<NormalizeThreadStrideLoop>(patterns.getContext(), blockDims);
}

LogicalResult mirage::optimizeSharedMemoryCopies(func::FuncOp kernel,
                                                 bool asyncCopies, bool swizzle,
                                                 bool dropBarriers,
                                                 int64_t *droppedBarriers) {
  MLIRContext *ctx = kernel.getContext();
  if (asyncCopies) {
    if (failed(lowerPrefetchCopies(kernel)))
      return failure();
    RewritePatternSet patterns(ctx);
    populateThreadStrideLoopNormalizationPatterns(patterns,
                                                  launchBlockDims(kernel));
    (void)applyPatternsGreedily(kernel, std::move(patterns));
    // Loops that directly hold a copy (the per-thread copy loops), collected
    // before any unrolling so that the for-loop around a phase, which only
    // holds copies once its inner loops are unrolled, is never picked. The
    // pipeline's grouped copies are cp.async already (lowerPrefetchCopies):
    // their loops are unrolled here too, not left to LLVM, which unrolls a
    // 14-trip loop with a plain body but not one whose addresses divide by
    // a stored row's copies (a weight read as nn.Linear stores it).
    SmallVector<scf::ForOp> copyLoops;
    kernel.walk([&](Operation *op) {
      auto w = dyn_cast<vector::TransferWriteOp>(op);
      if (!isa<nvgpu::DeviceAsyncCopyOp>(op) && !(w && isCopy(w)))
        return;
      auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
      if (!loop || llvm::is_contained(copyLoops, loop))
        return;
      std::optional<APInt> trips = loop.getStaticTripCount();
      // The launch plan's limit (KernelPlan.h): it prices what we emit.
      if (trips && trips->getSExtValue() <= mirage::kMaxGroupedCopiesPerThread)
        copyLoops.push_back(loop);
    });
    for (scf::ForOp loop : copyLoops)
      if (failed(loopUnrollFull(loop)))
        LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] could not unroll " << loop
                                << "\n");
    detail::simplify(kernel);
    IRRewriter rewriter(ctx);
    nvgpu::createAsyncGroups(rewriter, kernel, /*bypassL1=*/true);
    detail::simplify(kernel);
    if (dropBarriers) {
      int64_t dropped = dropBarriersOrderingNothing(kernel);
      if (droppedBarriers)
        *droppedBarriers += dropped;
    }
    // What the CPU path, with synchronous copies, cannot check.
    if (failed(verifyAsyncCopiesLand(kernel)))
      return failure();
  }
  if (swizzle) {
    // Upstream moves only the accesses of the buffer's own value
    // (UpstreamWorkarounds.h, swizzleSeesEveryAccess): the matmul phases'
    // 2-D views are folded into their accesses first.
    detail::foldWorkgroupCollapseViews(kernel);
    SmallVector<memref::AllocOp> tiles;
    kernel.walk([&](memref::AllocOp a) {
      // Upstream's xor leaves a row whose length is not a power of two
      // (UpstreamWorkarounds.h, swizzlePermutesRows).
      if (isWorkgroup(a.getType()) &&
          detail::swizzlePermutesRows(a.getType()) &&
          detail::swizzleSeesEveryAccess(a))
        tiles.push_back(a);
    });
    for (memref::AllocOp a : tiles)
      if (failed(nvgpu::optimizeSharedMemoryReadsAndWrites(kernel,
                                                           a.getMemref())))
        LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] no swizzle for " << a
                                << "\n");
    detail::simplify(kernel);
  }
  return success();
}

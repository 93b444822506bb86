//===- WarpReductions.cpp - Stage 0: a reduction tree's levels in a warp --===//
//
// The levels of a row reduction's tree (foralls tagged
// `mirage_kernel.reduction_tree = [id, half, lanes, outputs]` by
// mirage-lower-kernels-to-loops) become one phase that folds each output's
// lanes with shuffles (docs/Rationale/WarpReductions.md): thread e holds
// lane e mod lanes of output e / lanes, folds its xor partner at distances
// lanes/2, ..., 1 with the level's own combine (cloned from the tagged body),
// and lane 0 stores where the tree's lane 0 would. The fold phase before
// the tree (`reduction_fold`: each thread loads only the lanes it stored)
// and the finish phase after it (`reduction_finish`: run by each output's
// lane 0 on its register) join that phase. Runs before the thread mapping,
// which puts a barrier after every phase: log2(lanes) + 2 phases and
// barriers become one.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "mirage-gpu-warp-reductions"

using namespace mlir;

namespace {
constexpr int64_t kWarpSize = 32;

/// Threads per block of the kernel function `inside` is in (its
/// `mirage_kernel.block`), or 0.
int64_t threadsPerBlock(Operation *inside) {
  auto f = inside->getParentOfType<func::FuncOp>();
  auto block = f ? f->getAttrOfType<DenseI64ArrayAttr>(
                       mirage::kernel::kBlockAttr)
                 : nullptr;
  if (!block || block.size() != 3)
    return 0;
  return block[0] * block[1] * block[2];
}

/// One tagged level: its forall and the tag's fields.
struct Level {
  scf::ForallOp forall;
  int64_t half, lanes, outputs;
};

/// The combine of a level, as found in its body: the store into the scratch
/// buffer, the two loads it folds (the lane's own and its partner's), and
/// the ops between them, in order.
struct Combine {
  Value buffer;
  memref::LoadOp own, partner;
  memref::StoreOp store;
  SmallVector<Operation *> ops;
};

/// The forall's thread count if it is a phase over `threads` threads with
/// one thread-x induction variable.
bool isThreadPhase(scf::ForallOp f, int64_t threads) {
  std::optional<ArrayAttr> mapping = f.getMapping();
  std::optional<SmallVector<int64_t>> ubs =
      getConstantIntValues(f.getMixedUpperBound());
  return mapping && mapping->size() == 1 && ubs && ubs->size() == 1 &&
         (*ubs)[0] == threads && f.getNumResults() == 0 &&
         isa<gpu::GPUThreadMappingAttr>((*mapping)[0]);
}

/// Finds the combine of a level's body: exactly one store, into a 2-d f32
/// workgroup buffer, of a value computed from exactly two loads of that
/// buffer by side-effect-free ops of the body that use no index (so the
/// fold does not depend on which thread runs it).
std::optional<Combine> findCombine(scf::ForallOp forall) {
  Combine c;
  bool other = false;
  forall.getBody()->walk([&](Operation *op) {
    if (auto s = dyn_cast<memref::StoreOp>(op)) {
      other |= static_cast<bool>(c.store);
      c.store = s;
    }
  });
  if (other || !c.store)
    return std::nullopt;
  c.buffer = c.store.getMemRef();
  auto type = dyn_cast<MemRefType>(c.buffer.getType());
  if (!type || type.getRank() != 2 || !type.getElementType().isF32())
    return std::nullopt;
  // The slice of the stored value back to the loads.
  llvm::SetVector<Operation *> slice;
  SmallVector<memref::LoadOp> loads;
  SmallVector<Value> work{c.store.getValueToStore()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || !forall->isProperAncestor(def))
      continue; // defined above the phase: usable as it is
    if (auto load = dyn_cast<memref::LoadOp>(def)) {
      if (load.getMemRef() != c.buffer)
        return std::nullopt;
      if (!llvm::is_contained(loads, load))
        loads.push_back(load);
      continue;
    }
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
        llvm::any_of(def->getResultTypes(),
                     [](Type t) { return t.isIndex(); }))
      return std::nullopt;
    if (slice.insert(def))
      for (Value o : def->getOperands()) {
        if (o.getType().isIndex())
          return std::nullopt;
        work.push_back(o);
      }
  }
  if (loads.size() != 2)
    return std::nullopt;
  // The lane's own value is the one loaded where the result is stored.
  for (memref::LoadOp l : loads)
    (l.getIndices() == c.store.getIndices() ? c.own : c.partner) = l;
  if (!c.own || !c.partner)
    return std::nullopt;
  // In the body's order, so that cloning meets operands before their uses.
  forall.getBody()->walk([&](Operation *op) {
    if (slice.contains(op))
      c.ops.push_back(op);
  });
  return c;
}

/// The phase right before a tree that writes every lane (tagged
/// `reduction_fold` with the tree's id, lanes and outputs), or null.
scf::ForallOp foldPhaseOf(const Level &first, int64_t id, int64_t threads) {
  auto prev = dyn_cast_or_null<scf::ForallOp>(first.forall->getPrevNode());
  if (!prev || !isThreadPhase(prev, threads))
    return nullptr;
  auto tag =
      prev->getAttrOfType<DenseI64ArrayAttr>(mirage::kernel::kReductionFoldAttr);
  if (!tag || tag.size() != 3 || tag[0] != id || tag[1] != first.lanes ||
      tag[2] != first.outputs)
    return nullptr;
  return prev;
}

/// The finish phase right after a tree (tagged `reduction_finish` with the
/// tree's id and outputs), when it is `if (t < outputs) { ... }` over the
/// block's threads reading lane 0 of the scratch once: its guarded block,
/// and that load. Null when it is not in that form.
struct Finish {
  scf::ForallOp forall;
  Block *body = nullptr;
  memref::LoadOp lane0;
};

Finish finishPhaseOf(const Level &last, int64_t id, int64_t threads,
                     Value buffer) {
  auto next = dyn_cast_or_null<scf::ForallOp>(last.forall->getNextNode());
  if (!next || !isThreadPhase(next, threads) || last.outputs > threads)
    return {};
  auto tag = next->getAttrOfType<DenseI64ArrayAttr>(
      mirage::kernel::kReductionFinishAttr);
  if (!tag || tag.size() != 2 || tag[0] != id || tag[1] != last.outputs)
    return {};
  // [constants, t < outputs, scf.if] and the terminator.
  scf::IfOp guard;
  for (Operation &op : next.getBody()->without_terminator()) {
    if (auto i = dyn_cast<scf::IfOp>(op)) {
      if (guard || i.getNumResults() != 0 || !i.getElseRegion().empty())
        return {};
      guard = i;
    } else if (!isa<arith::ConstantOp, arith::CmpIOp>(op)) {
      return {};
    }
  }
  auto cmp = guard ? guard.getCondition().getDefiningOp<arith::CmpIOp>()
                   : arith::CmpIOp();
  std::optional<int64_t> bound =
      cmp ? getConstantIntValue(cmp.getRhs()) : std::nullopt;
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::ult ||
      cmp.getLhs() != next.getInductionVar(0) || bound != last.outputs)
    return {};
  Finish f{next, guard.thenBlock(), {}};
  // Exactly one read of the scratch: lane 0 of output t.
  WalkResult w = f.body->walk([&](memref::LoadOp l) {
    if (l.getMemRef() != buffer)
      return WalkResult::advance();
    if (f.lane0)
      return WalkResult::interrupt();
    f.lane0 = l;
    return WalkResult::advance();
  });
  if (w.wasInterrupted() || !f.lane0 || f.lane0.getIndices().size() != 2 ||
      f.lane0.getIndices()[0] != next.getInductionVar(0) ||
      getConstantIntValue(f.lane0.getIndices()[1]) != 0)
    return {};
  return f;
}

/// Replaces `levels` (one tree, levels half = lanes/2 .. 1 in order, every
/// partner in the same warp) by one phase of shuffles. With `fold`, the
/// phase that wrote the lanes joins it: element e of both is thread
/// e mod the block size's, so every lane a thread loads it stored itself,
/// and no barrier is needed between them.
LogicalResult foldInWarps(MutableArrayRef<Level> levels, Combine c,
                          scf::ForallOp fold, Finish finish) {
  const int64_t lanes = levels.front().lanes;
  const int64_t outputs = levels.front().outputs;
  const int64_t threads = threadsPerBlock(levels.front().forall);
  scf::ForallOp first = levels.front().forall;
  Location loc = first.getLoc();
  OpBuilder b(first);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(threads)}, ValueRange{},
      first.getMapping());
  OpBuilder ob = OpBuilder::atBlockTerminator(forall.getBody());
  Value t = forall.getInductionVar(0);
  auto idx = [&](OpBuilder &bb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(bb, loc, v);
  };
  // Every thread runs every shuffle (full mask): whole passes of the
  // block's threads over the outputs' lanes, the loads and the store
  // guarded.
  const int64_t n = outputs * lanes;
  const int64_t passes = (n + threads - 1) / threads;
  auto body = [&](OpBuilder &bb, Value e) {
    Value valid = arith::CmpIOp::create(bb, loc, arith::CmpIPredicate::ult, e,
                                        idx(bb, n));
    Value out = arith::DivUIOp::create(bb, loc, e, idx(bb, lanes));
    Value lane = arith::RemUIOp::create(bb, loc, e, idx(bb, lanes));
    Type f32 = bb.getF32Type();
    auto load = scf::IfOp::create(bb, loc, TypeRange{f32}, valid,
                                  /*withElseRegion=*/true);
    {
      OpBuilder tb = OpBuilder::atBlockEnd(load.thenBlock());
      Value v = memref::LoadOp::create(tb, loc, c.buffer,
                                       ValueRange{out, lane});
      scf::YieldOp::create(tb, loc, v);
      OpBuilder eb = OpBuilder::atBlockEnd(load.elseBlock());
      Value zero =
          arith::ConstantOp::create(eb, loc, eb.getF32FloatAttr(0.0));
      scf::YieldOp::create(eb, loc, zero);
    }
    Value own = load.getResult(0);
    // The tree's levels in its order: at distance `half` lane l folds lane
    // l + half into itself; lane l's xor partner is that lane for l < half.
    for (Level &lv : levels) {
      Value partner =
          gpu::ShuffleOp::create(bb, loc, own, static_cast<int32_t>(lv.half),
                                 static_cast<int32_t>(kWarpSize),
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult();
      IRMapping map;
      map.map(c.own.getResult(), own);
      map.map(c.partner.getResult(), partner);
      for (Operation *op : c.ops)
        bb.clone(*op, map);
      own = map.lookup(c.store.getValueToStore());
    }
    Value lane0 = arith::CmpIOp::create(bb, loc, arith::CmpIPredicate::eq,
                                        lane, idx(bb, 0));
    Value store = arith::AndIOp::create(bb, loc, valid, lane0);
    auto ifStore = scf::IfOp::create(bb, loc, store, /*withElse=*/false);
    OpBuilder sb = OpBuilder::atBlockTerminator(ifStore.thenBlock());
    if (!finish.forall) {
      memref::StoreOp::create(sb, loc, own, c.buffer,
                              ValueRange{out, idx(sb, 0)});
      return;
    }
    // The finish of output `out`, by the lane that holds its value: the
    // finish phase's body for thread `out`, its read of lane 0 that value.
    IRMapping fm;
    fm.map(finish.forall.getInductionVar(0), out);
    fm.map(finish.lane0.getResult(), own);
    for (Operation &op : finish.body->without_terminator())
      if (&op != finish.lane0.getOperation())
        sb.clone(op, fm);
  };
  if (passes == 1) {
    body(ob, t);
  } else {
    auto loop = scf::ForOp::create(ob, loc, t, idx(ob, passes * threads),
                                   idx(ob, threads));
    OpBuilder lb = OpBuilder::atBlockTerminator(loop.getBody());
    body(lb, loop.getInductionVar());
  }
  for (Level &lv : levels)
    lv.forall.erase();
  if (finish.forall)
    finish.forall.erase();
  if (fold) {
    Block *from = fold.getBody(), *to = forall.getBody();
    fold.getInductionVar(0).replaceAllUsesWith(t);
    to->getOperations().splice(to->begin(), from->getOperations(),
                               from->begin(), std::prev(from->end()));
    fold.erase();
  }
  return success();
}
} // namespace

LogicalResult mirage::foldReductionTreesInWarps(func::FuncOp kernel,
                                                WarpReductionCounts &counts) {
  // The tagged levels of each tree, in program order.
  llvm::MapVector<std::pair<Block *, int64_t>, SmallVector<Level>> trees;
  WalkResult walk = kernel.walk([&](scf::ForallOp f) -> WalkResult {
    auto tag = f->getAttrOfType<DenseI64ArrayAttr>(
        mirage::kernel::kReductionTreeAttr);
    if (!tag)
      return WalkResult::advance();
    if (tag.size() != 4)
      return f.emitError("malformed '")
             << mirage::kernel::kReductionTreeAttr << "'";
    trees[{f->getBlock(), tag[0]}].push_back({f, tag[1], tag[2], tag[3]});
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto &[key, levels] : trees) {
    ++counts.trees;
    // The whole tree, as rowReduction emits it: levels lanes/2, ..., 1,
    // back to back, in a warp, over the block's threads.
    const int64_t lanes = levels.front().lanes;
    const int64_t threads = threadsPerBlock(levels.front().forall);
    bool whole = lanes <= kWarpSize && threads > 0 &&
                 threads % kWarpSize == 0 &&
                 static_cast<int64_t>(levels.size()) == llvm::Log2_64(lanes);
    for (size_t i = 0; whole && i < levels.size(); ++i) {
      const Level &lv = levels[i];
      whole = lv.lanes == lanes && lv.outputs == levels.front().outputs &&
              lv.half == (lanes >> (i + 1)) &&
              isThreadPhase(lv.forall, threads) &&
              (i == 0 || lv.forall->getPrevNode() == levels[i - 1].forall);
    }
    std::optional<Combine> combine =
        whole ? findCombine(levels.back().forall) : std::nullopt;
    // Every level folds with the same combine into the same buffer: the
    // shuffles apply the last level's ops at every level, so each level's
    // ops must be those, in order, with the same attributes (an addf level
    // under a maxf one would otherwise fold as maxf).
    auto sameOps = [](const Combine &a, const Combine &b) {
      return llvm::equal(a.ops, b.ops, [](Operation *x, Operation *y) {
        return x->getName() == y->getName() &&
               x->getAttrDictionary() == y->getAttrDictionary();
      });
    };
    for (size_t i = 0; combine && i + 1 < levels.size(); ++i) {
      std::optional<Combine> ci = findCombine(levels[i].forall);
      if (!ci || ci->buffer != combine->buffer || !sameOps(*ci, *combine))
        combine.reset();
    }
    if (!combine) {
      LLVM_DEBUG(llvm::dbgs() << "[warp-reductions] tree " << key.second
                              << " of " << kernel.getName() << " kept\n");
      ++counts.kept;
      continue;
    }
    scf::ForallOp fold = foldPhaseOf(levels.front(), key.second, threads);
    Finish finish =
        finishPhaseOf(levels.back(), key.second, threads, combine->buffer);
    if (failed(foldInWarps(levels, *combine, fold, finish)))
      return failure();
    ++counts.folded;
    counts.phasesRemoved += static_cast<int64_t>(levels.size()) - 1 +
                            (fold ? 1 : 0) + (finish.forall ? 1 : 0);
  }
  return success();
}

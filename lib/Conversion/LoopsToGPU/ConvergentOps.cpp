//===- ConvergentOps.cpp - Barriers and warp collectives where all arrive -===//
//
// A barrier needs every thread of the block, a shuffle, ldmatrix or mma.sync
// every lane of the warp. The CPU path runs threads one after another and
// cannot see a guard that lets some of them skip such an op; on a GPU it is
// a hang or undefined behaviour. So the GPU path checks its own output
// (docs/Rationale/ConvergentOps.md): a forward analysis classes every value
// of a gpu.launch as uniform, warp-uniform or per-thread, and every
// collective must sit under control of the class it needs.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;

namespace {

/// Over which threads a value is the same, ordered from most to least
/// shared.
enum class Spread { Uniform = 0, Warp = 1, Thread = 2 };

Spread join(Spread a, Spread b) { return std::max(a, b); }

constexpr int64_t kWarpSize = 32;

/// `pred` with its operands swapped: c ⋚ x as x ⋚' c.
arith::CmpIPredicate swapped(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::eq:
  case P::ne:
    return pred;
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ule:
    return P::uge;
  case P::ugt:
    return P::ult;
  case P::uge:
    return P::ule;
  }
  llvm_unreachable("unknown cmpi predicate");
}

/// Ops every thread of the block must execute together.
bool needsBlock(Operation *op) {
  return isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp>(op);
}

/// Ops every lane of a warp must execute together.
bool needsWarp(Operation *op) {
  return isa<gpu::ShuffleOp, gpu::SubgroupReduceOp, NVVM::ShflOp,
             NVVM::VoteSyncOp, NVVM::SyncWarpOp, NVVM::MmaOp, NVVM::LdMatrixOp,
             nvgpu::LdMatrixOp, nvgpu::MmaSyncOp, nvgpu::MmaSparseSyncOp>(op);
}

/// Results that differ between the lanes that compute them together, or
/// between the threads that race for them.
bool perThreadResults(Operation *op) {
  return needsWarp(op) ||
         isa<gpu::LaneIdOp, memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(
             op);
}

struct LaunchConvergence {
  mutable gpu::LaunchOp launch; // its accessors are not const
  /// Block extents when constant, else -1.
  std::array<int64_t, 3> block{-1, -1, -1};
  /// Values not in the map are uniform.
  llvm::DenseMap<Value, Spread> spread;
  bool changed = false;

  explicit LaunchConvergence(gpu::LaunchOp launch) : launch(launch) {
    gpu::KernelDim3 sizes = launch.getBlockSizeOperandValues();
    int i = 0;
    for (Value s : {sizes.x, sizes.y, sizes.z}) {
      if (std::optional<int64_t> c = getConstantIntValue(s))
        block[i] = *c;
      ++i;
    }
  }

  Spread of(Value v) const {
    auto it = spread.find(v);
    return it == spread.end() ? Spread::Uniform : it->second;
  }

  void raise(Value v, Spread s) {
    if (s == Spread::Uniform)
      return;
    Spread &e = spread[v];
    if (s > e) {
      e = s;
      changed = true;
    }
  }

  Spread ofAll(ValueRange vs) const {
    Spread s = Spread::Uniform;
    for (Value v : vs)
      s = join(s, of(v));
    return s;
  }

  /// The thread id along x, which the plan's one-dimensional blocks make
  /// the linear one (so warps are its aligned runs of 32).
  bool isThreadIdX(Value v) const {
    if (v == launch.getThreadIds().x)
      return true;
    if (auto t = v.getDefiningOp<gpu::ThreadIdOp>())
      return t.getDimension() == gpu::Dimension::x && linearX();
    if (auto c = v.getDefiningOp<arith::IndexCastOp>())
      return isThreadIdX(c.getIn());
    if (auto c = v.getDefiningOp<arith::IndexCastUIOp>())
      return isThreadIdX(c.getIn());
    return false;
  }
  bool linearX() const { return block[1] == 1 && block[2] == 1; }

  /// A thread id's spread: per-thread unless its extent is 1.
  Spread threadId(int dim) const {
    return block[dim] == 1 ? Spread::Uniform : Spread::Thread;
  }

  /// `tid / c` (rounded down): uniform when c reaches the block size,
  /// warp-uniform when c is a multiple of 32 (and x is linear).
  std::optional<Spread> divided(int64_t c) const {
    if (c <= 0 || !linearX())
      return std::nullopt;
    if (block[0] > 0 && c >= block[0])
      return Spread::Uniform;
    if (c % kWarpSize == 0)
      return Spread::Warp;
    return std::nullopt;
  }

  Spread ofExpr(AffineExpr e, ValueRange dims, ValueRange syms) const {
    auto leaf = [&](AffineExpr x) -> Value {
      if (auto d = dyn_cast<AffineDimExpr>(x))
        return dims[d.getPosition()];
      if (auto s = dyn_cast<AffineSymbolExpr>(x))
        return syms[s.getPosition()];
      return {};
    };
    if (isa<AffineConstantExpr>(e))
      return Spread::Uniform;
    if (Value v = leaf(e))
      return of(v);
    auto bin = cast<AffineBinaryOpExpr>(e);
    if (bin.getKind() == AffineExprKind::FloorDiv)
      if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
        if (Value v = leaf(bin.getLHS()); v && isThreadIdX(v))
          if (std::optional<Spread> s = divided(c.getValue()))
            return *s;
    return join(ofExpr(bin.getLHS(), dims, syms),
                ofExpr(bin.getRHS(), dims, syms));
  }

  Spread ofMap(AffineMap map, ValueRange operands) const {
    ValueRange dims = operands.take_front(map.getNumDims());
    ValueRange syms = operands.drop_front(map.getNumDims());
    Spread s = Spread::Uniform;
    for (AffineExpr e : map.getResults())
      s = join(s, ofExpr(e, dims, syms));
    return s;
  }

  /// `tid ⋚ c`: the threads split at one id, so the comparison is uniform
  /// when that id is outside the block and warp-uniform at a multiple of 32.
  std::optional<Spread> ofThreadCompare(arith::CmpIOp cmp) const {
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    std::optional<int64_t> c;
    if (isThreadIdX(cmp.getLhs())) {
      c = getConstantIntValue(cmp.getRhs());
    } else if (isThreadIdX(cmp.getRhs())) {
      c = getConstantIntValue(cmp.getLhs());
      pred = swapped(pred);
    }
    if (!c || !linearX())
      return std::nullopt;
    int64_t split = 0; // the first id on the other side
    switch (pred) {
    case P::ult:
    case P::slt:
    case P::uge:
    case P::sge:
      split = *c;
      break;
    case P::ule:
    case P::sle:
    case P::ugt:
    case P::sgt:
      split = *c + 1;
      break;
    case P::eq:
    case P::ne:
      return std::nullopt;
    }
    if (split <= 0 || (block[0] > 0 && split >= block[0]))
      return Spread::Uniform;
    if (split % kWarpSize == 0)
      return Spread::Warp;
    return Spread::Thread;
  }

  /// The spread of the control that decides whether (and how often) the
  /// ops in a region of `op` run.
  Spread ofControl(Operation *op) const {
    if (auto i = dyn_cast<scf::IfOp>(op))
      return of(i.getCondition());
    if (auto f = dyn_cast<scf::ForOp>(op))
      return ofAll({f.getLowerBound(), f.getUpperBound(), f.getStep()});
    if (isa<scf::WhileOp, scf::ForallOp, scf::ParallelOp>(op))
      return Spread::Thread; // not emitted by the stages: assume the worst
    return Spread::Uniform;
  }

  /// One step of the analysis for `op`.
  void transfer(Operation *op) {
    if (isa<gpu::ThreadIdOp>(op)) {
      auto t = cast<gpu::ThreadIdOp>(op);
      raise(t, threadId(static_cast<int>(t.getDimension())));
      return;
    }
    if (perThreadResults(op)) {
      for (Value r : op->getResults())
        raise(r, Spread::Thread);
      return;
    }
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
      raise(apply, ofMap(apply.getAffineMap(), apply.getMapOperands()));
      return;
    }
    if (auto m = dyn_cast<affine::AffineMinOp>(op)) {
      raise(m, ofMap(m.getAffineMap(), m.getMapOperands()));
      return;
    }
    if (auto m = dyn_cast<affine::AffineMaxOp>(op)) {
      raise(m, ofMap(m.getAffineMap(), m.getMapOperands()));
      return;
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(op))
      if (std::optional<Spread> s = ofThreadCompare(cmp)) {
        raise(cmp, *s);
        return;
      }
    if (auto f = dyn_cast<scf::ForOp>(op)) {
      Spread bounds = ofControl(op);
      raise(f.getInductionVar(),
            join(of(f.getLowerBound()), of(f.getStep())));
      auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
      for (auto [i, arg] : llvm::enumerate(f.getRegionIterArgs())) {
        Spread s = join(bounds, join(of(f.getInitArgs()[i]),
                                     of(yield.getOperand(i))));
        raise(arg, s);
        raise(f.getResult(i), s);
      }
      return;
    }
    if (auto i = dyn_cast<scf::IfOp>(op)) {
      Spread cond = of(i.getCondition());
      for (auto [n, r] : llvm::enumerate(i.getResults())) {
        Spread s = cond;
        for (Region *region : {&i.getThenRegion(), &i.getElseRegion()})
          if (!region->empty())
            s = join(s, of(region->front().getTerminator()->getOperand(n)));
        raise(r, s);
      }
      return;
    }
    if (op->getNumRegions() != 0) {
      // Regions the stages do not emit: their values and results per
      // thread.
      for (Region &region : op->getRegions())
        for (Block &b : region)
          for (BlockArgument a : b.getArguments())
            raise(a, Spread::Thread);
      for (Value r : op->getResults())
        raise(r, Spread::Thread);
      return;
    }
    // Everything else, loads at an address included, from its operands.
    Spread s = ofAll(op->getOperands());
    for (Value r : op->getResults())
      raise(r, s);
  }

  void run() {
    gpu::KernelDim3 tids = launch.getThreadIds();
    raise(tids.x, threadId(0));
    raise(tids.y, threadId(1));
    raise(tids.z, threadId(2));
    // The classes only grow, three of them: a few sweeps reach the
    // fixpoint.
    do {
      changed = false;
      launch.getBody().walk<WalkOrder::PreOrder>(
          [&](Operation *op) { transfer(op); });
    } while (changed);
  }

  /// The outermost op around `op` (inside the launch) whose control is
  /// less shared than `allowed`, or null.
  Operation *divergentControl(Operation *op, Spread allowed) const {
    Operation *culprit = nullptr;
    for (Operation *p = op->getParentOp(); p && p != launch.getOperation();
         p = p->getParentOp())
      if (ofControl(p) > allowed)
        culprit = p;
    return culprit;
  }
};

} // namespace

LogicalResult mirage::verifyConvergentOps(func::FuncOp kernel,
                                          ConvergenceCounts *counts) {
  bool ok = true;
  kernel.walk([&](gpu::LaunchOp launch) {
    LaunchConvergence c(launch);
    c.run();
    launch.getBody().walk([&](Operation *op) {
      const bool block = needsBlock(op);
      if (!block && !needsWarp(op))
        return;
      if (counts)
        ++(block ? counts->barriers : counts->warpOps);
      Spread allowed = block ? Spread::Uniform : Spread::Warp;
      Operation *culprit = c.divergentControl(op, allowed);
      if (!culprit)
        return;
      ok = false;
      InFlightDiagnostic d =
          block ? op->emitError("barrier under control that differs between "
                                "the threads of a block: not every thread "
                                "reaches it (a hang on the GPU)")
                : op->emitError("warp collective under control that differs "
                                "between the lanes of a warp: not every lane "
                                "executes it (undefined on the GPU)");
      d.attachNote(culprit->getLoc())
          << (isa<scf::ForOp>(culprit) ? "these loop bounds differ"
                                       : "this condition differs")
          << " between the threads";
    });
  });
  return success(ok);
}

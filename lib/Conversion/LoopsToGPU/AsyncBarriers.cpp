//===- AsyncBarriers.cpp - Stage 3: barriers that order nothing -----------===//
//
// docs/Rationale/BarrierElimination.md, "Barriers once the copies are
// asynchronous". gpu-eliminate-barriers ran on synchronous copies and kept
// a barrier wherever a copy phase may write a tile that a phase on the
// other side accesses, unable to tell a pipeline's stage buffers apart.
// Once the copies are cp.async, a barrier is dropped when the accesses on
// its two sides, up to the nearest barrier on every path, do not conflict,
// with a cp.async counted as what a barrier can order of it:
//
//  * issued before the barrier, nothing: its write is performed by the
//    wait that retires its group, which this barrier does not order;
//  * issued after it, a write of its tile: the barrier orders that write
//    after the accesses before it (the stage buffer's earlier readers);
//  * a wait before the barrier, a write of every cp.async tile: the
//    barrier publishes the writes it retired.
//
// Memory that is not workgroup memory counts as one buffer; an op whose
// effects cannot be attributed conflicts with everything, and so does a
// region holding a barrier (gpu.barrier declares no effects): fewer drops,
// never a wrong one. mirage-gpu-check-shared-races runs on the result of
// every kernel the pipeline lowers.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"
#include "SharedTiles.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace {

enum class Side { Before, After };

/// What one side of a barrier does to memory.
struct Accesses {
  llvm::SmallDenseMap<Value, bool, 8> shared; // root alloc -> written
  bool globalRead = false, globalWrite = false;
  bool unknown = false;

  void add(Value root, bool write) {
    auto [it, fresh] = shared.try_emplace(root, write);
    if (!fresh)
      it->second = it->second || write;
  }
  bool conflictsWith(const Accesses &o) const {
    if (unknown || o.unknown)
      return true;
    if ((globalWrite && (o.globalRead || o.globalWrite)) ||
        (o.globalWrite && globalRead))
      return true;
    for (auto [root, written] : shared) {
      auto it = o.shared.find(root);
      if (it != o.shared.end() && (written || it->second))
        return true;
    }
    return false;
  }
};

struct Collector {
  Collector(Side side, ArrayRef<Value> asyncTiles)
      : side(side), asyncTiles(asyncTiles) {}

  Side side;
  ArrayRef<Value> asyncTiles; // every tile a cp.async of the kernel writes
  Accesses acc;
  llvm::SmallPtrSet<Block *, 4> backEdges; // loop bodies wrapped around

  /// `op`'s own accesses (not those of its regions).
  void record(Operation *op) {
    if (auto cp = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
      acc.globalRead = true;
      if (side == Side::After) {
        Value root = mirage::detail::rootAlloc(cp.getDst());
        if (!root)
          acc.unknown = true;
        else
          acc.add(root, /*write=*/true);
      }
      return;
    }
    if (isa<NVVM::CpAsyncWaitGroupOp, nvgpu::DeviceAsyncWaitOp>(op)) {
      if (side == Side::Before)
        for (Value t : asyncTiles)
          acc.add(t, /*write=*/true);
      return;
    }
    if (isa<NVVM::CpAsyncCommitGroupOp, nvgpu::DeviceAsyncCreateGroupOp>(op) ||
        op->hasTrait<OpTrait::IsTerminator>() ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    // The loads and stores whose memref the helpers name (nvgpu.ldmatrix
    // declares its read without one).
    if (Value r = mirage::detail::readMemref(op))
      return touch(r, /*write=*/false);
    if (Value w = mirage::detail::writtenMemref(op))
      return touch(w, /*write=*/true);
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface) {
      acc.unknown = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (MemoryEffects::EffectInstance &e : effects) {
      if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(e.getEffect()))
        continue;
      if (Value v = e.getValue())
        touch(v, isa<MemoryEffects::Write>(e.getEffect()));
      else
        acc.unknown = true;
    }
  }

  /// An access of memref `v`.
  void touch(Value v, bool write) {
    if (!mirage::detail::isSharedMemRef(v.getType())) {
      (write ? acc.globalWrite : acc.globalRead) = true;
      return;
    }
    if (Value root = mirage::detail::rootAlloc(v))
      acc.add(root, write);
    else
      acc.unknown = true;
  }

  /// `op` and everything nested in it.
  void recordWhole(Operation *op) {
    op->walk([&](Operation *o) { record(o); });
  }

  /// From `pos` in `block` (exclusive) toward the previous barrier (Before)
  /// or the next one (After), on every path.
  void walk(Block *block, Block::iterator pos) {
    if (side == Side::Before) {
      for (auto it = Block::reverse_iterator(pos); it != block->rend(); ++it) {
        if (isa<gpu::BarrierOp>(*it))
          return;
        recordWhole(&*it);
      }
    } else {
      for (auto it = std::next(pos); it != block->end(); ++it) {
        if (isa<gpu::BarrierOp>(*it))
          return;
        recordWhole(&*it);
      }
    }
    leaveBlock(block);
  }

  /// The paths out of `block` at its start (Before) or end (After).
  void leaveBlock(Block *block) {
    Operation *parent = block->getParentOp();
    if (isa<gpu::LaunchOp>(parent))
      return; // the kernel's start or end
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      // Around the back edge, once; and out of the loop.
      if (backEdges.insert(block).second) {
        if (side == Side::Before)
          walk(block, Block::iterator(block->getTerminator()));
        else
          walkFromStart(block);
      }
      walk(loop->getBlock(), Block::iterator(loop));
      return;
    }
    if (isa<scf::IfOp>(parent)) {
      walk(parent->getBlock(), Block::iterator(parent));
      return;
    }
    acc.unknown = true;
  }

  void walkFromStart(Block *block) {
    for (Operation &op : *block) {
      if (isa<gpu::BarrierOp>(op))
        return;
      recordWhole(&op);
    }
    leaveBlock(block);
  }
};

} // namespace

int64_t mirage::dropBarriersOrderingNothing(func::FuncOp kernel) {
  SmallVector<Value> asyncTiles;
  kernel.walk([&](nvgpu::DeviceAsyncCopyOp cp) {
    Value root = detail::rootAlloc(cp.getDst());
    if (root && !llvm::is_contained(asyncTiles, root))
      asyncTiles.push_back(root);
  });
  if (asyncTiles.empty())
    return 0; // every barrier here is upstream's to keep or drop
  SmallVector<gpu::BarrierOp> barriers;
  kernel.walk([&](gpu::BarrierOp b) { barriers.push_back(b); });
  int64_t dropped = 0;
  // In program order; a drop widens the spans of the barriers next to it,
  // which are computed afresh.
  for (gpu::BarrierOp b : barriers) {
    Collector before(Side::Before, asyncTiles);
    before.walk(b->getBlock(), Block::iterator(b));
    Collector after(Side::After, asyncTiles);
    after.walk(b->getBlock(), Block::iterator(b));
    if (before.acc.conflictsWith(after.acc))
      continue;
    b->erase();
    ++dropped;
  }
  return dropped;
}

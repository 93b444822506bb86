//===- AsyncCopyOrder.cpp - Shared tiles are read only once they landed ---===//
//
// A cp.async copy completes at the cp.async.wait_group that retires its
// group, and the other threads' copies are visible only after a barrier
// that follows that wait. The CPU path runs the copies synchronously and
// cannot see a read that comes too early, so the GPU path checks its own
// output: walking a kernel in program order (each loop body once, each
// conditional region as if taken), every read of a shared tile that one
// group of copies writes must come after a wait that retired the group and
// a barrier after it. For tiles written by several groups (a pipeline's
// stage buffers, whose slot the loop index picks) the walk cannot tell
// which slot a read takes: it requires that some group of the tile was
// retired and a barrier passed before the first read, which is what the
// pipeline's wait before its compute gives (LaunchPlan.md, "Pipelines").
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"
#include "SharedTiles.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <deque>

using namespace mlir;

Value mirage::detail::rootAlloc(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<memref::AllocOp>(def))
      return v;
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else if (auto t = dyn_cast<memref::TransposeOp>(def))
      v = t.getIn(); // a view too, though not ViewLikeOpInterface in LLVM 22
    else
      return {};
  }
  return {};
}

Value mirage::detail::readMemref(Operation *op) {
  if (auto l = dyn_cast<memref::LoadOp>(op))
    return l.getMemRef();
  if (auto r = dyn_cast<vector::TransferReadOp>(op))
    return r.getBase();
  if (auto l = dyn_cast<vector::LoadOp>(op))
    return l.getBase();
  if (auto m = dyn_cast<nvgpu::LdMatrixOp>(op))
    return m.getSrcMemref();
  return {};
}

Value mirage::detail::writtenMemref(Operation *op) {
  if (auto s = dyn_cast<memref::StoreOp>(op))
    return s.getMemRef();
  if (auto w = dyn_cast<vector::TransferWriteOp>(op))
    return w.getBase();
  if (auto s = dyn_cast<vector::StoreOp>(op))
    return s.getBase();
  if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
    return c.getDst();
  return {};
}

bool mirage::detail::readsAnyOf(Operation *op,
                                const llvm::SmallSetVector<Value, 4> &allocs) {
  return op
      ->walk([&](Operation *inner) {
        Value m = readMemref(inner);
        Value a = m ? rootAlloc(m) : Value();
        return a && allocs.contains(a) ? WalkResult::interrupt()
                                       : WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {
using mirage::detail::readMemref;
using mirage::detail::rootAlloc;

bool isCommit(Operation *op) {
  return isa<NVVM::CpAsyncCommitGroupOp, nvgpu::DeviceAsyncCreateGroupOp>(op);
}

/// The groups a wait leaves pending, if `op` is one.
std::optional<int64_t> waitDepth(Operation *op) {
  if (auto w = dyn_cast<NVVM::CpAsyncWaitGroupOp>(op))
    return w.getN();
  if (auto w = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op))
    return w.getNumGroups().value_or(0);
  return std::nullopt;
}

using Tiles = llvm::SmallSetVector<Value, 4>;
} // namespace

LogicalResult mirage::verifyAsyncCopiesLand(func::FuncOp kernel) {
  // Pass 1: how many groups write each tile.
  llvm::DenseMap<Value, int> groupsOf;
  Tiles open;
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
      if (Value a = rootAlloc(c.getDst()))
        open.insert(a);
    } else if (isCommit(op)) {
      for (Value a : open)
        ++groupsOf[a];
      open.clear();
    }
  });
  auto groups = [&](Value a) {
    auto it = groupsOf.find(a);
    return it == groupsOf.end() ? 0 : it->second;
  };

  // Pass 2: the state of each copied tile along the program.
  std::deque<Tiles> pending; // committed, oldest first
  Tiles landed;              // retired by a wait, not yet past a barrier
  Tiles visible;             // retired and past a barrier since
  open.clear();
  WalkResult r = kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
      if (Value a = rootAlloc(c.getDst()); a && groups(a) > 0)
        open.insert(a);
      return WalkResult::advance();
    }
    if (isCommit(op)) {
      pending.push_back(open);
      open.clear();
      return WalkResult::advance();
    }
    if (std::optional<int64_t> depth = waitDepth(op)) {
      while (static_cast<int64_t>(pending.size()) > *depth) {
        landed.insert(pending.front().begin(), pending.front().end());
        pending.pop_front();
      }
      return WalkResult::advance();
    }
    if (isa<gpu::BarrierOp>(op)) {
      visible.insert(landed.begin(), landed.end());
      landed.clear();
      return WalkResult::advance();
    }
    Value m = readMemref(op);
    Value a = m ? rootAlloc(m) : Value();
    if (!a || groups(a) == 0)
      return WalkResult::advance();
    const char *why = nullptr;
    if (groups(a) > 1) {
      // A pipeline's buffers: the slot read is one whose group a wait
      // retired, which a walk without the loop index cannot tell; but some
      // group of this tile must have been retired, and a barrier passed,
      // before any read (the pipeline's wait comes before the compute).
      if (!visible.contains(a))
        why = landed.contains(a)
                  ? "no barrier follows the wait that retired its copies"
                  : "no cp.async.wait_group has retired any of its copies";
    } else if (open.contains(a)) {
      why = "its cp.async copies are not yet committed";
    } else if (llvm::any_of(pending,
                            [&](const Tiles &g) { return g.contains(a); })) {
      why = "no cp.async.wait_group has retired its copies";
    } else if (landed.contains(a)) {
      why = "no barrier follows the wait that retired its copies";
    }
    if (!why)
      return WalkResult::advance();
    op->emitError("reads a shared tile before its asynchronous copies are "
                  "complete and visible: ")
        << why;
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}

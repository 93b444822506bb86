//===- BlockUGraph.cpp - Block graphs as compact μGraphs ------------------===//
#include "Mirage/Dialect/Block/IR/BlockUGraph.h"
#include "Mirage/Dialect/Block/IR/BlockDialect.h"
#include "Mirage/Dialect/Common/SharedOpsUGraph.h"
#include "Mirage/Dialect/Thread/IR/ThreadDialect.h"
#include "Mirage/Semantics/Target.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::block;

std::optional<ElemType> mirage::toElemType(Type type) {
  Type e = getElementTypeOrSelf(type);
  if (e.isF16())
    return ElemType::F16;
  if (e.isBF16())
    return ElemType::BF16;
  if (e.isF32())
    return ElemType::F32;
  if (e.isF64())
    return ElemType::F64;
  return std::nullopt;
}

Type mirage::toMLIRType(MLIRContext *ctx, ElemType type) {
  switch (type) {
  case ElemType::F16:
    return Float16Type::get(ctx);
  case ElemType::BF16:
    return BFloat16Type::get(ctx);
  case ElemType::F32:
    return Float32Type::get(ctx);
  case ElemType::F64:
    return Float64Type::get(ctx);
  }
  return Float32Type::get(ctx);
}

static Shape shapeOf(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t))
    return Shape(r.getShape().begin(), r.getShape().end());
  return Shape();
}

/// Imports a thread graph body (scalar element-wise code).
static FailureOr<UGraph> importThreadBody(ThreadGraphOp tg) {
  UGraph g(Level::Thread);
  llvm::DenseMap<Value, int32_t> ids;
  Block &body = tg.getBody().front();
  for (BlockArgument arg : body.getArguments())
    ids[arg] = g.addInput(Shape(), *toElemType(arg.getType()));
  for (Operation &op : body) {
    for (auto [i, v] : llvm::enumerate(op.getOperands()))
      if (!ids.count(v))
        return op.emitOpError("operand #")
               << i << " is used before it is defined";
    int32_t id = -2;
    if (auto u = dyn_cast<thread::UnaryOp>(op))
      id = g.addUnary(u.getKind(), ids.lookup(u.getInput()),
                      u.getScalar() ? u.getScalar()->convertToDouble() : 0.0);
    else if (auto b = dyn_cast<thread::BinaryOp>(op))
      id = g.addBinary(b.getKind(), ids.lookup(b.getLhs()),
                       ids.lookup(b.getRhs()));
    else if (auto y = dyn_cast<thread::YieldOp>(op)) {
      for (Value v : y.getValues())
        g.markOutput(ids.lookup(v));
      continue;
    } else
      return op.emitOpError("is not a thread-graph operator");
    if (id < 0)
      return op.emitOpError(g.error);
    ids[op.getResult(0)] = id;
  }
  return g;
}

FailureOr<UGraph> mirage::block::importBlockGraph(Operation *owner,
                                                  Region &body,
                                                  const GridDims &grid,
                                                  int64_t forloopRange,
                                                  StringRef target) {
  std::string gridErr = checkGrid(grid, forloopRange);
  if (!gridErr.empty())
    return owner->emitOpError(gridErr);
  std::optional<TargetInfo> info = lookupTarget(target);
  if (!info)
    return owner->emitOpError("unknown target '") << target << "'";

  UGraph g(Level::Block);
  g.grid = grid;
  g.forloopRange = forloopRange;
  g.target = target.str();

  Block &block = body.front();
  if (block.getNumArguments() != owner->getNumOperands())
    return owner->emitOpError("body has ")
           << block.getNumArguments() << " arguments but the op has "
           << owner->getNumOperands() << " inputs";
  llvm::DenseMap<Value, int32_t> ids;
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    if (arg.getType() != owner->getOperand(i).getType())
      return owner->emitOpError("body argument #")
             << i << " must have the type of input #" << i;
    int32_t id = g.addInput(shapeOf(arg.getType()), *toElemType(arg.getType()));
    if (id < 0)
      return owner->emitOpError(g.error);
    ids[arg] = id;
  }

  Dialect *blockDialect = owner->getContext()->getLoadedDialect("mirage_block");
  auto get = [&](Value v) { return ids.lookup(v); };
  YieldOp yield;
  for (Operation &op : block) {
    if (op.getDialect() != blockDialect)
      return op.emitOpError("is not a block-graph operator");
    // The region verifier runs before dominance is checked, so a use before
    // the definition must be caught here rather than read as value 0.
    for (auto [i, v] : llvm::enumerate(op.getOperands()))
      if (!ids.count(v))
        return op.emitOpError("operand #")
               << i << " is used before it is defined";
    std::optional<int32_t> shared =
        importSharedOp<SharedOps>(g, &op, get);
    int32_t id =
        shared ? *shared
        : llvm::TypeSwitch<Operation *, int32_t>(&op)
            .Case([&](InputIteratorOp it) {
              return g.addInputIterator(get(it.getInput()), it.getAxisMap(),
                                        it.getFmap());
            })
            .Case([&](AccumOp a) {
              return g.addAccum(a.getKind(), get(a.getInput()),
                                a.getRescale() ? get(a.getRescale()) : -1,
                                a.getSize() ? (int64_t)*a.getSize() : 0,
                                a.getEps().convertToDouble());
            })
            .Case([&](RunningMaxOp r) {
              return g.addRunningMax(get(r.getInput()),
                                     static_cast<int64_t>(r.getDim()));
            })
            .Case([&](OutputSaverOp s) {
              return g.addOutputSaver(get(s.getInput()), s.getAxisMap());
            })
            .Case([&](ThreadGraphOp tg) {
              FailureOr<UGraph> tb = importThreadBody(tg);
              if (failed(tb))
                return -3;
              SmallVector<int32_t> operands;
              for (Value v : tg.getInputs())
                operands.push_back(get(v));
              return g.addThreadGraph(operands, std::move(*tb));
            })
            .Case([&](YieldOp y) {
              yield = y;
              return 0;
            })
            .Default([](Operation *) { return -4; });
    if (id == -3)
      return failure();
    if (id == -4)
      return op.emitOpError("is not a block-graph operator");
    if (id < 0)
      return op.emitOpError(g.error);
    if (isa<YieldOp>(op))
      continue;
    StringRef implied = isa<InputIteratorOp>(op)
                            ? "the grid, for-loop range, imap and fmap"
                        : isa<OutputSaverOp>(op) ? "the grid and omap"
                                                 : "the operands";
    for (auto [i, r] : llvm::enumerate(op.getResults())) {
      ids[r] = id + i;
      const UValue &val = g.values[id + i];
      if (shapeOf(r.getType()) != val.shape)
        return op.emitOpError("result shape ")
               << shapeToString(shapeOf(r.getType()))
               << " does not match the shape " << shapeToString(val.shape)
               << " implied by " << implied;
      if (toElemType(r.getType()) != val.type)
        return op.emitOpError("result element type ")
               << getElementTypeOrSelf(r.getType())
               << " does not match the operand element type "
               << toMLIRType(op.getContext(), val.type);
    }
  }
  if (!yield)
    return owner->emitOpError("body must end with 'mirage_block.yield'");
  if (yield.getValues().size() != owner->getNumResults())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values for "
           << owner->getNumResults() << " kernel results";
  for (auto [i, v] : llvm::enumerate(yield.getValues())) {
    if (v.getType() != owner->getResult(i).getType())
      return yield.emitOpError("operand #")
             << i << " must have the type of kernel result #" << i;
    g.markOutput(get(v));
  }
  // Report an unyielded saver at the saver itself.
  llvm::SmallPtrSet<Operation *, 8> yielded;
  for (Value v : yield.getValues())
    if (Operation *def = v.getDefiningOp())
      yielded.insert(def);
  for (OutputSaverOp s : block.getOps<OutputSaverOp>())
    if (!yielded.contains(s))
      return s.emitOpError(
          "result must be yielded by the block graph's 'mirage_block.yield'");
  std::string err = verifyUGraphOutputs(g);
  if (!err.empty())
    return yield.emitOpError(err);
  int64_t bytes = sharedMemoryBytes(g);
  if (bytes > info->smemBytesPerBlock)
    return owner->emitOpError("block graph needs ")
           << bytes << " bytes of shared memory, more than the "
           << info->smemBytesPerBlock << " bytes of target '" << info->name
           << "'";
  return g;
}

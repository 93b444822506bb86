//===- OnlineSoftmax.cpp - One flash kernel: a running max in the loop ----===//
//
// A one-kernel instance found for the shift-free reference computes
// exp(y) of a tile y in its for-loop. When the loop walks y's row dim d (and
// no grid axis splits it), every block sees whole rows over its iterations,
// so the shift can be the row's running max instead of the reference's row
// max (docs/Rationale/OnlineSoftmax.md, "Search"):
//
//   prev, cur = running_max y dim d
//   exp(y)    → exp(y − cur)
//   accum sum x (x reached from the exp) → accum sum x rescale exp(prev − cur)
//
// This is right when every in-loop path from the exp to an accumulator is
// linear in the exp and keeps its rows (each element of the contribution
// carries the factor e^{−cur_t} of its row): products with values that do
// not depend on the exp, sums and matmuls over d, sums of two such values.
// Anything else (a max, another exp, a reduction across rows, an
// accumulator that is not a plain sum) and the instance keeps its
// stabilized form only. The result is verified in mode S like every
// answer of the search (Verification.md §2a).
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "Mirage/Semantics/BlockSchedule.h"
#include "Mirage/Semantics/Replay.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

namespace {

/// Whether op `op` of `b`, some of whose operands depend on the exp
/// (`dep`), keeps every element a multiple of its row's e^{−cur}; `d` is
/// the row dim (the last dim of every value on the path, checked below).
bool linearInTheExp(const UGraph &b, const UOp &op,
                    const std::vector<bool> &dep, int64_t d) {
  auto depends = [&](unsigned i) { return (bool)dep[op.operands[i]]; };
  auto sameShape = [&](unsigned i) {
    return b.values[op.results[0]].shape == b.values[op.operands[i]].shape;
  };
  switch (op.kind) {
  case OpKind::Unary:
    return op.unaryKind() == UnaryKind::mul_scalar;
  case OpKind::Binary:
    switch (op.binaryKind()) {
    case BinaryKind::add:
    case BinaryKind::sub:
      return depends(0) && depends(1) && sameShape(0) && sameShape(1);
    case BinaryKind::mul:
      return depends(0) != depends(1) && sameShape(depends(0) ? 0 : 1);
    case BinaryKind::div:
      return depends(0) && !depends(1) && sameShape(0);
    case BinaryKind::pow:
      return false;
    }
    return false;
  case OpKind::Reduce: // within a row only
    return op.reduceKind() == ReduceKind::sum && op.dim == d;
  case OpKind::Matmul: // (rows × d)·(d × n): the contraction is the row
    return depends(0) && !depends(1) &&
           d + 1 == static_cast<int64_t>(b.values[op.operands[0]].shape.size());
  case OpKind::Accum: {
    if (op.operands.size() > 1)
      return false; // already rescaled
    switch (op.accumKind()) {
    case AccumKind::sum:
      return true;
    case AccumKind::sum_last:
      return d + 1 ==
             static_cast<int64_t>(b.values[op.operands[0]].shape.size());
    case AccumKind::mean_last:
    case AccumKind::rms_last:
    case AccumKind::max:
      return false;
    }
    return false;
  }
  case OpKind::RmsNorm:
  case OpKind::Concat:
  case OpKind::ThreadGraph:
  case OpKind::RunningMax:
  case OpKind::Custom:
  case OpKind::InputIterator:
  case OpKind::OutputSaver:
    return false;
  }
  return false;
}

} // namespace

std::optional<std::vector<bool>>
fusion::rescaledAccumulators(const UGraph &b, int64_t expIdx, int64_t d) {
  // What the exp reaches in the loop, and whether each step keeps it linear.
  std::vector<bool> dep(b.values.size(), false);
  dep[b.ops[expIdx].results[0]] = true;
  std::vector<bool> rescale(b.ops.size(), false);
  for (size_t i = expIdx + 1; i < b.ops.size(); ++i) {
    const UOp &op = b.ops[i];
    bool any = false;
    for (int32_t o : op.operands)
      any |= dep[o];
    if (!any)
      continue;
    if (!linearInTheExp(b, op, dep, d))
      return std::nullopt;
    if (op.kind == OpKind::Accum) {
      rescale[i] = true; // its result is after the loop: the path ends
      continue;
    }
    for (int32_t r : op.results)
      dep[r] = true;
  }
  return rescale;
}

namespace {

/// Block graph `b` in online-softmax form, or nullopt; `b` unchanged (and
/// `changed` false) when it has no exp.
std::optional<UGraph> onlineBlock(const UGraph &b, int64_t d, bool &changed) {
  changed = false;
  int64_t expIdx = -1;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const UOp &op = b.ops[i];
    if (op.kind == OpKind::Unary && op.unaryKind() == UnaryKind::exp) {
      if (expIdx >= 0)
        return std::nullopt; // one exp, one running max
      expIdx = static_cast<int64_t>(i);
    }
  }
  if (expIdx < 0)
    return b;
  if (b.forloopRange < 2 || blockStage(b, b.ops[expIdx]) != BlockStage::InLoop)
    return std::nullopt;
  const int32_t y = b.ops[expIdx].operands[0];
  const int64_t rank = static_cast<int64_t>(b.values[y].shape.size());
  std::optional<TileAxisDims> axes = partitionedDims(b, y);
  // The loop walks the row and no block holds part of it: over its
  // iterations a block sees each of its rows whole.
  if (!axes || d < 0 || d >= rank || (*axes)[3] != d)
    return std::nullopt;
  for (size_t ax = 0; ax < 3; ++ax)
    if (b.grid[ax] > 1 && (*axes)[ax] == d)
      return std::nullopt;

  std::optional<std::vector<bool>> toRescale =
      rescaledAccumulators(b, expIdx, d);
  if (!toRescale)
    return std::nullopt;
  const std::vector<bool> &rescale = *toRescale;

  UGraph s(Level::Block);
  s.grid = b.grid;
  s.forloopRange = b.forloopRange;
  s.target = b.target;
  std::vector<int32_t> map(b.values.size(), -1);
  for (int32_t in : b.inputs)
    map[in] = s.addInputLike(b.values[in]);
  int32_t r = -1;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const UOp &op = b.ops[i];
    if (static_cast<int64_t>(i) == expIdx) {
      int32_t prev = s.addRunningMax(map[y], d);
      if (prev < 0)
        return std::nullopt;
      int32_t cur = prev + 1;
      int32_t e =
          s.addLike(op, {s.addBinary(BinaryKind::sub, map[y], cur)});
      r = s.addUnary(UnaryKind::exp, s.addBinary(BinaryKind::sub, prev, cur));
      if (e < 0 || r < 0)
        return std::nullopt;
      map[op.results[0]] = e;
      continue;
    }
    if (rescale[i]) {
      int32_t a = s.addAccum(op.accumKind(), map[op.operands[0]], r, op.size,
                             op.scalar);
      if (a < 0)
        return std::nullopt; // the rescale does not broadcast to the state
      map[op.results[0]] = a;
      continue;
    }
    if (!replayOp(s, op, map, op.body >= 0 ? b.bodies[op.body] : UGraph()))
      return std::nullopt;
  }
  for (int32_t o : b.outputs)
    s.markOutput(map[o]);
  changed = true;
  return s;
}

} // namespace

std::optional<UGraph> fusion::onlineSoftmax(const UGraph &g,
                                            const ShiftFree &shift) {
  UGraph out(Level::Kernel);
  std::vector<int32_t> map(g.values.size(), -1);
  for (int32_t in : g.inputs)
    map[in] = out.addInputLike(g.values[in]);
  unsigned flash = 0;
  for (const UOp &op : g.ops) {
    if (op.kind != OpKind::Custom) {
      // Outside a kernel an exp is a whole-row op of the reference: its
      // shift would need the row max kernel this form avoids.
      if (op.kind == OpKind::Unary && op.unaryKind() == UnaryKind::exp)
        return std::nullopt;
      if (!replayOp(out, op, map,
                    op.body >= 0 ? g.bodies[op.body] : UGraph()))
        return std::nullopt;
      continue;
    }
    bool changed = false;
    std::optional<UGraph> body =
        onlineBlock(g.bodies[op.body], shift.rowDim, changed);
    if (!body)
      return std::nullopt;
    flash += changed;
    llvm::SmallVector<int32_t, 4> operands;
    for (int32_t o : op.operands)
      operands.push_back(map[o]);
    int32_t r = out.addCustom(operands, std::move(*body));
    if (r < 0)
      return std::nullopt;
    for (size_t k = 0; k < op.results.size(); ++k)
      map[op.results[k]] = r + k;
  }
  if (flash == 0)
    return std::nullopt;
  for (int32_t o : g.outputs)
    out.markOutput(map[o]);
  out.name = g.name;
  return out;
}

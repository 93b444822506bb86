//===- Stabilize.cpp - Softmax with max subtraction -----------------------===//
//
// The search runs on a shift-free copy of a reference whose softmax
// subtracts the row max; every instance it ranks gets the shift back: the
// reference's reduce max over the scores (computed by their own kernel
// graph), subtracted before each exp (docs/Rationale/StableSoftmax.md).
// The stabilized instance is what is costed, verified against the
// reference as written, and emitted.
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "Mirage/Semantics/BlockSchedule.h"
#include "Mirage/Semantics/Replay.h"

#include <algorithm>
#include <array>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

namespace {

/// The shift of `exp(x − reduce_max(x, d))` that `op` (an exp) reads, if
/// the max and the difference have no other reader: the sub op's index.
std::optional<size_t> shiftOf(const UGraph &g, const UOp &op,
                              const std::vector<unsigned> &readers) {
  if (op.kind != OpKind::Unary || op.unaryKind() != UnaryKind::exp)
    return std::nullopt;
  int32_t t = op.operands[0];
  int32_t subIdx = g.values[t].def;
  if (subIdx < 0 || readers[t] != 1)
    return std::nullopt;
  const UOp &sub = g.ops[subIdx];
  if (sub.kind != OpKind::Binary || sub.binaryKind() != BinaryKind::sub)
    return std::nullopt;
  int32_t x = sub.operands[0], m = sub.operands[1];
  int32_t maxIdx = g.values[m].def;
  if (maxIdx < 0 || readers[m] != 1)
    return std::nullopt;
  const UOp &mx = g.ops[maxIdx];
  if (mx.kind != OpKind::Reduce || mx.reduceKind() != ReduceKind::max ||
      mx.size != 1 || mx.operands[0] != x)
    return std::nullopt;
  return static_cast<size_t>(subIdx);
}

constexpr size_t kAxes = kTileAxes;
using AxisDims = TileAxisDims;

/// The dims of a two-operand op's result per axis, from its operands'
/// (`a`, `c`): `pick(da, dc)` per axis, nullopt where it refuses or where
/// both operands are split along different dims.
template <class Pick>
std::optional<AxisDims> mergeOperands(const std::optional<AxisDims> &a,
                                      const std::optional<AxisDims> &c,
                                      Pick pick) {
  if (!a || !c)
    return std::nullopt;
  AxisDims m;
  for (size_t ax = 0; ax < kAxes; ++ax) {
    int64_t da = (*a)[ax], dc = (*c)[ax];
    std::optional<int64_t> d = pick(da, dc);
    if (!d || (da >= 0 && dc >= 0 && da != dc))
      return std::nullopt;
    m[ax] = *d;
  }
  return m;
}

} // namespace

std::optional<AxisDims> fusion::partitionedDims(const UGraph &b, int32_t v) {
  std::vector<std::optional<AxisDims>> dims(b.values.size());
  for (const UOp &op : b.ops) {
    auto of = [&](size_t i) { return dims[op.operands[i]]; };
    std::optional<AxisDims> r;
    switch (op.kind) {
    case OpKind::InputIterator:
      r = AxisDims{op.map[0], op.map[1], op.map[2], op.fmap};
      break;
    case OpKind::Unary:
    case OpKind::RmsNorm:
    case OpKind::Accum:
      r = of(0);
      break;
    case OpKind::Binary: {
      const Shape &res = b.values[op.results[0]].shape;
      const Shape &sa = b.values[op.operands[0]].shape;
      // An operand broadcast along the dim its axis selects is the same
      // for every block along it: the other operand decides.
      r = mergeOperands(of(0), of(1), [&](int64_t da, int64_t dc) {
        return da >= 0 && sa[da] == res[da] ? da : dc;
      });
      break;
    }
    case OpKind::Matmul: {
      const int64_t rank = b.values[op.results[0]].shape.size();
      r = mergeOperands(
          of(0), of(1), [&](int64_t da, int64_t dc) -> std::optional<int64_t> {
            if (da == rank - 1 || dc == rank - 2)
              return std::nullopt; // the contraction: partial sums
            return da >= 0 ? da : dc;
          });
      break;
    }
    case OpKind::Reduce: {
      std::optional<AxisDims> a = of(0);
      if (a && std::find(a->begin(), a->end(), op.dim) == a->end())
        r = a;
      break;
    }
    // Not on the path of an exp's argument in a found graph (a running max
    // is put there only after stabilization, and spans the iterations).
    case OpKind::RunningMax:
    case OpKind::Concat:
    case OpKind::Custom:
    case OpKind::OutputSaver:
    case OpKind::ThreadGraph:
      break;
    }
    for (int32_t res : op.results)
      dims[res] = r;
  }
  return dims[v];
}

namespace {

enum class ShiftOutcome { NoSuchExp, Shifted, Unshiftable };

/// Shifts exp number `skip` of block graph `b` (the earlier ones are
/// shifted already) into `shifted` by a row max that enters as one more
/// input of shape `maxShape`, its rows reduced over dim `d`: an iterator
/// with the tile's row maps and no for-loop map, and exp(y) → exp(y − max).
ShiftOutcome shiftOneExp(const UGraph &b, int64_t d, const Shape &maxShape,
                         ElemType maxType, size_t skip, UGraph &shifted) {
  size_t seen = 0;
  int64_t expIdx = -1;
  for (size_t i = 0; i < b.ops.size(); ++i) {
    const UOp &op = b.ops[i];
    if (op.kind == OpKind::Unary && op.unaryKind() == UnaryKind::exp &&
        seen++ == skip) {
      expIdx = static_cast<int64_t>(i);
      break;
    }
  }
  if (expIdx < 0)
    return ShiftOutcome::NoSuchExp;
  const UOp &exp = b.ops[expIdx];
  if (!runsInLoop(blockStage(b, exp)))
    return ShiftOutcome::Unshiftable; // after the loop: not a tile's row
  int32_t y = exp.operands[0];
  const Shape &yShape = b.values[y].shape;
  if (d < 0 || d >= static_cast<int64_t>(yShape.size()) ||
      maxShape.size() != yShape.size())
    return ShiftOutcome::Unshiftable;
  std::optional<AxisDims> axes = partitionedDims(b, y);
  // Every tile of y must be a block of the tensor whose rows the max
  // reduced: the grid and the loop select dims of y, none a partial sum.
  if (!axes)
    return ShiftOutcome::Unshiftable;
  UGraph &s = shifted;
  s = UGraph(Level::Block);
  s.grid = b.grid;
  s.forloopRange = b.forloopRange;
  s.target = b.target;
  std::vector<int32_t> smap(b.values.size(), -1);
  for (int32_t in : b.inputs)
    smap[in] = s.addInputLike(b.values[in]);
  int32_t maxIn = s.addInput(maxShape, maxType);
  // The max's tile follows y's rows; along the row (dim d) it is whole.
  AxisMap imap{-1, -1, -1};
  for (size_t ax = 0; ax < 3; ++ax)
    if (b.grid[ax] > 1 && (*axes)[ax] != d)
      imap[ax] = (*axes)[ax];
  int64_t fmap = (*axes)[3] >= 0 && (*axes)[3] != d ? (*axes)[3] : -1;
  for (int64_t i = 0; i < static_cast<int64_t>(b.ops.size()); ++i) {
    const UOp &op = b.ops[i];
    if (i == expIdx) {
      int32_t maxTile = s.addInputIterator(maxIn, imap, fmap);
      int32_t diff =
          maxTile < 0 ? -1 : s.addBinary(BinaryKind::sub, smap[y], maxTile);
      int32_t e = diff < 0 ? -1 : s.addLike(op, {diff});
      if (e < 0)
        return ShiftOutcome::Unshiftable;
      smap[op.results[0]] = e;
      continue;
    }
    if (!replayOp(s, op, smap, op.body >= 0 ? b.bodies[op.body] : UGraph()))
      return ShiftOutcome::Unshiftable;
  }
  for (int32_t o : b.outputs)
    s.markOutput(smap[o]);
  return ShiftOutcome::Shifted;
}

/// The reference's ops that compute the scores (its row max's operand), as
/// a kernel graph over the inputs they read (`inputs`: their indices among
/// the reference's); no outputs if a replay is refused.
UGraph scoresGraph(const UGraph &ref, int32_t maxValue,
                          std::vector<size_t> &inputs) {
  int32_t x = ref.ops[ref.values[maxValue].def].operands[0];
  std::vector<bool> needed(ref.values.size(), false);
  needed[x] = true;
  std::vector<bool> taken =
      backwardCone(ref, needed, [](size_t) { return true; });
  UGraph g(Level::Kernel);
  std::vector<int32_t> map(ref.values.size(), -1);
  inputs.clear();
  for (size_t i = 0; i < ref.inputs.size(); ++i)
    if (needed[ref.inputs[i]]) {
      map[ref.inputs[i]] = g.addInputLike(ref.values[ref.inputs[i]]);
      inputs.push_back(i);
    }
  for (size_t i = 0; i < ref.ops.size(); ++i) {
    const UOp &op = ref.ops[i];
    if (taken[i] &&
        !replayOp(g, op, map, op.body >= 0 ? ref.bodies[op.body] : UGraph()))
      return UGraph(Level::Kernel);
  }
  if (map[x] >= 0)
    g.markOutput(map[x]);
  return g;
}

} // namespace

std::optional<ShiftFree> fusion::shiftFreeReference(const UGraph &ref) {
  std::vector<unsigned> readers = readerCounts(ref);
  std::vector<bool> skip(ref.ops.size(), false);
  std::vector<int32_t> replaceBy(ref.values.size(), -1);
  ShiftFree out;
  for (const UOp &op : ref.ops) {
    std::optional<size_t> sub = shiftOf(ref, op, readers);
    if (!sub)
      continue;
    const UOp &s = ref.ops[*sub];
    const UOp &mx = ref.ops[ref.values[s.operands[1]].def];
    if (out.rowDim >= 0 && out.rowDim != mx.dim)
      return std::nullopt; // rows along different dims: not handled
    out.rowDim = mx.dim;
    out.maxValue = s.operands[1];
    skip[*sub] = true;
    skip[ref.values[s.operands[1]].def] = true;
    replaceBy[s.results[0]] = s.operands[0];
    ++out.shifts;
  }
  // One row max for every exp of an instance: two shifts would need to
  // know which exp each belongs to.
  if (out.shifts != 1)
    return std::nullopt;
  out.original = &ref;
  out.scores = scoresGraph(ref, out.maxValue, out.scoresInputs);
  if (out.scores.outputs.empty())
    return std::nullopt;
  UGraph &g = out.ref;
  g.name = ref.name;
  std::vector<int32_t> map(ref.values.size(), -1);
  for (int32_t in : ref.inputs)
    map[in] = g.addInputLike(ref.values[in]);
  for (size_t i = 0; i < ref.ops.size(); ++i) {
    if (skip[i])
      continue;
    const UOp &op = ref.ops[i];
    UOp copy = op;
    for (int32_t &o : copy.operands)
      if (replaceBy[o] >= 0)
        o = replaceBy[o];
    if (!replayOp(g, copy, map,
                  op.body >= 0 ? ref.bodies[op.body] : UGraph()))
      return std::nullopt;
  }
  for (int32_t o : ref.outputs) {
    if (map[o] < 0)
      return std::nullopt;
    g.markOutput(map[o]);
  }
  return out;
}

/// Replays into `out` (whose inputs are the reference's, in order) the
/// scores' kernel graph and the reference's reduce max over its result;
/// the max's id in `out`, or -1.
static int32_t replayRowMax(const ShiftFree &shift, UGraph &out) {
  const UGraph &f = shift.scores;
  std::vector<int32_t> map(f.values.size(), -1);
  for (size_t i = 0; i < f.inputs.size(); ++i)
    map[f.inputs[i]] = out.inputs[shift.scoresInputs[i]];
  for (const UOp &op : f.ops)
    if (!replayOp(out, op, map, op.body >= 0 ? f.bodies[op.body] : UGraph()))
      return -1;
  int32_t scores = map[f.outputs[0]];
  const UGraph &ref = *shift.original;
  return scores < 0 ? -1
                    : out.addLike(ref.ops[ref.values[shift.maxValue].def],
                                  {scores});
}

UGraph fusion::rowMaxGraph(const ShiftFree &shift) {
  const UGraph &ref = *shift.original;
  UGraph g(Level::Kernel);
  for (int32_t in : ref.inputs)
    g.addInputLike(ref.values[in]);
  int32_t m = replayRowMax(shift, g);
  if (m >= 0)
    g.markOutput(m);
  return g;
}

std::optional<UGraph> fusion::stabilizeExps(const UGraph &g,
                                            const ShiftFree &shift) {
  const UGraph &ref = *shift.original;
  UGraph out(Level::Kernel);
  std::vector<int32_t> map(g.values.size(), -1);
  for (int32_t in : g.inputs)
    map[in] = out.addInputLike(g.values[in]);
  // The row max exactly as the reference computes it: its ops, replayed
  // (docs/Rationale/StableSoftmax.md, "Verification").
  const int32_t rowMax = replayRowMax(shift, out);
  if (rowMax < 0)
    return std::nullopt;
  const UValue &maxVal = ref.values[shift.maxValue];
  unsigned stabilized = 0;
  for (const UOp &op : g.ops) {
    if (op.kind != OpKind::Custom) {
      if (!replayOp(out, op, map,
                    op.body >= 0 ? g.bodies[op.body] : UGraph()))
        return std::nullopt;
      continue;
    }
    UGraph body = g.bodies[op.body];
    llvm::SmallVector<int32_t, 4> operands;
    for (int32_t o : op.operands)
      operands.push_back(map[o]);
    // One exp at a time: each reads the row max through one more input.
    for (size_t done = 0;; ++done) {
      UGraph shifted;
      ShiftOutcome o = shiftOneExp(body, shift.rowDim, maxVal.shape,
                                   maxVal.type, done, shifted);
      if (o == ShiftOutcome::NoSuchExp)
        break;
      if (o == ShiftOutcome::Unshiftable)
        return std::nullopt; // an exp that cannot be shifted: never emit it
      operands.push_back(rowMax);
      body = std::move(shifted);
      ++stabilized;
    }
    int32_t r = out.addCustom(operands, std::move(body));
    if (r < 0)
      return std::nullopt;
    for (size_t k = 0; k < op.results.size(); ++k)
      map[op.results[k]] = r + k;
  }
  if (stabilized == 0)
    return std::nullopt;
  for (int32_t o : g.outputs)
    out.markOutput(map[o]);
  return out;
}

std::optional<UGraph> fusion::localizeSplitMax(const UGraph &pair,
                                               const ShiftFree &shift,
                                               bool online) {
  // The pair as instantiateSplit builds it: custom 1 over the inputs, then
  // custom 2 over custom 1's results (and the inputs of any tiles it
  // reloads).
  if (pair.ops.size() != 2 || pair.ops[0].kind != OpKind::Custom ||
      pair.ops[1].kind != OpKind::Custom)
    return std::nullopt;
  const UGraph &b1 = pair.bodies[pair.ops[0].body];
  const UGraph &b2 = pair.bodies[pair.ops[1].body];
  const int64_t d = shift.rowDim;
  // A loop: every iteration would have its own max, unless the max runs
  // (OnlineSoftmax.md).
  const bool loops = b1.forloopRange != 1;
  if (loops && !online)
    return std::nullopt;

  // The exp of kernel 1 and the dims of its argument per grid axis.
  int64_t expIdx = -1;
  for (size_t i = 0; i < b1.ops.size(); ++i) {
    const UOp &op = b1.ops[i];
    if (op.kind == OpKind::Unary && op.unaryKind() == UnaryKind::exp) {
      if (expIdx >= 0)
        return std::nullopt; // one exp, one shift
      expIdx = static_cast<int64_t>(i);
    }
  }
  if (expIdx < 0 || !runsInLoop(blockStage(b1, b1.ops[expIdx])))
    return std::nullopt;
  const int32_t y = b1.ops[expIdx].operands[0];
  const Shape &yShape = b1.values[y].shape;
  const int64_t rank = static_cast<int64_t>(yShape.size());
  std::optional<AxisDims> axes = partitionedDims(b1, y);
  if (!axes || d < 0 || d >= rank)
    return std::nullopt;
  // A looping split walks its part of the row; its sums that the exp
  // reaches take the running max's rescale.
  std::optional<std::vector<bool>> rescale;
  if (loops) {
    if ((*axes)[3] != d)
      return std::nullopt;
    rescale = rescaledAccumulators(b1, expIdx, d);
    if (!rescale)
      return std::nullopt;
  }
  // The split axis selects the row dim d of the scores; the rows' dim R is
  // whole in every block (the query rows of a group together, or a dim of
  // one), and the splits are stacked along it: split s holds rows
  // [s·r, (s+1)·r) of every saved partial and of the saved maxima.
  int sa = -1;
  for (int ax = 0; ax < 3; ++ax)
    if (b1.grid[ax] > 1 && (*axes)[ax] == d)
      sa = ax;
  if (sa < 0)
    return std::nullopt;
  // A dim of extent 1 that no grid axis maps stacks them as well (prefill,
  // whose query rows the grid splits: MultiKernel.md, "Prefill: stacking
  // along a dim of one"); a whole dim of two or more is preferred.
  auto whole = [&](int64_t dim) {
    for (int ax = 0; ax < 3; ++ax)
      if (b1.grid[ax] > 1 && (*axes)[ax] == dim)
        return false;
    return true;
  };
  int64_t rowDim = -1;
  for (int64_t dim = 0; dim < rank && rowDim < 0; ++dim)
    if (dim != d && yShape[dim] >= 2 && whole(dim))
      rowDim = dim;
  for (int64_t dim = 0; dim < rank && rowDim < 0; ++dim)
    if (dim != d && yShape[dim] == 1 && whole(dim))
      rowDim = dim;
  if (rowDim < 0)
    return std::nullopt;
  const int64_t rows = yShape[rowDim];
  const int64_t splits = b1.grid[sa];
  if (splits & (splits - 1))
    return std::nullopt; // the maxima are repeated by doubling
  auto stacked = [&](AxisMap omap) -> std::optional<AxisMap> {
    for (int ax = 0; ax < 3; ++ax)
      if (ax != sa && omap[ax] == rowDim) {
        if (b1.grid[ax] > 1)
          return std::nullopt;
        omap[ax] = -1;
      }
    omap[sa] = rowDim;
    return omap;
  };

  // Kernel 1: exp(y) → exp(y − max_d(y)); every saver stacks the splits
  // along the rows, and the maxima are saved the same way.
  UGraph k1(Level::Block);
  k1.grid = b1.grid;
  k1.forloopRange = b1.forloopRange;
  k1.target = b1.target;
  std::vector<int32_t> map(b1.values.size(), -1);
  for (int32_t in : b1.inputs)
    map[in] = k1.addInputLike(b1.values[in]);
  int32_t localMax = -1, r = -1, prev = -1;
  for (int64_t i = 0; i < static_cast<int64_t>(b1.ops.size()); ++i) {
    const UOp &op = b1.ops[i];
    if (i == expIdx) {
      // The running max (cur), whose last value is the split's row max;
      // of one iteration, the tile's row max. Not a plain reduce max: a
      // split whose keys are all masked (−∞) has the row max −∞, and the
      // running max floors it at a finite value (RunningMaxRule.h), so its
      // exps are 0 instead of exp(−∞ + ∞) = NaN.
      prev = k1.addRunningMax(map[y], d);
      localMax = prev < 0 ? -1 : prev + 1;
      int32_t diff = localMax < 0
                         ? -1
                         : k1.addBinary(BinaryKind::sub, map[y], localMax);
      int32_t e = diff < 0 ? -1 : k1.addLike(op, {diff});
      if (e < 0)
        return std::nullopt;
      map[op.results[0]] = e;
      if (loops) {
        r = k1.addUnary(UnaryKind::exp,
                        k1.addBinary(BinaryKind::sub, prev, localMax));
        if (r < 0)
          return std::nullopt;
      }
      continue;
    }
    if (rescale && (*rescale)[i]) {
      int32_t a = k1.addAccum(op.accumKind(), map[op.operands[0]], r,
                              op.size, op.scalar);
      if (a < 0)
        return std::nullopt;
      map[op.results[0]] = a;
      continue;
    }
    if (op.kind == OpKind::OutputSaver) {
      std::optional<AxisMap> omap = stacked(op.map);
      const UValue &tile = b1.values[op.operands[0]];
      if (!omap || static_cast<int64_t>(tile.shape.size()) != rank ||
          tile.shape[rowDim] != rows)
        return std::nullopt;
      int32_t r = k1.addOutputSaver(map[op.operands[0]], *omap);
      if (r < 0)
        return std::nullopt;
      map[op.results[0]] = r;
      continue;
    }
    if (!replayOp(k1, op, map, op.body >= 0 ? b1.bodies[op.body] : UGraph()))
      return std::nullopt;
  }
  for (int32_t o : b1.outputs)
    k1.markOutput(map[o]);
  AxisMap maxMap{-1, -1, -1};
  for (int ax = 0; ax < 3; ++ax)
    if (b1.grid[ax] > 1)
      maxMap[ax] = (*axes)[ax];
  std::optional<AxisMap> maxOmap = stacked(maxMap);
  // Savers take after-loop tiles: the max through an accumulator. Of the
  // one iteration: a max. Of a loop: the last cur, the value the partials
  // are shifted by, as a sum whose state is multiplied by zero (prev − prev,
  // exactly 0 in every domain) in every iteration. A max of the curs equals
  // it over the reals but is another oracle value in the field, where the
  // shifts would then not cancel.
  int32_t kept = -1;
  if (maxOmap && !loops)
    kept = k1.addAccum(AccumKind::max, localMax, -1, 0);
  if (maxOmap && loops)
    kept = k1.addAccum(AccumKind::sum, localMax,
                       k1.addBinary(BinaryKind::sub, prev, prev), 0);
  int32_t maxSaver = kept < 0 ? -1 : k1.addOutputSaver(kept, *maxOmap);
  if (maxSaver < 0)
    return std::nullopt;
  k1.markOutput(maxSaver);

  // Kernel 2, one iteration over all splits of its rows: M = the max of the
  // maxima per row (a strided fold of the stacked rows), repeated once per
  // split by doubling, w = exp(m − M), and each partial scaled by w and
  // folded over the splits the same way. Then kernel 2's after-loop part.
  UGraph k2(Level::Block);
  k2.grid = b2.grid;
  k2.forloopRange = 1;
  k2.target = b2.target;
  std::vector<int32_t> map2(b2.values.size(), -1);
  const size_t partials = pair.ops[0].results.size();
  for (size_t i = 0; i < b2.inputs.size(); ++i) {
    if (i >= partials)
      return std::nullopt;
    const UValue &saved = k1.values[k1.outputs[i]];
    map2[b2.inputs[i]] = k2.addInputLike(saved);
  }
  const UValue &savedMax = k1.values[maxSaver];
  int32_t maxIn = k2.addInputLike(savedMax);
  int32_t scale = -1;
  for (const UOp &op : b2.ops) {
    if (op.kind == OpKind::InputIterator) {
      int32_t it = k2.addInputIterator(map2[op.operands[0]], op.map, -1);
      if (it < 0)
        return std::nullopt;
      map2[op.results[0]] = it;
      continue;
    }
    if (op.kind != OpKind::Accum) {
      if (!replayOp(k2, op, map2,
                    op.body >= 0 ? b2.bodies[op.body] : UGraph()))
        return std::nullopt;
      continue;
    }
    if (op.accumKind() != AccumKind::sum || op.operands.size() != 1)
      return std::nullopt; // a max partial or a rescaled one: not a sum
    if (scale < 0) {
      AxisMap imap = b2.ops.front().kind == OpKind::InputIterator
                         ? b2.ops.front().map
                         : AxisMap{-1, -1, -1};
      int32_t all = k2.addInputIterator(maxIn, imap, -1);
      int32_t big = all < 0 ? -1 : k2.addReduce(ReduceKind::max, all, rowDim,
                                                rows);
      for (int64_t n = 1; big >= 0 && n < splits; n *= 2)
        big = k2.addConcat(big, big, rowDim);
      int32_t diff =
          big < 0 ? -1 : k2.addBinary(BinaryKind::sub, all, big);
      scale = diff < 0 ? -1 : k2.addUnary(UnaryKind::exp, diff);
      if (scale < 0)
        return std::nullopt;
    }
    int32_t part = map2[op.operands[0]];
    int32_t scaled = part < 0 ? -1 : k2.addBinary(BinaryKind::mul, part, scale);
    if (scaled < 0 || k2.values[scaled].shape != k2.values[part].shape)
      return std::nullopt;
    int32_t folded = k2.addReduce(ReduceKind::sum, scaled, rowDim, rows);
    int32_t acc = folded < 0 ? -1 : k2.addLike(op, {folded});
    if (acc < 0)
      return std::nullopt;
    map2[op.results[0]] = acc;
  }
  if (scale < 0)
    return std::nullopt;
  for (int32_t o : b2.outputs)
    k2.markOutput(map2[o]);

  UGraph out(Level::Kernel);
  llvm::SmallVector<int32_t, 4> ins;
  for (int32_t in : pair.inputs)
    ins.push_back(out.addInputLike(pair.values[in]));
  int32_t r1 = out.addCustom(ins, std::move(k1));
  if (r1 < 0)
    return std::nullopt;
  llvm::SmallVector<int32_t, 4> mid;
  for (size_t i = 0; i <= partials; ++i) // the partials, then the maxima
    mid.push_back(r1 + i);
  int32_t r2 = out.addCustom(mid, std::move(k2));
  if (r2 < 0)
    return std::nullopt;
  for (size_t o = 0; o < pair.outputs.size(); ++o)
    out.markOutput(r2 + o);
  return out;
}

int fusion::softmaxRowClass(const UGraph &target,
                            const IndexClasses &classes, int64_t rowDim) {
  int found = -1;
  for (const UOp &op : target.ops) {
    if (op.kind != OpKind::Unary || op.unaryKind() != UnaryKind::exp)
      continue;
    const std::vector<int> &dims = classes.classOf[op.operands[0]];
    if (rowDim < 0 || rowDim >= static_cast<int64_t>(dims.size()) ||
        dims[rowDim] < 0 || (found >= 0 && found != dims[rowDim]))
      return -1;
    found = dims[rowDim];
  }
  return found;
}

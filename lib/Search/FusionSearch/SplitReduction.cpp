//===- SplitReduction.cpp - A found block graph as split kernel + combine -===//
//
// Split-K and split-KV (flash-decoding) as a kernel-level construction from
// a block graph the search found and verified at probe shapes
// (docs/Rationale/MultiKernel.md): kernel 1 is the graph's loop part with
// one more grid axis over the for-loop's class, saving every accumulator's
// partial result with the splits concatenated along a free dim; kernel 2
// folds the splits in a for-loop over that dim and runs the graph's
// after-loop operators and savers. The pair is verified at the real shapes
// like every other candidate, so the construction needs no proof of its own.
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/OpKinds.h"

#include "Mirage/Semantics/BlockSchedule.h"
#include "Mirage/Semantics/Replay.h"
#include "Mirage/Semantics/Target.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

/// The accumulator of kernel 2 that folds the per-split partials of an
/// accumulator of kind `k`, if its partials can be folded at all: a sum of
/// sums, a max of maxima. mean_last and rms_last finish with a division by
/// the iteration count (and a sqrt), which the partials would have to skip.
static std::optional<AccumKind> combineKind(AccumKind k) {
  switch (k) {
  case AccumKind::sum:
  case AccumKind::sum_last:
    return AccumKind::sum;
  case AccumKind::max:
    return AccumKind::max;
  case AccumKind::mean_last:
  case AccumKind::rms_last:
    return std::nullopt;
  }
  return std::nullopt;
}

/// Whether `op` runs after the loop and maps tiles element-wise (with
/// broadcasting), so that a dim of its operand lines up with the same dim of
/// its result.
static bool isElementwise(const UOp &op) {
  return opKindFacts(op.kind).isElementwise();
}

/// The omap of the first saver that `v` reaches through element-wise
/// after-loop operators, and that saver's tile; nullopt if none.
static std::optional<std::pair<AxisMap, int32_t>>
reachedSaver(const UGraph &b, int32_t v,
             const std::vector<std::vector<int32_t>> &users) {
  std::vector<int32_t> work{v};
  std::vector<bool> seen(b.values.size(), false);
  while (!work.empty()) {
    int32_t x = work.back();
    work.pop_back();
    if (seen[x])
      continue;
    seen[x] = true;
    for (int32_t u : users[x]) {
      const UOp &op = b.ops[u];
      if (op.kind == OpKind::OutputSaver)
        return std::make_pair(op.map, op.operands[0]);
      for (int32_t r : op.results)
        work.push_back(r);
    }
  }
  return std::nullopt;
}

/// Whether `op` of a found block graph belongs to kernel 1 (iterators,
/// in-loop operators, accumulators) rather than kernel 2 (after-loop
/// operators, savers). An accumulator's finish runs after the loop too,
/// but only sum-like accumulators are split, whose finish is the identity.
static bool inLoopPart(const UGraph &b, const UOp &op) {
  return runsInLoop(blockStage(b, op));
}

SplitPlan fusion::planSplit(const UGraph &b, const Pattern &pattern) {
  SplitPlan plan;
  if (pattern.loopClass < 0) {
    plan.why = "no for-loop to split";
    return plan;
  }
  if (pattern.gridClasses.size() >= 3) {
    plan.why = "no free grid axis";
    return plan;
  }
  plan.splitAxis = pattern.gridClasses.size();
  std::vector<std::vector<int32_t>> users(b.values.size());
  for (size_t i = 0; i < b.ops.size(); ++i)
    for (int32_t o : b.ops[i].operands)
      users[o].push_back(static_cast<int32_t>(i));
  for (const UOp &op : b.ops) {
    if (op.kind == OpKind::Accum) {
      std::optional<AccumKind> k = combineKind(op.accumKind());
      if (!k || op.operands.size() != 1) {
        plan.why = "an accumulator whose partials cannot be folded";
        return plan;
      }
      int32_t acc = op.results[0];
      auto saver = reachedSaver(b, acc, users);
      if (!saver) {
        plan.why = "an accumulator that reaches no saver";
        return plan;
      }
      const Shape &at = b.values[acc].shape;
      const Shape &st = b.values[saver->second].shape;
      if (at.size() != st.size()) {
        plan.why = "an accumulator of another rank than its output";
        return plan;
      }
      SplitPlan::Partial p{acc, saver->first, -1, *k};
      std::vector<bool> used(at.size(), false);
      for (int64_t d : p.omap)
        if (d >= 0) {
          // Broadcast along a gridded dim: the blocks along that axis
          // would all write the same partial.
          if (at[d] != st[d]) {
            plan.why = "an accumulator broadcast along a grid axis";
            return plan;
          }
          used[d] = true;
        }
      for (int64_t d = static_cast<int64_t>(at.size()) - 1; d >= 0; --d)
        if (!used[d]) {
          p.splitDim = d;
          break;
        }
      if (p.splitDim < 0) {
        plan.why = "an accumulator with no free dim for the splits";
        return plan;
      }
      plan.partials.push_back(p);
    } else if (blockStage(b, op) == BlockStage::AfterLoop &&
               !isElementwise(op)) {
      plan.why = "an after-loop operator that is not element-wise";
      return plan;
    }
  }
  if (plan.partials.empty()) {
    plan.why = "no accumulator";
    return plan;
  }
  // Loop-invariant tiles the after-loop part reads (AfterLoopInvariants.md):
  // kernel 2 loads them itself, replaying their iterators (fmap -1) and the
  // operators over them on the same inputs.
  auto loopPart = [&](size_t i) { return inLoopPart(b, b.ops[i]); };
  std::vector<bool> needed(b.values.size(), false);
  for (const UOp &op : b.ops)
    if (!inLoopPart(b, op))
      for (int32_t v : op.operands)
        if (b.values[v].phase == Phase::InLoop)
          needed[v] = true;
  plan.reloadedOps = backwardCone(b, needed, loopPart);
  for (size_t i = 0; i < b.inputs.size(); ++i)
    if (needed[b.inputs[i]])
      plan.reloadedInputs.push_back(i);
  // Kernel 1 keeps a reloaded op only where its own part reads it.
  std::vector<bool> readByKernel1(b.values.size(), false);
  for (size_t i = 0; i < b.ops.size(); ++i)
    if (inLoopPart(b, b.ops[i]) && !plan.reloadedOps[i])
      for (int32_t v : b.ops[i].operands)
        readByKernel1[v] = true;
  std::vector<bool> reread = backwardCone(
      b, readByKernel1, [&](size_t i) { return plan.reloadedOps[i]; });
  plan.kernel1Ops.resize(b.ops.size());
  for (size_t i = 0; i < b.ops.size(); ++i)
    plan.kernel1Ops[i] =
        inLoopPart(b, b.ops[i]) && (!plan.reloadedOps[i] || reread[i]);
  plan.ok = true;
  return plan;
}

static bool fitsTarget(const UGraph &block) {
  std::optional<TargetInfo> info = lookupTarget(block.target);
  return info && planKernel(block, *info).launchable;
}

bool fusion::instantiateSplit(const UGraph &fb, const SplitPlan &plan,
                              const UGraph &ref, const GridDims &grid,
                              int64_t splits, int64_t forloop, UGraph &out,
                              bool foldSplits) {
  const unsigned sa = plan.splitAxis;

  // Kernel 1: the loop part, the split axis added to every iterator that
  // walks the for-loop's class, one saver per accumulator.
  UGraph k1(Level::Block);
  k1.grid = grid;
  k1.grid[sa] = splits;
  k1.forloopRange = forloop;
  k1.target = fb.target;
  std::vector<int32_t> map(fb.values.size(), -1);
  for (size_t i = 0; i < fb.inputs.size(); ++i)
    map[fb.inputs[i]] = k1.addInputLike(ref.values[ref.inputs[i]]);
  for (size_t i = 0; i < fb.ops.size(); ++i) {
    const UOp &op = fb.ops[i];
    if (!plan.kernel1Ops[i])
      continue;
    UOp split = op;
    if (op.kind == OpKind::InputIterator)
      split.map[sa] = op.fmap; // block outer, iteration inner
    if (!replayOp(k1, split, map,
                  op.body >= 0 ? fb.bodies[op.body] : UGraph()))
      return false;
  }
  for (const SplitPlan::Partial &p : plan.partials) {
    AxisMap omap = p.omap;
    omap[sa] = p.splitDim;
    int32_t s = k1.addOutputSaver(map[p.accum], omap);
    if (s < 0)
      return false;
    k1.markOutput(s);
  }
  if (!fitsTarget(k1))
    return false;

  // Kernel 2: fold the splits, then the after-loop part. The splits are
  // stacked along splitDim, split-major: a for-loop over them, or (with
  // foldSplits) one tile of all of them reduced to one split's extent, whose
  // element j folds the elements j, j + w, j + 2w, ... (the strided reduce
  // of ShapeRules.h): the partials arrive in one round trip.
  UGraph k2(Level::Block);
  k2.grid = grid;
  k2.forloopRange = foldSplits ? 1 : splits;
  k2.target = fb.target;
  std::vector<int32_t> map2(fb.values.size(), -1);
  for (size_t i = 0; i < plan.partials.size(); ++i) {
    const SplitPlan::Partial &p = plan.partials[i];
    const UValue &saved = k1.values[k1.outputs[i]];
    int32_t in = k2.addInputLike(saved);
    int32_t it =
        k2.addInputIterator(in, p.omap, foldSplits ? -1 : p.splitDim);
    if (it < 0)
      return false;
    if (foldSplits) {
      const int64_t extent = k2.values[it].shape[p.splitDim];
      if (extent % splits != 0)
        return false;
      it = k2.addReduce(p.combine == AccumKind::max ? ReduceKind::max
                                                    : ReduceKind::sum,
                        it, p.splitDim, extent / splits);
      if (it < 0)
        return false;
    }
    int32_t acc = k2.addAccum(p.combine, it, -1, 0);
    if (acc < 0)
      return false;
    map2[p.accum] = acc;
  }
  // The inputs of the reloaded tiles follow the partials.
  for (size_t i : plan.reloadedInputs)
    map2[fb.inputs[i]] = k2.addInputLike(ref.values[ref.inputs[i]]);
  for (size_t i = 0; i < fb.ops.size(); ++i) {
    const UOp &op = fb.ops[i];
    if (plan.reloadedOps[i] &&
        !replayOp(k2, op, map2, op.body >= 0 ? fb.bodies[op.body] : UGraph()))
      return false;
  }
  for (const UOp &op : fb.ops) {
    if (inLoopPart(fb, op))
      continue;
    if (!replayOp(k2, op, map2,
                  op.body >= 0 ? fb.bodies[op.body] : UGraph()))
      return false;
  }
  for (int32_t o : fb.outputs)
    k2.markOutput(map2[o]);
  for (size_t o = 0; o < k2.outputs.size(); ++o)
    if (k2.values[k2.outputs[o]].shape != ref.values[ref.outputs[o]].shape)
      return false;
  if (!fitsTarget(k2))
    return false;

  UGraph k(Level::Kernel);
  llvm::SmallVector<int32_t, 4> ins;
  for (int32_t in : ref.inputs)
    ins.push_back(k.addInputLike(ref.values[in]));
  size_t numPartials = plan.partials.size();
  int32_t r1 = k.addCustom(ins, std::move(k1));
  if (r1 < 0)
    return false;
  llvm::SmallVector<int32_t, 4> partials;
  for (size_t i = 0; i < numPartials; ++i)
    partials.push_back(r1 + i);
  for (size_t i : plan.reloadedInputs)
    partials.push_back(ins[i]);
  int32_t r2 = k.addCustom(partials, std::move(k2));
  if (r2 < 0)
    return false;
  for (size_t o = 0; o < ref.outputs.size(); ++o)
    k.markOutput(r2 + o);
  out = std::move(k);
  return true;
}

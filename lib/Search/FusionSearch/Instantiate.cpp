//===- Instantiate.cpp - Probe block graphs at the real shapes ------------===//
//
// A block graph verified at probe shapes is rebuilt at the reference's real
// shapes for every grid extent and for-loop range its pattern allows, within
// the 4096-block and shared-memory limits of the target, and the cheapest
// configuration by the cost model is kept (stage 3).
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "Mirage/Semantics/KernelPlan.h"

#include "Mirage/Semantics/Replay.h"
#include "Mirage/Semantics/Target.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

/// Rebuilds a probe-shaped block graph at the reference's real input shapes
/// with the given launch configuration, as a kernel graph.
static bool instantiate(const UGraph &probeBlock, const UGraph &ref,
                        const GridDims &grid, int64_t forloop, UGraph &out) {
  UGraph b(Level::Block);
  b.grid = grid;
  b.forloopRange = forloop;
  b.target = probeBlock.target;
  std::vector<int32_t> map(probeBlock.values.size(), -1);
  for (size_t i = 0; i < probeBlock.inputs.size(); ++i)
    map[probeBlock.inputs[i]] = b.addInputLike(ref.values[ref.inputs[i]]);
  for (const UOp &op : probeBlock.ops) {
    if (!replayOp(b, op, map,
                  op.body >= 0 ? probeBlock.bodies[op.body] : UGraph()))
      return false;
  }
  for (int32_t o : probeBlock.outputs)
    b.markOutput(map[o]);
  for (size_t o = 0; o < b.outputs.size(); ++o)
    if (b.values[b.outputs[o]].shape != ref.values[ref.outputs[o]].shape)
      return false;
  std::optional<TargetInfo> info = lookupTarget(b.target);
  // Only instances the lowering can launch (their plan's shared memory).
  if (!info || !planKernel(b, *info).launchable)
    return false;
  UGraph k(Level::Kernel);
  llvm::SmallVector<int32_t, 4> ins;
  for (int32_t in : ref.inputs)
    ins.push_back(k.addInputLike(ref.values[in]));
  int32_t r = k.addCustom(ins, std::move(b));
  if (r < 0)
    return false;
  for (size_t o = 0; o < ref.outputs.size(); ++o)
    k.markOutput(r + o);
  out = std::move(k);
  return true;
}

/// Powers of two from 2 up to n that divide n.
static std::vector<int64_t> splitCandidates(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t f = 2; f <= n && n % f == 0; f *= 2)
    out.push_back(f);
  if (out.empty() && n > 1)
    out.push_back(smallestFactor(n));
  return out;
}

/// A grid axis's extents: the powers of two dividing n, and n / t for the
/// aligned tiles t (8 ... 256 elements) dividing n, so that a grid can fill
/// the machine with tiles that MMA fragments and 16-byte copies line up with
/// (FusionSearch.md, "Grid extents").
static std::vector<int64_t> gridCandidates(int64_t n) {
  std::vector<int64_t> out = splitCandidates(n);
  for (int64_t t = 8; t <= 256; t *= 2)
    if (n % t == 0 && n / t >= 2)
      out.push_back(n / t);
  llvm::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// Blocks launched by a kernel graph's custom kernels.
static int64_t launchedBlocks(const UGraph &k) {
  int64_t blocks = 0;
  for (const UOp &op : k.ops)
    if (op.kind == OpKind::Custom && op.body >= 0 &&
        op.body < static_cast<int32_t>(k.bodies.size())) {
      const GridDims &g = k.bodies[op.body].grid;
      blocks += g[0] * g[1] * g[2];
    }
  return blocks;
}

std::vector<Instance> fusion::cheapestInstances(
    const Found &f, const Pattern &pat, const IndexClasses &classes,
    const UGraph &reference, const CostFn &cost, bool split,
    InstanceCounts &counts, const ShiftFree *shift, bool online) {
  Instance one, pair, local, flash;
  pair.split = true;
  local.split = true;
  auto consider = [&](Instance &best, UGraph &g, bool stabilize = true) {
    // What is ranked is what would be emitted: with the shifts back.
    if (shift && stabilize) {
      std::optional<UGraph> stable = stabilizeExps(g, *shift);
      if (!stable)
        return;
      g = std::move(*stable);
    }
    LaunchEstimate e = cost(g);
    // By the ranking figure (CostModel.md, "Ranking: a charge for grids
    // that leave SMs idle"); on an equal figure the less MMA work on
    // padded rows (a decode GEMV's 16 weight rows on the MMA's rows rather
    // than 8 with the tokens padded to 16: FusionSearch.md, "Ties: padded
    // MMA work before grid size"), then the larger grid: 128 and 256
    // blocks of the same work cost the same on 132 SMs by the model (the
    // busiest SM moves 1/128 of it either way), but 256 keeps every SM
    // busy and more bytes in flight (FusionSearch.md, "Grid extents").
    bool better = e.rank < best.rank;
    if (e.rank == best.rank && best.valid())
      better = e.paddingFlops != best.paddingFlops
                   ? e.paddingFlops < best.paddingFlops
                   : launchedBlocks(g) > launchedBlocks(best.graph);
    if (better) {
      best.graph = std::move(g);
      best.seconds = e.seconds;
      best.rank = e.rank;
      best.paddingFlops = e.paddingFlops;
    }
  };
  // A split pair, and the same pair with its combine on more blocks
  // (CombineGrid.cpp).
  auto considerWidened = [&](Instance &best, UGraph &g, bool stabilize = true) {
    for (UGraph &w : widenedCombines(g)) {
      ++counts.instances;
      ++counts.splitInstances;
      consider(best, w, stabilize);
    }
    consider(best, g, stabilize);
  };
  forEachLaunch(pat, classes, [&](const GridDims &grid, int64_t loop) {
    UGraph g;
    if (!instantiate(f.block, reference, grid, loop, g))
      return;
    ++counts.instances;
    // Flash attention: the loop walks the scores' rows, shifted by their
    // running max (OnlineSoftmax.cpp); needs no row-max kernel.
    if (shift && online && loop > 1)
      if (std::optional<UGraph> o = onlineSoftmax(g, *shift)) {
        ++counts.instances;
        consider(flash, *o, /*stabilize=*/false);
      }
    consider(one, g);
  });
  if (split) {
    SplitPlan plan = planSplit(f.block, pat);
    if (plan.ok)
      forEachSplitLaunch(
          pat, classes,
          [&](const GridDims &grid, int64_t splits, int64_t loop) {
            UGraph g;
            if (!instantiateSplit(f.block, plan, reference, grid, splits,
                                  loop, g))
              return;
            ++counts.instances;
            ++counts.splitInstances;
            // Flash-decoding: each split shifted by its own row max, the
            // combine rescaling the splits (a for-loop of one iteration).
            // With online softmax a looping split kernel too, by its
            // running max.
            if (shift && (loop == 1 || online))
              if (std::optional<UGraph> l =
                      localizeSplitMax(g, *shift, online)) {
                ++counts.instances;
                ++counts.splitInstances;
                considerWidened(local, *l, /*stabilize=*/false);
              }
            considerWidened(pair, g);
            // The same pair with a combine that loads every split at once.
            UGraph folded;
            if (instantiateSplit(f.block, plan, reference, grid, splits, loop,
                                 folded, /*foldSplits=*/true)) {
              ++counts.instances;
              ++counts.splitInstances;
              considerWidened(pair, folded);
            }
          });
  }
  std::vector<Instance> out;
  for (Instance *inst : {&one, &pair, &local, &flash})
    if (inst->valid())
      out.push_back(std::move(*inst));
  return out;
}

void fusion::forEachLaunch(
    const Pattern &pat, const IndexClasses &classes,
    llvm::function_ref<void(const GridDims &, int64_t)> fn) {
  std::vector<std::vector<int64_t>> axisChoices;
  for (int c : pat.gridClasses)
    axisChoices.push_back(gridCandidates(classes.extent[c]));
  std::vector<int64_t> loopChoices =
      pat.loopClass >= 0 ? splitCandidates(classes.extent[pat.loopClass])
                         : std::vector<int64_t>{1};
  // Odometer over the grid extents of the active axes.
  std::vector<size_t> idx(axisChoices.size(), 0);
  for (bool more = true; more;) {
    GridDims grid{1, 1, 1};
    int64_t blocks = 1;
    for (size_t a = 0; a < idx.size(); ++a) {
      grid[a] = axisChoices[a][idx[a]];
      blocks *= grid[a];
    }
    if (blocks <= kSearchMaxBlocks)
      for (int64_t loop : loopChoices)
        fn(grid, loop);
    more = false;
    for (size_t a = 0; a < idx.size(); ++a) {
      if (++idx[a] < axisChoices[a].size()) {
        more = true;
        break;
      }
      idx[a] = 0;
    }
  }
}

void fusion::forEachSplitLaunch(
    const Pattern &pat, const IndexClasses &classes,
    llvm::function_ref<void(const GridDims &, int64_t, int64_t)> fn) {
  if (pat.loopClass < 0 || pat.gridClasses.size() >= 3)
    return;
  const int64_t extent = classes.extent[pat.loopClass];
  const size_t axis = pat.gridClasses.size();
  std::vector<int64_t> factors = splitCandidates(extent);
  // The one-kernel launches of the pattern give the grids (each for-loop
  // range once); the splits and the split's for-loop are chosen here.
  Pattern gridOnly = pat;
  gridOnly.loopClass = -1;
  forEachLaunch(gridOnly, classes, [&](const GridDims &grid, int64_t) {
    int64_t blocks = grid[0] * grid[1] * grid[2];
    for (int64_t s : factors) {
      if (blocks * s > kSearchMaxBlocks)
        break;
      GridDims g = grid;
      g[axis] = 1; // the split axis is set by the caller's construction
      for (int64_t loop = 1; s * loop <= extent && extent % (s * loop) == 0;
           loop *= 2)
        fn(g, s, loop);
    }
  });
}

double fusion::patternCostFloor(const Pattern &pat, const IndexClasses &classes,
                                const UGraph &reference,
                                const CostFloorFn &floor, bool split,
                                double rowMaxPrefix, bool online, int rowClass,
                                double tailFloor, double firstLaunch) {
  double saved = 0;
  for (int32_t o : reference.outputs)
    saved += double(numElements(reference.values[o].shape)) *
             double(elemTypeBytes(reference.values[o].type));
  double least = std::numeric_limits<double>::infinity();
  // An instance's kernels after `before` (the row-max kernels' cost, or 0):
  // those kernels launch first when they run (their cost has the graph's
  // first launch); otherwise the instance's first kernel pays it.
  auto afterPrefix = [&](double before, double kernels) {
    return before + kernels + (before > 0 ? 0 : firstLaunch);
  };
  forEachLaunch(pat, classes, [&](const GridDims &grid, int64_t loop) {
    UGraph b(Level::Block);
    b.grid = grid;
    b.forloopRange = loop;
    // With a for-loop over the softmax row the instance may be in
    // online-softmax form (onlineSoftmax), which has no row-max kernels.
    const bool onlineForm =
        online && loop > 1 && (rowClass < 0 || pat.loopClass == rowClass);
    if (addPatternIterators(b, pat, classes, reference))
      least = std::min(
          least, afterPrefix(onlineForm ? 0 : rowMaxPrefix, floor(b, saved)));
  });
  if (!split)
    return least;
  // A split pair costs at least its split kernel, whose iterators are the
  // pattern's with the for-loop's class also on the split axis (those the
  // for-loop walks: the combine may load a loop-invariant tile instead,
  // AfterLoopInvariants.md), plus a
  // combining kernel on the other axes that writes the outputs, or the
  // tail that runs it in the split kernel's launch (what it reads is not
  // counted: the partials' sizes depend on the graph, and a floor must
  // hold for every graph of the pattern). A stabilized pair
  // also pays the row-max kernels; one in flash-decoding form does not:
  // localizeSplitMax builds it for a split kernel of one iteration, or of
  // any number with online softmax, whose split axis walks the softmax row
  // (`rowClass`; -1: not known, any class), since its exp runs in the split
  // kernel on a tile of each row.
  Pattern withSplit = pat;
  if (pat.loopClass >= 0)
    withSplit.gridClasses.push_back(pat.loopClass);
  forEachSplitLaunch(pat, classes,
                     [&](const GridDims &grid, int64_t splits, int64_t loop) {
                       UGraph b(Level::Block);
                       b.grid = grid;
                       b.grid[pat.gridClasses.size()] = splits;
                       b.forloopRange = loop;
                       if (!addPatternIterators(b, withSplit, classes,
                                                reference,
                                                /*loopWalkedOnly=*/true))
                         return;
                       // The combine on the pattern's grid, or spread
                       // over the split axis (widenedCombines): the least
                       // of them, or of a tail in the split kernel's
                       // launch (TailCombine.md), so the floor stays below
                       // every pair.
                       UGraph combine(Level::Block);
                       combine.grid = grid;
                       double combineFloor = floor(combine, saved);
                       const int64_t blocks = grid[0] * grid[1] * grid[2];
                       for (int64_t f = 2; blocks * f <= kSearchMaxBlocks;
                            f *= 2) {
                         combine.grid[pat.gridClasses.size()] = f;
                         combineFloor =
                             std::min(combineFloor, floor(combine, saved));
                       }
                       double pair =
                           floor(b, 0) + std::min(combineFloor, tailFloor);
                       bool flashDecoding =
                           (loop == 1 || online) &&
                           (rowClass < 0 || pat.loopClass == rowClass);
                       least = std::min(
                           least,
                           afterPrefix(flashDecoding ? 0 : rowMaxPrefix, pair));
                     });
  return least;
}

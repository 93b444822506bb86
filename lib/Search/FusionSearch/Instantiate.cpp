//===- Instantiate.cpp - Probe block graphs at the real shapes ------------===//
//
// A block graph verified at probe shapes is rebuilt at the reference's real
// shapes for every grid extent and for-loop range its pattern allows, within
// the 4096-block and shared-memory limits of the target, and the cheapest
// configuration by the cost model is kept (stage 3).
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "Mirage/Semantics/Replay.h"
#include "Mirage/Semantics/Target.h"

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
    map[probeBlock.inputs[i]] = b.addInput(ref.values[ref.inputs[i]].shape,
                                           ref.values[ref.inputs[i]].type);
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
  if (!info || sharedMemoryBytes(b) > info->smemBytesPerBlock)
    return false;
  UGraph k(Level::Kernel);
  llvm::SmallVector<int32_t, 4> ins;
  for (int32_t in : ref.inputs)
    ins.push_back(k.addInput(ref.values[in].shape, ref.values[in].type));
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

Instance fusion::cheapestInstance(const Found &f, const Pattern &pat,
                                  const IndexClasses &classes,
                                  const UGraph &reference, const CostFn &cost,
                                  uint64_t &instances) {
  Instance best;
  forEachLaunch(pat, classes, [&](const GridDims &grid, int64_t loop) {
    UGraph g;
    if (!instantiate(f.block, reference, grid, loop, g))
      return;
    ++instances;
    double s = cost(g);
    if (s < best.seconds) {
      best.graph = std::move(g);
      best.seconds = s;
    }
  });
  return best;
}

void fusion::forEachLaunch(
    const Pattern &pat, const IndexClasses &classes,
    llvm::function_ref<void(const GridDims &, int64_t)> fn) {
  std::vector<std::vector<int64_t>> axisChoices;
  for (int c : pat.gridClasses)
    axisChoices.push_back(splitCandidates(classes.extent[c]));
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
    if (blocks <= kMaxBlocks)
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

double fusion::patternCostFloor(const Pattern &pat,
                                const IndexClasses &classes,
                                const UGraph &reference,
                                const CostFloorFn &floor) {
  double saved = 0;
  for (int32_t o : reference.outputs)
    saved += double(numElements(reference.values[o].shape)) *
             double(elemTypeBytes(reference.values[o].type));
  double least = std::numeric_limits<double>::infinity();
  forEachLaunch(pat, classes, [&](const GridDims &grid, int64_t loop) {
    UGraph b(Level::Block);
    b.grid = grid;
    b.forloopRange = loop;
    if (addPatternIterators(b, pat, classes, reference))
      least = std::min(least, floor(b, saved));
  });
  return least;
}

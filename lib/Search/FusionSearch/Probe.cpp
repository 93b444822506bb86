//===- Probe.cpp - The reference scaled down to probe shapes --------------===//
#include "Stages.h"

#include "Mirage/Semantics/Replay.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

int64_t fusion::smallestFactor(int64_t n) {
  for (int64_t f = 2; f * f <= n; ++f)
    if (n % f == 0)
      return f;
  return n;
}

/// Replays the kernel graph `src` at new input shapes (reduction sizes > 1
/// follow their result's class through `sizeOf`).
template <typename SizeFn>
static bool replayKernel(const UGraph &src, llvm::ArrayRef<Shape> inputShapes,
                         UGraph &dst, SizeFn sizeOf) {
  std::vector<int32_t> map(src.values.size(), -1);
  for (size_t i = 0; i < src.inputs.size(); ++i) {
    const UValue &in = src.values[src.inputs[i]];
    map[src.inputs[i]] = dst.addInput(inputShapes[i], in.type, in.transposed);
  }
  for (const UOp &op : src.ops) {
    if (op.kind == OpKind::Custom || op.kind == OpKind::ThreadGraph)
      return false; // references are unfused
    UOp copy = op;
    if (op.kind == OpKind::Reduce && op.size > 1)
      copy.size = sizeOf(op.results[0], op.dim);
    if (!replayOp(dst, copy, map))
      return false;
  }
  for (int32_t o : src.outputs)
    dst.markOutput(map[o]);
  return true;
}

/// The probe extent of the `k`-th large class: 8, 12, then 4·(2k+1) = 20,
/// 28, 36, ... Halved by a grid axis or the for-loop these become 4, 6 and
/// odd multiples of 2 (10, 14, 18, ...), so no full or halved extent equals
/// another class's: unrelated dims cannot line up by accident
/// (docs/Rationale/SearchSpace.md, "Probe extents without accidental
/// alignment").
static int64_t probeExtent(int k) { return k < 2 ? 8 + 4 * k : 4 * (2 * k + 1); }

bool fusion::probeBlock(const Probe &probe, const Pattern &pattern,
                        const std::string &target, UGraph &b,
                        std::vector<AxisMap> &omaps) {
  b.target = target;
  // Most operand combinations an enumeration tries fail a shape or phase
  // rule; their messages would be built only to be discarded.
  b.explainFailures = false;
  for (size_t a = 0; a < pattern.gridClasses.size(); ++a)
    b.grid[a] = smallestFactor(probe.extent[pattern.gridClasses[a]]);
  if (pattern.loopClass >= 0)
    b.forloopRange = smallestFactor(probe.extent[pattern.loopClass]);
  // Iterators: one per input, maps from the classes; each output's omap:
  // its dim in each grid class.
  return addPatternIterators(b, pattern, probe.classes, probe.ref) &&
         patternOutputMaps(pattern, probe.classes, probe.ref, omaps);
}

Probe fusion::makeProbe(const UGraph &ref) {
  Probe p;
  p.classes = alignIndices(ref);
  int big = 0;
  for (int64_t e : p.classes.extent)
    p.extent.push_back(e < 8 ? e : probeExtent(big++));
  std::vector<Shape> shapes;
  for (int32_t in : ref.inputs) {
    Shape s;
    for (int c : p.classes.classOf[in])
      s.push_back(c < 0 ? 1 : p.extent[c]);
    shapes.push_back(s);
  }
  p.ok = replayKernel(ref, shapes, p.ref, [&](int32_t v, int64_t d) {
    int c = p.classes.classOf[v][d];
    return c < 0 ? int64_t(1) : p.extent[c];
  });
  return p;
}

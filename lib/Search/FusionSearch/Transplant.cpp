//===- Transplant.cpp - A found graph rebuilt on another grid of its group ===//
//
// Patterns that differ only in unreduced grid classes enumerate the same
// block graphs: a grid axis splits an index class that no operator reduces,
// so it changes tile extents, never which operators type-check or what
// their abstract expressions are (docs/Rationale/FusionSearch.md, "One
// enumeration per loop class"). One pattern of such a group enumerates;
// the others take its found graphs through here, each checked again at
// probe shapes on their own grid.
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

bool fusion::transplantFound(SearchContext &ctx, const Probe &probe,
                             const Found &f, const Pattern &pattern,
                             size_t patternIndex, Found &out) {
  const UGraph &src = f.block;
  const UGraph &ref = probe.ref;
  UGraph b(Level::Block);
  std::vector<AxisMap> omaps;
  // The group shares its for-loop class, so the probe loop range is src's.
  if (!probeBlock(probe, pattern, src.target, b, omaps))
    return false;
  // The iterators are both graphs' first ops, one per input in order; the
  // savers follow the outputs' order (checkCandidates adds them so).
  const size_t numInputs = ref.inputs.size();
  if (src.inputs.size() != numInputs || src.ops.size() < numInputs)
    return false;
  std::vector<int32_t> map(src.values.size(), -1);
  for (size_t i = 0; i < numInputs; ++i) {
    map[src.inputs[i]] = b.inputs[i];
    map[src.ops[i].results[0]] = b.ops[i].results[0];
  }
  size_t saver = 0;
  for (size_t i = numInputs; i < src.ops.size(); ++i) {
    const UOp &op = src.ops[i];
    llvm::SmallVector<int32_t, 4> operands;
    for (int32_t o : op.operands) {
      if (map[o] < 0)
        return false;
      operands.push_back(map[o]);
    }
    int32_t r;
    if (op.kind == OpKind::OutputSaver) {
      if (saver >= omaps.size() || operands.size() != 1)
        return false;
      r = b.addOutputSaver(operands[0], omaps[saver++]);
    } else {
      r = b.addLike(op, operands);
    }
    if (r < 0)
      return false;
    for (size_t k = 0; k < op.results.size(); ++k)
      map[op.results[k]] = r + static_cast<int32_t>(k);
  }
  for (int32_t o : src.outputs) {
    if (map[o] < 0)
      return false;
    b.markOutput(map[o]);
  }
  if (!acceptAtProbe(ctx, ref, b))
    return false;
  out = Found{std::move(b), patternIndex};
  return true;
}

//===- Prologue.cpp - Row normalisations applied to input tiles -----------===//
//
// An rms_norm of the reference whose operand is a graph input used by
// nothing else is applied to that input's tile before the enumeration, in
// launch patterns that keep the normalised dim whole in every block
// (docs/Rationale/FusionSearch.md, "Prologues").
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include <algorithm>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

namespace {

/// Whether the pattern splits class `c` over the grid or walks it in the
/// for-loop (an extent-1 dim, class -1, is never split).
bool patternSplits(const Pattern &pattern, int c) {
  if (c < 0)
    return false;
  return pattern.loopClass == c ||
         std::find(pattern.gridClasses.begin(), pattern.gridClasses.end(),
                   c) != pattern.gridClasses.end();
}

} // namespace

Prologues fusion::addPrologues(UGraph &b, const Pattern &pattern,
                               const IndexClasses &classes,
                               const UGraph &ref) {
  Prologues out;
  out.hidden.assign(b.values.size(), 0);
  out.fused.assign(ref.ops.size(), false);
  const std::vector<unsigned> readers = readerCounts(ref);
  for (size_t i = 0; i < ref.ops.size(); ++i) {
    const UOp &op = ref.ops[i];
    // Element-wise ops of one input are prologues in every pattern;
    // a normalisation only where its rows are whole.
    if (op.kind != OpKind::RmsNorm && op.kind != OpKind::Unary)
      continue;
    int32_t x = op.operands[0];
    auto in = std::find(ref.inputs.begin(), ref.inputs.end(), x);
    if (in == ref.inputs.end() || readers[x] != 1)
      continue;
    // Whole rows in every block: the normalised (last) dim, and the
    // weight's, which the shape rules align with it, are not split.
    const Shape &shape = ref.values[x].shape;
    if (op.kind == OpKind::RmsNorm &&
        (shape.empty() ||
         patternSplits(pattern, classes.classOf[x][shape.size() - 1])))
      continue;
    // The iterators are the block graph's first ops, one per input in
    // order (addPatternIterators).
    auto tileOf = [&](int32_t refInput) -> int32_t {
      auto it = std::find(ref.inputs.begin(), ref.inputs.end(), refInput);
      if (it == ref.inputs.end())
        return -1;
      return b.ops[it - ref.inputs.begin()].results[0];
    };
    llvm::SmallVector<int32_t, 2> operands;
    for (int32_t o : op.operands)
      operands.push_back(tileOf(o));
    if (llvm::is_contained(operands, -1))
      continue; // a weight computed inside the graph: not a prologue
    int32_t r = b.addLike(op, operands);
    if (r < 0)
      continue; // the builders refused the tile (e.g. a phase mismatch)
    out.hidden.resize(b.values.size(), 0);
    out.hidden[operands[0]] = 1;
    out.fused[i] = true;
    ++out.count;
  }
  // The menu items only the fused ops asked for.
  bool normLeft = false;
  for (size_t i = 0; i < ref.ops.size(); ++i)
    normLeft |= ref.ops[i].kind == OpKind::RmsNorm && !out.fused[i];
  out.needed = [&ref, fused = out.fused, normLeft](const MenuItem &item) {
    if (item.kind == OpKind::RmsNorm ||
        (item.kind == OpKind::Accum &&
         item.sub == (int32_t)AccumKind::rms_last))
      return normLeft;
    if (item.kind != OpKind::Unary)
      return true;
    for (size_t i = 0; i < ref.ops.size(); ++i) {
      const UOp &op = ref.ops[i];
      if (op.kind == OpKind::Unary && op.sub == item.sub &&
          op.scalar == item.scalar && !fused[i])
        return true;
    }
    return false;
  };
  return out;
}

//===- Prologue.cpp - Input-local op chains applied to input tiles --------===//
//
// The ops of the reference that read one graph input alone (scales,
// normalisations over any axis), and element-wise ops combining such
// values of several inputs (RoPE), are applied to the input tiles before
// the enumeration, in launch patterns that keep every dim they reduce
// whole in each block (docs/Rationale/FusionSearch.md, "Prologues").
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

/// Whether `op` (of `ref`) reduces over a dim that `pattern` splits: then
/// a tile holds part of what it reduces, and it is no prologue.
static bool reducesSplitDim(const UOp &op, const UGraph &ref,
                            const Pattern &pattern,
                            const IndexClasses &classes) {
  int32_t x = op.operands[0];
  const Shape &shape = ref.values[x].shape;
  switch (op.kind) {
  case OpKind::Reduce:
    return patternSplits(pattern, classes.classOf[x][op.dim]);
  case OpKind::RmsNorm:
    return shape.empty() ||
           patternSplits(pattern, classes.classOf[x][shape.size() - 1]);
  case OpKind::Unary:
  case OpKind::Binary:
    return false;
  // Not input-local tile work: a matmul contracts what another input
  // holds, the rest do not occur in an unfused reference.
  case OpKind::Matmul:
  case OpKind::Concat:
  case OpKind::Custom:
  case OpKind::InputIterator:
  case OpKind::Accum:
  case OpKind::OutputSaver:
  case OpKind::ThreadGraph:
  case OpKind::RunningMax:
    return true;
  }
  return true;
}

Prologues fusion::addPrologues(UGraph &b, const Pattern &pattern,
                               const IndexClasses &classes,
                               const UGraph &ref) {
  Prologues out;
  out.fused.assign(ref.ops.size(), false);
  const std::vector<unsigned> readers = readerCounts(ref);
  // Per value of ref: the input whose prologue computes it (-1: none), and
  // its value in b. The iterators are b's first ops, one per input in
  // order (addPatternIterators).
  std::vector<int32_t> owner(ref.values.size(), -1);
  std::vector<int32_t> map(ref.values.size(), -1);
  for (size_t i = 0; i < ref.inputs.size(); ++i) {
    owner[ref.inputs[i]] = ref.inputs[i];
    map[ref.inputs[i]] = b.ops[i].results[0];
  }
  auto isInput = [&](int32_t v) { return llvm::is_contained(ref.inputs, v); };
  // Grow each input's prologue in program order: an op joins when its first
  // operand is that input or its prologue's value, its other operands are
  // too, or are graph inputs (a weight), or (element-wise ops) another
  // input's prologue values, and it reduces no dim the pattern splits.
  for (size_t i = 0; i < ref.ops.size(); ++i) {
    const UOp &op = ref.ops[i];
    if (op.results.size() != 1 || op.operands.empty())
      continue;
    int32_t x = owner[op.operands[0]];
    if (x < 0)
      continue;
    bool local = true;
    for (size_t k = 1; k < op.operands.size(); ++k) {
      int32_t o = op.operands[k];
      // A second graph input as a side operand: an rms_norm's weight, or
      // the gamma a frontend multiplies a normalisation by. An element-wise
      // op may also combine two prologues (RoPE: q·cos + rotate_half(q)·sin,
      // the products prologues of q and of its rotated copy): the pattern
      // tiles aligned dims alike, so both tiles hold the same elements.
      local &= owner[o] == x ||
               (isInput(o) && op.kind == OpKind::RmsNorm) ||
               (owner[o] >= 0 && op.kind == OpKind::Binary);
    }
    if (!local || reducesSplitDim(op, ref, pattern, classes))
      continue;
    llvm::SmallVector<int32_t, 2> operands;
    for (int32_t o : op.operands)
      operands.push_back(map[o]);
    int32_t r = b.addLike(op, operands);
    if (r < 0)
      continue; // the builders refused the tile (e.g. a phase mismatch)
    owner[op.results[0]] = x;
    map[op.results[0]] = r;
    out.fused[i] = true;
  }
  // A prologue value is hidden when every reader is in its prologue (the
  // raw tile of a normalised input, the squares of a norm): the
  // enumeration sees only what the rest of the reference reads. Every
  // prologue value is read, by its chain or by the rest, so the block graph
  // holds no dead work.
  std::vector<unsigned> outside(ref.values.size(), 0);
  for (size_t i = 0; i < ref.ops.size(); ++i)
    if (!out.fused[i])
      for (int32_t o : ref.ops[i].operands)
        ++outside[o];
  for (int32_t o : ref.outputs)
    ++outside[o];
  out.hidden.assign(b.values.size(), 0);
  for (size_t v = 0; v < ref.values.size(); ++v)
    if (map[v] >= 0 && owner[v] >= 0 && outside[v] == 0 && readers[v] > 0)
      out.hidden[map[v]] = 1;
  return out;
}

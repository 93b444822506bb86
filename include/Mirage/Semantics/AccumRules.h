//===- AccumRules.h - What a for-loop accumulator does, once ----*- C++ -*-===//
//
// An accumulator folds one contribution per for-loop iteration into its
// state and may finish the state after the loop. The evaluator and the
// lowering both read these rules; neither restates which kind squares,
// reduces, divides or takes a square root.
//
//   contribution(x) = x                                   sum, max
//                   = Σ_last x        (strided to size)   sum_last, mean_last
//                   = Σ_last x²       (strided to size)   rms_last
//   state          ← identity; state ⊕= contribution     ⊕: +, max, or ·r + (rescaled)
//   finish(state)  = state                                sum, max, sum_last
//                  = state / count                        mean_last
//                  = sqrt(state / count [+ eps])          rms_last
//
// count = forloopRange · (operand's last dim / size): the number of operand
// elements that reach each state element.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_ACCUMRULES_H
#define MIRAGE_SEMANTICS_ACCUMRULES_H

#include "Mirage/Semantics/OpKinds.h"
#include "Mirage/Semantics/UGraph.h"

#include <limits>

namespace mirage {

enum class AccumCombine : uint8_t { Add, Max, RescaledAdd };

struct AccumRule {
  /// The contribution squares the operand's elements first (rms_last).
  bool squaresOperand = false;
  /// The contribution sums the operand's last dim strided to `size`.
  bool reducesLastDim = false;
  AccumCombine combine = AccumCombine::Add;
  /// After the loop: divide by accumCount (mean_last, rms_last).
  bool dividesByCount = false;
  /// After the division: add eps (rms_last with a nonzero eps).
  bool addsEps = false;
  /// Last: take the square root (rms_last).
  bool takesSqrt = false;

  /// The state's start value: the identity of the combine step.
  double identity() const {
    return combine == AccumCombine::Max
               ? -std::numeric_limits<double>::infinity()
               : 0.0;
  }
  bool finishes() const { return dividesByCount || addsEps || takesSqrt; }
};

/// The rule of accumulator op `op` (an OpKind::Accum): its kind's facts
/// (OpKinds.h) with its operands and eps.
inline AccumRule accumRule(const UOp &op) {
  AccumFacts f = accumFacts(op.accumKind());
  bool rescaled = op.operands.size() > 1;
  AccumRule r;
  r.squaresOperand = f.squares == SquaresOperand::Yes;
  r.reducesLastDim = f.reducesLastDim();
  switch (f.fold) {
  case Fold::Add:
    r.combine = rescaled ? AccumCombine::RescaledAdd : AccumCombine::Add;
    break;
  case Fold::Max:
    r.combine = AccumCombine::Max;
    break;
  }
  r.dividesByCount = f.byCount == DividesByCount::Yes;
  r.addsEps = f.usesScalar() && op.scalar != 0.0;
  r.takesSqrt = f.sqrt == TakesSqrt::Yes;
  return r;
}

/// The reduction target size of a *_last accumulator (1 when none given).
inline int64_t accumReduceSize(const UOp &op) {
  return op.size == 0 ? 1 : op.size;
}

/// How many operand elements reach each state element over the whole loop.
inline int64_t accumCount(const UGraph &block, const UOp &op) {
  const Shape &in = block.values[op.operands[0]].shape;
  return block.forloopRange * (in.back() / accumReduceSize(op));
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_ACCUMRULES_H

//===- RunningMaxRule.h - What running_max does, once ----------*- C++ -*-===//
//
// `%prev, %cur = running_max %x dim d` (docs/Rationale/OnlineSoftmax.md)
// keeps one state element per element of its results. In iteration t, with
// m_t = rowmax_d(x_t) (ReduceKind::max of dim d to size 1):
//
//   prev_t = m_0         if t = 0      (no -inf: the first rescale
//          = cur_{t-1}   otherwise      exp(prev_0 - cur_0) is exp(0) = 1)
//   cur_t  = max(prev_t, m_t)
//
// where m_t is floored at the lowest finite value of the state's type
// (runningMaxRow): a row whose tile is all −∞ (keys a mask hides in this
// iteration, or in this whole split) has m_t = −∞, and exp(x − m_t) would be
// exp(−∞ + ∞) = NaN where the reference, whose row has a visible key, is
// finite. With the floor its exps are exp(−∞ − lowest) = 0, every rescale
// exp(prev − cur) is finite, and a row with a finite element is unchanged.
//
// At t = 0, cur_0 = max(m_0, m_0) = m_0 in every domain (the finite field
// keys max on the unordered pair and has max(x, x) = x), so one formula
// serves both cases. Both results are read in the iteration that wrote them,
// before the next update: the evaluator and the loop lowering both read
// these two functions and nothing else about the op.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_RUNNINGMAXRULE_H
#define MIRAGE_SEMANTICS_RUNNINGMAXRULE_H

#include "Mirage/Semantics/UGraph.h"

#include <limits>

namespace mirage {

/// The least value the state takes: the lowest finite value of the type
/// the state is kept in (f64 in an f64 graph, f32 otherwise; the loop
/// lowering's compute type).
inline double runningMaxFloor(bool f64Graph) {
  return f64Graph ? -std::numeric_limits<double>::max()
                  : -double(std::numeric_limits<float>::max());
}

/// m_t as the state folds it: this iteration's row max, never below `floor`
/// (runningMaxFloor).
template <class V, class Max>
V runningMaxRow(Max &&max, const V &rowMax, const V &floor) {
  return max(rowMax, floor);
}

/// prev_t of one element: this iteration's row max in the first iteration,
/// the previous cur otherwise. `Select` is a domain's choice (a C++
/// conditional in the evaluator, a `select` on the iteration in the emitter).
template <class C, class V, class Select>
V runningMaxPrev(Select &&select, const C &isFirst, const V &rowMax,
                 const V &lastCur) {
  return select(isFirst, rowMax, lastCur);
}

/// cur_t of one element from prev_t and this iteration's row max.
template <class V, class Max>
V runningMaxCur(Max &&max, const V &prev, const V &rowMax) {
  return max(prev, rowMax);
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_RUNNINGMAXRULE_H

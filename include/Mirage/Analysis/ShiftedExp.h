//===- ShiftedExp.h - exp of a difference as a quotient of exps -*- C++ -*-===//
//
// The verifier's mode S (docs/Rationale/Verification.md §2a): every
// `exp(a - b)` (an exp whose operand a `sub` of the same graph computes, at
// the kernel, block and thread level) becomes `exp(a) / exp(b)`. The two
// are equal for the real exp, so a pair that is formally equal after the
// rewrite is equal for the reals; with exp a free symbol, the rewrite is
// what lets an online softmax's rescale factors telescope and its maxima
// cancel, whatever the maxima are.
//
// IR-free (a UGraph to UGraph rewrite).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_SHIFTEDEXP_H
#define MIRAGE_ANALYSIS_SHIFTEDEXP_H

#include "Mirage/Semantics/UGraph.h"

#include <optional>

namespace mirage {

/// Whether `g` (nested graphs included) has an exp of a sub.
bool hasShiftedExp(const UGraph &g);

/// `g` with every exp of a sub rewritten as a quotient of exps (nested
/// graphs included); std::nullopt if a rewritten op is refused by the
/// builders (it is not expected to be: the quotient has the exp's shape).
std::optional<UGraph> expandShiftedExps(const UGraph &g);

} // namespace mirage

#endif // MIRAGE_ANALYSIS_SHIFTEDEXP_H

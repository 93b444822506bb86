//===- DefinednessCone.h - What the definedness check evaluates -*- C++ -*-===//
//
// The definedness check (Verification.md §4.6) looks at the values a graph
// divides by, takes the sqrt of, or passes to pow; everything else it
// evaluates only to compute those. In an attention layer half the
// multiply-adds (P·V) feed no such value: the divisor is the sum of exps,
// not the weighted values it divides. definednessCone keeps, of a graph, the
// operators that call a partial operation of the domain and the backward
// cone of what they read, and drops the rest, so the check evaluates only
// that.
//
// The verdict does not change: every kept operator reads the same values
// (same inputs, same key, same operations), every partial call of the whole
// graph is still made with the same arguments, and the dropped operators
// call none, so they record nothing and check nothing. A division whose
// quotient nothing in the cone reads becomes a reciprocal of its divisor:
// the domain's division checks and records the divisor alone, and the
// field's zero-divisor flag depends on the divisor alone. A Custom op, and
// a thread graph whose results nothing kept reads, keep the cone of their
// body and the operands that cone reads.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_DEFINEDNESSCONE_H
#define MIRAGE_ANALYSIS_DEFINEDNESSCONE_H

#include "Mirage/Semantics/UGraph.h"

#include <optional>

namespace mirage {

/// Whether evaluating `op` itself (a nested body aside) calls a partial
/// operation: a division, sqrt or pow that may be undefined on part of the
/// reals (hasPartialOps' rule).
bool isPartialOp(const UOp &op);

/// Whether evaluating `op` itself calls the domain's division, sqrt or pow
/// at all: the partial operations, and the division of a mean_last
/// accumulator by its count (total, but the reference's divisors are
/// recorded whatever they are).
bool callsDivSqrtOrPow(const UOp &op);

/// `g` (kernel level, inputs unchanged and in order) restricted to the
/// operators that call the domain's division, sqrt or pow and their backward
/// cone, with no outputs (the check reads none); std::nullopt when `g` has a
/// scalar that is not finite (the field reports it wherever it is, so
/// nothing may be dropped) or the cone cannot be rebuilt.
std::optional<UGraph> definednessCone(const UGraph &g);

} // namespace mirage

#endif // MIRAGE_ANALYSIS_DEFINEDNESSCONE_H

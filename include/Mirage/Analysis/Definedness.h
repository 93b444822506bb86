//===- Definedness.h - The candidate is defined where the reference is -*- C++ -*-===//
//
// The field check compares formal expressions, in which r/r = 1 and
// sqrt(u)·rsqrt(u) = 1 whatever r and u are; over the reals they hold only
// where r ≠ 0 and u > 0. Refinement is what "equivalent" must mean: at every
// input where the reference is defined (no division by zero, no sqrt of a
// negative, pow in its domain), the candidate is defined too. Two checks
// enforce it (docs/Rationale/Verification.md §4.6):
//
//  * checkDefinedness: a sufficient condition on the graphs' expressions.
//    Both graphs are evaluated in DefinednessSemantics, whose values are a
//    field fingerprint (mode U), a factorization ±∏ atom^e over at most four
//    atoms, and sign facts (positive, nonnegative, nonzero). Every divisor,
//    sqrt argument and pow of the candidate must be covered by its sign
//    facts or by the reference's own divisors (resp. sqrt arguments, pow
//    calls), up to fingerprint equality, factor by factor.
//  * wideFloat64Refinement: float64 trials on inputs well outside [-1, 1)
//    (±2^10, one sign only, exact zeros) in a domain that tells a domain
//    error (division by an exact zero, sqrt of a negative) from an overflow
//    or underflow; a candidate undefined where the reference is defined is
//    rejected.
//
// Both run only when the candidate has a partial operation (hasPartialOps);
// a graph without one is defined everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_DEFINEDNESS_H
#define MIRAGE_ANALYSIS_DEFINEDNESS_H

#include "Mirage/Semantics/Tensor.h"
#include "Mirage/Semantics/UGraph.h"

#include <cstdint>
#include <string>

namespace mirage {

/// Whether `g` (nested graphs included) evaluates a partial operation: div,
/// pow, reciprocal, sqrt, rsqrt, rms_norm or an rms_last accumulator.
bool hasPartialOps(const UGraph &g);

struct DefinednessResult {
  enum class Status : uint8_t {
    /// Every partial operation of the candidate is covered.
    Refines,
    /// One is not: the pair is not verified (message says which).
    NotShown,
    /// A float64 trial found an input where the reference is defined and
    /// the candidate is not: a real counterexample.
    Counterexample,
    /// The check could not run (zero divisors in every redraw, memory).
    Inconclusive,
  };
  Status status = Status::Refines;
  std::string message;
  bool ok() const { return status == Status::Refines; }
};

/// Bytes the definedness check holds before it can stop (the candidate's
/// cone alone, its probe) and the wide float64 trials hold, the larger (0
/// when the candidate has no partial operation, since they do not run);
/// verificationBytes includes them. The check's full run (both cones) is
/// checked against the limit only where the probe does not suffice.
uint64_t definednessBytes(const UGraph &cand, const UGraph &ref);

/// What the expression check evaluates: the cone of the partial calls
/// (DefinednessCone.h), or the whole graphs, which give the same verdict
/// (tests compare the two).
enum class DefinednessScope : uint8_t { Cone, WholeGraphs };

/// The expression check (Verification.md §4.6). `seed` keys the field
/// fingerprints; `memoryLimitBytes` 0 is the default budget (checked on
/// what each run holds: the probe, then the full run); `threads` evaluator
/// workers (0:
/// hardware_concurrency), the verdict does not depend on it.
DefinednessResult checkDefinedness(const UGraph &cand, const UGraph &ref,
                                   uint64_t seed,
                                   uint64_t memoryLimitBytes = 0,
                                   unsigned threads = 1,
                                   DefinednessScope scope =
                                       DefinednessScope::Cone);

/// The wide-range float64 trials (Verification.md §4.6).
DefinednessResult wideFloat64Refinement(const UGraph &cand, const UGraph &ref,
                                        uint64_t seed, unsigned threads = 1);

/// Whether `g`, evaluated in float64 on `inputs` (in g.inputs order),
/// evaluates a partial operation outside its domain (a division by an exact
/// zero, a sqrt of a negative, ...) from operands that did not overflow or
/// underflow: the domain of the wide trials, for tests. `what` names the
/// first such operation.
bool float64DomainError(const UGraph &g,
                        const std::vector<Tensor<double>> &inputs,
                        std::string *what = nullptr);

/// The number of wide float64 trials and the input range of each, for
/// messages and tests.
constexpr unsigned kWideFloat64Trials = 3;
const char *wideTrialDescription(unsigned trial);

} // namespace mirage

#endif // MIRAGE_ANALYSIS_DEFINEDNESS_H

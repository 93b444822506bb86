//===- FormalCheck.h - Z3 proof of equivalence at small shapes --*- C++ -*-===//
//
// checkEquivalenceFormally runs the generic Evaluator<Sem> over Z3Semantics,
// a scalar domain whose values are Z3 real-arithmetic terms: every input
// element is a free real constant, add/sub/mul/div are real arithmetic, and
// exp, sqrt, sigmoid, tanh, erf, gelu, relu, pow and max are uninterpreted
// function symbols (one each; rsqrt = 1/sqrt, silu = x·sigmoid(x), max
// commutative, as in the finite-field domain). Both graphs are evaluated
// symbolically; Z3 is then asked whether, with every divisor nonzero, some
// output element of the candidate differs from the reference's:
//
//   unsat    the graphs are equal for all real inputs and all
//            interpretations of the function symbols (at these shapes);
//   sat      a counterexample (inputs, the differing element) is reported;
//   unknown  inconclusive (timeout, or beyond Z3's nonlinear reasoning).
//
// Before the query, each term is put in a rational normal form
// (num/den with expanded polynomials), so that congruent function
// applications become syntactically identical; this is exact rewriting,
// never an approximation. See docs/Rationale/Verification.md, "Formal check".
//
// This header does not include Z3 (its C++ API needs exceptions; the
// implementation is the one source compiled with them). Reentrant: every call
// makes its own Z3 context.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_FORMALCHECK_H
#define MIRAGE_ANALYSIS_FORMALCHECK_H

#include "Mirage/Semantics/UGraph.h"

#include <string>
#include <utility>
#include <vector>

namespace mirage {

struct FormalOptions {
  /// Refuse (status TooLarge) when the inputs or the outputs of the pair
  /// have more elements than this.
  int64_t maxElements = 4096;
  /// Z3 time limit for the query, in milliseconds.
  unsigned timeoutMs = 10000;
};

enum class FormalStatus : uint8_t {
  Equivalent,    // unsat: proven for these shapes
  NotEquivalent, // sat: counterexample found (or the signatures differ)
  Inconclusive,  // unknown, timeout, or a Z3 error
  TooLarge,      // not attempted: above maxElements
};

struct FormalResult {
  FormalStatus status = FormalStatus::Inconclusive;
  std::string message;
  /// NotEquivalent: the first differing output and element (row-major).
  int differingOutput = -1;
  int64_t differingElement = -1;
  /// NotEquivalent: the values of the candidate and the reference there.
  std::string candidateValue, referenceValue;
  /// NotEquivalent: the model's input values, "in<i>[<flat index>]" -> value
  /// (decimal, possibly rounded for irrational algebraic numbers).
  std::vector<std::pair<std::string, std::string>> counterexample;
  /// Output elements whose difference did not normalize to 0 (sent to Z3).
  int64_t residualElements = 0;
  double seconds = 0;

  bool equivalent() const { return status == FormalStatus::Equivalent; }
};

FormalResult checkEquivalenceFormally(const UGraph &cand, const UGraph &ref,
                                      const FormalOptions &opts = {});

} // namespace mirage

#endif // MIRAGE_ANALYSIS_FORMALCHECK_H

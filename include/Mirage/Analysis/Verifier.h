//===- Verifier.h - Probabilistic equivalence of μGraphs --------*- C++ -*-===//
//
// verifyEquivalence decides whether a candidate μGraph computes the same
// function as a reference by running both through the generic evaluator in
// the finite-field domain (FiniteField.h) on independent uniform random
// inputs, as many times as the error bound asks for. The bound comes from a
// static degree analysis of both graphs (computeErrorBound); the argument is
// written down in docs/Rationale/Verification.md.
//
// The API is reentrant: it reads its arguments only and keeps no global
// state, so the search may call it from many threads at once.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_VERIFIER_H
#define MIRAGE_ANALYSIS_VERIFIER_H

#include "Mirage/Semantics/RoundingSemantics.h"
#include "Mirage/Semantics/UGraph.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mirage {

/// What the degree analysis knows about one value (a bound over its
/// elements): the value is num/den, a quotient of polynomials of total degree
/// ≤ num and ≤ den in the inputs and the oracle outputs. kNum/kDen bound the
/// number of distinct exp terms (Theorem 2's k) of the numerator and
/// denominator when exp is interpreted; hasExp says whether exp occurs.
///
/// Heights (Verification.md §4.2): the numerator is 2^-sNum times an integer
/// polynomial whose coefficients have absolute values summing to at most
/// 2^(hNum + sNum); likewise the denominator.
struct DegreeInfo {
  double num = 1, den = 0;
  double kNum = 1, kDen = 1;
  double hNum = 0, sNum = 0, hDen = 0, sDen = 0;
  bool hasExp = false;
};

/// The functions whose calls can collide with each other: one per oracle
/// symbol of FiniteFieldSemantics (its oracle is keyed on the symbol, so
/// calls of different functions never share an output; silu reads the
/// sigmoid oracle, rsqrt the sqrt one), and interpreted exp.
enum class CallKind : uint8_t {
  Exp, Sqrt, Sigmoid, Gelu, Relu, Tanh, Pow, Max, InterpretedExp, Erf
};
inline constexpr size_t kNumCallKinds = 10;

/// Calls of one CallKind and the largest cleared heights of their
/// arguments.
struct CallsOfKind {
  double calls = 0;
  double hNum = 0, hDen = 0;
};

/// Whole-graph facts for the bound.
struct GraphDegrees {
  std::vector<DegreeInfo> outputs;
  double oracleCalls = 0;    // evaluations of uninterpreted functions
  double oracleArgNum = 0;   // largest numerator degree of an oracle argument
  double oracleArgDen = 0;   // largest denominator degree of one
  double divisions = 0;      // evaluations of field inverses
  double divisorDegree = 0;  // largest numerator degree of a divisor
  double divisorHeight = 0;  // largest cleared height of a divisor's numerator
  double expArgDegree = 0;   // largest degree of an exponent's num or den
  /// Per kind of call (oracle symbols, interpreted exp): the calls and the
  /// largest cleared heights (hNum + sNum, hDen + sDen) of their arguments.
  /// A difference of two arguments has a cleared numerator of height ≤
  /// their sum + 1 (Verification.md §4.2), and only two calls of one kind
  /// can collide, so bad primes are counted per kind (§4.2b).
  std::array<CallsOfKind, kNumCallKinds> byKind{};
  bool hasExp = false;       // the graph contains exp (either mode)
};

/// Degree analysis of a kernel (or block) graph; `expInterpreted` selects how
/// exp is counted (exp atom vs. oracle call).
GraphDegrees analyzeDegrees(const UGraph &g, bool expInterpreted);

/// The per-test false-acceptance bound ε for a pair, as log2 ε, and the
/// number of tests n with ε^n ≤ 2^-targetBits.
/// " test" or " tests" after a count, for messages.
inline const char *testsNoun(unsigned n) { return n == 1 ? " test" : " tests"; }

/// The fields a test computes in: the 61-bit pair Z_p × Z_q (modes U and I,
/// Verification.md §4.2a) or, for mode U at model scale, four 28-bit prime
/// fields in vector lanes (§4.2c, LaneField.h).
enum class FieldFamily : uint8_t { SafePrimePair, FourLanes };

struct ErrorBound {
  bool expInterpreted = false;
  FieldFamily family = FieldFamily::SafePrimePair;
  /// log2 ε (≤ 0).
  double log2PerTest = 0;
  unsigned tests = 0;     // 0 when vacuous: ε ≥ 1 or n > maxTests
  double log2Total = 0;   // n · log2 ε
  // The terms, for reports and tests.
  double szDegree = 0;       // Δ: degree of the cleared difference
  double collisionPairs = 0; // C(M, 2)
  double expTerms = 0;       // Theorem 2's k (0: no interpreted exp)
  double expDegree = 0;      // Theorem 2's d
  double zeroDivisor = 0;    // probability that a test is redrawn
  double heightBits = 0;     // H: largest cleared height (§4.2)
  double log2BadPrime = 0;   // log2 of the probability of a bad prime
  /// No meaningful bound at all (ε ≥ 1/2 per test even before counting
  /// tests) or more tests than the budget: the verdict is NotVerified.
  bool vacuous() const { return tests == 0; }
};
/// `family` FourLanes is for mode U only (expInterpreted false).
ErrorBound computeErrorBound(const UGraph &cand, const UGraph &ref,
                             bool expInterpreted, unsigned targetBits,
                             unsigned maxTests = 512,
                             FieldFamily family = FieldFamily::SafePrimePair);

/// When a mode-U check runs in four 28-bit fields (§4.2c).
enum class LaneFieldUse : uint8_t {
  /// At model scale (kLaneFieldMinMultiplyAdds per test or more), when the
  /// lanes need no more tests than the pair.
  Auto,
  Never,
  /// Whenever the lanes' bound is meaningful (tests of the lane domain).
  Always
};
/// The multiply-adds per test (both graphs) from which Auto uses the lanes:
/// below it the matmuls are not what a test costs.
constexpr double kLaneFieldMinMultiplyAdds = 1 << 24;
/// log2 of Theorem 2's term 8·d·k⁴/q + q^(−1/k²).
double theorem2Log2(double d, double k);

struct VerifyOptions {
  unsigned targetBits = 64;
  /// The seed of the test keys (primes, inputs, ω, oracles). Unset: drawn
  /// from std::random_device and reported in VerificationResult::seed. The
  /// bound holds for graphs chosen independently of the seed.
  std::optional<uint64_t> seed;
  /// Most tests one mode may run; a bound that needs more is "not verified".
  unsigned maxTests = 512;
  /// An accepted pair is evaluated in float64 on random inputs; a relative
  /// difference above this (or a NaN/inf mismatch) makes it NotEquivalent.
  /// Negative: skip the check.
  double float64Tolerance = 1e-6;
  /// Redraws of one test that hit a zero divisor before giving up.
  unsigned maxRedraws = 8;
  /// Look for an output permutation when the outputs do not match in order.
  bool allowPermutation = true;
  /// Evaluator workers per evaluation (0: hardware_concurrency, 1: serial;
  /// a caller that runs many verifications at once passes 1). The verdict
  /// does not depend on it.
  unsigned threads = 0;
  /// A progress line on stderr at the start of a test when this many
  /// seconds passed since the last one (0: none).
  double progressSeconds = 0;
  /// Refuse (Inconclusive, with a message) a check whose evaluations would
  /// store more field values than this many bytes; 0: the default budget
  /// (defaultMemoryLimitBytes, MemoryLimit.h). Large inputs are generated where read and do not count.
  uint64_t memoryLimitBytes = 0;
  /// A mode whose bound is vacuous still runs a few tests, so that a real
  /// difference is reported as NotEquivalent. A caller that only needs an
  /// acceptance (the search's final check, which moves on to the next
  /// candidate either way) turns them off: NotVerified without a test.
  bool probeWhenVacuous = true;
  /// Mode U in four 28-bit fields (Verification.md §4.2c).
  LaneFieldUse laneFields = LaneFieldUse::Auto;
  /// Try mode S before mode U when the candidate has a running max, which
  /// mode U cannot accept (Verification.md §2a, "Order"); off: mode U
  /// first for every pair. The verdict is the same either way.
  bool shiftedFirstForRunningMax = true;
};

enum class VerifyStatus : uint8_t {
  Equivalent,
  /// The outputs match the reference's only under a non-identity permutation.
  EquivalentUpToPermutation,
  NotEquivalent,
  /// No conclusion: zero divisors in every redraw, nested exp (outside LAX)
  /// where the exp-uninterpreted check failed, or a non-finite constant.
  Inconclusive,
  /// Every test passed, but the bound is vacuous (degree or height reaching
  /// the field size, Theorem 2 with too many exp terms): no claim is made.
  NotVerified,
};

struct VerificationResult {
  VerifyStatus status = VerifyStatus::Inconclusive;
  /// Tests run in the mode that decided.
  unsigned tests = 0;
  /// log2 of the false-acceptance bound (≤ 0), when accepted with a bound.
  double log2Bound = 0;
  bool boundVacuous = false;
  /// The seed the run used (given or drawn); pass it to reproduce the run.
  uint64_t seed = 0;
  /// Largest float64 relative difference of an accepted pair (NaN/inf
  /// mismatch: infinity); 0 when not checked.
  double float64Error = 0;
  bool expInterpreted = false;
  ErrorBound bound;
  /// EquivalentUpToPermutation: candidate output i is reference output
  /// permutation[i].
  std::vector<int> permutation;
  /// NotEquivalent: the first output that differs and the test (0-based).
  int differingOutput = -1;
  unsigned differingTest = 0;
  std::string message;
  /// Wall time of the check.
  double seconds = 0;

  bool equivalent() const { return status == VerifyStatus::Equivalent; }
};

VerificationResult verifyEquivalence(const UGraph &cand, const UGraph &ref,
                                     const VerifyOptions &opts = {});

/// A seed from the system's random source (std::random_device).
uint64_t drawRandomSeed();

/// The largest relative difference of `cand` and `ref` in float64 over
/// `trials` random inputs in [-1, 1): per output, max |a − b| / max |b|;
/// infinity where one side is NaN or infinite and the other is not (or both
/// are infinite with different signs).
double float64Disagreement(const UGraph &cand, const UGraph &ref,
                           uint64_t seed, unsigned trials = 1,
                           unsigned threads = 0);

/// The field multiply-adds of one evaluation of `g` at its shapes: the
/// products of every matmul (kernel and block level, over the grid and the
/// loop) and the squares of rms_norm. One test of a check costs those of
/// both graphs.
double multiplyAdds(const UGraph &g);

/// Bytes of field values one test of verifyEquivalence stores at most (the
/// bound checked against VerifyOptions::memoryLimitBytes), the definedness
/// check of Verification.md §4.6 included (Definedness.h).
uint64_t verificationBytes(const UGraph &cand, const UGraph &ref);

//===----------------------------------------------------------------------===//
// Floating-point check
//===----------------------------------------------------------------------===//

/// Largest accepted relative error for a computation in `t`.
double numericsThreshold(ElemType t);

struct NumericsResult {
  ElemType type = ElemType::F32;
  double maxRelError = 0;
  bool nonFinite = false; // the rounded run produced inf or NaN
  double threshold = 0;
  bool exceeds() const { return nonFinite || !(maxRelError <= threshold); }
};

/// Runs `cand` with every intermediate value rounded to its narrowest type
/// against `ref` in float64 on the same (rounded) random inputs.
NumericsResult checkNumerics(const UGraph &cand, const UGraph &ref,
                             uint64_t seed, unsigned trials = 1);

} // namespace mirage

#endif // MIRAGE_ANALYSIS_VERIFIER_H

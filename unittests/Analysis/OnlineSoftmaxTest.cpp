//===- OnlineSoftmaxTest.cpp - Flash attention with a running max ---------===//
//
// docs/Rationale/OnlineSoftmax.md. The reference is attention as a frontend
// writes it, softmax(Q·K)·V with the row max subtracted; the candidate is
// one flash-attention kernel: a Q tile per block, a for-loop over key tiles,
// `running_max` of the score row, the tile shifted by cur and the running
// sums l and o rescaled by exp(prev − cur), o / l after the loop.
//
// In the field max is a free symbol, so the running maxima are oracle
// values; mode S reads every exp(a − b) as exp(a)/exp(b), the rescales
// telescope (prev_t = cur_{t−1}) and exp(cur_T) cancels in o / l. A form
// that keeps l per element and sums it after the loop is accepted too. The
// mutants are not: a missing rescale of o, the tile shifted by the previous
// iteration's max (prev) while the sums are rescaled to cur, and the max of
// the wrong axis (per key column instead of per query row). The float64
// evaluator, run literally iteration by iteration, agrees with the
// reference for the correct forms and disagrees for the mutants.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/ShiftedExp.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mirage;

namespace {

// Q [kRows, kDim], K [kDim, kKeys], V [kKeys, kOut]; key tiles of kTile
// (kKeys / kTile iterations); kOut == kTile, so that the wrong-axis mutant's
// per-column factors broadcast over o and the mutant builds.
constexpr int64_t kRows = 8, kDim = 16, kKeys = 64, kTile = 16, kOut = 16;
constexpr int64_t kGrid = 2;

UGraph reference() {
  UGraph g;
  int32_t q = g.addInput({kRows, kDim}, ElemType::F32);
  int32_t k = g.addInput({kDim, kKeys}, ElemType::F32);
  int32_t v = g.addInput({kKeys, kOut}, ElemType::F32);
  int32_t s = g.addMatmul(q, k);
  int32_t m = g.addReduce(ReduceKind::max, s, 1);
  int32_t e = g.addUnary(UnaryKind::exp, g.addBinary(BinaryKind::sub, s, m));
  int32_t l = g.addReduce(ReduceKind::sum, e, 1);
  g.markOutput(g.addMatmul(g.addBinary(BinaryKind::div, e, l), v));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}

enum class Flash {
  Correct,         // l: sum_last with the rescale
  PerElementSum,   // correct: l kept per element, summed after the loop
  MissingRescale,  // o is not rescaled
  ShiftByPrev,     // the tile shifted by prev (the previous iteration's max)
  WrongAxis,       // the running max of dim 0 (per key column)
};

UGraph flash(Flash variant) {
  UGraph b(Level::Block);
  b.grid = {kGrid, 1, 1};
  b.forloopRange = kKeys / kTile;
  int32_t Q = b.addInput({kRows, kDim}, ElemType::F32);
  int32_t K = b.addInput({kDim, kKeys}, ElemType::F32);
  int32_t V = b.addInput({kKeys, kOut}, ElemType::F32);
  int32_t qt = b.addInputIterator(Q, {0, -1, -1}, -1);
  int32_t kt = b.addInputIterator(K, {-1, -1, -1}, 1);
  int32_t vt = b.addInputIterator(V, {-1, -1, -1}, 0);
  int32_t s = b.addMatmul(qt, kt);
  int32_t prev = b.addRunningMax(s, variant == Flash::WrongAxis ? 0 : 1);
  EXPECT_GE(prev, 0) << b.error;
  int32_t cur = prev + 1;
  int32_t e = b.addUnary(
      UnaryKind::exp,
      b.addBinary(BinaryKind::sub, s,
                  variant == Flash::ShiftByPrev ? prev : cur));
  int32_t r =
      b.addUnary(UnaryKind::exp, b.addBinary(BinaryKind::sub, prev, cur));
  int32_t l;
  if (variant == Flash::PerElementSum || variant == Flash::WrongAxis)
    l = b.addReduce(ReduceKind::sum, b.addAccum(AccumKind::sum, e, r, 0), 1);
  else
    l = b.addAccum(AccumKind::sum_last, e, r, 0);
  int32_t o = b.addAccum(AccumKind::sum, b.addMatmul(e, vt),
                         variant == Flash::MissingRescale ? -1 : r, 0);
  b.markOutput(
      b.addOutputSaver(b.addBinary(BinaryKind::div, o, l), {0, -1, -1}));
  EXPECT_TRUE(b.error.empty()) << b.error;

  UGraph g;
  llvm::SmallVector<int32_t> ins;
  for (int32_t in : b.inputs)
    ins.push_back(g.addInput(b.values[in].shape, b.values[in].type));
  int32_t out = g.addCustom(ins, std::move(b));
  EXPECT_GE(out, 0) << g.error;
  g.markOutput(out);
  return g;
}

const char *name(Flash v) {
  switch (v) {
  case Flash::Correct:
    return "correct";
  case Flash::PerElementSum:
    return "per-element sum";
  case Flash::MissingRescale:
    return "missing rescale";
  case Flash::ShiftByPrev:
    return "shift by prev";
  case Flash::WrongAxis:
    return "wrong axis";
  }
  return "?";
}

/// The largest |a − b| over the outputs, with scores spread over
/// [−scale, scale)·kDim so that the running max changes between tiles.
double maxDifference(const UGraph &cand, double scale) {
  UGraph ref = reference();
  Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem);
  auto ins = randomInputs(ref, 11, -scale, scale);
  Tensor<double> a = eval.run(cand, ins)[0];
  Tensor<double> b = eval.run(ref, ins)[0];
  EXPECT_EQ(a.shape, b.shape);
  double d = 0;
  for (size_t i = 0; i < a.data.size(); ++i)
    d = std::max(d, std::fabs(a.data[i] - b.data[i]));
  return d;
}

VerificationResult verify(const UGraph &cand, uint64_t seed) {
  VerifyOptions o;
  o.seed = seed;
  return verifyEquivalence(cand, reference(), o);
}

} // namespace

TEST(OnlineSoftmax, FlashAttentionMatchesTheReferenceInFloat64) {
  // Scores up to about ±40: exp without the shift would overflow nothing in
  // float64, but the running max moves from tile to tile.
  for (Flash v : {Flash::Correct, Flash::PerElementSum})
    EXPECT_LT(maxDifference(flash(v), 1.6), 1e-12) << name(v);
  for (Flash v : {Flash::MissingRescale, Flash::ShiftByPrev, Flash::WrongAxis})
    EXPECT_GT(maxDifference(flash(v), 1.6), 1e-3) << name(v);
}

TEST(OnlineSoftmax, FlashAttentionVerifiesInModeS) {
  for (Flash v : {Flash::Correct, Flash::PerElementSum}) {
    UGraph cand = flash(v);
    EXPECT_TRUE(hasShiftedExp(cand));
    for (uint64_t seed : {1u, 7u, 42u}) {
      VerificationResult r = verify(cand, seed);
      EXPECT_EQ(r.status, VerifyStatus::Equivalent) << name(v) << ": "
                                                    << r.message;
      EXPECT_LT(r.log2Bound, -60) << name(v) << ": " << r.message;
    }
  }
}

TEST(OnlineSoftmax, WrongRescalesAreRejected) {
  for (Flash v : {Flash::MissingRescale, Flash::ShiftByPrev, Flash::WrongAxis}) {
    UGraph cand = flash(v);
    for (uint64_t seed : {1u, 7u, 42u}) {
      VerificationResult r = verify(cand, seed);
      // A real difference (mode I decides, exactly), not a vacuous bound.
      EXPECT_EQ(r.status, VerifyStatus::NotEquivalent)
          << name(v) << ": " << r.message;
    }
  }
}

/// Mode S is tried first for a candidate with a running max (Verification.md
/// §2a, "Order"): the same verdict as mode U first, for the correct forms
/// and for every mutant, and the correct forms are still accepted in mode S
/// with the same bound.
TEST(OnlineSoftmax, ModeSFirstGivesTheSameVerdicts) {
  for (Flash v : {Flash::Correct, Flash::PerElementSum, Flash::MissingRescale,
                  Flash::ShiftByPrev, Flash::WrongAxis}) {
    UGraph cand = flash(v);
    for (uint64_t seed : {1u, 7u, 42u}) {
      VerifyOptions o;
      o.seed = seed;
      VerificationResult first = verifyEquivalence(cand, reference(), o);
      o.shiftedFirstForRunningMax = false;
      VerificationResult last = verifyEquivalence(cand, reference(), o);
      EXPECT_EQ(first.status, last.status)
          << name(v) << ": " << first.message << " / " << last.message;
      EXPECT_EQ(first.message, last.message) << name(v);
      EXPECT_EQ(first.log2Bound, last.log2Bound) << name(v);
    }
  }
}

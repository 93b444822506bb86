//===- FormalCheckTest.cpp - Tests of the Z3 formal check -----------------===//
#include "Mirage/Analysis/FormalCheck.h"
#include "Mirage/Analysis/Mutation.h"
#include "Mirage/Analysis/Verifier.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace mirage;
using test::rmsMatmulFused;
using test::rmsMatmulReference;

namespace {
/// A block graph whose tile broadcasts: out = Σ_loop (A_tile + B_tile) with
/// A iterated along `fmapA`; with 4x4 inputs and loop 4, fmap 0 gives 1x4
/// tiles and fmap 1 gives 4x1 tiles, both broadcast against a 4x4 tile.
UGraph broadcastSum(int64_t fmapA) {
  UGraph b(Level::Block);
  b.forloopRange = 4;
  int32_t A = b.addInput({4, 4}, ElemType::F32);
  int32_t B = b.addInput({4, 4}, ElemType::F32);
  int32_t at = b.addInputIterator(A, {-1, -1, -1}, fmapA);
  int32_t bt = b.addInputIterator(B, {-1, -1, -1}, -1);
  int32_t s = b.addAccum(AccumKind::sum, b.addBinary(BinaryKind::mul, at, bt),
                         -1, 0);
  b.markOutput(b.addOutputSaver(s, {-1, -1, -1}));
  UGraph g;
  int32_t a = g.addInput({4, 4}, ElemType::F32);
  int32_t bb = g.addInput({4, 4}, ElemType::F32);
  g.markOutput(g.addCustom({a, bb}, std::move(b)));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}
} // namespace

TEST(FormalCheck, ProvesFusedRmsNormMatmul) {
  FormalResult r = checkEquivalenceFormally(rmsMatmulFused(2, 8, 4, 2, 2),
                                            rmsMatmulReference(2, 8, 4));
  EXPECT_EQ(r.status, FormalStatus::Equivalent) << r.message;
  // A larger tiny shape, more blocks and iterations.
  r = checkEquivalenceFormally(rmsMatmulFused(4, 16, 8, 4, 4),
                               rmsMatmulReference(4, 16, 8));
  EXPECT_EQ(r.status, FormalStatus::Equivalent) << r.message;
}

TEST(FormalCheck, RefutesWrongFmapMutantWithCounterexample) {
  // Sanity: the mutant is rejected by the finite-field verifier too.
  UGraph good = broadcastSum(1), bad = broadcastSum(0);
  UGraph ref = broadcastSum(1);
  ASSERT_TRUE(verifyEquivalence(good, ref).equivalent());
  ASSERT_EQ(verifyEquivalence(bad, ref).status, VerifyStatus::NotEquivalent);
  EXPECT_EQ(checkEquivalenceFormally(good, ref).status,
            FormalStatus::Equivalent);
  FormalResult r = checkEquivalenceFormally(bad, ref);
  ASSERT_EQ(r.status, FormalStatus::NotEquivalent) << r.message;
  EXPECT_EQ(r.differingOutput, 0);
  EXPECT_GE(r.differingElement, 0);
  EXPECT_EQ(r.counterexample.size(), 32u); // every input element valued
  EXPECT_NE(r.candidateValue, r.referenceValue);
  EXPECT_NE(r.message.find("sat: output #0 element"), std::string::npos)
      << r.message;
}

TEST(FormalCheck, RefutesFmapMutantsOfTheCorpus) {
  // Every fmap mutant the generator makes of the fused graph that the
  // finite-field verifier rejects is refuted formally, and vice versa.
  UGraph ref = broadcastSum(1);
  int seen = 0;
  for (Mutant &m : generateMutants(broadcastSum(1))) {
    if (m.description.find("fmap") == std::string::npos)
      continue;
    ++seen;
    VerificationResult v = verifyEquivalence(m.graph, ref);
    FormalResult f = checkEquivalenceFormally(m.graph, ref);
    EXPECT_EQ(v.equivalent(), f.equivalent()) << m.description << ": "
                                              << f.message;
    if (!v.equivalent()) {
      EXPECT_EQ(f.status, FormalStatus::NotEquivalent) << m.description;
    }
  }
  EXPECT_GT(seen, 0);
}

TEST(FormalCheck, RefutesWrongAccumulator) {
  FormalResult r = checkEquivalenceFormally(
      rmsMatmulFused(2, 8, 4, 2, 2, AccumKind::mean_last),
      rmsMatmulReference(2, 8, 4));
  EXPECT_EQ(r.status, FormalStatus::NotEquivalent) << r.message;
}

TEST(FormalCheck, DefinitionsAndUninterpretedFunctions) {
  auto unary = [](UnaryKind k) {
    UGraph g;
    g.markOutput(g.addUnary(k, g.addInput({2, 3}, ElemType::F32)));
    return g;
  };
  // silu = x·sigmoid(x), rsqrt = 1/sqrt.
  UGraph spelled;
  int32_t x = spelled.addInput({2, 3}, ElemType::F32);
  spelled.markOutput(spelled.addBinary(
      BinaryKind::mul, x, spelled.addUnary(UnaryKind::sigmoid, x)));
  EXPECT_TRUE(checkEquivalenceFormally(spelled, unary(UnaryKind::silu))
                  .equivalent());
  UGraph inv;
  x = inv.addInput({2, 3}, ElemType::F32);
  inv.markOutput(
      inv.addUnary(UnaryKind::reciprocal, inv.addUnary(UnaryKind::sqrt, x)));
  EXPECT_TRUE(
      checkEquivalenceFormally(inv, unary(UnaryKind::rsqrt)).equivalent());
  // sqrt and tanh are different symbols: a model tells them apart.
  EXPECT_EQ(checkEquivalenceFormally(unary(UnaryKind::sqrt),
                                     unary(UnaryKind::tanh))
                .status,
            FormalStatus::NotEquivalent);
  // exp is uninterpreted here: exp(a)·exp(b) vs exp(a + b) is refuted (the
  // finite-field verifier accepts it under the LAX semantics).
  UGraph s, p;
  int32_t a = s.addInput({1, 2}, ElemType::F32), b = s.addInput({1, 2}, ElemType::F32);
  s.markOutput(s.addUnary(UnaryKind::exp, s.addBinary(BinaryKind::add, a, b)));
  a = p.addInput({1, 2}, ElemType::F32);
  b = p.addInput({1, 2}, ElemType::F32);
  p.markOutput(p.addBinary(BinaryKind::mul, p.addUnary(UnaryKind::exp, a),
                           p.addUnary(UnaryKind::exp, b)));
  EXPECT_EQ(checkEquivalenceFormally(p, s).status, FormalStatus::NotEquivalent);
  // max is commutative.
  UGraph m1, m2;
  a = m1.addInput({2, 2}, ElemType::F32);
  m1.markOutput(m1.addReduce(ReduceKind::max, a, 1));
  a = m2.addInput({2, 2}, ElemType::F32);
  m2.markOutput(m2.addReduce(ReduceKind::max, a, 1));
  EXPECT_TRUE(checkEquivalenceFormally(m1, m2).equivalent());
}

TEST(FormalCheck, ConstantsAreExact) {
  // x·0.1·10 is not x (0.1 is a dyadic rational), x·0.5·2 is.
  auto scaled = [](double s, double t) {
    UGraph g;
    int32_t x = g.addInput({1, 2}, ElemType::F32);
    g.markOutput(g.addUnary(UnaryKind::mul_scalar,
                            g.addUnary(UnaryKind::mul_scalar, x, s), t));
    return g;
  };
  EXPECT_TRUE(checkEquivalenceFormally(scaled(0.5, 2), scaled(1, 1)).equivalent());
  EXPECT_EQ(checkEquivalenceFormally(scaled(0.1, 10), scaled(1, 1)).status,
            FormalStatus::NotEquivalent);
}

TEST(FormalCheck, LimitsAndDegenerateCases) {
  FormalOptions small;
  small.maxElements = 16;
  EXPECT_EQ(checkEquivalenceFormally(rmsMatmulFused(2, 8, 4, 2, 2),
                                     rmsMatmulReference(2, 8, 4), small)
                .status,
            FormalStatus::TooLarge);
  // x / (x − x): the divisor is identically zero, nothing can be proven.
  UGraph g;
  int32_t x = g.addInput({2, 2}, ElemType::F32);
  g.markOutput(g.addBinary(BinaryKind::div, x, g.addBinary(BinaryKind::sub, x, x)));
  EXPECT_EQ(checkEquivalenceFormally(g, g).status, FormalStatus::Inconclusive);
}

//===- VerifierTest.cpp - Tests of the bound and the verifier -------------===//
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Analysis/Mutation.h"
#include "Mirage/Analysis/Verifier.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

using namespace mirage;
using test::rmsEpsMatmulFused;
using test::rmsEpsMatmulReference;
using test::rmsMatmulFused;
using test::rmsMatmulReference;

namespace {
/// f(x) applied element-wise as a one-op kernel graph.
UGraph unaryGraph(UnaryKind k, Shape s = {4, 8}) {
  UGraph g;
  g.markOutput(g.addUnary(k, g.addInput(s, ElemType::F32)));
  return g;
}
} // namespace

TEST(ErrorBound, Theorem2Term) {
  double lq = std::log2((double)ff::kQ);
  // k = 1: q^{-1} dominates nothing; 8d/q + 1/q.
  EXPECT_NEAR(theorem2Log2(1, 1), std::log2(9.0) - lq, 1e-9);
  // k = 2: q^{-1/4} dominates.
  EXPECT_NEAR(theorem2Log2(4, 2), -lq / 4, 0.01);
  // Many terms: vacuous.
  EXPECT_GT(theorem2Log2(4, 64), -0.1);
}

TEST(ErrorBound, DegreeAnalysis) {
  UGraph mm;
  int32_t a = mm.addInput({4, 16}, ElemType::F32);
  int32_t b = mm.addInput({16, 8}, ElemType::F32);
  mm.markOutput(mm.addMatmul(a, b));
  GraphDegrees d = analyzeDegrees(mm, false);
  ASSERT_EQ(d.outputs.size(), 1u);
  EXPECT_EQ(d.outputs[0].num, 2);
  EXPECT_EQ(d.outputs[0].den, 0);
  EXPECT_EQ(d.oracleCalls, 0);

  // rms_norm(X) @ W: x/s has degree (1, 1); 64 summed fractions.
  GraphDegrees r = analyzeDegrees(rmsMatmulReference(4, 64, 32), false);
  EXPECT_EQ(r.outputs[0].num, 2 + 63);
  EXPECT_EQ(r.outputs[0].den, 64);
  EXPECT_EQ(r.oracleCalls, 4); // one sqrt per row
  EXPECT_EQ(r.divisions, 4 * 64);

  // The fused graph: one rms per block and row (4 blocks × 4 rows).
  GraphDegrees f = analyzeDegrees(rmsMatmulFused(4, 64, 32, 4, 4), false);
  EXPECT_EQ(f.outputs[0].num, 2);
  EXPECT_EQ(f.outputs[0].den, 1);
  EXPECT_EQ(f.oracleCalls, 16);
}

TEST(ErrorBound, TestsReachTarget) {
  ErrorBound b = computeErrorBound(rmsMatmulFused(4, 64, 32, 4, 4),
                                   rmsMatmulReference(4, 64, 32), false, 64);
  ASSERT_FALSE(b.vacuous());
  EXPECT_LT(b.log2PerTest, -40);
  EXPECT_GE(b.tests, 1u);
  EXPECT_LE(b.log2Total, -64);
  EXPECT_GT((b.tests - 1) * b.log2PerTest, -64); // n is the least such
  EXPECT_EQ(b.szDegree, 66); // max(2 + 64, 65 + 1)
  EXPECT_EQ(b.collisionPairs, 20.0 * 19 / 2);
  ErrorBound b128 = computeErrorBound(rmsMatmulFused(4, 64, 32, 4, 4),
                                      rmsMatmulReference(4, 64, 32), false, 128);
  EXPECT_GE(b128.tests, 2 * b.tests - 1);
  // Interpreted exp over a long sum: Theorem 2 is vacuous.
  UGraph sm;
  int32_t x = sm.addInput({4, 64}, ElemType::F32);
  sm.markOutput(sm.addReduce(ReduceKind::sum, sm.addUnary(UnaryKind::exp, x), 1));
  ErrorBound e = computeErrorBound(sm, sm, true, 64);
  EXPECT_TRUE(e.vacuous());
  EXPECT_FALSE(computeErrorBound(sm, sm, false, 64).vacuous());
}

TEST(Verifier, AcceptsFusedRmsNormMatmul) {
  VerificationResult r = verifyEquivalence(rmsMatmulFused(4, 64, 32, 4, 4),
                                           rmsMatmulReference(4, 64, 32));
  EXPECT_EQ(r.status, VerifyStatus::Equivalent) << r.message;
  EXPECT_LE(r.log2Bound, -64);
  EXPECT_FALSE(r.expInterpreted);
}

TEST(Verifier, RejectsWrongAccumulator) {
  VerificationResult r =
      verifyEquivalence(rmsMatmulFused(4, 64, 32, 4, 4, AccumKind::mean_last),
                        rmsMatmulReference(4, 64, 32));
  EXPECT_EQ(r.status, VerifyStatus::NotEquivalent);
  EXPECT_EQ(r.differingOutput, 0);
  EXPECT_EQ(r.differingTest, 0u);
}

TEST(Verifier, AcceptsFusedRmsNormMatmulWithEps) {
  // rms_norm's mean + eps and rms_last's sum/count + eps reach the sqrt
  // oracle as the same field element.
  VerificationResult r =
      verifyEquivalence(rmsEpsMatmulFused(4, 64, 32, 4, 4, 1e-5),
                        rmsEpsMatmulReference(4, 64, 32, 1e-5));
  EXPECT_EQ(r.status, VerifyStatus::Equivalent) << r.message;
  EXPECT_LE(r.log2Bound, -64);
}

TEST(Verifier, RejectsWrongEps) {
  for (double eps : {0.0, 2e-5}) {
    VerificationResult r =
        verifyEquivalence(rmsEpsMatmulFused(4, 64, 32, 4, 4, eps),
                          rmsEpsMatmulReference(4, 64, 32, 1e-5));
    EXPECT_EQ(r.status, VerifyStatus::NotEquivalent) << "eps " << eps;
  }
}

TEST(Verifier, RejectsEpsMutant) {
  UGraph ref = rmsEpsMatmulReference(4, 64, 32, 1e-5);
  size_t epsMutants = 0;
  for (const Mutant &m :
       generateMutants(rmsEpsMatmulFused(4, 64, 32, 4, 4, 1e-5))) {
    if (m.description.find("rms_last eps") == std::string::npos)
      continue;
    ++epsMutants;
    EXPECT_EQ(verifyEquivalence(m.graph, ref).status,
              VerifyStatus::NotEquivalent)
        << m.description;
  }
  EXPECT_EQ(epsMutants, 1u);
}

TEST(Verifier, SiluIsNotXTimesExp) {
  UGraph surrogate;
  int32_t x = surrogate.addInput({4, 8}, ElemType::F32);
  surrogate.markOutput(surrogate.addBinary(
      BinaryKind::mul, x, surrogate.addUnary(UnaryKind::exp, x)));
  VerificationResult r = verifyEquivalence(surrogate, unaryGraph(UnaryKind::silu));
  EXPECT_EQ(r.status, VerifyStatus::NotEquivalent);
  // x·sigmoid(x) is silu by definition.
  UGraph spelled;
  x = spelled.addInput({4, 8}, ElemType::F32);
  spelled.markOutput(spelled.addBinary(
      BinaryKind::mul, x, spelled.addUnary(UnaryKind::sigmoid, x)));
  EXPECT_TRUE(verifyEquivalence(spelled, unaryGraph(UnaryKind::silu)).equivalent());
}

TEST(Verifier, RsqrtIsOneOverSqrt) {
  UGraph a, b;
  int32_t x = a.addInput({4, 8}, ElemType::F32);
  a.markOutput(a.addUnary(UnaryKind::reciprocal, a.addUnary(UnaryKind::sqrt, x)));
  x = b.addInput({4, 8}, ElemType::F32);
  b.markOutput(b.addUnary(UnaryKind::rsqrt, x));
  EXPECT_TRUE(verifyEquivalence(a, b).equivalent());
  EXPECT_FALSE(verifyEquivalence(unaryGraph(UnaryKind::sqrt), b).equivalent());
}

TEST(Verifier, ExpHomomorphismNeedsInterpretedExp) {
  // exp(a + b) vs exp(a)·exp(b): rejected with exp uninterpreted, accepted
  // under the LAX semantics (Theorem 2 with k = 1... per element).
  UGraph s, p;
  int32_t a = s.addInput({2, 4}, ElemType::F32), b = s.addInput({2, 4}, ElemType::F32);
  s.markOutput(s.addUnary(UnaryKind::exp, s.addBinary(BinaryKind::add, a, b)));
  a = p.addInput({2, 4}, ElemType::F32);
  b = p.addInput({2, 4}, ElemType::F32);
  p.markOutput(p.addBinary(BinaryKind::mul, p.addUnary(UnaryKind::exp, a),
                           p.addUnary(UnaryKind::exp, b)));
  VerificationResult r = verifyEquivalence(p, s);
  EXPECT_EQ(r.status, VerifyStatus::Equivalent) << r.message;
  EXPECT_TRUE(r.expInterpreted);
  // exp(a − b) is not exp(a)·exp(b).
  UGraph d;
  a = d.addInput({2, 4}, ElemType::F32);
  b = d.addInput({2, 4}, ElemType::F32);
  d.markOutput(d.addUnary(UnaryKind::exp, d.addBinary(BinaryKind::sub, a, b)));
  EXPECT_EQ(verifyEquivalence(p, d).status, VerifyStatus::NotEquivalent);
}

TEST(Verifier, OutputPermutation) {
  UGraph ref, cand;
  int32_t x = ref.addInput({4, 8}, ElemType::F32);
  ref.markOutput(ref.addUnary(UnaryKind::exp, x));
  ref.markOutput(ref.addUnary(UnaryKind::square, x));
  x = cand.addInput({4, 8}, ElemType::F32);
  cand.markOutput(cand.addUnary(UnaryKind::square, x));
  cand.markOutput(cand.addUnary(UnaryKind::exp, x));
  VerificationResult r = verifyEquivalence(cand, ref);
  EXPECT_EQ(r.status, VerifyStatus::EquivalentUpToPermutation);
  EXPECT_EQ(r.permutation, (std::vector<int>{1, 0}));
  VerifyOptions noPerm;
  noPerm.allowPermutation = false;
  EXPECT_EQ(verifyEquivalence(cand, ref, noPerm).status,
            VerifyStatus::NotEquivalent);
}

TEST(Verifier, ZeroDivisorIsInconclusive) {
  // x / (x − x): every test divides by zero.
  UGraph g;
  int32_t x = g.addInput({2, 2}, ElemType::F32);
  g.markOutput(g.addBinary(BinaryKind::div, x, g.addBinary(BinaryKind::sub, x, x)));
  EXPECT_EQ(verifyEquivalence(g, g).status, VerifyStatus::Inconclusive);
}

TEST(Verifier, ThreadSafeAndDeterministic) {
  UGraph cand = rmsMatmulFused(4, 64, 32, 4, 4);
  UGraph ref = rmsMatmulReference(4, 64, 32);
  UGraph bad = rmsMatmulFused(4, 64, 32, 4, 4, AccumKind::mean_last);
  std::vector<VerifyStatus> st(8);
  std::vector<std::thread> ts;
  for (int i = 0; i < 8; ++i)
    ts.emplace_back([&, i] {
      st[i] = verifyEquivalence(i % 2 ? bad : cand, ref).status;
    });
  for (auto &t : ts)
    t.join();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(st[i], i % 2 ? VerifyStatus::NotEquivalent
                           : VerifyStatus::Equivalent);
}

TEST(Numerics, Rounding) {
  EXPECT_EQ(roundToType(ElemType::F16, 1.0 + 0x1p-11), 1.0); // tie to even
  EXPECT_EQ(roundToType(ElemType::F16, 1.0 + 0x1p-10), 1.0 + 0x1p-10);
  EXPECT_EQ(roundToType(ElemType::F16, 65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(roundToType(ElemType::F16, 65520.0)));
  EXPECT_EQ(roundToType(ElemType::F16, 0x1p-25), 0.0);
  EXPECT_EQ(roundToType(ElemType::F16, 0x1p-24), 0x1p-24);
  EXPECT_EQ(roundToType(ElemType::BF16, 1.0 + 0x1p-8), 1.0);
  EXPECT_EQ(roundToType(ElemType::F32, 0.1), (double)0.1f);
}

TEST(Numerics, ExpOverflowsF16) {
  UGraph ref, cand;
  int32_t x = ref.addInput({4, 8}, ElemType::F16);
  ref.markOutput(ref.addUnary(UnaryKind::exp, ref.addUnary(UnaryKind::mul_scalar, x, 20)));
  NumericsResult n = checkNumerics(ref, ref, 1);
  EXPECT_EQ(n.type, ElemType::F16);
  EXPECT_TRUE(n.nonFinite);
  EXPECT_TRUE(n.exceeds());
  NumericsResult ok = checkNumerics(rmsMatmulFused(4, 64, 32, 4, 4),
                                    rmsMatmulReference(4, 64, 32), 1);
  EXPECT_FALSE(ok.exceeds()) << ok.maxRelError;
  NumericsResult eps = checkNumerics(rmsEpsMatmulFused(4, 64, 32, 4, 4, 1e-5),
                                     rmsEpsMatmulReference(4, 64, 32, 1e-5), 1);
  EXPECT_FALSE(eps.exceeds()) << eps.maxRelError;
}

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
  double lq = ff::FieldModuli::kLog2MinModulus;
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

  // rms_norm(X) @ W: x/s has degree (1, 1); the 64 summed fractions share
  // their row's s, so the sum keeps one denominator.
  GraphDegrees r = analyzeDegrees(rmsMatmulReference(4, 64, 32), false);
  EXPECT_EQ(r.outputs[0].num, 2);
  EXPECT_EQ(r.outputs[0].den, 1);
  EXPECT_EQ(r.oracleCalls, 4); // one sqrt per row
  EXPECT_EQ(r.divisions, 4 * 64);

  // The fused graph: one rms per block and row (4 blocks × 4 rows).
  GraphDegrees f = analyzeDegrees(rmsMatmulFused(4, 64, 32, 4, 4), false);
  EXPECT_EQ(f.outputs[0].num, 2);
  EXPECT_EQ(f.outputs[0].den, 1);
  EXPECT_EQ(f.oracleCalls, 16);

  // (A / B) @ C, A 4x16, C 16x8, for B of the given shape.
  auto divThenMatmul = [](Shape bShape) {
    UGraph g;
    int32_t a = g.addInput({4, 16}, ElemType::F32);
    int32_t b = g.addInput(std::move(bShape), ElemType::F32);
    int32_t c = g.addInput({16, 8}, ElemType::F32);
    g.markOutput(g.addMatmul(g.addBinary(BinaryKind::div, a, b), c));
    return analyzeDegrees(g, false);
  };
  // B varying along the summed dim: 16 different denominators, multiplied
  // out (N + 15·D, 16·D).
  GraphDegrees dq = divThenMatmul({4, 16});
  EXPECT_EQ(dq.outputs[0].num, 2 + 15);
  EXPECT_EQ(dq.outputs[0].den, 16);
  // The same with B one column, broadcast along the summed dim: shared.
  GraphDegrees ds = divThenMatmul({4, 1});
  EXPECT_EQ(ds.outputs[0].num, 2);
  EXPECT_EQ(ds.outputs[0].den, 1);
}

TEST(ErrorBound, TestsReachTarget) {
  ErrorBound b = computeErrorBound(rmsMatmulFused(4, 64, 32, 4, 4),
                                   rmsMatmulReference(4, 64, 32), false, 64);
  ASSERT_FALSE(b.vacuous());
  EXPECT_LT(b.log2PerTest, -40);
  // Heights of about 13 bits: no prime above 2^60 divides a coefficient.
  EXPECT_LT(b.heightBits, 60);
  EXPECT_EQ(b.log2BadPrime, -INFINITY);
  EXPECT_GE(b.tests, 1u);
  EXPECT_LE(b.log2Total, -64);
  EXPECT_GT((b.tests - 1) * b.log2PerTest, -64); // n is the least such
  EXPECT_EQ(b.szDegree, 3); // max(2 + 1, 2 + 1)
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

// Mode U argues in Z_p and Z_q at once (Verification.md §4.2a): the
// Schwartz–Zippel and collision terms are squared, so one test reaches 64
// bits where the one-field argument of mode I needs two.
TEST(ErrorBound, ModeUUsesBothFields) {
  UGraph fused = rmsMatmulFused(4, 64, 32, 4, 4);
  UGraph ref = rmsMatmulReference(4, 64, 32);
  ErrorBound u = computeErrorBound(fused, ref, false, 64);
  ErrorBound i = computeErrorBound(fused, ref, true, 64); // no exp: k = 0
  EXPECT_EQ(i.expTerms, 0);
  // One field: Δ/m = 2^-54 and C(M,2)·A/m ≈ 2^-51.
  EXPECT_GT(i.log2PerTest, -55);
  EXPECT_EQ(i.tests, 2u);
  // Both fields: (Δ/m)² = 2^-108 and C(M,2)·(A/m)² ≈ 2^-103.
  EXPECT_LT(u.log2PerTest, -100);
  EXPECT_LT(u.log2PerTest, 2 * i.log2PerTest + 2);
  EXPECT_EQ(u.tests, 1u);
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

// erf is an oracle of its own: equal to itself, not tanh (GELU's erf form
// is not the tanh form), and its argument matters.
TEST(Verifier, ErfIsItsOwnFunction) {
  UGraph erf = unaryGraph(UnaryKind::erf);
  EXPECT_TRUE(verifyEquivalence(erf, unaryGraph(UnaryKind::erf)).equivalent());
  EXPECT_EQ(verifyEquivalence(erf, unaryGraph(UnaryKind::tanh)).status,
            VerifyStatus::NotEquivalent);
  UGraph scaled;
  int32_t x = scaled.addInput({4, 8}, ElemType::F32);
  scaled.markOutput(scaled.addUnary(
      UnaryKind::erf, scaled.addUnary(UnaryKind::mul_scalar, x, 0.5)));
  EXPECT_EQ(verifyEquivalence(scaled, erf).status, VerifyStatus::NotEquivalent);
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

// Matmul sums accumulate in f32 (Verification.md §7): a long f16 dot product
// compared with itself stays within the f16 threshold, where rounding every
// partial sum to f16 (the error grows with K) exceeded it.
TEST(Numerics, MatmulAccumulatesInF32) {
  UGraph g;
  int32_t x = g.addInput({2, 16384}, ElemType::F16);
  int32_t w = g.addInput({16384, 64}, ElemType::F16);
  g.markOutput(g.addMatmul(x, w));
  NumericsResult n = checkNumerics(g, g, 1);
  EXPECT_EQ(n.type, ElemType::F16);
  EXPECT_FALSE(n.nonFinite);
  EXPECT_LT(n.maxRelError, 2e-3) << n.maxRelError;
}

//===----------------------------------------------------------------------===//
// Issue 11: the seven classes of false acceptance, one regression each
//===----------------------------------------------------------------------===//

namespace {
// The fixed public primes of the first verifier, to build inputs that fooled
// it. Nothing in the verifier uses them any more.
constexpr uint64_t kOldP = 9223372036854774893ULL; // 2^63 − 915
constexpr uint64_t kOldQ = 2305843009213693723ULL; // 2^61 − 229
using u128 = unsigned __int128;

/// x·c as a kernel op.
int32_t scaled(UGraph &g, int32_t x, double c) {
  return g.addUnary(UnaryKind::mul_scalar, x, c);
}
/// x^e by square-and-multiply (e ≥ 1).
int32_t power(UGraph &g, int32_t x, u128 e) {
  int32_t acc = -1, sq = x;
  while (e) {
    if (e & 1)
      acc = acc < 0 ? sq : g.addBinary(BinaryKind::mul, acc, sq);
    e >>= 1;
    if (e)
      sq = g.addUnary(UnaryKind::square, sq);
  }
  return acc;
}
/// The constant 1 as a function of x.
int32_t one(UGraph &g, int32_t x) {
  return g.addUnary(UnaryKind::add_scalar, scaled(g, x, 0), 1);
}
VerifyOptions seeded(uint64_t seed) {
  VerifyOptions o;
  o.seed = seed;
  return o;
}
} // namespace

// Class 1: constants that alias modulo the primes. 2^200 ≡ r (mod p·q) for
// the old primes, and r < 2^124 is a sum of four 31-bit pieces times powers
// of two, each an exact double: x·2^200 and Σ x·d_i·2^(31i) were equal in
// both old fields, though they differ by a factor of about 2^76 over R.
TEST(VerifierSoundness, ConstantsThatAliasModuloFixedPrimes) {
  u128 pq = (u128)kOldP * kOldQ, r = 1;
  for (int i = 0; i < 200; ++i)
    r = (r << 1) % pq;
  UGraph ref, cand;
  int32_t x = ref.addInput({2, 4}, ElemType::F32);
  ref.markOutput(scaled(ref, x, std::ldexp(1.0, 200)));
  x = cand.addInput({2, 4}, ElemType::F32);
  int32_t sum = -1;
  for (int i = 0; i < 4; ++i) {
    double d = (double)(uint64_t)((r >> (31 * i)) & 0x7fffffff);
    int32_t t = scaled(cand, x, std::ldexp(d, 31 * i));
    sum = sum < 0 ? t : cand.addBinary(BinaryKind::add, sum, t);
  }
  cand.markOutput(sum);
  for (uint64_t seed : {1, 2, 3}) {
    VerificationResult v = verifyEquivalence(cand, ref, seeded(seed));
    EXPECT_EQ(v.status, VerifyStatus::NotEquivalent) << v.message;
  }
  // The bound counts the primes that could divide the 200-bit coefficient.
  ErrorBound b = computeErrorBound(cand, ref, false, 64);
  EXPECT_GE(b.heightBits, 200);
  EXPECT_GT(b.log2BadPrime, -50);
}

// Class 2: one field alone decided. 2^63 ≡ 915 (mod old p) but not mod old
// q; the oracles were keyed on the p residue only, so sqrt(2^63·x) and
// sqrt(915·x) got the same outputs in both fields.
TEST(VerifierSoundness, AliasingInOneFieldDoesNotReachOracles) {
  UGraph a, b;
  int32_t x = a.addInput({2, 4}, ElemType::F32);
  a.markOutput(a.addUnary(UnaryKind::sqrt, scaled(a, x, std::ldexp(1.0, 63))));
  x = b.addInput({2, 4}, ElemType::F32);
  b.markOutput(b.addUnary(UnaryKind::sqrt, scaled(b, x, 915)));
  ASSERT_EQ(((u128)1 << 63) % kOldP, 915u);
  for (uint64_t seed : {1, 2, 3}) {
    VerificationResult v = verifyEquivalence(a, b, seeded(seed));
    EXPECT_EQ(v.status, VerifyStatus::NotEquivalent) << v.message;
  }
}

// Class 3: vacuous bounds. x^E with E = lcm(p − 1, q − 1) of the old primes
// was 1 in both old fields and was reported "equivalent" to 1 with "no
// useful bound"; and a formally equal pair whose degree reaches the field
// size proves nothing: "not verified", never equivalent.
TEST(VerifierSoundness, VacuousBoundIsNotVerified) {
  u128 e = (u128)2 * kOldQ * (kOldQ - 1); // lcm(4q, q − 1)
  ASSERT_EQ(e % (kOldP - 1), 0u);
  UGraph chain, unit;
  int32_t x = chain.addInput({2, 2}, ElemType::F32);
  chain.markOutput(power(chain, x, e));
  x = unit.addInput({2, 2}, ElemType::F32);
  unit.markOutput(one(unit, x));
  VerificationResult v = verifyEquivalence(chain, unit, seeded(1));
  EXPECT_NE(v.status, VerifyStatus::Equivalent) << v.message;

  // x^(2^70) by squaring vs x^(2^69)·x^(2^69): equal, degree 2^70.
  UGraph s1, s2;
  x = s1.addInput({2, 2}, ElemType::F32);
  s1.markOutput(power(s1, x, (u128)1 << 70));
  x = s2.addInput({2, 2}, ElemType::F32);
  int32_t h = power(s2, x, (u128)1 << 69);
  s2.markOutput(s2.addBinary(BinaryKind::mul, h, h));
  VerificationResult nv = verifyEquivalence(s1, s2, seeded(1));
  EXPECT_EQ(nv.status, VerifyStatus::NotVerified) << nv.message;
  EXPECT_NE(nv.message.find("no meaningful false-acceptance bound"),
            std::string::npos)
      << nv.message;
}

// Class 3, the other side: a correct softmax over a row of 8 whose proof
// needs exp(a + b) = exp(a)·exp(b) (mode I, Theorem 2 with a weak per-test
// bound) is accepted with a real bound, by running more tests.
TEST(VerifierSoundness, SoftmaxRowOf8GetsARealBound) {
  auto softmax = [](bool split) {
    UGraph g;
    int32_t a = g.addInput({2, 8}, ElemType::F32);
    int32_t b = g.addInput({2, 8}, ElemType::F32);
    int32_t e =
        split ? g.addBinary(BinaryKind::mul, g.addUnary(UnaryKind::exp, a),
                            g.addUnary(UnaryKind::exp, b))
              : g.addUnary(UnaryKind::exp, g.addBinary(BinaryKind::add, a, b));
    g.markOutput(
        g.addBinary(BinaryKind::div, e, g.addReduce(ReduceKind::sum, e, 1)));
    return g;
  };
  VerificationResult v = verifyEquivalence(softmax(true), softmax(false),
                                           seeded(5));
  ASSERT_EQ(v.status, VerifyStatus::Equivalent) << v.message;
  EXPECT_TRUE(v.expInterpreted);
  EXPECT_FALSE(v.boundVacuous);
  EXPECT_LE(v.log2Bound, -64);
  EXPECT_GT(v.tests, 8u);
}

// Class 3, a wide sum of fractions: QKNorm's softmax(rms_norm(Q) @ K) @
// rms_norm(V) sums 4096 terms with distinct denominators (each key's rms),
// so the outputs' cleared difference is tens of thousands of bits tall while
// the oracle arguments are short. The bad-prime term charges each
// polynomial its own height, and pairs of calls only within one function
// (Verification.md §4.2b): a few tests, not dozens, and a real bound.
TEST(VerifierSoundness, WideFractionSumGetsARealBound) {
  UGraph ref = test::qknormReference(1, 16, 16, 4096);
  UGraph cand = test::qknormReference(1, 16, 16, 4096);
  ErrorBound b = computeErrorBound(cand, ref, /*expInterpreted=*/false, 64);
  EXPECT_GT(b.heightBits, 20000);
  EXPECT_FALSE(b.vacuous());
  // Charged the outputs' height for every pair of calls, this needed 58.
  EXPECT_LE(b.tests, 4u) << "bad-prime term 2^" << b.log2BadPrime;
  VerificationResult v = verifyEquivalence(cand, ref, seeded(7));
  ASSERT_EQ(v.status, VerifyStatus::Equivalent) << v.message;
  EXPECT_LE(v.tests, 4u);
  EXPECT_LE(v.log2Bound, -64);
}

// Class 4: max(v, v) = v returns v itself, so its degree is v's, not a
// fresh variable's: a degree-2^10 value behind a max must not look linear.
TEST(VerifierSoundness, DegreeSeesThroughMaxOfEqualArguments) {
  UGraph g;
  int32_t x = g.addInput({4, 1}, ElemType::F32);
  int32_t v = power(g, x, 1024);
  int32_t m = g.addReduce(ReduceKind::max, g.addConcat(v, v, 1), 1);
  g.markOutput(m);
  GraphDegrees d = analyzeDegrees(g, false);
  ASSERT_EQ(d.outputs.size(), 1u);
  EXPECT_GE(d.outputs[0].num, 1024);
}

// Class 4: x − x is the zero polynomial (the field computes exactly 0), so
// a factor (v − v) does not carry v's degree or height into a product, as a
// split softmax's saved running max does through its `prev − prev`
// rescale (Verification.md §4.2b); a difference of two values still does.
TEST(VerifierSoundness, SelfDifferenceIsZero) {
  auto graph = [](bool self) {
    UGraph g;
    int32_t x = g.addInput({4, 1}, ElemType::F32);
    int32_t y = g.addInput({4, 1}, ElemType::F32);
    int32_t v = power(g, x, 1024);
    int32_t w = power(g, y, 1024);
    int32_t zero = g.addBinary(BinaryKind::sub, v, self ? v : w);
    g.markOutput(g.addBinary(BinaryKind::add,
                             g.addBinary(BinaryKind::mul, zero, y), x));
    return g;
  };
  GraphDegrees self = analyzeDegrees(graph(true), false);
  GraphDegrees other = analyzeDegrees(graph(false), false);
  ASSERT_EQ(self.outputs.size(), 1u);
  ASSERT_EQ(other.outputs.size(), 1u);
  EXPECT_LE(self.outputs[0].num, 1);
  EXPECT_LE(self.outputs[0].hNum, 2);
  EXPECT_GE(other.outputs[0].num, 1025);
  // The zero's graph equals x, and the check accepts it.
  UGraph x;
  x.markOutput(x.addInput({4, 1}, ElemType::F32));
  x.addInput({4, 1}, ElemType::F32);
  VerificationResult r = verifyEquivalence(graph(true), x, seeded(11));
  EXPECT_EQ(r.status, VerifyStatus::Equivalent) << r.message;
}

// Class 5: the seed is drawn at random by default and reported; a given
// seed reproduces the run.
TEST(VerifierSoundness, SeedIsRandomByDefaultAndReported) {
  UGraph cand = rmsMatmulFused(4, 64, 32, 4, 4);
  UGraph ref = rmsMatmulReference(4, 64, 32);
  VerificationResult a = verifyEquivalence(cand, ref);
  VerificationResult b = verifyEquivalence(cand, ref);
  ASSERT_TRUE(a.equivalent() && b.equivalent()) << a.message << b.message;
  EXPECT_NE(a.message, b.message); // the seeds differ
  EXPECT_NE(a.message.find("seed "), std::string::npos) << a.message;
  VerificationResult c = verifyEquivalence(cand, ref, seeded(a.seed));
  EXPECT_EQ(c.message, a.message);
}

// Class 6: a pair accepted in the field but far apart in float64 is an
// error, not a warning: (x + 2^60) − 2^60 is x over the reals and 0 in
// float64.
TEST(VerifierSoundness, Float64DisagreementIsAnError) {
  UGraph a, b;
  int32_t x = a.addInput({2, 4}, ElemType::F32);
  a.markOutput(a.addUnary(
      UnaryKind::add_scalar,
      a.addUnary(UnaryKind::add_scalar, x, std::ldexp(1.0, 60)),
      -std::ldexp(1.0, 60)));
  x = b.addInput({2, 4}, ElemType::F32);
  b.markOutput(scaled(b, x, 1));
  VerificationResult v = verifyEquivalence(a, b, seeded(1));
  EXPECT_EQ(v.status, VerifyStatus::NotEquivalent) << v.message;
  EXPECT_NE(v.message.find("float64"), std::string::npos) << v.message;
}

// Class 7: a NaN or infinite scalar is reported as such, not as "every
// redraw hit a zero divisor".
TEST(VerifierSoundness, NonFiniteScalarIsNamed) {
  for (double c : {NAN, INFINITY}) {
    UGraph g;
    int32_t x = g.addInput({2, 2}, ElemType::F32);
    g.markOutput(scaled(g, x, c));
    VerificationResult v = verifyEquivalence(g, g, seeded(1));
    EXPECT_EQ(v.status, VerifyStatus::Inconclusive);
    EXPECT_NE(v.message.find("not finite"), std::string::npos) << v.message;
    EXPECT_EQ(v.message.find("zero divisor"), std::string::npos) << v.message;
  }
}

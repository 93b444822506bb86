//===- NanDomainTest.cpp - Refinement: no candidate undefined where the reference is defined ===//
//
// Issue 23, item 1 (docs/Rationale/Verification.md §4.6). The field check
// treats relu, max and sqrt as free functions, so r/r = 1 and
// sqrt(u)·rsqrt(u) = 1 hold formally; these mutants are finite everywhere in
// the reference and NaN somewhere in the candidate, and must be rejected
// under every seed, in the 61-bit pair and in the four 28-bit lanes. Pairs
// that divide by the reference's own divisors (rms, a sum of exps) must
// still verify. A property test draws divisors from the op set and checks
// that a verified pair is never undefined in float64 where the reference is
// defined, over wide-range inputs.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/Definedness.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace mirage;

namespace {

const uint64_t kSeeds[] = {1, 7, 42, 123456789, 0xdeadbeefcafeULL};

/// ref: x·2; cand: x·2·(r/r), r = relu(x + 1 + 2^-16).
std::pair<UGraph, UGraph> reluRatio() {
  UGraph ref, cand;
  int32_t x = ref.addInput({4, 8}, ElemType::F32);
  ref.markOutput(ref.addUnary(UnaryKind::mul_scalar, x, 2.0));
  x = cand.addInput({4, 8}, ElemType::F32);
  int32_t s = cand.addUnary(UnaryKind::mul_scalar, x, 2.0);
  int32_t u = cand.addUnary(UnaryKind::add_scalar, x, 1.0 + std::ldexp(1.0, -16));
  int32_t r = cand.addUnary(UnaryKind::relu, u);
  int32_t t = cand.addBinary(BinaryKind::div, r, r);
  cand.markOutput(cand.addBinary(BinaryKind::mul, s, t));
  return {std::move(cand), std::move(ref)};
}

/// ref: x; cand: x·d/d, d = max(row mean, 1) − row mean.
std::pair<UGraph, UGraph> maxMinusMean() {
  UGraph ref, cand;
  int32_t x = ref.addInput({4, 8}, ElemType::F32);
  ref.markOutput(ref.addUnary(UnaryKind::mul_scalar, x, 1.0));
  x = cand.addInput({4, 8}, ElemType::F32);
  int32_t sum = cand.addReduce(ReduceKind::sum, x, 1);
  int32_t mean = cand.addUnary(UnaryKind::mul_scalar, sum, 0.125);
  int32_t z = cand.addUnary(UnaryKind::mul_scalar, mean, 0.0);
  int32_t one = cand.addUnary(UnaryKind::add_scalar, z, 1.0);
  int32_t c = cand.addConcat(mean, one, 1);
  int32_t m = cand.addReduce(ReduceKind::max, c, 1);
  int32_t d = cand.addBinary(BinaryKind::sub, m, mean);
  int32_t n = cand.addBinary(BinaryKind::mul, x, d);
  cand.markOutput(cand.addBinary(BinaryKind::div, n, d));
  return {std::move(cand), std::move(ref)};
}

/// ref: x; cand: x·sqrt(1 − x)·rsqrt(1 − x).
std::pair<UGraph, UGraph> sqrtRsqrt() {
  UGraph ref, cand;
  int32_t x = ref.addInput({4, 8}, ElemType::F32);
  ref.markOutput(ref.addUnary(UnaryKind::mul_scalar, x, 1.0));
  x = cand.addInput({4, 8}, ElemType::F32);
  int32_t n = cand.addUnary(UnaryKind::mul_scalar, x, -1.0);
  int32_t u = cand.addUnary(UnaryKind::add_scalar, n, 1.0);
  int32_t s = cand.addUnary(UnaryKind::sqrt, u);
  int32_t q = cand.addUnary(UnaryKind::rsqrt, u);
  int32_t p = cand.addBinary(BinaryKind::mul, x, s);
  cand.markOutput(cand.addBinary(BinaryKind::mul, p, q));
  return {std::move(cand), std::move(ref)};
}

/// ref: Y = X·W; cand: Y·r/r with r = relu(4096 − Y).
std::pair<UGraph, UGraph> matmulReluRatio(int64_t m, int64_t k, int64_t n) {
  UGraph ref, cand;
  int32_t a = ref.addInput({m, k}, ElemType::F16);
  int32_t b = ref.addInput({k, n}, ElemType::F16);
  ref.markOutput(ref.addMatmul(a, b));
  a = cand.addInput({m, k}, ElemType::F16);
  b = cand.addInput({k, n}, ElemType::F16);
  int32_t y = cand.addMatmul(a, b);
  int32_t neg = cand.addUnary(UnaryKind::mul_scalar, y, -1.0);
  int32_t u = cand.addUnary(UnaryKind::add_scalar, neg, 4096.0);
  int32_t r = cand.addUnary(UnaryKind::relu, u);
  int32_t p = cand.addBinary(BinaryKind::mul, y, r);
  cand.markOutput(cand.addBinary(BinaryKind::div, p, r));
  return {std::move(cand), std::move(ref)};
}

void expectRejected(const std::pair<UGraph, UGraph> &pr, const char *what,
                    LaneFieldUse lanes = LaneFieldUse::Never) {
  const UGraph &cand = pr.first, &ref = pr.second;
  ASSERT_TRUE(cand.error.empty()) << cand.error;
  for (uint64_t seed : kSeeds) {
    VerifyOptions o;
    o.seed = seed;
    o.laneFields = lanes;
    VerificationResult r = verifyEquivalence(cand, ref, o);
    EXPECT_NE(r.status, VerifyStatus::Equivalent)
        << what << " accepted under seed " << seed << ": " << r.message;
    EXPECT_EQ(r.status, VerifyStatus::NotVerified) << what << ": " << r.message;
    EXPECT_NE(r.message.find(what), std::string::npos) << r.message;
    // The expression check alone, and the wide float64 trials alone, each
    // reject it.
    EXPECT_EQ(checkDefinedness(cand, ref, seed).status,
              DefinednessResult::Status::NotShown);
    EXPECT_EQ(wideFloat64Refinement(cand, ref, seed).status,
              DefinednessResult::Status::Counterexample)
        << what;
  }
}

} // namespace

TEST(NanDomains, ReluRatioRejected) {
  expectRejected(reluRatio(), "divides by a relu output");
}
TEST(NanDomains, MaxMinusMeanRejected) {
  expectRejected(maxMinusMean(), "divides by a sum or difference");
}
TEST(NanDomains, SqrtTimesRsqrtRejected) {
  expectRejected(sqrtRsqrt(), "takes the sqrt (or rsqrt) of a sum");
}
TEST(NanDomains, MatmulReluRatioRejected) {
  expectRejected(matmulReluRatio(8, 64, 32), "divides by a relu output");
}
/// At model scale, in the four 28-bit lanes (Verification.md §4.2c): the
/// same Y·r/r, 2^25 multiply-adds per test.
TEST(NanDomains, MatmulReluRatioRejectedInFourLanes) {
  auto pr = matmulReluRatio(16, 2048, 512);
  for (uint64_t seed : {3u, 5u}) {
    VerifyOptions o;
    o.seed = seed;
    o.laneFields = LaneFieldUse::Auto;
    VerificationResult r = verifyEquivalence(pr.first, pr.second, o);
    EXPECT_EQ(r.status, VerifyStatus::NotVerified) << r.message;
    EXPECT_EQ(r.bound.family, FieldFamily::FourLanes);
    EXPECT_NE(r.message.find("divides by a relu output"), std::string::npos)
        << r.message;
  }
}

/// Before the check, the field accepted each of them: the mutants really
/// test the new rule (the field part is unchanged).
TEST(NanDomains, FieldCheckAloneAcceptsThem) {
  for (auto pr : {reluRatio(), maxMinusMean(), sqrtRsqrt(),
                  matmulReluRatio(8, 64, 32)}) {
    VerifyOptions o;
    o.seed = 42;
    o.float64Tolerance = 1e-6;
    VerificationResult r = verifyEquivalence(pr.first, pr.second, o);
    // The field check accepted with a real bound; only §4.6 refused.
    EXPECT_GT(r.tests, 0u) << r.message;
    EXPECT_FALSE(r.bound.vacuous()) << r.message;
    EXPECT_LT(r.bound.log2Total, -60) << r.message;
    EXPECT_EQ(r.status, VerifyStatus::NotVerified) << r.message;
    EXPECT_TRUE(hasPartialOps(pr.first));
    EXPECT_FALSE(hasPartialOps(pr.second));
  }
}

/// Divisors the reference has too: rms_norm (eps 0 and eps > 0) and a
/// softmax whose sum is split in two.
TEST(NanDomains, SameDivisorsVerify) {
  for (double eps : {0.0, 1e-6}) {
    UGraph ref, cand;
    int32_t x = ref.addInput({4, 16}, ElemType::F32);
    ref.markOutput(ref.addRmsNorm(x, -1, eps));
    x = cand.addInput({4, 16}, ElemType::F32);
    int32_t sq = cand.addUnary(UnaryKind::square, x);
    int32_t s = cand.addReduce(ReduceKind::sum, sq, 1);
    int32_t m = cand.addUnary(UnaryKind::mul_scalar, s, 1.0 / 16);
    if (eps != 0)
      m = cand.addUnary(UnaryKind::add_scalar, m, eps);
    int32_t q = cand.addUnary(UnaryKind::sqrt, m);
    cand.markOutput(cand.addBinary(BinaryKind::div, x, q));
    for (uint64_t seed : kSeeds) {
      VerifyOptions o;
      o.seed = seed;
      VerificationResult r = verifyEquivalence(cand, ref, o);
      EXPECT_EQ(r.status, VerifyStatus::Equivalent) << eps << ": " << r.message;
    }
  }
  UGraph ref, cand;
  int32_t x = ref.addInput({4, 8}, ElemType::F32);
  int32_t e = ref.addUnary(UnaryKind::exp, x);
  int32_t s = ref.addReduce(ReduceKind::sum, e, 1);
  ref.markOutput(ref.addBinary(BinaryKind::div, e, s));
  x = cand.addInput({4, 8}, ElemType::F32);
  e = cand.addUnary(UnaryKind::exp, x);
  int32_t p = cand.addReduce(ReduceKind::sum, e, 1, 2);
  s = cand.addReduce(ReduceKind::sum, p, 1);
  int32_t i = cand.addUnary(UnaryKind::reciprocal, s);
  cand.markOutput(cand.addBinary(BinaryKind::mul, e, i));
  for (uint64_t seed : kSeeds) {
    VerifyOptions o;
    o.seed = seed;
    VerificationResult r = verifyEquivalence(cand, ref, o);
    EXPECT_EQ(r.status, VerifyStatus::Equivalent) << r.message;
  }
}

/// Property: divisors drawn from the op set. The reference is x·c (finite
/// everywhere) or x / (x·x + 1); the candidate multiplies it by d/d (or
/// sqrt(u)·rsqrt(u)) for a d built from a random chain of ops over x. Any
/// pair the verifier accepts must be defined in float64 (no division by an
/// exact zero, no sqrt of a negative, from operands that did not overflow)
/// wherever the reference is, on inputs up to ±700 with exact zeros.
TEST(NanDomains, PropertyDrawnDivisorsNeverDisagreeWhenVerified) {
  std::mt19937_64 rng(2026);
  const UnaryKind pool[] = {UnaryKind::exp,        UnaryKind::relu,
                            UnaryKind::sigmoid,    UnaryKind::tanh,
                            UnaryKind::square,     UnaryKind::gelu,
                            UnaryKind::add_scalar, UnaryKind::mul_scalar,
                            UnaryKind::sqrt};
  unsigned accepted = 0, rejected = 0;
  for (unsigned trial = 0; trial < 1500; ++trial) {
    bool refDivides = trial % 2;
    UGraph ref, cand;
    int32_t x = ref.addInput({4, 8}, ElemType::F32);
    if (refDivides) {
      int32_t sq = ref.addUnary(UnaryKind::square, x);
      int32_t d = ref.addUnary(UnaryKind::add_scalar, sq, 1.0);
      ref.markOutput(ref.addBinary(BinaryKind::div, x, d));
    } else {
      ref.markOutput(ref.addUnary(UnaryKind::mul_scalar, x, 3.0));
    }
    x = cand.addInput({4, 8}, ElemType::F32);
    int32_t y;
    if (refDivides) {
      int32_t sq = cand.addUnary(UnaryKind::square, x);
      int32_t d = cand.addUnary(UnaryKind::add_scalar, sq, 1.0);
      y = cand.addBinary(BinaryKind::div, x, d);
    } else {
      y = cand.addUnary(UnaryKind::mul_scalar, x, 3.0);
    }
    // d: a chain of 1..3 ops over x, or a difference / product of two.
    auto chain = [&]() {
      int32_t v = x;
      unsigned len = 1 + rng() % 3;
      for (unsigned i = 0; i < len; ++i) {
        UnaryKind k = pool[rng() % (sizeof(pool) / sizeof(pool[0]))];
        double c = (int)(rng() % 5) - 2 + 0.5; // nonzero
        v = cand.addUnary(k, v, c);
      }
      return v;
    };
    int32_t d = chain();
    switch (rng() % 4) {
    case 0:
      d = cand.addBinary(BinaryKind::sub, d, chain());
      break;
    case 1:
      d = cand.addBinary(BinaryKind::mul, d, chain());
      break;
    case 2:
      d = cand.addBinary(BinaryKind::add, d, chain());
      break;
    default:
      break;
    }
    int32_t out;
    if (rng() % 3 == 0) {
      int32_t s = cand.addUnary(UnaryKind::sqrt, d);
      int32_t q = cand.addUnary(UnaryKind::rsqrt, d);
      out = cand.addBinary(BinaryKind::mul, cand.addBinary(BinaryKind::mul, y, s), q);
    } else {
      int32_t n = cand.addBinary(BinaryKind::mul, y, d);
      out = cand.addBinary(BinaryKind::div, n, d);
    }
    cand.markOutput(out);
    ASSERT_TRUE(cand.error.empty()) << cand.error;
    VerifyOptions o;
    o.seed = 1000 + trial;
    VerificationResult r = verifyEquivalence(cand, ref, o);
    if (r.status != VerifyStatus::Equivalent) {
      ++rejected;
      // The expression check must be what refuses an undefined candidate:
      // a refusal by the wide float64 trials after it passed would be a
      // hole in it.
      EXPECT_EQ(r.message.find("wide-range float64 trial"), std::string::npos)
          << "seed " << 1000 + trial << ": " << r.message;
      continue;
    }
    ++accepted;
    // Wide-range float64, inputs independent of the verifier's: wherever
    // the reference is defined, so is the candidate (a NaN from an
    // overflow, exp(exp(x)) at x = 30, is not a domain error and is not
    // charged; float64DomainError tells them apart).
    for (double scale : {-700.0, -30.0, -4.0, 4.0, 30.0, 700.0}) {
      std::vector<Tensor<double>> ins{Tensor<double>({4, 8}, 0.0)};
      for (int64_t e = 0; e < 32; ++e)
        ins[0].data[e] =
            e % 8 == 0 ? 0.0 : scale * (double)((rng() % 1024) + 1) / 1024.0;
      std::string what;
      if (!float64DomainError(ref, ins)) {
        EXPECT_FALSE(float64DomainError(cand, ins, &what))
            << "verified pair undefined (" << what
            << ") where the reference is defined, scale " << scale
            << ", seed " << 1000 + trial << ": " << r.message;
      }
    }
  }
  std::printf("property: %u accepted, %u rejected\n", accepted, rejected);
  EXPECT_GT(accepted, 50u);
  EXPECT_GT(rejected, 200u);
}

namespace {
/// The inputs a [8, 100] and b [100, 40] of the matmul tests below: k = 100
/// crosses the tile kernels' blocks with a partial last one.
std::pair<int32_t, int32_t> matmulInputs(UGraph &g) {
  int32_t a = g.addInput({8, 100}, ElemType::F32);
  return {a, g.addInput({100, 40}, ElemType::F32)};
}
/// The reference of the matmul tests: a·b.
UGraph plainMatmul() {
  UGraph g;
  auto [a, b] = matmulInputs(g);
  g.markOutput(g.addMatmul(a, b));
  return g;
}
} // namespace

/// The sign facts of a matmul (the definedness domain's tile kernel): a sum
/// of products of exps is positive, so dividing by it needs no reference
/// divisor; one factor without a sign fact takes the fact away. k = 100
/// crosses the kernel's 16-product blocks with a partial last one.
TEST(NanDomains, MatmulSignFactsSurviveTheTile) {
  for (bool positive : {true, false}) {
    UGraph ref = plainMatmul(), cand;
    auto [a, b] = matmulInputs(cand);
    int32_t y = cand.addMatmul(a, b);
    int32_t ea = positive ? cand.addUnary(UnaryKind::exp, a) : a;
    int32_t d = cand.addMatmul(ea, cand.addUnary(UnaryKind::exp, b));
    int32_t p = cand.addBinary(BinaryKind::mul, y, d);
    cand.markOutput(cand.addBinary(BinaryKind::div, p, d));
    for (uint64_t seed : kSeeds) {
      DefinednessResult r = checkDefinedness(cand, ref, seed);
      if (positive)
        EXPECT_TRUE(r.ok()) << r.message;
      else
        EXPECT_EQ(r.status, DefinednessResult::Status::NotShown) << r.message;
    }
  }
}

/// The overflow and underflow flags of a matmul (the wide float64 tile):
/// products of inputs scaled by 2^1000 overflow and by 2^-1000 underflow
/// to zero, so the candidate's inf (a reciprocal of the underflowed sum,
/// or the overflowed sum) comes from a lossy value and is not charged as a
/// domain error or a counterexample. Were the flags lost, the reciprocal
/// of an exact zero would be.
TEST(NanDomains, MatmulRangeFlagsSurviveTheTile) {
  for (double scale : {std::ldexp(1.0, 1000), std::ldexp(1.0, -1000)}) {
    UGraph ref = plainMatmul(), cand;
    auto [a, b] = matmulInputs(cand);
    int32_t y = cand.addMatmul(cand.addUnary(UnaryKind::mul_scalar, a, scale),
                               cand.addUnary(UnaryKind::mul_scalar, b, scale));
    cand.markOutput(cand.addUnary(UnaryKind::reciprocal, y));
    for (uint64_t seed : kSeeds)
      EXPECT_TRUE(wideFloat64Refinement(cand, ref, seed).ok()) << scale;
  }
  // Unscaled, the same reciprocal of a sum that is exactly zero (a zero
  // row of a) is a domain error from clean operands: the trial charges it.
  UGraph ref = plainMatmul(), cand;
  auto [a, b] = matmulInputs(cand);
  int32_t z = cand.addUnary(UnaryKind::mul_scalar, a, 0.0);
  cand.markOutput(
      cand.addUnary(UnaryKind::reciprocal, cand.addMatmul(z, b)));
  EXPECT_EQ(wideFloat64Refinement(cand, ref, 1).status,
            DefinednessResult::Status::Counterexample);
}

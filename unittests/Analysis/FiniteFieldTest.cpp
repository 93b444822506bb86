//===- FiniteFieldTest.cpp - Tests of the verifier's field domain ---------===//
#include "Mirage/Analysis/FiniteField.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mirage;
using namespace mirage::ff;
using Sem = FiniteFieldSemantics;

TEST(FiniteField, ConstantsArePrime) {
  EXPECT_TRUE(isPrime(kQ));
  EXPECT_TRUE(isPrime(kP));
  EXPECT_EQ((kP - 1) % kQ, 0u);
  EXPECT_GT(kQ, 1ULL << 60);
  // Miller–Rabin sanity: known primes and composites, incl. strong
  // pseudoprimes to small bases.
  EXPECT_TRUE(isPrime(2305843009213693951ULL)); // 2^61 − 1
  EXPECT_FALSE(isPrime(4ULL * 2305843009213693951ULL + 1));
  EXPECT_FALSE(isPrime(3215031751ULL));         // spsp(2,3,5,7)
  EXPECT_FALSE(isPrime(3825123056546413051ULL)); // spsp to bases ≤ 23
  EXPECT_TRUE(isPrime(18446744073709551557ULL)); // largest 64-bit prime
  EXPECT_FALSE(isPrime(1));
  EXPECT_TRUE(isPrime(2));
}

TEST(FiniteField, Inverse) {
  for (uint64_t a : {(uint64_t)1, (uint64_t)2, (uint64_t)3, (uint64_t)12345678901234ULL, kP - 1, kP / 2}) {
    EXPECT_EQ(mulMod(a, invMod(a, kP), kP), 1u) << a;
    EXPECT_EQ(mulMod(a % kQ, invMod(a % kQ, kQ), kQ), a % kQ ? 1u : 0u);
  }
  EXPECT_EQ(invMod(0, kP), 0u);
  Sem s(7, Sem::ExpMode::Uninterpreted);
  Sem::Value x = s.fromInt(5);
  Sem::Value one = s.div(x, x);
  EXPECT_EQ(one.p, 1u);
  EXPECT_EQ(one.q, 1u);
  EXPECT_TRUE(s.conclusive());
}

TEST(FiniteField, ZeroDivisorMakesTestInconclusive) {
  Sem s(7, Sem::ExpMode::Uninterpreted);
  s.div(s.fromInt(1), s.zero());
  EXPECT_TRUE(s.zeroDivisor());
  EXPECT_FALSE(s.conclusive());
  Sem t(7, Sem::ExpMode::Uninterpreted);
  // Zero in the q part only also counts.
  t.div(t.fromInt(1), t.fromInt((int64_t)kQ));
  EXPECT_TRUE(t.zeroDivisor());
}

TEST(FiniteField, OmegaHasOrderQAndIsRandom) {
  Sem a(1, Sem::ExpMode::Interpreted), b(2, Sem::ExpMode::Interpreted);
  for (const Sem *s : {&a, &b}) {
    EXPECT_NE(s->omega(), 1u);
    EXPECT_EQ(powMod(s->omega(), kQ, kP), 1u); // order divides q, q prime
  }
  EXPECT_NE(a.omega(), b.omega());
}

TEST(FiniteField, InterpretedExpIsAHomomorphism) {
  Sem s(3, Sem::ExpMode::Interpreted);
  std::mt19937_64 rng(5);
  Sem::Value x = Sem::random(rng), y = Sem::random(rng);
  Sem::Value lhs = s.unary(UnaryKind::exp, s.add(x, y), 0);
  Sem::Value rhs =
      s.mul(s.unary(UnaryKind::exp, x, 0), s.unary(UnaryKind::exp, y, 0));
  EXPECT_TRUE(lhs.qUndef);
  EXPECT_TRUE(lhs.sameAs(rhs));
  EXPECT_EQ(lhs.p, rhs.p);
  EXPECT_FALSE(s.nestedExp());
  s.unary(UnaryKind::exp, lhs, 0); // exp of an exp: outside LAX
  EXPECT_TRUE(s.nestedExp());
  EXPECT_FALSE(s.conclusive());
}

TEST(FiniteField, FromDoubleIsExact) {
  Sem s(1, Sem::ExpMode::Uninterpreted);
  auto frac = [&](int64_t n, int64_t d) {
    return s.div(s.fromInt(n), s.fromInt(d));
  };
  auto eq = [](Sem::Value a, Sem::Value b) { return a.p == b.p && a.q == b.q; };
  EXPECT_TRUE(eq(s.fromDouble(0.75), frac(3, 4)));
  EXPECT_TRUE(eq(s.fromDouble(-2.5), frac(-5, 2)));
  EXPECT_TRUE(eq(s.fromDouble(1e6), s.fromInt(1000000)));
  EXPECT_TRUE(eq(s.fromDouble(0.0), s.zero()));
  // 0.1 is the dyadic 3602879701896397 / 2^55, not 1/10.
  EXPECT_TRUE(eq(s.fromDouble(0.1),
                 s.div(s.fromInt(3602879701896397LL),
                       s.fromDouble(std::ldexp(1.0, 55)))));
  EXPECT_FALSE(eq(s.fromDouble(0.1), frac(1, 10)));
  // Extremes: the smallest subnormal times 2^1074 is 1; the largest double.
  Sem::Value tiny = s.fromDouble(std::ldexp(1.0, -1074));
  Sem::Value big = s.fromDouble(std::ldexp(1.0, 1074 - 100));
  EXPECT_TRUE(eq(s.mul(s.mul(tiny, big), s.fromDouble(std::ldexp(1.0, 100))),
                 s.fromInt(1)));
  // Products of exactly representable doubles are exact.
  for (double x : {1.5, -3.25, 1e-3, 12345.0625})
    for (double y : {0.5, 7.0, -0.125})
      EXPECT_TRUE(eq(s.mul(s.fromDouble(x), s.fromDouble(y)),
                     s.fromDouble(x * y)))
          << x << " " << y;
  EXPECT_TRUE(s.conclusive());
  s.fromDouble(INFINITY);
  EXPECT_TRUE(s.badConstant());
}

TEST(FiniteField, OracleConsistency) {
  Sem s(11, Sem::ExpMode::Uninterpreted), t(12, Sem::ExpMode::Uninterpreted);
  std::mt19937_64 rng(9);
  Sem::Value x = Sem::random(rng), y = Sem::random(rng);
  auto eq = [](Sem::Value a, Sem::Value b) { return a.p == b.p && a.q == b.q; };
  // A function of its argument: the same input gives the same output.
  EXPECT_TRUE(eq(s.unary(UnaryKind::sqrt, x, 0), s.unary(UnaryKind::sqrt, x, 0)));
  // rsqrt = 1/sqrt and silu = x·sigmoid under the same oracle.
  EXPECT_TRUE(eq(s.unary(UnaryKind::rsqrt, x, 0),
                 s.div(s.fromInt(1), s.unary(UnaryKind::sqrt, x, 0))));
  EXPECT_TRUE(eq(s.unary(UnaryKind::silu, x, 0),
                 s.mul(x, s.unary(UnaryKind::sigmoid, x, 0))));
  // Independent symbols, independent tests.
  EXPECT_FALSE(eq(s.unary(UnaryKind::sqrt, x, 0), s.unary(UnaryKind::tanh, x, 0)));
  EXPECT_FALSE(eq(s.unary(UnaryKind::sqrt, x, 0), t.unary(UnaryKind::sqrt, x, 0)));
  EXPECT_FALSE(eq(s.unary(UnaryKind::sqrt, x, 0), s.unary(UnaryKind::sqrt, y, 0)));
  // silu is not x·exp(x) (the original Mirage fingerprint's surrogate).
  EXPECT_FALSE(eq(s.unary(UnaryKind::silu, x, 0),
                  s.mul(x, s.unary(UnaryKind::exp, x, 0))));
  // max: commutative, idempotent; pow: ordered.
  EXPECT_TRUE(eq(s.max(x, y), s.max(y, x)));
  EXPECT_TRUE(eq(s.max(x, x), x));
  EXPECT_FALSE(eq(s.pow(x, y), s.pow(y, x)));
  // Oracle outputs are field elements.
  Sem::Value o = s.unary(UnaryKind::gelu, x, 0);
  EXPECT_LT(o.p, kP);
  EXPECT_LT(o.q, kQ);
}

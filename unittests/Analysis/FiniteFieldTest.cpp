//===- FiniteFieldTest.cpp - Tests of the verifier's field domain ---------===//
#include "Mirage/Analysis/FiniteField.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <thread>

using namespace mirage;
using namespace mirage::ff;
using Sem = FiniteFieldSemantics;

namespace {
// One drawn pair for the tests that need concrete moduli.
const FieldModuli M = FieldModuli::draw(12345);
const uint64_t kP = M.p.m, kQ = M.q.m;
Sem dom(uint64_t key, Sem::ExpMode mode) { return Sem(key, mode, M); }
} // namespace

TEST(FiniteField, MillerRabin) {
  // Known primes and composites, incl. strong pseudoprimes to small bases.
  EXPECT_TRUE(isPrime(2305843009213693951ULL)); // 2^61 − 1
  EXPECT_FALSE(isPrime(4ULL * 2305843009213693951ULL + 1));
  EXPECT_FALSE(isPrime(3215031751ULL));         // spsp(2,3,5,7)
  EXPECT_FALSE(isPrime(3825123056546413051ULL)); // spsp to bases ≤ 23
  EXPECT_TRUE(isPrime(18446744073709551557ULL)); // largest 64-bit prime
  EXPECT_FALSE(isPrime(1));
  EXPECT_TRUE(isPrime(2));
}

// Class 1 of issue 11: the primes are no longer fixed and public. Every key
// draws a pair q ∈ [2^60, 2^61), p = 2q + 1, both prime, and different keys
// draw different pairs.
TEST(FiniteField, PrimesAreDrawnPerKey) {
  std::set<uint64_t> qs;
  for (uint64_t key = 0; key < 64; ++key) {
    FieldModuli f = FieldModuli::draw(key);
    ASSERT_TRUE(isPrime(f.q.m)) << key;
    ASSERT_TRUE(isPrime(f.p.m)) << key;
    ASSERT_EQ(f.p.m, 2 * f.q.m + 1);
    ASSERT_GT(f.q.m, 1ULL << 60);
    ASSERT_LT(f.q.m, 1ULL << 61);
    qs.insert(f.q.m);
  }
  EXPECT_EQ(qs.size(), 64u);
  // A domain's moduli come from its key.
  Sem a(1, Sem::ExpMode::Uninterpreted), b(2, Sem::ExpMode::Uninterpreted);
  EXPECT_NE(a.moduli().q.m, b.moduli().q.m);
  EXPECT_EQ(a.moduli().q.m, FieldModuli::draw(1).q.m);
}

// The bound assumes at least 2^kLog2FamilySize pairs. There are at least
// 2^54.5 primes in [2^60, 2^61) (prime number theorem with an explicit
// error term), so the assumption needs a fraction ≥ 2^(46 − 54.5) ≈ 0.0028
// of them to have 2q + 1 prime. The conjectured fraction (Bateman–Horn) is
// 2·C₂ / ln(2q + 1) ≈ 1.32 / 43 ≈ 0.031. Measure it, with a margin of 4.
TEST(FiniteField, FamilyDensityExceedsTheAssumedBound) {
  std::mt19937_64 rng(2026);
  unsigned primes = 0, pairs = 0;
  while (primes < 2000) {
    uint64_t q = (rng() >> 4) | (1ULL << 60) | 1;
    if (!isPrime(q))
      continue;
    ++primes;
    pairs += isPrime(2 * q + 1);
  }
  double frac = (double)pairs / primes;
  EXPECT_GT(frac, std::exp2(FieldModuli::kLog2FamilySize - 54.5) * 4)
      << pairs << " of " << primes;
}

// Class 2 of issue 11: arguments equal in one field only must not give equal
// oracle outputs (the oracle was keyed on the p residue alone, so an
// aliasing modulo p carried over into q), and max(x, y) = x only when x and
// y are the same in both fields.
TEST(FiniteField, OraclesReadBothComponents) {
  Sem s = dom(21, Sem::ExpMode::Uninterpreted);
  std::mt19937_64 rng(3);
  Sem::Value x = s.random(rng);
  Sem::Value y = x;
  y.q = (x.q + 1) % kQ; // same p residue, different q residue
  Sem::Value z = x;
  z.p = (x.p + 1) % kP; // same q residue, different p residue
  for (UnaryKind k : {UnaryKind::sqrt, UnaryKind::relu, UnaryKind::exp,
                      UnaryKind::tanh}) {
    Sem::Value fx = s.unary(k, x, 0), fy = s.unary(k, y, 0),
               fz = s.unary(k, z, 0);
    EXPECT_NE(fx.p, fy.p) << (int)k;
    EXPECT_NE(fx.q, fy.q) << (int)k;
    EXPECT_NE(fx.p, fz.p) << (int)k;
  }
  Sem::Value m = s.max(x, y);
  EXPECT_FALSE(m.p == x.p && m.q == x.q);
  EXPECT_FALSE(m.p == y.p && m.q == y.q);
  EXPECT_NE(s.pow(x, x).p, s.pow(x, y).p);
}

TEST(FiniteField, Inverse) {
  for (uint64_t a : {(uint64_t)1, (uint64_t)2, (uint64_t)3, (uint64_t)12345678901234ULL, kP - 1, kP / 2}) {
    EXPECT_EQ(mulMod(a, invMod(a, kP), kP), 1u) << a;
    EXPECT_EQ(mulMod(a % kQ, invMod(a % kQ, kQ), kQ), a % kQ ? 1u : 0u);
  }
  EXPECT_EQ(invMod(0, kP), 0u);
  Sem s = dom(7, Sem::ExpMode::Uninterpreted);
  Sem::Value x = s.fromInt(5);
  Sem::Value one = s.div(x, x);
  EXPECT_EQ(one.p, 1u);
  EXPECT_EQ(one.q, 1u);
  EXPECT_TRUE(s.conclusive());
}

// inverseAll (Montgomery's trick, one inversion per tensor) gives what
// inverse gives element by element: with undefined q parts among the
// elements, and with a zero (then element by element, flagged).
TEST(FiniteField, InverseAllMatchesInverse) {
  Sem s = dom(7, Sem::ExpMode::Uninterpreted);
  std::vector<Sem::Value> in;
  for (int64_t v : {3, 5, 123456789, -7, 2, 2, 1 << 30})
    in.push_back(s.fromInt(v));
  in[2].markQUndefined();
  in[5].markQUndefined();
  std::vector<Sem::Value> all(in.size());
  s.inverseAll(in.data(), in.size(), all.data());
  for (size_t i = 0; i < in.size(); ++i) {
    Sem::Value one = s.inverse(in[i]);
    EXPECT_TRUE(all[i].identical(one)) << i;
  }
  EXPECT_TRUE(s.conclusive());
  Sem z = dom(7, Sem::ExpMode::Uninterpreted);
  in[3] = z.zero();
  z.inverseAll(in.data(), in.size(), all.data());
  EXPECT_TRUE(z.zeroDivisor());
  EXPECT_TRUE(all[4].identical(z.inverse(in[4])));
}

TEST(FiniteField, ZeroDivisorMakesTestInconclusive) {
  Sem s = dom(7, Sem::ExpMode::Uninterpreted);
  s.div(s.fromInt(1), s.zero());
  EXPECT_TRUE(s.zeroDivisor());
  EXPECT_FALSE(s.conclusive());
  Sem t = dom(7, Sem::ExpMode::Uninterpreted);
  // Zero in the q part only also counts.
  t.div(t.fromInt(1), t.fromInt((int64_t)kQ));
  EXPECT_TRUE(t.zeroDivisor());
}

TEST(FiniteField, OmegaHasOrderQAndIsRandom) {
  Sem a = dom(1, Sem::ExpMode::Interpreted), b = dom(2, Sem::ExpMode::Interpreted);
  for (const Sem *s : {&a, &b}) {
    EXPECT_NE(s->omega(), 1u);
    EXPECT_EQ(powMod(s->omega(), kQ, kP), 1u); // order divides q, q prime
  }
  Sem c(3, Sem::ExpMode::Interpreted); // its own primes
  EXPECT_EQ(powMod(c.omega(), c.moduli().q.m, c.moduli().p.m), 1u);
  EXPECT_NE(a.omega(), b.omega());
}

TEST(FiniteField, InterpretedExpIsAHomomorphism) {
  Sem s = dom(3, Sem::ExpMode::Interpreted);
  std::mt19937_64 rng(5);
  Sem::Value x = s.random(rng), y = s.random(rng);
  Sem::Value lhs = s.unary(UnaryKind::exp, s.add(x, y), 0);
  Sem::Value rhs =
      s.mul(s.unary(UnaryKind::exp, x, 0), s.unary(UnaryKind::exp, y, 0));
  EXPECT_TRUE(lhs.qUndef());
  EXPECT_TRUE(lhs.sameAs(rhs));
  EXPECT_EQ(lhs.p, rhs.p);
  EXPECT_FALSE(s.nestedExp());
  s.unary(UnaryKind::exp, lhs, 0); // exp of an exp: outside LAX
  EXPECT_TRUE(s.nestedExp());
  EXPECT_FALSE(s.conclusive());
}

TEST(FiniteField, FromDoubleIsExact) {
  Sem s = dom(1, Sem::ExpMode::Uninterpreted);
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
  Sem s = dom(11, Sem::ExpMode::Uninterpreted), t = dom(12, Sem::ExpMode::Uninterpreted);
  std::mt19937_64 rng(9);
  Sem::Value x = s.random(rng), y = s.random(rng);
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

//===----------------------------------------------------------------------===//
// Fast arithmetic against the simple `%` implementation
//===----------------------------------------------------------------------===//

namespace {
using u128 = unsigned __int128;
u128 rnd128(std::mt19937_64 &rng) { return (u128)rng() << 64 | rng(); }
} // namespace

TEST(FiniteFieldFast, BarrettMatchesModulo) {
  std::mt19937_64 rng(42);
  for (uint64_t key : {1, 2, 3}) {
    FieldModuli f = FieldModuli::draw(key);
    for (const Modulus *mod : {&f.p, &f.q}) {
      uint64_t m = mod->m;
      std::vector<u128> xs = {0, 1, m, (u128)m * m - 1, (u128)m * 2,
                              ((u128)1 << 124) - 1, (u128)m * (m - 1),
                              ((u128)1 << 63) - 1, (u128)1 << 63};
      for (int i = 0; i < 100000; ++i) {
        u128 x = rnd128(rng) >> 4; // every value below 2^124
        xs.push_back(x);
        xs.push_back(x >> (rng() % 124));
        xs.push_back((u128)(rng() % m) * (rng() % m));
      }
      for (u128 x : xs)
        ASSERT_EQ(mod->reduce(x), (uint64_t)(x % m));
      // The wide reduction of the dot product: any 128-bit value + carry.
      for (int i = 0; i < 100000; ++i) {
        u128 lo = i < 2 ? ~(u128)0 - i : rnd128(rng);
        uint64_t carry = i % 3 ? rng() >> (rng() % 64) : 0;
        u128 want = ((u128)(carry % m) * mod->two128 % m + lo % m) % m;
        ASSERT_EQ(mod->reduceWide(lo, carry), (uint64_t)want);
      }
    }
  }
}

TEST(FiniteFieldFast, MulModMatchesSlow) {
  std::mt19937_64 rng(7);
  std::vector<uint64_t> edgeP = {0, 1, 2, kP - 1, kP - 2, kP / 2, 1ULL << 61};
  std::vector<uint64_t> edgeQ = {0, 1, 2, kQ - 1, kQ - 2, kQ / 2, 1ULL << 60};
  for (uint64_t a : edgeP)
    for (uint64_t b : edgeP)
      ASSERT_EQ(M.p.mul(a, b), mulModSlow(a, b, kP)) << a << " " << b;
  for (uint64_t a : edgeQ)
    for (uint64_t b : edgeQ)
      ASSERT_EQ(M.q.mul(a, b), mulModSlow(a, b, kQ)) << a << " " << b;
  for (int i = 0; i < 500000; ++i) {
    uint64_t a = rng() % kP, b = rng() % kP, c = rng() % kQ, d = rng() % kQ;
    ASSERT_EQ(M.p.mul(a, b), mulModSlow(a, b, kP));
    ASSERT_EQ(M.q.mul(c, d), mulModSlow(c, d, kQ));
  }
}

TEST(FiniteFieldFast, DotAccumulatorIsTheLeftFold) {
  Sem s = dom(3, Sem::ExpMode::Interpreted);
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    size_t n = trial < 5 ? trial : 1 + rng() % 2000;
    std::vector<Sem::Value> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      switch (trial % 3) {
      case 0: // maximal residues: many 128-bit carries
        a[i] = {kP - 1 - rng() % 3, kQ - 1 - rng() % 3, false};
        b[i] = {kP - 1 - rng() % 3, kQ - 1 - rng() % 3, false};
        break;
      default:
        a[i] = s.random(rng);
        b[i] = s.random(rng);
        if (rng() % 97 == 0)
          a[i].markQUndefined();
      }
    }
    Sem::Value fold = s.zero();
    Sem::DotAccumulator acc;
    for (size_t i = 0; i < n; ++i) {
      fold = s.add(fold, s.mul(a[i], b[i]));
      s.dotMulAdd(acc, a[i], b[i]);
    }
    Sem::Value v = s.dotValue(acc);
    ASSERT_EQ(v.p, fold.p) << n;
    ASSERT_EQ(v.q, fold.q) << n;
    ASSERT_EQ(v.qUndef(), fold.qUndef()) << n;
  }
}

TEST(FiniteFieldFast, SharedDomainFlagsAcrossThreads) {
  Sem s = dom(5, Sem::ExpMode::Uninterpreted);
  Sem copy = s; // copyable despite the atomic flags
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&, i] {
      for (int j = 0; j < 1000; ++j)
        s.div(s.fromInt(j + 1), s.fromInt(i == 3 && j == 999 ? 0 : j + 1));
    });
  for (auto &t : ts)
    t.join();
  EXPECT_TRUE(s.zeroDivisor());
  EXPECT_FALSE(copy.zeroDivisor());
}

TEST(FiniteFieldFast, InverseMatchesSlowEuclidAndCache) {
  // The 128-bit extended Euclid the verifier used before, as the oracle.
  auto slowInv = [](uint64_t a, uint64_t m) -> uint64_t {
    __int128 r0 = m, r1 = a % m, t0 = 0, t1 = 1;
    if (r1 == 0)
      return 0;
    while (r1 != 0) {
      __int128 qt = r0 / r1, r2 = r0 - qt * r1;
      r0 = r1;
      r1 = r2;
      __int128 t2 = t0 - qt * t1;
      t0 = t1;
      t1 = t2;
    }
    return (uint64_t)(t0 < 0 ? t0 + m : t0);
  };
  std::mt19937_64 rng(13);
  Sem s = dom(1, Sem::ExpMode::Uninterpreted);
  for (int i = 0; i < 100000; ++i) {
    uint64_t a = i < 3 ? (uint64_t)i + 1 : rng() % kP;
    uint64_t b = i < 3 ? kQ - 1 - i : rng() % kQ;
    ASSERT_EQ(invMod(a, kP), slowInv(a, kP)) << a;
    ASSERT_EQ(invMod(b, kQ), slowInv(b, kQ)) << b;
    // Through the domain, twice (the second hits the cache).
    Sem::Value v{a, b, i % 5 == 0};
    for (int rep = 0; rep < 2; ++rep) {
      Sem::Value inv = s.inverse(v);
      if (a == 0 || (!v.qUndef() && b == 0))
        continue;
      ASSERT_EQ(inv.p, slowInv(a, kP));
      if (!v.qUndef()) {
        ASSERT_EQ(inv.q, slowInv(b, kQ));
      }
    }
  }
  // Generic moduli (≥ 2^63 takes the 128-bit path).
  for (uint64_t m : {18446744073709551557ULL, 1000000007ULL})
    for (int i = 0; i < 1000; ++i) {
      uint64_t a = 1 + rng() % (m - 1);
      ASSERT_EQ(mulModSlow(a, invMod(a, m), m), 1u);
    }
}

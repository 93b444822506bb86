//===- LaneFieldTest.cpp - Mode U in four 28-bit fields -------------------===//
//
// LaneFieldSemantics (Verification.md §4.2c): the prime family the bound
// counts, the arithmetic against `%`, the matmul tile's vector and portable
// bodies against the scalar chain, reproducible counter inputs, and the
// verifier's verdicts and bound when it runs in the lanes.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/LaneField.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/CounterInputs.h"
#include "Mirage/Semantics/Evaluator.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace mirage;
using namespace mirage::ff;

namespace {
using Sem = LaneFieldSemantics;

LaneValue randomValue(const Sem &sem, std::mt19937_64 &rng) {
  LaneValue v;
  for (int l = 0; l < kLanes; ++l)
    v.r[l] = (uint32_t)(rng() % sem.moduli().p[l]);
  return v;
}
} // namespace

// The bound's |P| ≥ 2^22.7 is a count: sieve (2^27, 2^28).
TEST(LaneField, PrimeCountOfTheFamily) {
  const uint32_t lo = LaneModuli::kMin, hi = LaneModuli::kMax;
  std::vector<uint8_t> composite((hi - lo) / 2, 0); // odd n = lo + 1 + 2i
  for (uint32_t d = 3; d * d < hi; d += 2) {
    uint32_t first = std::max(d * d, (lo / d + 1) * d);
    if (first % 2 == 0)
      first += d;
    for (uint32_t m = first; m < hi; m += 2 * d)
      composite[(m - lo - 1) / 2] = 1;
  }
  uint64_t primes = 0;
  for (uint8_t c : composite)
    primes += !c;
  EXPECT_EQ(primes, 7027290u); // π(2^28) − π(2^27)
  EXPECT_GE(std::log2((double)primes), LaneModuli::kLog2FamilySize);
}

TEST(LaneField, ModuliAreReproduciblePrimesOfTheRange) {
  for (uint64_t key : {1ull, 2ull, 0xdeadbeefull}) {
    LaneModuli a = LaneModuli::draw(key), b = LaneModuli::draw(key);
    EXPECT_EQ(a.p, b.p);
    for (int l = 0; l < kLanes; ++l) {
      EXPECT_GT(a.p[l], LaneModuli::kMin);
      EXPECT_LT(a.p[l], LaneModuli::kMax);
      EXPECT_TRUE(isPrime32(a.p[l]));
    }
  }
  // The lanes draw independently: four equal primes would be a bug.
  LaneModuli m = LaneModuli::draw(7);
  EXPECT_FALSE(m.p[0] == m.p[1] && m.p[1] == m.p[2] && m.p[2] == m.p[3]);
  EXPECT_NE(LaneModuli::draw(7).p, LaneModuli::draw(8).p);
}

TEST(LaneField, ArithmeticMatchesModulo) {
  Sem sem(42);
  std::mt19937_64 rng(3);
  const LaneModuli &mod = sem.moduli();
  for (int it = 0; it < 2000; ++it) {
    LaneValue a = randomValue(sem, rng), b = randomValue(sem, rng);
    if (it < 4) // the top of the range
      for (int l = 0; l < kLanes; ++l)
        a.r[l] = b.r[l] = mod.p[l] - 1 - it;
    LaneValue s = sem.add(a, b), d = sem.sub(a, b), p = sem.mul(a, b);
    for (int l = 0; l < kLanes; ++l) {
      uint64_t m = mod.p[l];
      EXPECT_EQ(s.r[l], ((uint64_t)a.r[l] + b.r[l]) % m);
      EXPECT_EQ(d.r[l], ((uint64_t)a.r[l] + m - b.r[l]) % m);
      EXPECT_EQ(p.r[l], (uint64_t)a.r[l] * b.r[l] % m);
      // Barrett on any 64-bit value.
      uint64_t x = rng();
      EXPECT_EQ(mod.reduce(x, l), x % m);
    }
    bool zero = false;
    for (int l = 0; l < kLanes; ++l)
      zero |= b.r[l] == 0;
    if (!zero) {
      EXPECT_EQ(sem.mul(b, sem.inverse(b)), sem.fromInt(1));
    }
  }
  EXPECT_FALSE(sem.zeroDivisor());
  EXPECT_EQ(sem.inverse(sem.zero()), sem.zero());
  EXPECT_TRUE(sem.zeroDivisor());
}

TEST(LaneField, ConstantsAreExactDyadics) {
  Sem sem(5);
  EXPECT_EQ(sem.mul(sem.fromDouble(0.5), sem.fromInt(2)), sem.fromInt(1));
  EXPECT_EQ(sem.mul(sem.fromDouble(-3.25), sem.fromInt(4)), sem.fromInt(-13));
  EXPECT_EQ(sem.fromDouble(1024.0), sem.fromInt(1024));
  // 0.1 is 3602879701896397/2^55, not 1/10.
  EXPECT_NE(sem.mul(sem.fromDouble(0.1), sem.fromInt(10)), sem.fromInt(1));
  EXPECT_FALSE(sem.badConstant());
  sem.fromDouble(NAN);
  EXPECT_TRUE(sem.badConstant());
  EXPECT_FALSE(sem.conclusive());
}

TEST(LaneField, InverseAllMatchesInverse) {
  Sem sem(9);
  std::mt19937_64 rng(11);
  std::vector<LaneValue> in(37), out(37);
  for (LaneValue &v : in) {
    v = randomValue(sem, rng);
    for (int l = 0; l < kLanes; ++l)
      v.r[l] |= 1; // nonzero
  }
  sem.inverseAll(in.data(), in.size(), out.data());
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(out[i], sem.inverse(in[i])) << i;
  EXPECT_FALSE(sem.zeroDivisor());
}

TEST(LaneField, OraclesAreFunctionsOfAllLanes) {
  Sem sem(1), other(2);
  std::mt19937_64 rng(5);
  LaneValue x = randomValue(sem, rng), y = x;
  y.r[3] = (y.r[3] + 1) % sem.moduli().p[3];
  LaneValue sx = sem.unary(UnaryKind::sqrt, x, 0);
  EXPECT_EQ(sx, sem.unary(UnaryKind::sqrt, x, 0));
  EXPECT_NE(sx, sem.unary(UnaryKind::sqrt, y, 0));
  EXPECT_NE(sx, sem.unary(UnaryKind::tanh, x, 0));
  EXPECT_NE(sx, other.unary(UnaryKind::sqrt, x, 0));
  for (int l = 0; l < kLanes; ++l)
    EXPECT_LT(sx.r[l], 1u << LaneModuli::kLog2InputSet);
  EXPECT_EQ(sem.max(x, y), sem.max(y, x));
  EXPECT_EQ(sem.max(x, x), x);
  EXPECT_EQ(sem.unary(UnaryKind::silu, x, 0),
            sem.mul(x, sem.unary(UnaryKind::sigmoid, x, 0)));
}

// The chunk kernel (vector body where the CPU has it) and the portable body
// give the scalar chain's residues, for every tail of rows (groups of four),
// columns (pairs) and k, at the top of the residue range too.
TEST(LaneField, DotChunkMatchesTheScalarChain) {
  Sem sem(77);
  const LaneModuli &mod = sem.moduli();
  std::mt19937_64 rng(1);
  for (int64_t rows : {1, 3, 4, 5, 8})
    for (int64_t w : {1, 2, 7, 16})
      for (int64_t kc : {int64_t(1), int64_t(15), kLaneDotChunk}) {
        for (bool extreme : {false, true}) {
          std::vector<LaneValue> a(rows * kc), b(kc * w), start(rows * w);
          auto fill = [&](std::vector<LaneValue> &v) {
            for (LaneValue &x : v) {
              x = randomValue(sem, rng);
              if (extreme)
                for (int l = 0; l < kLanes; ++l)
                  x.r[l] = mod.p[l] - 1;
            }
          };
          fill(a);
          fill(b);
          fill(start);
          std::vector<LaneValue> fast = start, portable = start;
          laneDotChunk(mod, a.data(), b.data(), rows, kc, w, fast.data(), w);
          laneDotChunkPortable(mod, a.data(), b.data(), rows, kc, w,
                               portable.data(), w);
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < w; ++j) {
              LaneValue want = start[i * w + j];
              for (int64_t t = 0; t < kc; ++t)
                want = sem.add(want, sem.mul(a[i * kc + t], b[t * w + j]));
              ASSERT_EQ(fast[i * w + j], want)
                  << rows << "x" << kc << "x" << w << " at " << i << "," << j;
              ASSERT_EQ(portable[i * w + j], want);
            }
        }
      }
}

// The evaluator's matmul through dotTile (k over several chunks) equals the
// scalar chain.
TEST(LaneField, EvaluatorMatmulMatchesTheScalarChain) {
  Sem sem(13);
  std::mt19937_64 rng(2);
  int64_t m = 5, k = 300, n = 19;
  Tensor<LaneValue> a({m, k}, LaneValue{}), b({k, n}, LaneValue{});
  for (LaneValue &x : a.data)
    x = randomValue(sem, rng);
  for (LaneValue &x : b.data)
    x = randomValue(sem, rng);
  UGraph g;
  int32_t x = g.addInput({m, k}, ElemType::F32), y = g.addInput({k, n}, ElemType::F32);
  g.markOutput(g.addMatmul(x, y));
  Evaluator<Sem> eval(sem, 2);
  std::vector<Tensor<LaneValue>> out = eval.run(g, {a, b});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      LaneValue want{};
      for (int64_t t = 0; t < k; ++t)
        want = sem.add(want, sem.mul(a.data[i * k + t], b.data[t * n + j]));
      ASSERT_EQ(out[0].data[i * n + j], want) << i << "," << j;
    }
}

// Counter inputs: the same seed gives the same values, a range fill the
// element-by-element step's, and every residue lies in S = [0, 2^27).
TEST(LaneField, CounterInputsAreReproducible) {
  Sem sem(21), again(21);
  auto draw = sem.counterDraw();
  auto one = [&](CounterWords &w) { return sem.random(w); };
  for (auto [begin, count] :
       {std::pair<int64_t, int64_t>{0, 1}, {3, 17}, {12345, 131}}) {
    std::vector<LaneValue> fast(count), slow(count), repeat(count);
    fillCounterElements(99, 2, begin, count, fast.data(), draw);
    fillCounterElements(99, 2, begin, count, slow.data(), one);
    fillCounterElements(99, 2, begin, count, repeat.data(),
                        again.counterDraw());
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_EQ(fast[i], slow[i]) << begin + i;
      ASSERT_EQ(fast[i], repeat[i]);
      for (int l = 0; l < kLanes; ++l)
        ASSERT_LT(fast[i].r[l], 1u << LaneModuli::kLog2InputSet);
    }
  }
}

// The bound of §4.2c: four lanes of 27 bits per unit of degree, so the
// RMSNorm + matmul pair gets (Δ/2^27)^4-sized terms.
TEST(LaneField, BoundIsTheFourthPowerOfALane) {
  UGraph fused = test::rmsMatmulFused(4, 64, 32, 4, 4);
  UGraph ref = test::rmsMatmulReference(4, 64, 32);
  ErrorBound pair = computeErrorBound(fused, ref, false, 64);
  ErrorBound lanes = computeErrorBound(fused, ref, false, 64, 512,
                                       FieldFamily::FourLanes);
  EXPECT_EQ(lanes.family, FieldFamily::FourLanes);
  EXPECT_EQ(pair.family, FieldFamily::SafePrimePair);
  EXPECT_EQ(lanes.szDegree, pair.szDegree);
  // The difference alone: (Δ/2^27)^4.
  EXPECT_GE(lanes.log2PerTest, 4 * (std::log2(lanes.szDegree) - 27) - 0.01);
  EXPECT_LT(lanes.log2PerTest, -64);
  EXPECT_EQ(lanes.tests, 1u);
  // Mode I has no lanes.
  EXPECT_EQ(computeErrorBound(fused, ref, true, 64, 512, FieldFamily::FourLanes)
                .family,
            FieldFamily::SafePrimePair);
}

// Verdicts in the lanes: equivalent graphs accepted with the lanes' bound,
// a wrong one rejected, the same verdict and message for any thread count.
TEST(LaneField, VerifierVerdictsInTheLanes) {
  VerifyOptions opts;
  opts.seed = 5;
  opts.laneFields = LaneFieldUse::Always;
  UGraph ref = test::rmsEpsMatmulReference(4, 64, 32, 1e-5);
  VerificationResult ok =
      verifyEquivalence(test::rmsEpsMatmulFused(4, 64, 32, 4, 4, 1e-5), ref, opts);
  EXPECT_EQ(ok.status, VerifyStatus::Equivalent) << ok.message;
  EXPECT_EQ(ok.bound.family, FieldFamily::FourLanes);
  EXPECT_NE(ok.message.find("four 28-bit fields"), std::string::npos);
  EXPECT_LE(ok.log2Bound, -64);
  VerificationResult bad =
      verifyEquivalence(test::rmsEpsMatmulFused(4, 64, 32, 4, 4, 2e-5), ref, opts);
  EXPECT_EQ(bad.status, VerifyStatus::NotEquivalent);
  for (unsigned threads : {1u, 2u, 3u}) {
    VerifyOptions t = opts;
    t.threads = threads;
    VerificationResult r = verifyEquivalence(
        test::rmsEpsMatmulFused(4, 64, 32, 4, 4, 1e-5), ref, t);
    EXPECT_EQ(r.status, ok.status);
    EXPECT_EQ(r.message, ok.message);
  }
  // Auto keeps the pair below model scale.
  opts.laneFields = LaneFieldUse::Auto;
  VerificationResult small =
      verifyEquivalence(test::rmsEpsMatmulFused(4, 64, 32, 4, 4, 1e-5), ref, opts);
  EXPECT_EQ(small.bound.family, FieldFamily::SafePrimePair);
}

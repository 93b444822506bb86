//===- FieldDotTest.cpp - The field matmul tile against the scalar chain ---===//
//
// fieldDotTile (FieldDot.h) must give exactly the left fold
// add(…add(zero, a_0·b_0)…) of the domain's scalar operations, for any k
// (blocks of 16 and a partial last block), any width (groups of four and a
// tail), residues at the top of the range (the 128-bit block sums are
// tightest there) and undefined q parts.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Semantics/Evaluator.h"

#include "FieldInputs.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace mirage;
using namespace mirage::ff;

namespace {
using Sem = FiniteFieldSemantics;

struct Case {
  int64_t rows, k, w;
};

void check(const Sem &sem, const Case &c, bool extreme, std::mt19937_64 &rng) {
  const FieldModuli &mod = sem.moduli();
  auto value = [&](bool undef) {
    FieldValue v = sem.random(rng);
    if (extreme) { // the largest residues: products near 2^124
      v.p = mod.p.m - 1 - (rng() & 3);
      v.q = mod.q.m - 1 - (rng() & 3);
    }
    // Undefined q parts exist only where exp is interpreted (mode I); the
    // mode-U tile does not look for them in b.
    if (undef && sem.expMode() == Sem::ExpMode::Interpreted)
      v.markQUndefined();
    return v;
  };
  std::vector<FieldValue> a(c.rows * c.k), b(c.k * c.w);
  for (auto &x : a)
    x = value(rng() % 97 == 0);
  for (auto &x : b)
    x = value(rng() % 89 == 0);
  std::vector<FieldValue> got(c.rows * c.w);
  sem.dotTile(a.data(), c.k, got.data(), c.w, 0, c.rows, 0, c.w,
              [&](int64_t kk) { return b.data() + kk * c.w; });
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.w; ++j) {
      FieldValue want = sem.zero();
      for (int64_t kk = 0; kk < c.k; ++kk)
        want = sem.add(want, sem.mul(a[i * c.k + kk], b[kk * c.w + j]));
      const FieldValue &g = got[i * c.w + j];
      ASSERT_EQ(g.p, want.p) << "rows " << c.rows << " k " << c.k << " w "
                             << c.w << " at " << i << "," << j;
      ASSERT_EQ(g.qUndef(), want.qUndef());
      if (!want.qUndef()) {
        ASSERT_EQ(g.q, want.q);
      }
    }
}

TEST(FieldDot, MatchesTheScalarChain) {
  std::mt19937_64 rng(5);
  for (uint64_t key : {1u, 2u, 3u})
    for (Sem::ExpMode mode :
         {Sem::ExpMode::Uninterpreted, Sem::ExpMode::Interpreted}) {
      Sem sem(key, mode);
      for (Case c : {Case{1, 1, 1}, Case{3, 15, 5}, Case{4, 16, 4},
                     Case{2, 17, 7}, Case{8, 64, 32}, Case{5, 100, 9},
                     Case{1, 4096, 3}})
        for (bool extreme : {false, true})
          check(sem, c, extreme, rng);
    }
}

// A tile inside a larger output (i0, j0 > 0) writes only its box.
TEST(FieldDot, WritesOnlyItsBox) {
  Sem sem(7, Sem::ExpMode::Uninterpreted);
  std::mt19937_64 rng(9);
  int64_t m = 6, k = 20, n = 10;
  std::vector<FieldValue> a(m * k), b(k * n);
  for (auto &x : a)
    x = sem.random(rng);
  for (auto &x : b)
    x = sem.random(rng);
  FieldValue marker{12345, 678, false};
  std::vector<FieldValue> c(m * n, marker);
  sem.dotTile(a.data(), k, c.data(), n, 2, 5, 3, 8,
              [&](int64_t kk) { return b.data() + kk * n + 3; });
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      bool inside = i >= 2 && i < 5 && j >= 3 && j < 8;
      FieldValue want = marker;
      if (inside) {
        want = sem.zero();
        for (int64_t kk = 0; kk < k; ++kk)
          want = sem.add(want, sem.mul(a[i * k + kk], b[kk * n + j]));
      }
      EXPECT_TRUE(c[i * n + j].identical(want)) << i << "," << j;
    }
}

/// A block graph whose in-loop matmul is summed by one accumulator: grid 2
/// over the columns, a for-loop of 4 over k (56 per step: three blocks of 16
/// and a partial one), a batch of 2 and 5 rows. With `secondReader`, an
/// accumulated max of the same matmul is a second output, so the matmul has
/// two readers and the evaluator runs the loop literally (a reduced tile per
/// iteration, added to the state); without, the products go straight into
/// the exact partial sums (Evaluator.h).
UGraph summedMatmul(bool secondReader) {
  int64_t batch = 2, m = 5, k = 224, n = 40;
  UGraph b(Level::Block);
  b.grid = {2, 1, 1};
  b.forloopRange = 4;
  int32_t A = b.addInput({batch, m, k}, ElemType::F32);
  int32_t B = b.addInput({batch, k, n}, ElemType::F32);
  int32_t at = b.addInputIterator(A, {-1, -1, -1}, 2);
  int32_t bt = b.addInputIterator(B, {2, -1, -1}, 1);
  int32_t mm = b.addMatmul(at, bt);
  b.markOutput(b.addOutputSaver(b.addAccum(AccumKind::sum, mm, -1, 0),
                                {2, -1, -1}));
  if (secondReader)
    b.markOutput(b.addOutputSaver(b.addAccum(AccumKind::max, mm, -1, 0),
                                  {2, -1, -1}));
  UGraph g;
  int32_t a = g.addInput({batch, m, k}, ElemType::F32);
  int32_t w = g.addInput({batch, k, n}, ElemType::F32);
  g.markOutput(g.addCustom({a, w}, std::move(b))); // the sum's result
  return g;
}

// The exact partial sums give the same elements as the literal loop, q
// parts undefined where an operand's was, for every thread count.
TEST(FieldDot, LoopPartialSumsEqualTheLiteralLoop) {
  UGraph fused = summedMatmul(false), literal = summedMatmul(true);
  ASSERT_TRUE(fused.error.empty()) << fused.error;
  ASSERT_TRUE(literal.error.empty()) << literal.error;
  // Mode I: the mode where undefined q parts exist.
  Sem sem(11, Sem::ExpMode::Interpreted);
  std::mt19937_64 rng(3);
  std::vector<Tensor<FieldValue>> ins = test::randomFieldInputs(fused, sem, rng);
  // One undefined q part in row 1 of A's first batch (k index 150, in the
  // third step): that row's outputs are undefined in q, no other.
  ins[0].data[(0 * 5 + 1) * 224 + 150].markQUndefined();
  auto want = Evaluator<Sem>(sem, 1).run(literal, ins);
  for (unsigned threads : {1u, 2u}) {
    auto got = Evaluator<Sem>(sem, threads).run(fused, ins);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0].shape, want[0].shape);
    int64_t undef = 0;
    for (int64_t e = 0; e < got[0].size(); ++e) {
      ASSERT_TRUE(got[0].data[e].identical(want[0].data[e])) << e;
      undef += got[0].data[e].qUndef();
    }
    EXPECT_GT(undef, 0); // the undefined flags took part
    EXPECT_LT(undef, got[0].size());
  }
}
} // namespace

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
    v.qUndef = undef;
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
      ASSERT_EQ(g.qUndef, want.qUndef);
      if (!want.qUndef) {
        ASSERT_EQ(g.q, want.q);
      }
    }
}

TEST(FieldDot, MatchesTheScalarChain) {
  std::mt19937_64 rng(5);
  for (uint64_t key : {1u, 2u, 3u}) {
    Sem sem(key, Sem::ExpMode::Uninterpreted);
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
} // namespace

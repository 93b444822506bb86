//===- FloatDot.cpp - The float64 matmul block, compiled for wide vectors -===//
//
// Float64Semantics::dotTile (FloatSemantics.h) copies a block of rows of b
// and calls this for the sums. Every output's sum is a left fold in
// ascending t of separately rounded products and additions, so the result
// is bit-identical to the element-wise loop on every machine: this file is
// compiled with -ffp-contract=off (lib/Semantics/CMakeLists.txt), so no
// clone fuses a multiply and an add, and the clones (VectorClones.h)
// differ only in how many columns one instruction adds.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Support/VectorClones.h"

#include <cstring>

// The helpers below pass 64-byte vectors by value; they are inlined into
// each clone, so no call crosses an ABI boundary (GCC warns regardless).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace {
/// Eight doubles as one value (GCC/Clang vector extension): each clone
/// lowers it to what it has (one AVX-512 register, two AVX2 ones, four SSE2
/// ones), element-wise, so every element's arithmetic is the same.
typedef double Vec8 __attribute__((vector_size(64)));
[[gnu::always_inline]] inline Vec8 load8(const double *p) {
  Vec8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void store8(double *p, Vec8 v) { std::memcpy(p, &v, sizeof v); }
} // namespace

MIRAGE_VECTOR_CLONES
void mirage::float64DotBlock(const double *a, int64_t lda, const double *b,
                             int64_t rows, int64_t w, int64_t kn,
                             double *acc) {
  // 16 columns at a time in two independent sums, so the additions of
  // consecutive t overlap.
  for (int64_t i = 0; i < rows; ++i) {
    const double *ai = a + i * lda;
    double *ci = acc + i * w;
    int64_t j = 0;
    for (; j + 16 <= w; j += 16) {
      Vec8 s0 = load8(ci + j), s1 = load8(ci + j + 8);
      for (int64_t t = 0; t < kn; ++t) {
        const double *bj = b + t * w + j;
        double x = ai[t];
        s0 = s0 + x * load8(bj);
        s1 = s1 + x * load8(bj + 8);
      }
      store8(ci + j, s0);
      store8(ci + j + 8, s1);
    }
    for (; j < w; ++j) {
      double s = ci[j];
      for (int64_t t = 0; t < kn; ++t)
        s = s + ai[t] * b[t * w + j];
      ci[j] = s;
    }
  }
}

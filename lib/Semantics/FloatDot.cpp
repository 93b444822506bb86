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

namespace {
/// Four doubles as one value (GCC/Clang vector extension): each clone
/// lowers it to what it has (one AVX2 register, half an AVX-512 one, two
/// SSE2 ones), element-wise, so every element's arithmetic is the same.
/// Loaded and stored with memcpy in place: a Vec4 never crosses a call
/// (its ABI differs between the clones). Four doubles, not eight: GCC 12
/// builds an eight-double broadcast of `x` through the stack in the AVX2
/// clone and spills the sums every step (3x slower on an AVX2-only EPYC).
typedef double Vec4 __attribute__((vector_size(32)));

MIRAGE_VECTOR_CLONES
void dotBlockClones(const double *a, int64_t lda, const double *b,
                    int64_t rows, int64_t w, int64_t kn, double *acc) {
  // 16 columns at a time in four independent sums, so the additions of
  // consecutive t overlap.
  for (int64_t i = 0; i < rows; ++i) {
    const double *ai = a + i * lda;
    double *ci = acc + i * w;
    int64_t j = 0;
    for (; j + 16 <= w; j += 16) {
      Vec4 s0, s1, s2, s3, b0, b1, b2, b3;
      std::memcpy(&s0, ci + j, sizeof s0);
      std::memcpy(&s1, ci + j + 4, sizeof s1);
      std::memcpy(&s2, ci + j + 8, sizeof s2);
      std::memcpy(&s3, ci + j + 12, sizeof s3);
      for (int64_t t = 0; t < kn; ++t) {
        const double *bj = b + t * w + j;
        std::memcpy(&b0, bj, sizeof b0);
        std::memcpy(&b1, bj + 4, sizeof b1);
        std::memcpy(&b2, bj + 8, sizeof b2);
        std::memcpy(&b3, bj + 12, sizeof b3);
        const double x = ai[t];
        const Vec4 xv = {x, x, x, x};
        s0 = s0 + xv * b0;
        s1 = s1 + xv * b1;
        s2 = s2 + xv * b2;
        s3 = s3 + xv * b3;
      }
      std::memcpy(ci + j, &s0, sizeof s0);
      std::memcpy(ci + j + 4, &s1, sizeof s1);
      std::memcpy(ci + j + 8, &s2, sizeof s2);
      std::memcpy(ci + j + 12, &s3, sizeof s3);
    }
    for (; j < w; ++j) {
      double s = ci[j];
      for (int64_t t = 0; t < kn; ++t)
        s = s + ai[t] * b[t * w + j];
      ci[j] = s;
    }
  }
}
} // namespace

void mirage::float64DotBlock(const double *a, int64_t lda, const double *b,
                             int64_t rows, int64_t w, int64_t kn,
                             double *acc) {
  dotBlockClones(a, lda, b, rows, w, kn, acc);
}

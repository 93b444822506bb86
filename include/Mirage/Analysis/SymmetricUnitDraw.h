//===- SymmetricUnitDraw.h - The float64 check's random inputs ---*- C++ -*-===//
//
// The float64 cross-check of an accepted pair (Verification.md §4.5) runs
// both graphs on counter-based inputs (Semantics/CounterInputs.h) uniform on
// the multiples of 2^-52 in [-1, 1), one counter word per element. The draw
// step gives one element from its words or fills a range at once with the
// same values; the range loop is compiled for wide vectors.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_SYMMETRICUNITDRAW_H
#define MIRAGE_ANALYSIS_SYMMETRICUNITDRAW_H

#include <cstdint>

namespace mirage {

/// A double uniform on the multiples of 2^-52 in [-1, 1) from one word.
inline double symmetricUnit(uint64_t w) {
  return double((int64_t)(w >> 11) - (int64_t(1) << 52)) /
         double(int64_t(1) << 52);
}

/// symmetricUnit of word 0 of the elements [begin, begin + count) of the
/// tensor keyed `tensorKey` (Numerics.cpp).
void fillSymmetricUnits(uint64_t tensorKey, int64_t begin, int64_t count,
                        double *out);

/// The draw step for counterInputs / fillCounterElements.
struct SymmetricUnitDraw {
  template <class Words> double operator()(Words &words) const {
    return symmetricUnit(words());
  }
  void fill(uint64_t tensorKey, int64_t begin, int64_t count,
            double *out) const {
    fillSymmetricUnits(tensorKey, begin, count, out);
  }
};

} // namespace mirage

#endif // MIRAGE_ANALYSIS_SYMMETRICUNITDRAW_H

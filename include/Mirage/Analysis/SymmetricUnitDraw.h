//===- SymmetricUnitDraw.h - The float64 check's random inputs ---*- C++ -*-===//
//
// The float64 cross-check of an accepted pair (Verification.md §4.5) runs
// both graphs on counter-based inputs (Semantics/CounterInputs.h) uniform on
// the multiples of 2^-15 in [-1, 1): 16 bits per element, four elements to a
// counter word (elements 4g … 4g + 3 share word 0 of element 4g, chunk i & 3),
// a quarter of the draws of one word per element (§8). The draw step gives
// one element from its words or fills a range at once with the same values;
// the range loop is compiled for wide vectors.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_SYMMETRICUNITDRAW_H
#define MIRAGE_ANALYSIS_SYMMETRICUNITDRAW_H

#include "Mirage/Semantics/CounterInputs.h"

#include <cstdint>

namespace mirage {

/// A double uniform on the multiples of 2^-15 in [-1, 1) from 16 bits of a
/// word (chunk c < 4).
inline double symmetricUnit(uint64_t w, unsigned chunk) {
  return double((int64_t)((w >> (16 * chunk)) & 0xffff) - 32768) / 32768.0;
}

/// Element `index` of the tensor keyed `tensorKey`.
inline double symmetricUnitOf(uint64_t tensorKey, uint64_t index) {
  return symmetricUnit(counterWord(tensorKey, index & ~uint64_t(3), 0),
                       (unsigned)(index & 3));
}

/// symmetricUnitOf the elements [begin, begin + count) (Numerics.cpp).
void fillSymmetricUnits(uint64_t tensorKey, int64_t begin, int64_t count,
                        double *out);

/// The draw step for counterInputs / fillCounterElements.
struct SymmetricUnitDraw {
  template <class Words> double operator()(Words &words) const {
    return symmetricUnitOf(words.tensorKey(), words.index());
  }
  void fill(uint64_t tensorKey, int64_t begin, int64_t count,
            double *out) const {
    fillSymmetricUnits(tensorKey, begin, count, out);
  }
};

} // namespace mirage

#endif // MIRAGE_ANALYSIS_SYMMETRICUNITDRAW_H

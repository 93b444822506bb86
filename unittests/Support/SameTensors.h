//===- SameTensors.h - Exact comparison of evaluator results in tests -----===//
//
// Tests that claim "bit-identical" (thread counts, generated vs stored
// inputs) compare with these: doubles bit for bit (so -0.0 and NaN payloads
// count), field values component by component (never their padding bytes,
// which are indeterminate).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_UNITTESTS_SAMETENSORS_H
#define MIRAGE_UNITTESTS_SAMETENSORS_H

#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Semantics/Tensor.h"

#include <cstring>
#include <vector>

namespace mirage::test {

inline bool sameValue(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}
inline bool sameValue(const ff::FieldValue &a, const ff::FieldValue &b) {
  return a.p == b.p && a.q == b.q && a.qUndef() == b.qUndef();
}

template <class V>
bool sameTensors(const std::vector<Tensor<V>> &a,
                 const std::vector<Tensor<V>> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].shape != b[i].shape)
      return false;
    for (int64_t e = 0; e < a[i].size(); ++e)
      if (!sameValue(a[i].data[e], b[i].data[e]))
        return false;
  }
  return true;
}

} // namespace mirage::test

#endif // MIRAGE_UNITTESTS_SAMETENSORS_H

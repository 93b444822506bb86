//===- FieldInputs.h - Random field inputs for a graph (tests) --*- C++ -*-===//
#ifndef MIRAGE_UNITTESTS_SUPPORT_FIELDINPUTS_H
#define MIRAGE_UNITTESTS_SUPPORT_FIELDINPUTS_H

#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Semantics/Tensor.h"
#include "Mirage/Semantics/UGraph.h"

#include <random>
#include <vector>

namespace mirage::test {

/// One stored tensor per input of `g`, every element sem.random(rng).
inline std::vector<Tensor<ff::FieldValue>>
randomFieldInputs(const UGraph &g, const FiniteFieldSemantics &sem,
                  std::mt19937_64 &rng) {
  std::vector<Tensor<ff::FieldValue>> ins;
  for (int32_t v : g.inputs) {
    Tensor<ff::FieldValue> x(g.values[v].shape, ff::FieldValue{});
    for (ff::FieldValue &e : x.data)
      e = sem.random(rng);
    ins.push_back(std::move(x));
  }
  return ins;
}

} // namespace mirage::test

#endif // MIRAGE_UNITTESTS_SUPPORT_FIELDINPUTS_H

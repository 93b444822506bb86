//===- RandomInputs.h - Seeded random inputs for μGraphs --------*- C++ -*-===//
#ifndef MIRAGE_SEMANTICS_RANDOMINPUTS_H
#define MIRAGE_SEMANTICS_RANDOMINPUTS_H

#include "Mirage/Semantics/Tensor.h"
#include "Mirage/Support/SeededValues.h"
#include "Mirage/Semantics/UGraph.h"

#include <cmath>
#include <random>

namespace mirage {

/// Inputs for `g` drawn uniformly from [lo, hi) by a generator seeded with
/// `seed`; the same seed gives the same inputs on every platform.
inline std::vector<Tensor<double>> randomInputs(const UGraph &g, uint64_t seed,
                                                double lo = -1.0,
                                                double hi = 1.0) {
  std::mt19937_64 rng(seed);
  std::vector<Tensor<double>> ins;
  for (int32_t v : g.inputs) {
    Tensor<double> t(g.values[v].shape, 0.0);
    for (double &x : t.data)
      // Portable mapping of 53 random bits to [0, 1).
      x = lo + (hi - lo) * (double)(rng() >> 11) * 0x1.0p-53;
    ins.push_back(std::move(t));
  }
  return ins;
}

/// Inputs for `g` from the counter-based generator (SeededValues.h): input
/// t's element i *as stored* is seededValue(seed, t, i), the order in which
/// the code generator's CPU check and `mirage-run` fill device buffers; the
/// tensors returned are the logical ones the evaluator reads (an input
/// stored transposed is transposed back, OperandLayouts.md).
inline std::vector<Tensor<double>> seededInputs(const UGraph &g,
                                                uint64_t seed) {
  std::vector<Tensor<double>> ins;
  for (size_t t = 0; t < g.inputs.size(); ++t) {
    int32_t v = g.inputs[t];
    Tensor<double> x(storedShape(g, v), 0.0);
    for (int64_t i = 0; i < x.size(); ++i)
      x.data[i] = seededValue(seed, t, i);
    ins.push_back(storedTransposed(g, v) ? transposeLastTwo(x) : std::move(x));
  }
  return ins;
}

/// Input `v` of `g` (logical tensor `x`) in the order it is stored.
inline Tensor<double> storedOrder(const UGraph &g, int32_t v,
                                  const Tensor<double> &x) {
  return storedTransposed(g, v) ? transposeLastTwo(x) : x;
}

/// Largest |a - b| over all elements divided by the largest |b| (or 1e-300).
/// Non-finite values are never ignored: an element where exactly one side is
/// NaN, or the two are different infinities, or one is infinite and the
/// other finite, makes the error infinite. (Equal infinities and NaN on both
/// sides agree.)
inline double maxRelativeError(const Tensor<double> &a,
                               const Tensor<double> &b) {
  double num = 0, den = 1e-300;
  for (int64_t i = 0; i < b.size(); ++i) {
    double x = a.data[i], y = b.data[i];
    if (!std::isfinite(x) || !std::isfinite(y)) {
      bool same = (std::isnan(x) && std::isnan(y)) || x == y;
      if (!same)
        return INFINITY;
      continue;
    }
    num = std::max(num, std::abs(x - y));
    den = std::max(den, std::abs(y));
  }
  return num / den;
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_RANDOMINPUTS_H

//===- Numerics.cpp - Floating-point check in the graph's own dtype -------===//
//
// The candidate runs in RoundingSemantics (Semantics/RoundingSemantics.h):
// every intermediate value rounded to the graph's narrowest type, against
// the reference in float64.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/SymmetricUnitDraw.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/CounterInputs.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"
#include "Mirage/Semantics/RoundingSemantics.h"
#include "Mirage/Support/VectorClones.h"

#include <cmath>

using namespace mirage;

double mirage::numericsThreshold(ElemType t) {
  switch (t) {
  case ElemType::F16:
    return 2e-2;
  case ElemType::BF16:
    return 1e-1;
  case ElemType::F32:
    return 1e-4;
  case ElemType::F64:
    return 1e-10;
  }
  return 1e-4;
}

namespace {
/// The dtype check's inputs: the float64 check's counter-based units
/// (SymmetricUnitDraw), rounded to the input's own type.
struct RoundedUnitDraw {
  ElemType type;
  template <class Words> double operator()(Words &words) const {
    return roundToType(type, symmetricUnitOf(words.tensorKey(), words.index()));
  }
  void fill(uint64_t tensorKey, int64_t begin, int64_t count,
            double *out) const {
    fillSymmetricUnits(tensorKey, begin, count, out);
    for (int64_t e = 0; e < count; ++e)
      out[e] = roundToType(type, out[e]);
  }
};
} // namespace

NumericsResult mirage::checkNumerics(const UGraph &cand, const UGraph &ref,
                                     uint64_t seed, unsigned trials) {
  NumericsResult res;
  res.type = narrowestType(cand);
  res.threshold = numericsThreshold(res.type);
  RoundingSemantics rs{res.type, {}};
  Float64Semantics fs;
  Evaluator<RoundingSemantics> low(rs);
  Evaluator<Float64Semantics> high(fs);
  for (unsigned t = 0; t < trials; ++t) {
    // Counter-based inputs, each rounded to the candidate's input type:
    // inputs over kStoredInputElements (a layer's weights) are generated
    // where they are read and never held as doubles, so the check stores
    // what the float64 cross-check stores (float64CheckBytes, MemoryLimit.h).
    uint64_t key = mix64(seed + t);
    std::vector<Tensor<double>> stored;
    stored.reserve(ref.inputs.size());
    std::vector<TensorSource<double>> inputs;
    for (size_t i = 0; i < ref.inputs.size(); ++i) {
      const Shape &shape = ref.values[ref.inputs[i]].shape;
      RoundedUnitDraw draw{i < cand.inputs.size()
                               ? cand.values[cand.inputs[i]].type
                               : ElemType::F64};
      if (numElements(shape) <= kStoredInputElements) {
        stored.emplace_back(shape, 0.0);
        Tensor<double> &x = stored.back();
        fillCounterElements(key, i, 0, x.size(), x.data.data(), draw);
        inputs.emplace_back(x);
      } else {
        inputs.emplace_back(shape,
                            [key, i, draw](int64_t b, int64_t n, double *out) {
                              fillCounterElements(key, i, b, n, out, draw);
                            });
      }
    }
    auto a = low.run(cand, inputs);
    auto b = high.run(ref, inputs);
    // Elements where the float64 reference itself is not finite (sqrt of a
    // negative input, ...) say nothing about the candidate's precision.
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      double num = 0, den = 1e-300;
      for (int64_t e = 0; e < b[i].size(); ++e) {
        double x = a[i].data[e], y = b[i].data[e];
        if (!std::isfinite(y))
          continue;
        if (!std::isfinite(x)) {
          res.nonFinite = true;
          continue;
        }
        num = std::max(num, std::fabs(x - y));
        den = std::max(den, std::fabs(y));
      }
      res.maxRelError = std::max(res.maxRelError, num / den);
    }
  }
  return res;
}

namespace {
/// The elements [begin, begin + count) of the tensor keyed `tensorKey`, one
/// counter word per four elements; compiled for wide vectors
/// (VectorClones.h). Clang wants a multiversioned function's first
/// declaration to carry the attribute, so the header's function calls this
/// one.
MIRAGE_VECTOR_CLONES
void fillSymmetricUnitClones(uint64_t tensorKey, int64_t begin, int64_t count,
                             double *out) {
  int64_t e = 0;
  for (; e < count && ((begin + e) & 3); ++e)
    out[e] = symmetricUnitOf(tensorKey, (uint64_t)(begin + e));
  uint64_t state = counterState(tensorKey, (uint64_t)(begin + e));
  for (; e + 4 <= count; e += 4, state += 4 * kCounterElementStep) {
    uint64_t w = mix64(state);
    for (unsigned c = 0; c < 4; ++c)
      out[e + c] = symmetricUnit(w, c);
  }
  for (; e < count; ++e)
    out[e] = symmetricUnitOf(tensorKey, (uint64_t)(begin + e));
}
} // namespace

void mirage::fillSymmetricUnits(uint64_t tensorKey, int64_t begin,
                                int64_t count, double *out) {
  fillSymmetricUnitClones(tensorKey, begin, count, out);
}

double mirage::float64Disagreement(const UGraph &cand, const UGraph &ref,
                                   uint64_t seed, unsigned trials,
                                   unsigned threads) {
  Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem, threads);
  double worst = 0;
  // Counter-based inputs, uniform in [-1, 1): large ones (a layer's weights)
  // are generated where they are read, so this check stays within the
  // verifier's memory (Verification.md §8).
  SymmetricUnitDraw draw;
  for (unsigned t = 0; t < trials; ++t) {
    std::vector<Tensor<double>> stored;
    auto inputs = counterInputs<double>(ref, mix64(seed + t), kStoredInputElements,
                                        stored, draw);
    auto a = eval.run(cand, inputs);
    auto b = eval.run(ref, inputs);
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
      worst = std::max(worst, maxRelativeError(a[i], b[i]));
  }
  return worst;
}

//===- Numerics.cpp - Floating-point check in the graph's own dtype -------===//
//
// RoundingSemantics wraps Float64Semantics and rounds every result (and every
// constant) to one element type, so the generic evaluator runs a graph as if
// every intermediate value were stored in that type. The evaluator does not
// tell a domain which value it computes, so the type is the narrowest one of
// the candidate graph; for μGraphs in practice all values share it. Matmul
// sums (and rms_norm's sum of squares) accumulate in f32, as tensor cores
// and the generated code do, and are rounded to the type once; reduction
// and accumulator partial sums are rounded to the type at every step, which
// is pessimistic.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Analysis/SymmetricUnitDraw.h"
#include "Mirage/Semantics/CounterInputs.h"
#include "Mirage/Support/VectorClones.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include <cmath>

using namespace mirage;

double mirage::roundToType(ElemType t, double x) {
  switch (t) {
  case ElemType::F64:
    return x;
  case ElemType::F32:
    return (double)(float)x;
  case ElemType::F16:
  case ElemType::BF16:
    break;
  }
  if (!std::isfinite(x) || x == 0)
    return x;
  bool half = t == ElemType::F16;
  int minExp = half ? -14 : -126;
  int mantBits = half ? 10 : 7;
  double maxFinite = half ? 65504.0 : 0x1.fep127;
  int e = 0;
  std::frexp(x, &e); // |x| = m·2^e, m ∈ [0.5, 1): unbiased exponent e − 1
  int E = std::max(e - 1, minExp);
  double quantum = std::ldexp(1.0, E - mantBits);
  double r = std::nearbyint(x / quantum) * quantum; // ties to even
  if (std::fabs(r) > maxFinite)
    return std::copysign(INFINITY, x);
  return r;
}

static int precisionRank(ElemType t) {
  switch (t) {
  case ElemType::F16:
    return 0;
  case ElemType::BF16:
    return 1;
  case ElemType::F32:
    return 2;
  case ElemType::F64:
    return 3;
  }
  return 2;
}

ElemType mirage::narrowestType(const UGraph &g) {
  ElemType best = ElemType::F64;
  for (const UValue &v : g.values)
    if (g.level != Level::Thread && precisionRank(v.type) < precisionRank(best))
      best = v.type;
  for (const UGraph &b : g.bodies) {
    if (b.level == Level::Thread)
      continue;
    ElemType t = narrowestType(b);
    if (precisionRank(t) < precisionRank(best))
      best = t;
  }
  return best;
}

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
struct RoundingSemantics {
  using Value = double;
  static constexpr bool kParallelSafe = true; // stateless
  ElemType type;
  Float64Semantics f;
  double r(double x) const { return roundToType(type, x); }
  Value zero() const { return 0.0; }
  Value fromInt(int64_t v) const { return r(f.fromInt(v)); }
  Value fromDouble(double v) const { return r(v); }
  Value add(Value a, Value b) const { return r(f.add(a, b)); }
  Value sub(Value a, Value b) const { return r(f.sub(a, b)); }
  Value mul(Value a, Value b) const { return r(f.mul(a, b)); }
  Value div(Value a, Value b) const { return r(f.div(a, b)); }
  Value pow(Value a, Value b) const { return r(f.pow(a, b)); }
  Value max(Value a, Value b) const { return f.max(a, b); }
  Value unary(UnaryKind k, Value x, double scalar) const {
    return r(f.unary(k, x, r(scalar)));
  }
  /// The evaluator's matmul path: f32 products and a left fold in f32 (in
  /// float64 for an f64 graph), rounded to the type at the end. Rounding
  /// every partial sum to f16 made identical graphs exceed the f16
  /// threshold at K = 16384, and cost a frexp/ldexp per multiply-add.
  struct DotAccumulator {
    float s = 0;
    double wide = 0;
  };
  void dotMulAdd(DotAccumulator &a, Value x, Value y) const {
    if (type == ElemType::F64) {
      a.wide += x * y;
      return;
    }
    a.s += static_cast<float>(x) * static_cast<float>(y);
  }
  Value dotValue(const DotAccumulator &a) const {
    return r(type == ElemType::F64 ? a.wide : static_cast<double>(a.s));
  }
};
} // namespace

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

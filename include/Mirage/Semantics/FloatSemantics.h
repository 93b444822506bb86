//===- FloatSemantics.h - Real-number meaning of scalar operators -*- C++ -*-===//
//
// The scalar domain of the float64 reference evaluator. The evaluator
// (Evaluator.h) is generic over such a domain; the finite-field verifier
// supplies another with the same interface, so both share every structural
// rule (tiling, broadcasting, reductions, accumulators).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_FLOATSEMANTICS_H
#define MIRAGE_SEMANTICS_FLOATSEMANTICS_H

#include "Mirage/Dialect/Common/MirageEnums.h"
#include "Mirage/Semantics/ScalarFormulas.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace mirage {

/// float64 scalar domain.
/// acc[i·w + j] += Σ_{t<kn} a[i·lda + t]·b[t·w + j] for i < rows, j < w,
/// each sum a left fold in ascending t without fused multiply-adds
/// (FloatDot.cpp), so bit-identical to the element-wise loop.
void float64DotBlock(const double *a, int64_t lda, const double *b,
                     int64_t rows, int64_t w, int64_t kn, double *acc);

struct Float64Semantics {
  using Value = double;
  Value zero() const { return 0.0; }
  Value fromInt(int64_t v) const { return static_cast<double>(v); }
  Value fromDouble(double v) const { return v; }
  Value add(Value a, Value b) const { return a + b; }
  Value sub(Value a, Value b) const { return a - b; }
  Value mul(Value a, Value b) const { return a * b; }
  Value div(Value a, Value b) const { return a / b; }
  Value pow(Value a, Value b) const { return std::pow(a, b); }
  /// IEEE 754-2019 maximum: NaN if either operand is, as the emitted code
  /// computes it (arith.maximumf; PTX max.NaN) and as TOSA's default
  /// nan_mode and torch.max define it. std::max kept the first operand
  /// against a NaN, so a row's max lost its NaN or not by the fold order.
  Value max(Value a, Value b) const {
    return std::isnan(a) || std::isnan(b)
               ? std::numeric_limits<double>::quiet_NaN()
               : std::max(a, b);
  }
  Value unary(UnaryKind k, Value x, double scalar) const {
    return applyUnary(*this, k, x, scalar);
  }
  // The primitives of ScalarFormulas.h, over the reals.
  Value neg(Value x) const { return -x; }
  Value exp(Value x) const { return std::exp(x); }
  Value sqrt(Value x) const { return std::sqrt(x); }
  Value tanh(Value x) const { return std::tanh(x); }
  Value erf(Value x) const { return std::erf(x); }
  Value sigmoid(Value x) const { return realSigmoid(*this, x); }
  Value gelu(Value x) const { return realGelu(*this, x); }
  /// x > 0 ? x : 0, so NaN maps to 0 (the emitter's compare-and-select).
  Value relu(Value x) const { return x > 0 ? x : 0.0; }

  /// The evaluator's matmul tile (Evaluator.h, "Optional fast path"):
  /// pc[i·n + j0 + j] = Σ_kk pa[i·k + kk]·b[kk][j0 + j], each sum a left
  /// fold from 0.0 in ascending kk, as the element-wise loop computes it, so
  /// the result is bit-identical. The sums of 16 outputs stay in
  /// registers over a block of 64 rows of b (copied once), where the
  /// element-wise loop loaded and stored its output for every product
  /// (float64DotBlock, compiled for wide vectors).
  static constexpr size_t kDotTileBytes = sizeof(double);
  template <class RowOfB>
  void dotTile(const double *pa, int64_t k, double *pc, int64_t n, int64_t i0,
               int64_t i1, int64_t j0, int64_t j1, RowOfB &&rowOfB) const {
    constexpr int64_t kBlock = 64;
    int64_t rows = i1 - i0, w = j1 - j0;
    thread_local std::vector<double> bt, acc;
    bt.resize(kBlock * w);
    acc.assign(rows * w, 0.0);
    for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
      int64_t kn = std::min(kBlock, k - k0);
      for (int64_t t = 0; t < kn; ++t) {
        const double *row = rowOfB(k0 + t);
        std::copy(row, row + w, bt.data() + t * w);
      }
      float64DotBlock(pa + i0 * k + k0, k, bt.data(), rows, w, kn,
                      acc.data());
    }
    for (int64_t i = 0; i < rows; ++i)
      std::copy(acc.data() + i * w, acc.data() + (i + 1) * w,
                pc + (i0 + i) * n + j0);
  }
};

/// The float64 meaning of unary op `k` (ScalarFormulas.h's applyUnary).
inline double applyUnaryF64(UnaryKind k, double x, double scalar) {
  return applyUnary(Float64Semantics(), k, x, scalar);
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_FLOATSEMANTICS_H

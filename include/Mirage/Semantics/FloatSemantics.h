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

#include <algorithm>
#include <cmath>

namespace mirage {

/// The scalar meaning of every unary operator, in one place. Composite
/// operators are spelled through their definitions so that every domain
/// reads the same formula: rsqrt(x) = 1/sqrt(x); silu(x) = x·sigmoid(x);
/// gelu is the tanh form.
inline double applyUnaryF64(UnaryKind k, double x, double scalar) {
  switch (k) {
  case UnaryKind::exp:
    return std::exp(x);
  case UnaryKind::square:
    return x * x;
  case UnaryKind::sqrt:
    return std::sqrt(x);
  case UnaryKind::rsqrt:
    return 1.0 / std::sqrt(x);
  case UnaryKind::reciprocal:
    return 1.0 / x;
  case UnaryKind::silu:
    return x / (1.0 + std::exp(-x));
  case UnaryKind::gelu: {
    const double c = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
  }
  case UnaryKind::relu:
    return x > 0 ? x : 0.0;
  case UnaryKind::sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case UnaryKind::tanh:
    return std::tanh(x);
  case UnaryKind::mul_scalar:
    return x * scalar;
  case UnaryKind::add_scalar:
    return x + scalar;
  }
  return x;
}

/// float64 scalar domain.
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
  Value max(Value a, Value b) const { return std::max(a, b); }
  Value unary(UnaryKind k, Value x, double scalar) const {
    return applyUnaryF64(k, x, scalar);
  }
};

} // namespace mirage

#endif // MIRAGE_SEMANTICS_FLOATSEMANTICS_H

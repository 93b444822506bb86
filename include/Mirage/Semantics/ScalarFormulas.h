//===- ScalarFormulas.h - The scalar meaning of element-wise ops -*- C++ -*-===//
//
// Every domain that computes an element-wise op (the float64 evaluator, the
// finite-field and lane-field verifiers, the Z3 check, the definedness
// check, the CPU/GPU emitter) instantiates these templates, so each formula
// is written once. A domain `D` provides
//
//   typename D::Value;  fromInt(int64_t), fromDouble(double);
//   add, sub, mul, div, pow                         (two Values)
//   exp, sqrt, tanh, sigmoid, gelu, relu            (the primitives, one Value)
//
// The composite kinds are defined here from those: square = x·x,
// rsqrt = 1/sqrt(x), reciprocal = 1/x, silu = x·sigmoid(x),
// mul_scalar = x·c, add_scalar = x + c. Symbolic domains make the
// primitives uninterpreted oracles; the real-valued domains (the float64
// evaluator and the emitter) define sigmoid and gelu by realSigmoid and
// realGelu below, which also need `neg`. docs/Rationale/OpKinds.md,
// Decision 5.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_SCALARFORMULAS_H
#define MIRAGE_SEMANTICS_SCALARFORMULAS_H

#include "Mirage/Dialect/Common/MirageEnums.h"

#include <cmath>
#include <cstdint>

namespace mirage {

/// The unary op `k` at x; `scalar` is mul/add_scalar's constant.
template <class D>
typename D::Value applyUnary(const D &d, UnaryKind k,
                             const typename D::Value &x, double scalar) {
  switch (k) {
  case UnaryKind::exp:
    return d.exp(x);
  case UnaryKind::square:
    return d.mul(x, x);
  case UnaryKind::sqrt:
    return d.sqrt(x);
  case UnaryKind::rsqrt:
    return d.div(d.fromInt(1), d.sqrt(x));
  case UnaryKind::reciprocal:
    return d.div(d.fromInt(1), x);
  case UnaryKind::silu:
    return d.mul(x, d.sigmoid(x));
  case UnaryKind::gelu:
    return d.gelu(x);
  case UnaryKind::relu:
    return d.relu(x);
  case UnaryKind::sigmoid:
    return d.sigmoid(x);
  case UnaryKind::tanh:
    return d.tanh(x);
  case UnaryKind::erf:
    return d.erf(x);
  case UnaryKind::mul_scalar:
    return d.mul(x, d.fromDouble(scalar));
  case UnaryKind::add_scalar:
    return d.add(x, d.fromDouble(scalar));
  }
  return x;
}

/// The binary op `k` at (a, b).
template <class D>
typename D::Value applyBinary(const D &d, BinaryKind k,
                              const typename D::Value &a,
                              const typename D::Value &b) {
  switch (k) {
  case BinaryKind::add:
    return d.add(a, b);
  case BinaryKind::sub:
    return d.sub(a, b);
  case BinaryKind::mul:
    return d.mul(a, b);
  case BinaryKind::div:
    return d.div(a, b);
  case BinaryKind::pow:
    return d.pow(a, b);
  }
  return a;
}

/// sigmoid(x) = 1 / (1 + exp(-x)), for real-valued domains.
template <class D>
typename D::Value realSigmoid(const D &d, const typename D::Value &x) {
  typename D::Value one = d.fromInt(1);
  return d.div(one, d.add(one, d.exp(d.neg(x))));
}

/// The tanh form of GELU, for real-valued domains:
/// gelu(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x·x·x))), the products
/// associated from the left.
template <class D>
typename D::Value realGelu(const D &d, const typename D::Value &x) {
  typename D::Value cubic = d.mul(d.mul(d.mul(d.fromDouble(0.044715), x), x), x);
  typename D::Value t =
      d.tanh(d.mul(d.fromDouble(std::sqrt(2.0 / M_PI)), d.add(x, cubic)));
  return d.mul(d.mul(d.fromDouble(0.5), x), d.add(d.fromInt(1), t));
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_SCALARFORMULAS_H

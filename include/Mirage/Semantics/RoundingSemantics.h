//===- RoundingSemantics.h - Values stored in a narrow float type -*- C++
//-*-===//
//
// RoundingSemantics wraps Float64Semantics and rounds every result (and every
// constant) to one element type, so the generic evaluator (Evaluator.h) runs
// a graph as if every intermediate value were stored in that type. The
// evaluator does not tell a domain which value it computes, so the type is
// one for the whole graph: the narrowest of its values (for μGraphs in
// practice all values share it). Matmul sums (and rms_norm's sum of squares)
// accumulate in f32, as tensor cores and the generated code do, and are
// rounded to the type once; reduction and accumulator partial sums are
// rounded to the type at every step, which is pessimistic.
//
// Two checks consume it: the search's floating-point check of a candidate
// (Analysis/Numerics.cpp) and mirage-check-on-cpu, which tells an output
// the graph's own precision cannot compute (overflow, ill-conditioning)
// from lowered code that computes it wrongly.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_ROUNDINGSEMANTICS_H
#define MIRAGE_SEMANTICS_ROUNDINGSEMANTICS_H

#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/UGraph.h"

namespace mirage {

/// Rounds x to the nearest value of `t` (ties to even), ±inf on overflow.
double roundToType(ElemType t, double x);

/// The narrowest element type of any value of `g` (nested graphs included).
ElemType narrowestType(const UGraph &g);

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

} // namespace mirage

#endif // MIRAGE_SEMANTICS_ROUNDINGSEMANTICS_H

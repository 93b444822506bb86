//===- RoundingSemantics.cpp - Values stored in a narrow float type -------===//
#include "Mirage/Semantics/RoundingSemantics.h"

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

namespace {
int precisionRank(ElemType t) {
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
} // namespace

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

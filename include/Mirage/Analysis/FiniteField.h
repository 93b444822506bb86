//===- FiniteField.h - The finite-field domain of the verifier --*- C++ -*-===//
//
// FiniteFieldSemantics is a scalar domain for the generic Evaluator<Sem>
// (Mirage/Semantics/Evaluator.h), like Float64Semantics. A value is a pair
// (x_p, x_q) ∈ Z_p × Z_q with q | p − 1 (paper §5, Table 3):
//
//   add, sub, mul          component-wise, exact;
//   div                    multiplication by the modular inverse; a zero
//                          divisor sets zeroDivisor() (the test is
//                          inconclusive and the verifier redraws it);
//   exp (interpreted)      (x_p, x_q) ↦ (ω^{x_q} mod p, undefined) with ω a
//                          primitive q-th root of unity drawn per test; an
//                          exp of a value whose q part is undefined is a
//                          nested exponentiation (outside LAX) and sets
//                          nestedExp();
//   exp (uninterpreted)    a random oracle, like the functions below;
//   sqrt, relu, gelu,      uninterpreted: a keyed pseudo-random function of
//   sigmoid, tanh, pow,    (test key, symbol, x_p [, y_p]); rsqrt(x) is
//   max                    1/sqrt(x) and silu(x) is x·sigmoid(x) under the
//                          same oracle; max is keyed on the unordered pair
//                          and max(x, x) = x;
//   constants              every finite double is m·2^e and maps exactly.
//
// Domains are cheap; make one per test and per thread (the status flags are
// mutable members because the evaluator holds a const reference).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_FINITEFIELD_H
#define MIRAGE_ANALYSIS_FINITEFIELD_H

#include "Mirage/Dialect/Common/MirageEnums.h"

#include <cstdint>
#include <random>

namespace mirage::ff {

/// q = 2^61 − 229, prime; p = 4q + 1 = 2^63 − 915, prime. Both primalities
/// are checked by the unit tests with a deterministic Miller–Rabin.
constexpr uint64_t kQ = 2305843009213693723ULL;
constexpr uint64_t kP = 9223372036854774893ULL;
constexpr uint64_t kCofactor = 4; // (p − 1) / q
static_assert(kP == kCofactor * kQ + 1, "q must divide p - 1");
static_assert(kP < (1ULL << 63), "sums of two residues must fit in 64 bits");

inline uint64_t addMod(uint64_t a, uint64_t b, uint64_t m) {
  uint64_t s = a + b; // a, b < m < 2^63: no overflow
  return s >= m ? s - m : s;
}
inline uint64_t subMod(uint64_t a, uint64_t b, uint64_t m) {
  return a >= b ? a - b : a + (m - b);
}
inline uint64_t mulMod(uint64_t a, uint64_t b, uint64_t m) {
  return (uint64_t)((unsigned __int128)a * b % m);
}
uint64_t powMod(uint64_t base, uint64_t exp, uint64_t m);
/// Inverse of a ≠ 0 modulo the prime m (extended Euclid); 0 for a = 0.
uint64_t invMod(uint64_t a, uint64_t m);
/// Deterministic Miller–Rabin, exact for every 64-bit n.
bool isPrime(uint64_t n);
/// v mod m in [0, m).
uint64_t reduceSigned(int64_t v, uint64_t m);

/// A value of Z_p × Z_q. `qUndef`: the q part is undefined (it descends from
/// an interpreted exp).
struct FieldValue {
  uint64_t p = 0, q = 0;
  bool qUndef = false;
  /// Equality of field values: the p parts, and the q parts where both are
  /// defined.
  bool sameAs(const FieldValue &o) const {
    return p == o.p && (qUndef || o.qUndef || q == o.q);
  }
};

/// Oracle symbols: one independent random function per symbol and test.
enum class Symbol : uint8_t { Exp, Sqrt, Sigmoid, Gelu, Relu, Tanh, Pow, Max };

class FiniteFieldSemantics {
public:
  using Value = FieldValue;
  enum class ExpMode : uint8_t { Interpreted, Uninterpreted };

  /// A domain for one test: `testKey` keys the oracles and draws ω.
  FiniteFieldSemantics(uint64_t testKey, ExpMode mode);

  Value zero() const { return Value{}; }
  Value fromInt(int64_t v) const {
    return Value{reduceSigned(v, kP), reduceSigned(v, kQ), false};
  }
  Value fromDouble(double v) const;
  Value add(Value a, Value b) const {
    return Value{addMod(a.p, b.p, kP), addMod(a.q, b.q, kQ),
                 a.qUndef || b.qUndef};
  }
  Value sub(Value a, Value b) const {
    return Value{subMod(a.p, b.p, kP), subMod(a.q, b.q, kQ),
                 a.qUndef || b.qUndef};
  }
  Value mul(Value a, Value b) const {
    return Value{mulMod(a.p, b.p, kP), mulMod(a.q, b.q, kQ),
                 a.qUndef || b.qUndef};
  }
  Value div(Value a, Value b) const { return mul(a, inverse(b)); }
  Value pow(Value a, Value b) const { return oracle(Symbol::Pow, a, &b); }
  Value max(Value a, Value b) const;
  Value unary(UnaryKind k, Value x, double scalar) const;

  /// The multiplicative inverse; flags a zero divisor (in either part).
  Value inverse(Value a) const;
  /// The oracle of `s` at x (and y for binary symbols), keyed by x_p (y_p).
  Value oracle(Symbol s, Value x, const Value *y = nullptr) const;
  /// A uniformly random element of Z_p × Z_q.
  template <class Rng> static Value random(Rng &rng) {
    return Value{uniformBelow(rng, kP, 63), uniformBelow(rng, kQ, 61), false};
  }

  uint64_t omega() const { return omega_; }
  ExpMode expMode() const { return mode; }
  bool zeroDivisor() const { return zeroDivisor_; }
  bool nestedExp() const { return nestedExp_; }
  bool badConstant() const { return badConstant_; }
  /// True when the test may be counted: no zero divisor, no nested exp, no
  /// non-finite constant.
  bool conclusive() const {
    return !zeroDivisor_ && !nestedExp_ && !badConstant_;
  }

private:
  template <class Rng>
  static uint64_t uniformBelow(Rng &rng, uint64_t m, unsigned bits) {
    for (;;) { // rejection sampling: exactly uniform
      uint64_t v = rng() >> (64 - bits);
      if (v < m)
        return v;
    }
  }

  uint64_t key;
  uint8_t sipKey[16];
  uint64_t omega_ = 1;
  ExpMode mode;
  mutable bool zeroDivisor_ = false, nestedExp_ = false, badConstant_ = false;
};

} // namespace mirage::ff

namespace mirage {
using ff::FiniteFieldSemantics;
} // namespace mirage

#endif // MIRAGE_ANALYSIS_FINITEFIELD_H

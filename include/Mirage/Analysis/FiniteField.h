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
// Domains are cheap; make one per test. The status flags are atomic, so the
// evaluator's workers may share one domain within a test.
//
// Speed: products reduce modulo the pseudo-Mersenne p and q with two folds
// (no 128-bit division), and the evaluator's matmul sums products in a
// 192-bit accumulator, reducing once per output element (DotAccumulator).
// Both are exact; the unit tests compare them with `%` on random values.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_FINITEFIELD_H
#define MIRAGE_ANALYSIS_FINITEFIELD_H

#include "Mirage/Dialect/Common/MirageEnums.h"

#include <atomic>
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
/// The simple reference: a 128-bit product reduced with `%` (a library
/// division). Kept for arbitrary moduli and as the unit tests' oracle.
inline uint64_t mulModSlow(uint64_t a, uint64_t b, uint64_t m) {
  return (uint64_t)((unsigned __int128)a * b % m);
}

// Fast reduction. p = 2^63 − 915 and q = 2^61 − 229 are pseudo-Mersenne:
// with x = hi·2^s + lo, x ≡ hi·c + lo (mod 2^s − c). Two folds and one
// conditional subtraction reduce any 128-bit x exactly, with multiplications
// and shifts only (no division).
constexpr uint64_t kPc = (1ULL << 63) - kP; // 915
constexpr uint64_t kQc = (1ULL << 61) - kQ; // 229
static_assert(kPc == 915 && kQc == 229, "pseudo-Mersenne constants");

/// x mod 2^S − C for any 128-bit x (needs C < 2^10, S ≥ 61).
template <unsigned S, uint64_t C>
inline uint64_t reducePseudoMersenne(unsigned __int128 x) {
  constexpr uint64_t mask = (1ULL << S) - 1, m = (1ULL << S) - C;
  // x < 2^128: hi < 2^(128−S) ≤ 2^67, y = hi·C + lo < 2^77 + 2^S.
  unsigned __int128 y = (x >> S) * C + ((uint64_t)x & mask);
  // y < 2^78: hi < 2^(78−S) ≤ 2^17, z = hi·C + lo < 2^27 + 2^S < 2m.
  uint64_t z = (uint64_t)(y >> S) * C + ((uint64_t)y & mask);
  return z >= m ? z - m : z;
}
inline uint64_t reduceP(unsigned __int128 x) {
  return reducePseudoMersenne<63, kPc>(x);
}
inline uint64_t reduceQ(unsigned __int128 x) {
  return reducePseudoMersenne<61, kQc>(x);
}
inline uint64_t mulModP(uint64_t a, uint64_t b) {
  return reduceP((unsigned __int128)a * b);
}
inline uint64_t mulModQ(uint64_t a, uint64_t b) {
  return reduceQ((unsigned __int128)a * b);
}
/// a·b mod m; the fast reductions for p and q, `%` otherwise.
inline uint64_t mulMod(uint64_t a, uint64_t b, uint64_t m) {
  if (m == kP)
    return mulModP(a, b);
  if (m == kQ)
    return mulModQ(a, b);
  return mulModSlow(a, b, m);
}

/// 2^128 mod p and mod q, for the carries of a delayed-reduction sum.
constexpr uint64_t kTwo128ModP =
    (uint64_t)(((((unsigned __int128)1 << 64) % kP) *
                (((unsigned __int128)1 << 64) % kP)) % kP);
constexpr uint64_t kTwo128ModQ =
    (uint64_t)(((((unsigned __int128)1 << 64) % kQ) *
                (((unsigned __int128)1 << 64) % kQ)) % kQ);

/// Σ a_i·b_i with delayed reduction: the exact 192-bit sum (carry·2^128 +
/// lo) of the 126-bit (p) or 122-bit (q) products, reduced once at the end.
struct DotSum {
  unsigned __int128 lo = 0;
  uint64_t carry = 0;
  void mulAdd(uint64_t a, uint64_t b) {
    unsigned __int128 x = (unsigned __int128)a * b;
    lo += x;
    carry += lo < x;
  }
  uint64_t valueP() const {
    return addMod(reduceP(lo), mulModP(carry % kP, kTwo128ModP), kP);
  }
  uint64_t valueQ() const {
    return addMod(reduceQ(lo), mulModQ(carry % kQ, kTwo128ModQ), kQ);
  }
};
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

/// A status flag that worker threads may set concurrently (relaxed atomic;
/// copyable so that the domain stays copyable).
class StickyFlag {
public:
  StickyFlag() = default;
  StickyFlag(const StickyFlag &o) : v(o.get()) {}
  StickyFlag &operator=(const StickyFlag &o) {
    v.store(o.get(), std::memory_order_relaxed);
    return *this;
  }
  void set() const { v.store(true, std::memory_order_relaxed); }
  bool get() const { return v.load(std::memory_order_relaxed); }

private:
  mutable std::atomic<bool> v{false};
};

class FiniteFieldSemantics {
public:
  using Value = FieldValue;
  enum class ExpMode : uint8_t { Interpreted, Uninterpreted };
  /// The const operations may run concurrently (the evaluator's workers):
  /// the status flags are atomic, everything else is read-only.
  static constexpr bool kParallelSafe = true;

  /// The evaluator's matmul fast path: Σ a·b with one reduction per output.
  struct DotAccumulator {
    DotSum p, q;
    bool qUndef = false;
  };
  void dotMulAdd(DotAccumulator &acc, const Value &a, const Value &b) const {
    acc.p.mulAdd(a.p, b.p);
    acc.q.mulAdd(a.q, b.q);
    acc.qUndef |= a.qUndef | b.qUndef;
  }
  Value dotValue(const DotAccumulator &acc) const {
    return Value{acc.p.valueP(), acc.q.valueQ(), acc.qUndef};
  }

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
    return Value{mulModP(a.p, b.p), mulModQ(a.q, b.q), a.qUndef || b.qUndef};
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
  bool zeroDivisor() const { return zeroDivisor_.get(); }
  bool nestedExp() const { return nestedExp_.get(); }
  bool badConstant() const { return badConstant_.get(); }
  /// True when the test may be counted: no zero divisor, no nested exp, no
  /// non-finite constant.
  bool conclusive() const {
    return !zeroDivisor() && !nestedExp() && !badConstant();
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
  StickyFlag zeroDivisor_, nestedExp_, badConstant_;
};

} // namespace mirage::ff

namespace mirage {
using ff::FiniteFieldSemantics;
} // namespace mirage

#endif // MIRAGE_ANALYSIS_FINITEFIELD_H

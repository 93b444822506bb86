//===- FiniteField.h - The finite-field domain of the verifier --*- C++ -*-===//
//
// FiniteFieldSemantics is a scalar domain for the generic Evaluator<Sem>
// (Mirage/Semantics/Evaluator.h), like Float64Semantics. A value is a pair
// (x_p, x_q) ∈ Z_p × Z_q with q | p − 1 (paper §5, Table 3), both primes
// drawn per test:
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
//   sigmoid, tanh, erf, pow,    (test key, symbol, x [, y]); rsqrt(x) is
//   max                    1/sqrt(x) and silu(x) is x·sigmoid(x) under the
//                          same oracle; max is keyed on the unordered pair
//                          and max(x, x) = x;
//   constants              every finite double is m·2^e and maps exactly.
//
// Domains are cheap; make one per test. The status flags are atomic, so the
// evaluator's workers may share one domain within a test.
//
// Primes: every test draws its own pair (q a random 61-bit prime, p = 2q + 1
// prime) from its key (FieldModuli), so no constant can be chosen to alias
// in the field; see docs/Rationale/Verification.md §4.1.
//
// Speed: products reduce with Barrett (Modulus: three multiplications, no
// division), and the evaluator's matmul sums products in a 192-bit
// accumulator, reducing once per output element (DotAccumulator). Both are
// exact; the unit tests compare them with `%` on random values.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_FINITEFIELD_H
#define MIRAGE_ANALYSIS_FINITEFIELD_H

#include "Mirage/Dialect/Common/MirageEnums.h"
#include "Mirage/Semantics/ScalarFormulas.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <cstdint>
#include <random>

namespace mirage::ff {

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

/// A modulus 2^60 < m < 2^62 with Barrett reduction: with μ = ⌊2^124/m⌋
/// (< 2^64 since m > 2^60), q̂ = ⌊⌊x/2^60⌋·μ/2^64⌋ is at most 2 below ⌊x/m⌋
/// for every x < 2^124, so x − q̂·m < 3m < 2^64 and two conditional
/// subtractions finish. Three multiplications and no division, as many as
/// the pseudo-Mersenne folds of the former fixed primes
/// (bench/ff_mul.cpp measures both).
struct Modulus {
  uint64_t m = 0;
  uint64_t mu = 0;      // ⌊2^124 / m⌋
  uint64_t two64 = 0;   // 2^64 mod m
  uint64_t two128 = 0;  // 2^128 mod m
  static constexpr uint64_t kMin = 1ULL << 60, kMax = 1ULL << 62;

  Modulus() = default;
  explicit Modulus(uint64_t mod);
  /// x mod m for x < 2^124 (a product of two residues).
  uint64_t reduce(unsigned __int128 x) const {
    uint64_t qh =
        (uint64_t)(((unsigned __int128)(uint64_t)(x >> 60) * mu) >> 64);
    uint64_t r = (uint64_t)x - qh * m; // exact: the true value is < 3m
    r = r >= m ? r - m : r;
    return r >= m ? r - m : r;
  }
  uint64_t mul(uint64_t a, uint64_t b) const {
    return reduce((unsigned __int128)a * b);
  }
  uint64_t add(uint64_t a, uint64_t b) const { return addMod(a, b, m); }
  uint64_t sub(uint64_t a, uint64_t b) const { return subMod(a, b, m); }
  /// (carry·2^128 + lo) mod m, for any 128-bit lo: each 64-bit word is
  /// below 2^124, so Barrett reduces it (no division).
  uint64_t reduceWide(unsigned __int128 lo, uint64_t carry) const {
    uint64_t hi = reduce((uint64_t)(lo >> 64)), low = reduce((uint64_t)lo);
    uint64_t r = add(mul(hi, two64), low);
    return carry ? add(r, mul(reduce(carry), two128)) : r;
  }
  uint64_t pow(uint64_t base, uint64_t e) const;
};

/// Mode U draws every residue uniformly from S = [0, 2^60), a subset of
/// both fields (every modulus exceeds 2^60): Schwartz–Zippel holds for any
/// finite S with Δ/|S|, so the bound's (Δ/2^60)² is exact for these draws,
/// and a residue costs a shift of a random word (Verification.md §1).
constexpr unsigned kLog2InputSet = 60;
inline uint64_t drawFromInputSet(uint64_t w) { return w >> (64 - kLog2InputSet); }

/// The moduli of one test: q uniform among the primes in [2^60, 2^61) with
/// p = 2q + 1 prime, so q | p − 1 (for the interpreted exp) and p < 2^62.
/// Drawn from a 64-bit key; see docs/Rationale/Verification.md §4.1.
struct FieldModuli {
  Modulus p, q;
  static constexpr uint64_t kCofactor = 2; // (p − 1) / q
  /// log2 of the lower bound on the number of such pairs that the error
  /// bound assumes (the conjectured count is about 2^50).
  static constexpr double kLog2FamilySize = 46;
  /// The least modulus any test uses.
  static constexpr double kLog2MinModulus = 60;
  static_assert(kLog2InputSet <= kLog2MinModulus,
                "mode-U inputs must lie below every modulus");
  static FieldModuli draw(uint64_t key);
  /// A pair from given primes (q | p − 1 is checked by the caller).
  static FieldModuli of(uint64_t p, uint64_t q) {
    FieldModuli f;
    f.p = Modulus(p);
    f.q = Modulus(q);
    return f;
  }
};

/// A uniform draw below m from a random 128-bit word: the statistical
/// distance from uniform is below m/2^128 < 2^−66. For counter-based input
/// generators that have a fixed number of random words per element.
inline uint64_t uniformFrom128(unsigned __int128 w, const Modulus &mod) {
  return mod.reduceWide(w, 0);
}
/// ⌊w·m / 2^128⌋ for the 128-bit word w = hi·2^64 + lo: the multiply-shift
/// map of a uniform 128-bit word onto [0, m). Every residue has ⌊2^128/m⌋ or
/// ⌈2^128/m⌉ preimages, so its probability is within (1 ± 2^−66)/m for
/// m < 2^62 (Verification.md §4.4: over n < 2^41 such draws any event's
/// probability grows by a factor below 1 + 2^−24). No branch, no division:
/// the inputs of a test are drawn at the cost of their four words.
inline uint64_t scaleToModulus(uint64_t hi, uint64_t lo, uint64_t m) {
  using U = unsigned __int128;
  U x = (U)hi * m + (uint64_t)(((U)lo * m) >> 64);
  return (uint64_t)(x >> 64);
}
/// log2 of the factor by which near-uniform draws (scaleToModulus,
/// uniformFrom128: point masses within (1 + 2^−66)/m) can raise the
/// probability of any event of a test with fewer than 2^41 of them:
/// (1 + 2^−66)^(2^41) < 1 + 2^−24.
constexpr double kLog2DrawSkew = 8.6e-8; // log2(1 + 2^-24) < 8.6e-8

/// Exactly uniform below m by rejection from a 64-bit generator.
template <class Rng> uint64_t uniformBelow(Rng &rng, uint64_t m) {
  unsigned bits = 64 - __builtin_clzll(m);
  for (;;) {
    uint64_t v = rng() >> (64 - bits);
    if (v < m)
      return v;
  }
}

/// Σ a_i·b_i with delayed reduction: the exact 192-bit sum (carry·2^128 +
/// lo) of the products (< 2^124 each), reduced once at the end.
struct DotSum {
  unsigned __int128 lo = 0;
  uint64_t carry = 0;
  void mulAdd(uint64_t a, uint64_t b) {
    unsigned __int128 x = (unsigned __int128)a * b;
    lo += x;
    carry += lo < x;
  }
  uint64_t value(const Modulus &m) const { return m.reduceWide(lo, carry); }
};
/// a·b mod m for any m < 2^64 (the slow `%`; the domain uses Modulus).
inline uint64_t mulMod(uint64_t a, uint64_t b, uint64_t m) {
  return mulModSlow(a, b, m);
}
uint64_t powMod(uint64_t base, uint64_t exp, uint64_t m);
/// 2^e mod the odd modulus m, for any integer e (2^-1 is (m + 1)/2): how a
/// constant's dyadic exponent maps into every field.
uint64_t powerOfTwoMod(int e, uint64_t m);
/// Inverse of a ≠ 0 modulo the prime m (extended Euclid); 0 for a = 0.
uint64_t invMod(uint64_t a, uint64_t m);
/// Deterministic Miller–Rabin, exact for every 64-bit n.
bool isPrime(uint64_t n);
/// v mod m in [0, m).
uint64_t reduceSigned(int64_t v, uint64_t m);

/// A value of Z_p × Z_q, or of Z_p alone when its q part is undefined (it
/// descends from an interpreted exp). Two words: an undefined q part is the
/// value kUndefinedQ, which no residue takes (every modulus is below 2^62),
/// so a tensor of field values is 16 bytes per element, not 24 with a flag
/// and padding (the verifier's memory traffic at model scale).
struct FieldValue {
  static constexpr uint64_t kUndefinedQ = ~uint64_t(0);
  uint64_t p = 0, q = 0;

  FieldValue() = default;
  FieldValue(uint64_t p, uint64_t q, bool qUndefined = false)
      : p(p), q(qUndefined ? kUndefinedQ : q) {}
  bool qUndef() const { return q == kUndefinedQ; }
  void markQUndefined() { q = kUndefinedQ; }
  /// Equality of field values: the p parts, and the q parts where both are
  /// defined.
  bool sameAs(const FieldValue &o) const {
    return p == o.p && (qUndef() || o.qUndef() || q == o.q);
  }
  /// The same element in both components (and both q parts undefined or
  /// both defined): what an oracle and max(x, x) = x may identify.
  bool identical(const FieldValue &o) const { return p == o.p && q == o.q; }
};
static_assert(sizeof(FieldValue) == 16, "two words per field value");

/// Oracle symbols: one independent random function per symbol and test.
enum class Symbol : uint8_t {
  Exp, Sqrt, Sigmoid, Gelu, Relu, Tanh, Pow, Max, Erf
};

/// A finite nonzero double as mant·2^exp with a 53-bit integer mant, exactly
/// (how every field domain maps a constant, Verification.md §1).
struct Dyadic {
  int64_t mant;
  int exp;
};
inline Dyadic dyadicOf(double v) {
  int e = 0;
  double m = std::frexp(v, &e); // v = m·2^e, 0.5 ≤ |m| < 1
  return Dyadic{(int64_t)std::ldexp(m, 53), e - 53};
}

/// A field domain `Sem` (the 61-bit pair, the four lanes) as a domain of
/// ScalarFormulas.h: field arithmetic, and every primitive function (exp
/// included: the caller handles an interpreted exp before) its symbol's
/// oracle (Verification.md §2).
template <class Sem> struct FieldOracles {
  using Value = typename Sem::Value;
  const Sem &sem;
  Value fromInt(int64_t v) const { return sem.fromInt(v); }
  Value fromDouble(double v) const { return sem.fromDouble(v); }
  Value add(Value a, Value b) const { return sem.add(a, b); }
  Value sub(Value a, Value b) const { return sem.sub(a, b); }
  Value mul(Value a, Value b) const { return sem.mul(a, b); }
  Value div(Value a, Value b) const { return sem.div(a, b); }
  Value pow(Value a, Value b) const { return sem.pow(a, b); }
  Value exp(Value x) const { return sem.oracle(Symbol::Exp, x); }
  Value sqrt(Value x) const { return sem.oracle(Symbol::Sqrt, x); }
  Value tanh(Value x) const { return sem.oracle(Symbol::Tanh, x); }
  Value erf(Value x) const { return sem.oracle(Symbol::Erf, x); }
  Value sigmoid(Value x) const { return sem.oracle(Symbol::Sigmoid, x); }
  Value gelu(Value x) const { return sem.oracle(Symbol::Gelu, x); }
  Value relu(Value x) const { return sem.oracle(Symbol::Relu, x); }
};

/// The field meaning of the unary ops: rsqrt is 1/sqrt and silu is
/// x·sigmoid(x) under the same oracles (ScalarFormulas.h).
template <class Sem>
typename Sem::Value fieldUnary(const Sem &sem, UnaryKind k,
                               typename Sem::Value x, double scalar) {
  return applyUnary(FieldOracles<Sem>{sem}, k, x, scalar);
}

/// The draw step of a field domain for counterInputs / fillCounterElements:
/// an element from its words (`sem.random`), or a whole range at once
/// (`sem.fillRandom`, the same values).
template <class Sem> struct FieldCounterDraw {
  const Sem &sem;
  template <class Words> typename Sem::Value operator()(Words &words) const {
    return sem.random(words);
  }
  void fill(uint64_t tensorKey, int64_t begin, int64_t count,
            typename Sem::Value *out) const {
    sem.fillRandom(tensorKey, begin, count, out);
  }
};

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

struct FieldDotPartials; // FieldDot.h

/// ω^e mod p for any 64-bit e in eight multiplications: ω^(b·256^w) for
/// every byte value b and byte position w (8 × 256 entries, 16 KiB, built
/// with 2048 multiplications per test). Mode I's exp evaluates ω^{x_q} for
/// every element; by square-and-multiply that is about 90 multiplications.
class OmegaPowers {
public:
  OmegaPowers(uint64_t omega, const Modulus &p);
  uint64_t pow(uint64_t e) const {
    uint64_t r = table[0][e & 255];
    for (int w = 1; w < 8; ++w)
      r = p.mul(r, table[w][(e >> (8 * w)) & 255]);
    return r;
  }

private:
  Modulus p;
  uint64_t table[8][256];
};

/// A one-entry cache per thread of a pure function of a constant and the
/// moduli: the evaluator maps an op's scalar (mul_scalar, add_scalar) once
/// per element, and the mapping takes two modular powers per field.
template <class V> struct ConstantCache {
  uint64_t bits = 0, moduli[2] = {0, 0};
  bool valid = false;
  V value{};
  /// The moduli are given as two words (the pair's p and q, or the four
  /// 28-bit primes two to a word): the key is exact.
  template <class Compute>
  V get(double v, uint64_t mod0, uint64_t mod1, Compute &&compute) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    if (!valid || b != bits || mod0 != moduli[0] || mod1 != moduli[1]) {
      value = compute();
      bits = b;
      moduli[0] = mod0;
      moduli[1] = mod1;
      valid = true;
    }
    return value;
  }
};

class FiniteFieldSemantics {
public:
  using Value = FieldValue;
  enum class ExpMode : uint8_t { Interpreted, Uninterpreted };
  /// The const operations may run concurrently (the evaluator's workers):
  /// the status flags are atomic, everything else is read-only.
  static constexpr bool kParallelSafe = true;
  /// div(a, b) is mul(a, inverse(b)) (Evaluator: a broadcast divisor is
  /// inverted once per element).
  static constexpr bool kDivIsMulInverse = true;

  /// The evaluator's matmul fast path: Σ a·b with one reduction per output.
  struct DotAccumulator {
    DotSum p, q;
    bool qUndef = false;
  };
  void dotMulAdd(DotAccumulator &acc, const Value &a, const Value &b) const {
    acc.p.mulAdd(a.p, b.p);
    acc.q.mulAdd(a.q, b.q);
    acc.qUndef = acc.qUndef || a.qUndef() || b.qUndef();
  }
  Value dotValue(const DotAccumulator &acc) const {
    return Value{acc.p.value(mod.p), acc.q.value(mod.q), acc.qUndef};
  }
  /// The evaluator's matmul tile (FieldDot.h): pc[i·n + j0 + j] =
  /// Σ_kk pa[i·k + kk]·b[kk][j0 + j] for i ∈ [i0, i1), j < j1 − j0, where
  /// rowOfB(kk) points at b[kk][j0].
  template <class RowOfB>
  void dotTile(const Value *pa, int64_t k, Value *pc, int64_t n, int64_t i0,
               int64_t i1, int64_t j0, int64_t j1, RowOfB &&rowOfB) const;
  /// Bytes of accumulator per output element of dotTile (for tile sizes).
  static constexpr size_t kDotTileBytes = 2 * sizeof(DotSum);
  /// Exact partial sums kept across a block graph's for-loop (FieldDot.h):
  /// dotTileAccumulate adds a tile's products into acc[base + i·n + j]
  /// (not reduced); dotPartialValue reduces element e.
  using DotPartials = FieldDotPartials;
  template <class RowOfB>
  void dotTileAccumulate(const Value *pa, int64_t k, DotPartials &acc,
                         int64_t base, int64_t n, int64_t i0, int64_t i1,
                         int64_t j0, int64_t j1, RowOfB &&rowOfB) const;
  Value dotPartialValue(const DotPartials &acc, int64_t e) const;

  /// A domain for one test: `testKey` draws the primes, keys the oracles and
  /// draws ω.
  FiniteFieldSemantics(uint64_t testKey, ExpMode mode);
  /// The same with primes drawn elsewhere (FieldModuli::draw of a key).
  FiniteFieldSemantics(uint64_t testKey, ExpMode mode,
                       const FieldModuli &moduli);

  Value zero() const { return Value{}; }
  Value fromInt(int64_t v) const {
    return Value{reduceSigned(v, mod.p.m), reduceSigned(v, mod.q.m), false};
  }
  Value fromDouble(double v) const;
  Value add(Value a, Value b) const {
    return Value{mod.p.add(a.p, b.p), mod.q.add(a.q, b.q),
                 a.qUndef() || b.qUndef()};
  }
  Value sub(Value a, Value b) const {
    return Value{mod.p.sub(a.p, b.p), mod.q.sub(a.q, b.q),
                 a.qUndef() || b.qUndef()};
  }
  Value mul(Value a, Value b) const {
    return Value{mod.p.mul(a.p, b.p), mod.q.mul(a.q, b.q),
                 a.qUndef() || b.qUndef()};
  }
  Value div(Value a, Value b) const { return mul(a, inverse(b)); }
  Value pow(Value a, Value b) const { return oracle(Symbol::Pow, a, &b); }
  Value max(Value a, Value b) const;
  Value unary(UnaryKind k, Value x, double scalar) const;

  /// The multiplicative inverse; flags a zero divisor (in either part).
  Value inverse(Value a) const;
  /// out[i] = inverse(in[i]) for i < n, with one inversion and three
  /// multiplications per element (Montgomery's trick) when no element is
  /// zero; element by element otherwise (the zero divisors flagged as
  /// inverse() flags them).
  void inverseAll(const Value *in, size_t n, Value *out) const;
  /// The oracle of `s` at x (and y for binary symbols), keyed by both
  /// components of x (and y) and their q-defined flags.
  Value oracle(Symbol s, Value x, const Value *y = nullptr) const;
  /// A random element of Z_p × Z_q (Verification.md §1, "Inputs").
  /// Mode U: each component uniform in S = [0, 2^60) ⊂ Z_p, Z_q, the top
  /// 60 bits of one word (Schwartz–Zippel with |S| = 2^60, which is what the
  /// two-field bound of §4.2a charges). Mode I (Theorem 2 assumes uniform
  /// exponents): two words per component (scaleToModulus, uniform over the
  /// whole field within a factor 1 ± 2^−66).
  template <class Rng> Value random(Rng &rng) const {
    if (mode == ExpMode::Uninterpreted) {
      uint64_t w0 = rng(), w1 = rng();
      return inputSetPair(w0, w1);
    }
    uint64_t w0 = rng(), w1 = rng(), w2 = rng(), w3 = rng();
    return Value{scaleToModulus(w0, w1, mod.p.m),
                 scaleToModulus(w2, w3, mod.q.m), false};
  }

  /// Mode U's element from its two words: each residue uniform in S.
  static Value inputSetPair(uint64_t w0, uint64_t w1) {
    return Value{drawFromInputSet(w0), drawFromInputSet(w1)};
  }
  /// random() of the counter words (CounterInputs.h) of the elements
  /// [begin, begin + count) of the tensor keyed `tensorKey`, in one call
  /// (mode U's loop is compiled for wide vectors; FiniteField.cpp).
  void fillRandom(uint64_t tensorKey, int64_t begin, int64_t count,
                  Value *out) const;
  using CounterDraw = FieldCounterDraw<FiniteFieldSemantics>;
  CounterDraw counterDraw() const { return CounterDraw{*this}; }

  const FieldModuli &moduli() const { return mod; }
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
  FieldModuli mod;
  uint8_t sipKey[16];
  uint64_t omega_ = 1;
  /// Mode I only: ω's powers by byte (shared by copies of the domain).
  std::shared_ptr<const OmegaPowers> omegaPowers;
  ExpMode mode;
  StickyFlag zeroDivisor_, nestedExp_, badConstant_;
};

} // namespace mirage::ff

#include "Mirage/Analysis/FieldDot.h"

namespace mirage {
using ff::FiniteFieldSemantics;
} // namespace mirage

#endif // MIRAGE_ANALYSIS_FINITEFIELD_H

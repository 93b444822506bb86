//===- LaneField.h - Mode U in four 28-bit fields, one per vector lane -*- C++ -*-===//
//
// LaneFieldSemantics is the verifier's scalar domain for a mode-U check at
// model scale (docs/Rationale/Verification.md §4.2c), beside
// FiniteFieldSemantics (the 61-bit pair, FiniteField.h) and float64. A value
// is four residues, one in each of Z_{p_1} … Z_{p_4}, with the p_i primes in
// (2^27, 2^28) drawn independently per test:
//
//   add, sub, mul       lane-wise, exact;
//   div                 multiplication by the lane-wise inverse; a zero in
//                       any lane sets zeroDivisor() (the test is redrawn);
//   exp, sqrt, sigmoid, a keyed pseudo-random function of (test key,
//   gelu, relu, tanh,   symbol, all four lanes of x [, y]), four independent
//   pow, max            27-bit outputs; rsqrt = 1/sqrt, silu = x·sigmoid(x),
//                       max keyed on the unordered pair and max(x, x) = x,
//                       as in FiniteFieldSemantics's mode U;
//   constants           m·2^e, exact in every lane.
//
// Why: a matmul's multiply-add is one 32×32 → 64-bit vector product for all
// four lanes (AVX2's vpmuludq), where the pair takes two scalar 64×64-bit
// products; products below 2^56 sum in a 64-bit lane, reduced once per 128.
// The
// matmul tile kernel (dotTile, dotTileAccumulate) is in LaneField.cpp, with
// an AVX2 body picked at run time and a portable one computing the same
// integers.
//
// There is no interpreted exp here: mode I keeps the pair (Theorem 2 needs a
// large exponent field).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_LANEFIELD_H
#define MIRAGE_ANALYSIS_LANEFIELD_H

#include "Mirage/Analysis/FiniteField.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mirage::ff {

constexpr int kLanes = 4;

/// A value of Z_{p_1} × … × Z_{p_4}: one residue per lane, 16 bytes like a
/// FieldValue.
struct alignas(8) LaneValue {
  std::array<uint32_t, kLanes> r{};
  bool operator==(const LaneValue &o) const { return r == o.r; }
  bool operator!=(const LaneValue &o) const { return r != o.r; }
  /// Output comparison (the verifier's runMode): every lane agrees.
  bool sameAs(const LaneValue &o) const { return r == o.r; }
};
static_assert(sizeof(LaneValue) == 16, "four 32-bit residues");

/// The primes of one test and their Barrett constants.
struct LaneModuli {
  std::array<uint32_t, kLanes> p{};
  /// ⌊2^64 / p_i⌋: for any x < 2^64, q̂ = ⌊x·μ/2^64⌋ is ⌊x/p⌋ or one less,
  /// so x − q̂·p < 2p and one conditional subtraction reduces it.
  std::array<uint64_t, kLanes> mu{};
  /// Residues are drawn in S = [0, 2^27) ⊂ Z_{p_i} (Verification.md §4.2c).
  static constexpr unsigned kLog2InputSet = 27;
  static constexpr uint32_t kMin = 1u << 27, kMax = 1u << 28;
  /// log2 of a lower bound on the number of primes in (2^27, 2^28):
  /// π(2^28) − π(2^27) = 7 027 290 ≥ 2^22.7 (LaneField.PrimeCountOfTheFamily).
  static constexpr double kLog2FamilySize = 22.7;
  /// Each prime uniform among the primes in (2^27, 2^28), independently.
  static LaneModuli draw(uint64_t key);
  static LaneModuli of(const std::array<uint32_t, kLanes> &primes);

  uint32_t reduce(uint64_t x, int lane) const {
    uint64_t q = (uint64_t)(((unsigned __int128)x * mu[lane]) >> 64);
    uint64_t r = x - q * p[lane];
    return (uint32_t)(r >= p[lane] ? r - p[lane] : r);
  }
};

/// True when n is prime (trial division; for n < 2^32).
bool isPrime32(uint32_t n);

/// Products summed in a 64-bit lane between reductions: a reduced partial sum
/// (< 2^28) plus up to 255 products (< 2^56 each) stays below 2^64; 128 keep
/// a chunk of a 128-column tile's right operand (256 KiB) in L2.
constexpr int64_t kLaneDotChunk = 128;
static_assert((unsigned __int128)(LaneModuli::kMax - 1) +
                      (unsigned __int128)kLaneDotChunk *
                          (LaneModuli::kMax - 1) * (LaneModuli::kMax - 1) <
                  ((unsigned __int128)1 << 64),
              "a chunk of products must sum in a 64-bit lane");

/// acc[i·accStride + j] += Σ_t a[i·kc + t]·b[t·w + j] lane-wise, reduced,
/// for i < rows, j < w, t < kc ≤ kLaneDotChunk; a and b are packed copies
/// (LaneField.cpp picks an AVX2 body where the CPU has it; both bodies give
/// the same residues).
void laneDotChunk(const LaneModuli &mod, const LaneValue *a,
                  const LaneValue *b, int64_t rows, int64_t kc, int64_t w,
                  LaneValue *acc, int64_t accStride);
/// laneDotChunk's portable body (every CPU; LaneFieldTest compares it with
/// the vector one).
void laneDotChunkPortable(const LaneModuli &mod, const LaneValue *a,
                          const LaneValue *b, int64_t rows, int64_t kc,
                          int64_t w, LaneValue *acc, int64_t accStride);

/// The exact partial sums of a matmul kept across a block graph's for-loop
/// (Evaluator.h): one reduced value per output element.
struct LaneDotPartials {
  std::vector<LaneValue> v;
  void reset(size_t n) { v.assign(n, LaneValue{}); }
};

class LaneFieldSemantics {
public:
  using Value = LaneValue;
  static constexpr bool kParallelSafe = true;
  static constexpr bool kDivIsMulInverse = true;

  /// A domain for one test: `testKey` draws the four primes and keys the
  /// oracles.
  explicit LaneFieldSemantics(uint64_t testKey);
  LaneFieldSemantics(uint64_t testKey, const LaneModuli &moduli);

  Value zero() const { return Value{}; }
  Value fromInt(int64_t v) const;
  Value fromDouble(double v) const;
  Value add(Value a, Value b) const {
    Value r;
    for (int l = 0; l < kLanes; ++l) {
      uint32_t s = a.r[l] + b.r[l]; // both < 2^28
      r.r[l] = s >= mod.p[l] ? s - mod.p[l] : s;
    }
    return r;
  }
  Value sub(Value a, Value b) const {
    Value r;
    for (int l = 0; l < kLanes; ++l)
      r.r[l] = a.r[l] >= b.r[l] ? a.r[l] - b.r[l] : a.r[l] + (mod.p[l] - b.r[l]);
    return r;
  }
  Value mul(Value a, Value b) const {
    Value r;
    for (int l = 0; l < kLanes; ++l)
      r.r[l] = mod.reduce((uint64_t)a.r[l] * b.r[l], l);
    return r;
  }
  Value div(Value a, Value b) const { return mul(a, inverse(b)); }
  Value pow(Value a, Value b) const { return oracle(Symbol::Pow, a, &b); }
  Value max(Value a, Value b) const;
  Value unary(UnaryKind k, Value x, double scalar) const;
  /// The lane-wise inverse; flags a zero divisor (in any lane).
  Value inverse(Value a) const;
  /// out[i] = inverse(in[i]): Montgomery's trick, one inversion per lane for
  /// the whole range when no element has a zero lane.
  void inverseAll(const Value *in, size_t n, Value *out) const;
  /// The oracle of `s` at x (and y): four independent 27-bit outputs from
  /// one keyed SipHash of all lanes.
  Value oracle(Symbol s, Value x, const Value *y = nullptr) const;

  /// An input element from its two counter words: the top 27 bits of each
  /// 32-bit half, one per lane (uniform in S, Verification.md §4.2c).
  static Value inputFromWords(uint64_t w0, uint64_t w1) {
    constexpr unsigned drop = 32 - LaneModuli::kLog2InputSet;
    Value v;
    v.r[0] = (uint32_t)w0 >> drop;
    v.r[1] = (uint32_t)(w0 >> 32) >> drop;
    v.r[2] = (uint32_t)w1 >> drop;
    v.r[3] = (uint32_t)(w1 >> 32) >> drop;
    return v;
  }
  template <class Rng> Value random(Rng &rng) const {
    uint64_t w0 = rng(), w1 = rng();
    return inputFromWords(w0, w1);
  }
  /// random() of the counter words of the elements [begin, begin + count)
  /// of the tensor keyed `tensorKey` (compiled for wide vectors).
  void fillRandom(uint64_t tensorKey, int64_t begin, int64_t count,
                  Value *out) const;
  using CounterDraw = FieldCounterDraw<LaneFieldSemantics>;
  CounterDraw counterDraw() const { return CounterDraw{*this}; }

  /// The evaluator's matmul tile: pc[i·n + j0 + j] = Σ_kk pa[i·k + kk]·
  /// b[kk][j0 + j] for i ∈ [i0, i1), j < j1 − j0; rowOfB(kk) points at
  /// b[kk][j0] (valid until the next call).
  template <class RowOfB>
  void dotTile(const Value *pa, int64_t k, Value *pc, int64_t n, int64_t i0,
               int64_t i1, int64_t j0, int64_t j1, RowOfB &&rowOfB) const {
    int64_t rows = i1 - i0, w = j1 - j0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < w; ++j)
        pc[(i0 + i) * n + j0 + j] = Value{};
    accumulateTile(pa, k, pc + i0 * n + j0, n, i0, i1, w, rowOfB);
  }
  /// Bytes of the kernel's working set per output element (tile sizes).
  static constexpr size_t kDotTileBytes = 32;
  using DotPartials = LaneDotPartials;
  template <class RowOfB>
  void dotTileAccumulate(const Value *pa, int64_t k, DotPartials &acc,
                         int64_t base, int64_t n, int64_t i0, int64_t i1,
                         int64_t j0, int64_t j1, RowOfB &&rowOfB) const {
    accumulateTile(pa, k, acc.v.data() + base + i0 * n + j0, n, i0, i1,
                   j1 - j0, rowOfB);
  }
  Value dotPartialValue(const DotPartials &acc, int64_t e) const {
    return acc.v[e];
  }

  const LaneModuli &moduli() const { return mod; }
  bool zeroDivisor() const { return zeroDivisor_.get(); }
  bool badConstant() const { return badConstant_.get(); }
  /// No interpreted exp in this domain: never nested.
  bool nestedExp() const { return false; }
  bool conclusive() const { return !zeroDivisor() && !badConstant(); }

private:
  /// acc[i·accStride + j] += Σ_kk pa[(i0 + i)·k + kk]·b[kk][j], for
  /// i < i1 − i0, j < w: packs chunks of a and b, then laneDotChunk.
  template <class RowOfB>
  void accumulateTile(const Value *pa, int64_t k, Value *acc,
                      int64_t accStride, int64_t i0, int64_t i1, int64_t w,
                      RowOfB &rowOfB) const {
    int64_t rows = i1 - i0;
    thread_local std::vector<Value> aPack, bPack;
    aPack.resize(rows * kLaneDotChunk);
    bPack.resize(kLaneDotChunk * w);
    Value *ap = aPack.data(), *bp = bPack.data();
    for (int64_t k0 = 0; k0 < k; k0 += kLaneDotChunk) {
      int64_t kc = std::min(kLaneDotChunk, k - k0);
      for (int64_t t = 0; t < kc; ++t) {
        const Value *row = rowOfB(k0 + t);
        std::copy(row, row + w, bp + t * w);
      }
      for (int64_t i = 0; i < rows; ++i)
        std::copy(pa + (i0 + i) * k + k0, pa + (i0 + i) * k + k0 + kc,
                  ap + i * kc);
      laneDotChunk(mod, ap, bp, rows, kc, w, acc, accStride);
    }
  }

  LaneModuli mod;
  uint8_t sipKey[16];
  StickyFlag zeroDivisor_, badConstant_;
};

} // namespace mirage::ff

namespace mirage {
using ff::LaneFieldSemantics;
} // namespace mirage

#endif // MIRAGE_ANALYSIS_LANEFIELD_H

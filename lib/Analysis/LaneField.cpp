//===- LaneField.cpp - Mode U in four 28-bit fields -----------------------===//
#include "Mirage/Analysis/LaneField.h"
#include "Mirage/Semantics/CounterInputs.h"
#include "Mirage/Support/VectorClones.h"

#include "llvm/Support/SipHash.h"

#include <cmath>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MIRAGE_LANE_AVX2 1
#endif

using namespace mirage;
using namespace mirage::ff;

bool ff::isPrime32(uint32_t n) {
  if (n < 2)
    return false;
  if (n % 2 == 0)
    return n == 2;
  for (uint32_t d = 3; (uint64_t)d * d <= n; d += 2)
    if (n % d == 0)
      return false;
  return true;
}

static uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

LaneModuli LaneModuli::of(const std::array<uint32_t, kLanes> &primes) {
  LaneModuli m;
  for (int l = 0; l < kLanes; ++l) {
    m.p[l] = primes[l];
    m.mu[l] = (uint64_t)(((unsigned __int128)1 << 64) / primes[l]);
  }
  return m;
}

LaneModuli LaneModuli::draw(uint64_t key) {
  // Rejection sampling over uniform odd numbers of (2^27, 2^28): every
  // prime of the range is equally likely, and the lanes draw from disjoint
  // stretches of one SplitMix64 stream, independently (§4.2c).
  std::array<uint32_t, kLanes> primes;
  uint64_t st = key ^ 0x1a4e5f1e1d5ULL;
  for (int l = 0; l < kLanes; ++l)
    for (;;) {
      uint32_t c = (uint32_t)(splitmix(st) >> 37) | kMin | 1; // 27 random bits
      if (isPrime32(c)) {
        primes[l] = c;
        break;
      }
    }
  return of(primes);
}

LaneFieldSemantics::LaneFieldSemantics(uint64_t testKey)
    : LaneFieldSemantics(testKey, LaneModuli::draw(testKey)) {}

LaneFieldSemantics::LaneFieldSemantics(uint64_t testKey,
                                       const LaneModuli &moduli)
    : mod(moduli) {
  uint64_t st = testKey ^ 0x5eed1a4e5ULL;
  uint64_t k0 = splitmix(st), k1 = splitmix(st);
  std::memcpy(sipKey, &k0, 8);
  std::memcpy(sipKey + 8, &k1, 8);
}

LaneValue LaneFieldSemantics::fromInt(int64_t v) const {
  Value r;
  for (int l = 0; l < kLanes; ++l)
    r.r[l] = (uint32_t)reduceSigned(v, mod.p[l]);
  return r;
}

LaneValue LaneFieldSemantics::fromDouble(double v) const {
  if (!std::isfinite(v)) {
    badConstant_.set();
    return Value{};
  }
  if (v == 0)
    return Value{};
  thread_local ConstantCache<Value> cache;
  return cache.get(v, (uint64_t)mod.p[0] << 32 | mod.p[1],
                   (uint64_t)mod.p[2] << 32 | mod.p[3], [&] {
                     auto [mant, e] = dyadicOf(v);
                     Value r = fromInt(mant);
                     for (int l = 0; l < kLanes; ++l)
                       r.r[l] = mod.reduce(
                           r.r[l] * powerOfTwoMod(e, mod.p[l]), l);
                     return r;
                   });
}

LaneValue LaneFieldSemantics::inverse(Value a) const {
  Value r;
  for (int l = 0; l < kLanes; ++l) {
    if (a.r[l] == 0) {
      zeroDivisor_.set();
      return Value{};
    }
    r.r[l] = (uint32_t)invMod(a.r[l], mod.p[l]);
  }
  return r;
}

void LaneFieldSemantics::inverseAll(const Value *in, size_t n,
                                    Value *out) const {
  const Value one = fromInt(1);
  Value acc = one;
  for (size_t i = 0; i < n; ++i) {
    for (int l = 0; l < kLanes; ++l)
      if (in[i].r[l] == 0) {
        for (size_t j = 0; j < n; ++j)
          out[j] = inverse(in[j]);
        return;
      }
    out[i] = acc; // the product of the elements before i
    acc = mul(acc, in[i]);
  }
  Value inv = inverse(acc); // of the product of them all
  for (size_t i = n; i-- > 0;) {
    out[i] = mul(inv, out[i]);
    inv = mul(inv, in[i]);
  }
}

LaneValue LaneFieldSemantics::oracle(Symbol s, Value x, const Value *y) const {
  uint8_t buf[1 + 2 * sizeof(Value)];
  buf[0] = static_cast<uint8_t>(s);
  size_t len = 1;
  std::memcpy(buf + len, x.r.data(), sizeof(Value));
  len += sizeof(Value);
  if (y) {
    std::memcpy(buf + len, y->r.data(), sizeof(Value));
    len += sizeof(Value);
  }
  uint8_t out[16];
  llvm::getSipHash_2_4_128(llvm::ArrayRef<uint8_t>(buf, len), sipKey, out);
  uint64_t w0, w1;
  std::memcpy(&w0, out, 8);
  std::memcpy(&w1, out + 8, 8);
  return inputFromWords(w0, w1); // four independent 27-bit values of S
}

LaneValue LaneFieldSemantics::max(Value a, Value b) const {
  if (a == b)
    return a; // max(x, x) = x
  // Keyed on the unordered pair: max is commutative.
  return a.r < b.r ? oracle(Symbol::Max, a, &b) : oracle(Symbol::Max, b, &a);
}

LaneValue LaneFieldSemantics::unary(UnaryKind k, Value x,
                                    double scalar) const {
  return fieldUnary(*this, k, x, scalar); // exp is an oracle: mode U
}

namespace {
/// The draw of a range of counter elements, compiled for wide vectors
/// (VectorClones.h): two SplitMix64 words per element.
/// The element is written as two 64-bit words, (w >> 5) & kTwoLanes for
/// each word w: its two 32-bit halves shifted right by five, exactly
/// inputFromWords's lanes on a little-endian machine, in a form the
/// vectorizer turns into plain 64-bit shifts, masks and stores.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "lane 0 is the low half of a word");
using AliasingWord = uint64_t __attribute__((may_alias));
constexpr uint64_t kTwoLanes = 0x07ffffff07ffffffULL;
static_assert(32 - LaneModuli::kLog2InputSet == 5 &&
                  kTwoLanes == (((1ULL << 27) - 1) << 32 | ((1ULL << 27) - 1)),
              "two 27-bit lanes per word");
MIRAGE_VECTOR_CLONES
void fillLaneInputClones(uint64_t tensorKey, int64_t begin, int64_t count,
                         LaneValue *out) {
  AliasingWord *o = reinterpret_cast<AliasingWord *>(out);
  uint64_t state = counterState(tensorKey, (uint64_t)begin);
  for (int64_t e = 0; e < count; ++e, state += kCounterElementStep) {
    o[2 * e] = (mix64(state) >> 5) & kTwoLanes;
    o[2 * e + 1] = (mix64(state + kCounterGamma) >> 5) & kTwoLanes;
  }
}

} // namespace

void ff::laneDotChunkPortable(const LaneModuli &mod, const LaneValue *a,
                          const LaneValue *b, int64_t rows, int64_t kc,
                          int64_t w, LaneValue *acc, int64_t accStride) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < w; ++j) {
      LaneValue &c = acc[i * accStride + j];
      uint64_t s[kLanes];
      for (int l = 0; l < kLanes; ++l)
        s[l] = c.r[l];
      for (int64_t t = 0; t < kc; ++t) {
        const LaneValue &x = a[i * kc + t], &y = b[t * w + j];
        for (int l = 0; l < kLanes; ++l)
          s[l] += (uint64_t)x.r[l] * y.r[l];
      }
      for (int l = 0; l < kLanes; ++l)
        c.r[l] = mod.reduce(s[l], l);
    }
}

namespace {
#ifdef MIRAGE_LANE_AVX2
/// Four rows × NC columns of the chunk in registers: per step t, one
/// vpmuludq and one vpaddq per output for all four lanes.
template <int NC>
__attribute__((target("avx2"))) inline void
laneMicroTile(const LaneModuli &mod, const uint64_t *aExt, const LaneValue *b,
              int64_t kc, int64_t w, int64_t rows, LaneValue *acc,
              int64_t accStride) {
  __m256i c[4][NC];
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < NC; ++j)
      c[r][j] = r < rows ? _mm256_cvtepu32_epi64(_mm_loadu_si128(
                               (const __m128i *)acc[r * accStride + j].r.data()))
                         : _mm256_setzero_si256();
  for (int64_t t = 0; t < kc; ++t) {
    __m256i bj[NC];
    for (int j = 0; j < NC; ++j)
      bj[j] = _mm256_cvtepu32_epi64(
          _mm_loadu_si128((const __m128i *)b[t * w + j].r.data()));
    const uint64_t *at = aExt + t * 16;
    for (int r = 0; r < 4; ++r) {
      __m256i ar = _mm256_loadu_si256((const __m256i *)(at + r * 4));
      for (int j = 0; j < NC; ++j)
        c[r][j] = _mm256_add_epi64(c[r][j], _mm256_mul_epu32(ar, bj[j]));
    }
  }
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < NC; ++j) {
      alignas(32) uint64_t s[4];
      _mm256_store_si256((__m256i *)s, c[r][j]);
      LaneValue &out = acc[r * accStride + j];
      for (int l = 0; l < kLanes; ++l)
        out.r[l] = mod.reduce(s[l], l);
    }
}

__attribute__((target("avx2"))) void
laneDotChunkAvx2(const LaneModuli &mod, const LaneValue *a, const LaneValue *b,
                 int64_t rows, int64_t kc, int64_t w, LaneValue *acc,
                 int64_t accStride) {
  // Four rows of a at a time, zero-extended to 64-bit lanes and interleaved
  // by step (aExt[t][r][lane]); rows past the end are zero.
  alignas(32) uint64_t aExt[kLaneDotChunk * 16];
  for (int64_t i0 = 0; i0 < rows; i0 += 4) {
    int64_t nr = std::min<int64_t>(4, rows - i0);
    for (int64_t t = 0; t < kc; ++t)
      for (int r = 0; r < 4; ++r)
        for (int l = 0; l < kLanes; ++l)
          aExt[t * 16 + r * 4 + l] = r < nr ? a[(i0 + r) * kc + t].r[l] : 0;
    LaneValue *accRows = acc + i0 * accStride;
    int64_t j = 0;
    for (; j + 2 <= w; j += 2)
      laneMicroTile<2>(mod, aExt, b + j, kc, w, nr, accRows + j, accStride);
    if (j < w)
      laneMicroTile<1>(mod, aExt, b + j, kc, w, nr, accRows + j, accStride);
  }
}

bool cpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif
} // namespace

void ff::laneDotChunk(const LaneModuli &mod, const LaneValue *a,
                      const LaneValue *b, int64_t rows, int64_t kc, int64_t w,
                      LaneValue *acc, int64_t accStride) {
#ifdef MIRAGE_LANE_AVX2
  if (cpuHasAvx2())
    return laneDotChunkAvx2(mod, a, b, rows, kc, w, acc, accStride);
#endif
  laneDotChunkPortable(mod, a, b, rows, kc, w, acc, accStride);
}

void LaneFieldSemantics::fillRandom(uint64_t tensorKey, int64_t begin,
                                    int64_t count, Value *out) const {
  fillLaneInputClones(tensorKey, begin, count, out);
}

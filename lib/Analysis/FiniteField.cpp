//===- FiniteField.cpp - The finite-field domain of the verifier ----------===//
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Semantics/CounterInputs.h"
#include "Mirage/Support/VectorClones.h"

#include "llvm/Support/SipHash.h"

#include <cmath>
#include <cstring>

using namespace mirage;
using namespace mirage::ff;

uint64_t ff::powMod(uint64_t base, uint64_t e, uint64_t m) {
  uint64_t r = 1 % m;
  base %= m;
  while (e) {
    if (e & 1)
      r = mulMod(r, base, m);
    base = mulMod(base, base, m);
    e >>= 1;
  }
  return r;
}

uint64_t ff::powerOfTwoMod(int e, uint64_t m) {
  uint64_t two = e >= 0 ? 2 : (m + 1) / 2; // 2 or 2^{-1}
  return powMod(two, (uint64_t)(e >= 0 ? e : -(int64_t)e), m);
}

namespace {
/// Extended Euclid on (m, a) in a signed integer type wide enough that the
/// remainders (< m) and coefficients (|t| ≤ m) never overflow.
template <typename Int> uint64_t euclidInverse(uint64_t a, uint64_t m) {
  Int r0 = (Int)m, r1 = (Int)a, t0 = 0, t1 = 1;
  while (r1 != 0) {
    Int qt = r0 / r1;
    Int r2 = r0 - qt * r1;
    r0 = r1;
    r1 = r2;
    Int t2 = t0 - qt * t1;
    t0 = t1;
    t1 = t2;
  }
  return (uint64_t)(t0 < 0 ? t0 + (Int)m : t0);
}
} // namespace

uint64_t ff::invMod(uint64_t a, uint64_t m) {
  a %= m;
  if (a == 0)
    return 0;
  // p and q are below 2^63: 64-bit words, one hardware division per step
  // instead of a 128-bit library division. Larger moduli take __int128.
  if (m < (1ULL << 63))
    return euclidInverse<int64_t>(a, m);
  return euclidInverse<__int128>(a, m);
}

uint64_t ff::reduceSigned(int64_t v, uint64_t m) {
  if (v >= 0)
    return (uint64_t)v % m;
  uint64_t r = (uint64_t)(-(v + 1)) % m; // -(v+1) fits for INT64_MIN
  r = (r + 1) % m;
  return r == 0 ? 0 : m - r;
}

bool ff::isPrime(uint64_t n) {
  if (n < 2)
    return false;
  static const uint64_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (uint64_t sp : small)
    if (n % sp == 0)
      return n == sp;
  uint64_t d = n - 1;
  unsigned s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  // These 12 bases are a deterministic witness set for all n < 3.3·10^24.
  for (uint64_t a : small) {
    uint64_t x = powMod(a, d, n);
    if (x == 1 || x == n - 1)
      continue;
    bool composite = true;
    for (unsigned r = 1; r < s; ++r) {
      x = mulMod(x, x, n);
      if (x == n - 1) {
        composite = false;
        break;
      }
    }
    if (composite)
      return false;
  }
  return true;
}

Modulus::Modulus(uint64_t mod) : m(mod) {
  // Callers guarantee kMin < m < kMax (the Barrett bounds need it).
  mu = (uint64_t)(((unsigned __int128)1 << 124) / m);
  two64 = (uint64_t)(((unsigned __int128)1 << 64) % m);
  two128 = mulModSlow(two64, two64, m);
}

uint64_t Modulus::pow(uint64_t base, uint64_t e) const {
  uint64_t r = 1 % m;
  base %= m;
  while (e) {
    if (e & 1)
      r = mul(r, base);
    base = mul(base, base);
    e >>= 1;
  }
  return r;
}

namespace {
/// One Miller–Rabin round per base for kMin < n < kMax, n odd, in Barrett
/// arithmetic. The seven bases {2, 325, 9375, 28178, 450775, 9780504,
/// 1795265022} are a deterministic witness set for all n < 2^64.
bool millerRabin(uint64_t n, llvm::ArrayRef<uint64_t> bases) {
  Modulus mod(n);
  uint64_t d = n - 1;
  unsigned s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  for (uint64_t a : bases) {
    a %= n;
    if (a == 0)
      continue;
    uint64_t x = mod.pow(a, d);
    if (x == 1 || x == n - 1)
      continue;
    bool composite = true;
    for (unsigned r = 1; r < s && composite; ++r) {
      x = mod.mul(x, x);
      composite = x != n - 1;
    }
    if (composite)
      return false;
  }
  return true;
}
constexpr uint64_t kWitnesses[] = {2,      325,     9375,      28178,
                                   450775, 9780504, 1795265022};

/// True when q and 2q + 1 are both prime (kMin < q, 2q + 1 < kMax, q odd).
/// Sieving both by small primes first (q ≡ 0 or 2q + 1 ≡ 0 mod a small
/// prime) and a base-2 round on both before the full witness set keep a
/// draw near a tenth of a millisecond (bench/ff_mul.cpp).
bool isSafePrimePair(uint64_t q) {
  static const uint16_t smallPrimes[] = {
      3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61,
      67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137};
  for (uint16_t sp : smallPrimes) {
    uint64_t r = q % sp;
    if (r == 0 || (2 * r + 1) % sp == 0)
      return false;
  }
  uint64_t p = 2 * q + 1;
  return millerRabin(q, {2}) && millerRabin(p, {2}) &&
         millerRabin(q, kWitnesses) && millerRabin(p, kWitnesses);
}
} // namespace

static uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

FieldModuli FieldModuli::draw(uint64_t key) {
  // Rejection sampling: uniform over the family (q prime in [2^60, 2^61),
  // 2q + 1 prime), since every candidate q is equally likely.
  static_assert(kCofactor == 2, "isSafePrimePair tests 2q + 1");
  uint64_t st = key ^ 0x5a1e5eedf1e1d5ULL;
  for (;;) {
    uint64_t q = (splitmix(st) >> 4) | (1ULL << 60) | 1;
    if (isSafePrimePair(q))
      return of(kCofactor * q + 1, q);
  }
}

FiniteFieldSemantics::FiniteFieldSemantics(uint64_t testKey, ExpMode mode)
    : FiniteFieldSemantics(testKey, mode, FieldModuli::draw(testKey)) {}

FiniteFieldSemantics::FiniteFieldSemantics(uint64_t testKey, ExpMode mode,
                                           const FieldModuli &moduli)
    : mod(moduli), mode(mode) {
  uint64_t st = testKey;
  uint64_t k0 = splitmix(st), k1 = splitmix(st);
  std::memcpy(sipKey, &k0, 8);
  std::memcpy(sipKey + 8, &k1, 8);
  // ω = g^((p−1)/q) for a random g; ω ≠ 1 has order exactly q (q prime).
  std::mt19937_64 rng(splitmix(st));
  do {
    uint64_t g = 2 + rng() % (mod.p.m - 3);
    omega_ = mod.p.pow(g, FieldModuli::kCofactor);
  } while (omega_ == 1);
  if (mode == ExpMode::Interpreted)
    omegaPowers = std::make_shared<const OmegaPowers>(omega_, mod.p);
}

OmegaPowers::OmegaPowers(uint64_t omega, const Modulus &p) : p(p) {
  uint64_t base = omega; // ω^(256^w)
  for (int w = 0; w < 8; ++w) {
    table[w][0] = 1;
    for (int b = 1; b < 256; ++b)
      table[w][b] = p.mul(table[w][b - 1], base);
    base = p.mul(table[w][255], base);
  }
}

FieldValue FiniteFieldSemantics::fromDouble(double v) const {
  if (!std::isfinite(v)) {
    badConstant_.set();
    return Value{};
  }
  if (v == 0)
    return Value{};
  thread_local ConstantCache<Value> cache;
  return cache.get(v, mod.p.m, mod.q.m, [&] {
    auto [mant, e] = dyadicOf(v);
    Value r = fromInt(mant);
    r.p = mod.p.mul(r.p, powerOfTwoMod(e, mod.p.m));
    r.q = mod.q.mul(r.q, powerOfTwoMod(e, mod.q.m));
    return r;
  });
}

void FiniteFieldSemantics::inverseAll(const Value *in, size_t n,
                                      Value *out) const {
  // An undefined q part takes no part in the q chain (it stays undefined).
  auto chainValue = [](Value v) {
    if (v.qUndef())
      v.q = 1;
    return v;
  };
  const Value one = fromInt(1);
  Value acc = one;
  for (size_t i = 0; i < n; ++i) {
    Value v = chainValue(in[i]);
    if (v.p == 0 || v.q == 0) {
      for (size_t j = 0; j < n; ++j)
        out[j] = inverse(in[j]);
      return;
    }
    out[i] = acc; // the product of the elements before i
    acc = mul(acc, v);
  }
  Value inv = inverse(acc); // of the product of them all
  for (size_t i = n; i-- > 0;) {
    Value v = chainValue(in[i]);
    out[i] = mul(inv, out[i]);
    inv = mul(inv, v);
    if (in[i].qUndef())
      out[i].markQUndefined();
  }
}

FieldValue FiniteFieldSemantics::inverse(Value a) const {
  if (a.p == 0 || (!a.qUndef() && a.q == 0)) {
    zeroDivisor_.set();
    return Value{0, 0, a.qUndef()};
  }
  // A one-entry cache per thread and component: the evaluator divides long
  // runs of elements by the same value (rms_norm rows, a broadcast row sum).
  // The inverse is a pure function of the residue, so the cache is exact and
  // shared by every domain on the thread.
  // The primes differ between tests, so the cache is keyed on the modulus.
  thread_local uint64_t lastPm = 0, lastP = 1, lastPInv = 1;
  thread_local uint64_t lastQm = 0, lastQ = 1, lastQInv = 1;
  if (a.p != lastP || mod.p.m != lastPm) {
    lastPInv = invMod(a.p, mod.p.m);
    lastP = a.p;
    lastPm = mod.p.m;
  }
  uint64_t iq = 0;
  if (!a.qUndef()) {
    if (a.q != lastQ || mod.q.m != lastQm) {
      lastQInv = invMod(a.q, mod.q.m);
      lastQ = a.q;
      lastQm = mod.q.m;
    }
    iq = lastQInv;
  }
  return Value{lastPInv, iq, a.qUndef()};
}

FieldValue FiniteFieldSemantics::oracle(Symbol s, Value x,
                                        const Value *y) const {
  // Keyed on both components: arguments that agree in one field only must
  // not give equal outputs (Verification.md §2). An undefined q part is
  // hashed as a flag, not as its (meaningless) residue.
  uint8_t buf[1 + 2 * 17];
  buf[0] = static_cast<uint8_t>(s);
  size_t len = 1;
  auto put = [&](const Value &v) {
    uint64_t vq = v.qUndef() ? 0 : v.q;
    std::memcpy(buf + len, &v.p, 8);
    std::memcpy(buf + len + 8, &vq, 8);
    buf[len + 16] = v.qUndef();
    len += 17;
  };
  put(x);
  if (y)
    put(*y);
  uint8_t out[16];
  llvm::getSipHash_2_4_128(llvm::ArrayRef<uint8_t>(buf, len), sipKey, out);
  unsigned __int128 h;
  std::memcpy(&h, out, 16);
  Value r;
  r.p = uniformFrom128(h, mod.p); // bias < 2^-66
  // An independent draw for the q part (domain-separated input).
  buf[0] |= 0x80;
  llvm::getSipHash_2_4_128(llvm::ArrayRef<uint8_t>(buf, len), sipKey, out);
  std::memcpy(&h, out, 16);
  r.q = uniformFrom128(h, mod.q);
  return r;
}

FieldValue FiniteFieldSemantics::max(Value a, Value b) const {
  if (a.identical(b))
    return a; // max(x, x) = x
  // Keyed on the unordered pair: max is commutative.
  auto less = [](const Value &u, const Value &v) {
    return u.p != v.p ? u.p < v.p
                      : (u.qUndef() != v.qUndef() ? u.qUndef() < v.qUndef()
                                                  : u.q < v.q);
  };
  return less(a, b) ? oracle(Symbol::Max, a, &b) : oracle(Symbol::Max, b, &a);
}

FieldValue FiniteFieldSemantics::unary(UnaryKind k, Value x,
                                       double scalar) const {
  if (k == UnaryKind::exp && mode == ExpMode::Interpreted) {
    if (x.qUndef()) {
      nestedExp_.set();
      return oracle(Symbol::Exp, x);
    }
    return Value{omegaPowers->pow(x.q), 0, true};
  }
  return fieldUnary(*this, k, x, scalar);
}

namespace {
/// splitResidues' loop, compiled for wide vectors (VectorClones.h); Clang
/// wants a multiversioned function's first declaration to carry the
/// attribute, so the header's function calls this one.
MIRAGE_VECTOR_CLONES
void splitResidueClones(const mirage::ff::FieldValue *row, int64_t w,
                        uint64_t *p, uint64_t *q) {
  for (int64_t j = 0; j < w; ++j) {
    p[j] = row[j].p;
    q[j] = row[j].q;
  }
}
} // namespace

void mirage::ff::splitResidues(const FieldValue *row, int64_t w, uint64_t *p,
                               uint64_t *q) {
  splitResidueClones(row, w, p, q);
}

namespace mirage::ff::detail {
/// Mode U's draw of a range of counter elements; the one loop of the
/// verifier compiled for wide vectors (VectorClones.h): two SplitMix64
/// words per element, eight elements per AVX-512 step.
MIRAGE_VECTOR_CLONES
void fillInputSetPairs(uint64_t tensorKey, int64_t begin, int64_t count,
                       FieldValue *out) {
  uint64_t state = counterState(tensorKey, (uint64_t)begin);
  for (int64_t e = 0; e < count; ++e, state += kCounterElementStep)
    out[e] = FiniteFieldSemantics::inputSetPair(mix64(state),
                                                mix64(state + kCounterGamma));
}
} // namespace mirage::ff::detail

void FiniteFieldSemantics::fillRandom(uint64_t tensorKey, int64_t begin,
                                      int64_t count, Value *out) const {
  if (mode == ExpMode::Uninterpreted) {
    detail::fillInputSetPairs(tensorKey, begin, count, out);
    return;
  }
  for (int64_t e = 0; e < count; ++e) {
    CounterWords words(tensorKey, (uint64_t)(begin + e));
    out[e] = random(words);
  }
}

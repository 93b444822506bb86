//===- FiniteField.cpp - The finite-field domain of the verifier ----------===//
#include "Mirage/Analysis/FiniteField.h"

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

static uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

FiniteFieldSemantics::FiniteFieldSemantics(uint64_t testKey, ExpMode mode)
    : key(testKey), mode(mode) {
  uint64_t st = testKey;
  uint64_t k0 = splitmix(st), k1 = splitmix(st);
  std::memcpy(sipKey, &k0, 8);
  std::memcpy(sipKey + 8, &k1, 8);
  // ω = g^((p−1)/q) for a random g; ω ≠ 1 has order exactly q (q prime).
  std::mt19937_64 rng(splitmix(st));
  do {
    uint64_t g = 2 + rng() % (kP - 3);
    omega_ = powMod(g, kCofactor, kP);
  } while (omega_ == 1);
}

FieldValue FiniteFieldSemantics::fromDouble(double v) const {
  if (!std::isfinite(v)) {
    badConstant_.set();
    return Value{};
  }
  if (v == 0)
    return Value{};
  int e = 0;
  double m = std::frexp(v, &e); // v = m·2^e, 0.5 ≤ |m| < 1
  int64_t mant = (int64_t)std::ldexp(m, 53); // exact: 53-bit integer
  e -= 53;
  Value r = fromInt(mant);
  auto scale = [&](uint64_t x, uint64_t mod) {
    uint64_t two = e >= 0 ? 2 : (mod + 1) / 2; // 2 or 2^{-1}
    return mulMod(x, powMod(two, (uint64_t)(e >= 0 ? e : -(int64_t)e), mod),
                  mod);
  };
  r.p = scale(r.p, kP);
  r.q = scale(r.q, kQ);
  return r;
}

FieldValue FiniteFieldSemantics::inverse(Value a) const {
  if (a.p == 0 || (!a.qUndef && a.q == 0)) {
    zeroDivisor_.set();
    return Value{0, 0, a.qUndef};
  }
  // A one-entry cache per thread and component: the evaluator divides long
  // runs of elements by the same value (rms_norm rows, a broadcast row sum).
  // The inverse is a pure function of the residue, so the cache is exact and
  // shared by every domain on the thread.
  thread_local uint64_t lastP = 1, lastPInv = 1, lastQ = 1, lastQInv = 1;
  if (a.p != lastP) {
    lastPInv = invMod(a.p, kP);
    lastP = a.p;
  }
  uint64_t iq = 0;
  if (!a.qUndef) {
    if (a.q != lastQ) {
      lastQInv = invMod(a.q, kQ);
      lastQ = a.q;
    }
    iq = lastQInv;
  }
  return Value{lastPInv, iq, a.qUndef};
}

FieldValue FiniteFieldSemantics::oracle(Symbol s, Value x,
                                        const Value *y) const {
  uint8_t buf[17];
  buf[0] = static_cast<uint8_t>(s);
  std::memcpy(buf + 1, &x.p, 8);
  size_t len = 9;
  if (y) {
    std::memcpy(buf + 9, &y->p, 8);
    len = 17;
  }
  uint8_t out[16];
  llvm::getSipHash_2_4_128(llvm::ArrayRef<uint8_t>(buf, len), sipKey, out);
  unsigned __int128 h;
  std::memcpy(&h, out, 16);
  Value r;
  r.p = reduceP(h); // 128 bits mod a 63-bit prime: bias < 2^-64
  // An independent draw for the q part (domain-separated input).
  buf[0] |= 0x80;
  llvm::getSipHash_2_4_128(llvm::ArrayRef<uint8_t>(buf, len), sipKey, out);
  std::memcpy(&h, out, 16);
  r.q = reduceQ(h);
  return r;
}

FieldValue FiniteFieldSemantics::max(Value a, Value b) const {
  if (a.p == b.p)
    return a; // max(x, x) = x
  // Keyed on the unordered pair: max is commutative.
  return a.p < b.p ? oracle(Symbol::Max, a, &b) : oracle(Symbol::Max, b, &a);
}

FieldValue FiniteFieldSemantics::unary(UnaryKind k, Value x,
                                       double scalar) const {
  switch (k) {
  case UnaryKind::exp:
    if (mode == ExpMode::Uninterpreted)
      return oracle(Symbol::Exp, x);
    if (x.qUndef) {
      nestedExp_.set();
      return oracle(Symbol::Exp, x);
    }
    return Value{powMod(omega_, x.q, kP), 0, true};
  case UnaryKind::square:
    return mul(x, x);
  case UnaryKind::sqrt:
    return oracle(Symbol::Sqrt, x);
  case UnaryKind::rsqrt:
    return inverse(oracle(Symbol::Sqrt, x));
  case UnaryKind::reciprocal:
    return inverse(x);
  case UnaryKind::silu:
    return mul(x, oracle(Symbol::Sigmoid, x));
  case UnaryKind::gelu:
    return oracle(Symbol::Gelu, x);
  case UnaryKind::relu:
    return oracle(Symbol::Relu, x);
  case UnaryKind::sigmoid:
    return oracle(Symbol::Sigmoid, x);
  case UnaryKind::tanh:
    return oracle(Symbol::Tanh, x);
  case UnaryKind::mul_scalar:
    return mul(x, fromDouble(scalar));
  case UnaryKind::add_scalar:
    return add(x, fromDouble(scalar));
  }
  return x;
}

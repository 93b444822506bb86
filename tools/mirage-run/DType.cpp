//===- DType.cpp - Element type conversions -------------------------------===//

#include "DType.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace mirage_run {

bool parseDType(const std::string &name, DType &out) {
  if (name == "f16") out = DType::F16;
  else if (name == "bf16") out = DType::BF16;
  else if (name == "f32") out = DType::F32;
  else if (name == "i32") out = DType::I32;
  else return false;
  return true;
}

const char *dtypeName(DType t) {
  switch (t) {
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F32: return "f32";
  case DType::I32: return "i32";
  }
  return "?";
}

size_t dtypeSize(DType t) {
  return t == DType::F32 || t == DType::I32 ? 4 : 2;
}

/// Rounds `v` to the binary format with `expBits` exponent and `mantBits`
/// fraction bits (IEEE layout, bias 2^(expBits-1)-1, subnormals, infinities)
/// and returns its bits. Working on the double's own significand keeps it to a
/// single round-to-nearest-even step for every target format.
static uint32_t roundDouble(double v, int expBits, int mantBits) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  const uint32_t sign = uint32_t(b >> 63) << (expBits + mantBits);
  const int dexp = int((b >> 52) & 0x7ff);
  const uint64_t dmant = b & ((1ull << 52) - 1);
  const uint64_t infBits = uint64_t((1u << expBits) - 1) << mantBits;
  if (dexp == 0x7ff) // Infinity keeps its sign; any NaN becomes a quiet NaN.
    return sign | uint32_t(infBits) | (dmant ? 1u << (mantBits - 1) : 0u);
  if (dexp == 0) // ±0 or a double subnormal: far below every target's range.
    return sign;

  const int bias = (1 << (expBits - 1)) - 1;
  const int minExp = 1 - bias;          // exponent of the smallest normal
  const int e = dexp - 1023;            // v = 1.f × 2^e
  const uint64_t m = (1ull << 52) | dmant; // 53-bit significand
  // Bits of m to drop: the fraction bits the target lacks, plus, below its
  // normal range, one more per binade (the target's subnormal spacing).
  int shift = 52 - mantBits;
  if (e < minExp) shift += minExp - e;
  if (shift > 53) // below half the smallest subnormal: rounds to zero
    return sign;
  uint64_t kept = m >> shift;
  const uint64_t rem = m & ((1ull << shift) - 1);
  const uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (kept & 1)))
    ++kept;
  // A subnormal result is `kept` units of the smallest subnormal; a carry into
  // bit mantBits is exactly the smallest normal. A normal result carries the
  // implicit bit in `kept`, which the (biased exponent - 1) absorbs; a carry
  // out of the significand bumps the exponent, as it should.
  uint64_t bits = e < minExp ? kept : (uint64_t(e + bias - 1) << mantBits) + kept;
  if (bits >= infBits)
    bits = infBits; // overflow rounds to infinity
  return sign | uint32_t(bits);
}

uint16_t doubleToHalfBits(double v) { return uint16_t(roundDouble(v, 5, 10)); }
uint16_t doubleToBF16Bits(double v) { return uint16_t(roundDouble(v, 8, 7)); }

double halfBitsToDouble(uint16_t bits) {
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  const int exp = (bits >> 10) & 0x1f;
  const int mant = bits & 0x3ff;
  if (exp == 0x1f)
    return mant ? std::nan("") : sign * INFINITY;
  if (exp == 0)
    return sign * std::ldexp(double(mant), -24);
  return sign * std::ldexp(double(1024 + mant), exp - 25);
}

double bf16BitsToDouble(uint16_t bits) {
  // bfloat16 is the upper half of a float32.
  uint32_t f = uint32_t(bits) << 16;
  float x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}

void encodeElement(double v, DType t, void *dst) {
  switch (t) {
  case DType::F16: {
    uint16_t h = doubleToHalfBits(v);
    std::memcpy(dst, &h, 2);
    return;
  }
  case DType::BF16: {
    uint16_t h = doubleToBF16Bits(v);
    std::memcpy(dst, &h, 2);
    return;
  }
  case DType::F32: {
    float f = float(v); // the C++ conversion rounds to nearest even
    std::memcpy(dst, &f, 4);
    return;
  }
  case DType::I32: {
    int32_t i = int32_t(v);
    std::memcpy(dst, &i, 4);
    return;
  }
  }
}

double decodeElement(const void *src, DType t) {
  uint16_t h;
  switch (t) {
  case DType::F16:
    std::memcpy(&h, src, 2);
    return halfBitsToDouble(h);
  case DType::BF16:
    std::memcpy(&h, src, 2);
    return bf16BitsToDouble(h);
  case DType::F32: {
    float f;
    std::memcpy(&f, src, 4);
    return f;
  }
  case DType::I32: {
    int32_t i;
    std::memcpy(&i, src, 4);
    return i;
  }
  }
  return 0;
}

int selfTestDTypes() {
  int failures = 0;
  auto expect = [&](const char *what, double v, uint32_t got, uint32_t want) {
    if (got == want)
      return;
    std::fprintf(stderr, "self-test: %s(%.17g) = 0x%x, want 0x%x\n", what, v,
                 got, want);
    ++failures;
  };
  // Hand-checked binary16 patterns: exact values, ties to even, the largest
  // finite value, overflow, subnormals and the half-ulp tie below them.
  const struct { double v; uint16_t bits; } half[] = {
      {1.0, 0x3c00},          {-2.0, 0xc000},
      {0.1, 0x2e66},          {1.0 / 3.0, 0x3555},
      {1.0 + 0x1p-11, 0x3c00}, {1.0 + 3 * 0x1p-11, 0x3c02},
      {65504.0, 0x7bff},      {65519.99, 0x7bff},
      {65520.0, 0x7c00},      {1e300, 0x7c00},
      {0x1p-24, 0x0001},      {0x1p-25, 0x0000},
      {1.5 * 0x1p-25, 0x0001}, {0x1p-14 - 0x1p-25, 0x0400},
      {-0.0, 0x8000},         {-INFINITY, 0xfc00},
  };
  for (const auto &c : half)
    expect("f16", c.v, doubleToHalfBits(c.v), c.bits);
  expect("f16", NAN, doubleToHalfBits(NAN) & 0x7e00, 0x7e00);
  const struct { double v; uint16_t bits; } bf[] = {
      {1.0, 0x3f80},           {0.1, 0x3dcd},
      {1.0 + 0x1p-8, 0x3f80},  {1.0 + 3 * 0x1p-8, 0x3f82},
      {-3.0, 0xc040},          {1e39, 0x7f80},
      {0x1p-133, 0x0001},      {0x1p-134, 0x0000},
  };
  for (const auto &c : bf)
    expect("bf16", c.v, doubleToBF16Bits(c.v), c.bits);

  // Every finite half / bfloat16 value converts back to its own bits.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    if ((b & 0x7c00) != 0x7c00)
      expect("f16 round trip", halfBitsToDouble(uint16_t(b)),
             doubleToHalfBits(halfBitsToDouble(uint16_t(b))), b);
    if ((b & 0x7f80) != 0x7f80)
      expect("bf16 round trip", bf16BitsToDouble(uint16_t(b)),
             doubleToBF16Bits(bf16BitsToDouble(uint16_t(b))), b);
  }
  // The generic rounding at float32's widths agrees with the compiler's
  // double→float conversion across normal, subnormal and overflowing values.
  uint64_t x = 0x243f6a8885a308d3ull;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t b = (x & 0x800fffffffffffffull) |
                 (uint64_t(1023 - 160 + int(x % 300)) << 52);
    if (i % 3 == 0) // every third: force a tie in the dropped bits
      b = (b & ~((1ull << 29) - 1)) | (1ull << 28);
    double v;
    std::memcpy(&v, &b, sizeof v);
    float f = float(v);
    uint32_t want;
    std::memcpy(&want, &f, 4);
    expect("f32", v, roundDouble(v, 8, 23), want);
    if (failures > 20)
      break;
  }
  return failures;
}

} // namespace mirage_run

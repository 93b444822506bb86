//===- ff_mul.cpp - Cost of the verifier's field multiplication -----------===//
//
// Micro-benchmark for the finite-field verifier's arithmetic: the Barrett
// multiplication with runtime (per-test) primes (ff::Modulus) against the
// pseudo-Mersenne folds of the former fixed primes p = 2^63 − 915 (kept here
// only as the same-run baseline), a chained modular multiply (latency), an
// independent multiply stream (throughput) and a delayed-reduction dot
// product of length 4096, plus the cost of drawing a prime pair per test.
//
//   build/bin/ff_mul [iterations]
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/FiniteField.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace mirage::ff;
using u128 = unsigned __int128;

namespace {
// The former fixed prime and its two-fold reduction (the baseline).
constexpr uint64_t kOldP = (1ULL << 63) - 915;
inline uint64_t foldOldP(u128 x) {
  constexpr uint64_t mask = (1ULL << 63) - 1;
  u128 y = (x >> 63) * 915 + ((uint64_t)x & mask);
  uint64_t z = (uint64_t)(y >> 63) * 915 + ((uint64_t)y & mask);
  return z >= kOldP ? z - kOldP : z;
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

volatile uint64_t sink;

template <class Mul>
double chain(Mul mul, uint64_t a, uint64_t n) {
  auto t0 = std::chrono::steady_clock::now();
  uint64_t x = a;
  for (uint64_t i = 0; i < n; ++i)
    x = mul(x, a);
  sink = x;
  return seconds(t0) / n * 1e9;
}

template <class Mul>
double stream(Mul mul, const std::vector<uint64_t> &a,
              const std::vector<uint64_t> &b, unsigned reps) {
  auto t0 = std::chrono::steady_clock::now();
  uint64_t s = 0;
  for (unsigned r = 0; r < reps; ++r)
    for (size_t i = 0; i < a.size(); ++i)
      s ^= mul(a[i], b[i]);
  sink = s;
  return seconds(t0) / ((double)reps * a.size()) * 1e9;
}

template <class Reduce>
double dot(Reduce reduce, const std::vector<uint64_t> &a,
           const std::vector<uint64_t> &b, unsigned reps) {
  auto t0 = std::chrono::steady_clock::now();
  uint64_t s = 0;
  for (unsigned r = 0; r < reps; ++r) {
    DotSum acc;
    for (size_t i = 0; i < a.size(); ++i)
      acc.mulAdd(a[i], b[i] ^ r);
    s ^= reduce(acc);
  }
  sink = s;
  return seconds(t0) / ((double)reps * a.size()) * 1e9;
}
} // namespace

int main(int argc, char **argv) {
  uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000000;
  FieldModuli f = FieldModuli::draw(12345);
  const Modulus &p = f.p;
  std::mt19937_64 rng(1);
  std::vector<uint64_t> ao(4096), bo(4096), an(4096), bn(4096);
  for (size_t i = 0; i < ao.size(); ++i) {
    ao[i] = rng() % kOldP;
    bo[i] = rng() % kOldP;
    an[i] = rng() % p.m;
    bn[i] = rng() % p.m;
  }
  unsigned reps = (unsigned)(n / ao.size());

  auto oldMul = [](uint64_t a, uint64_t b) { return foldOldP((u128)a * b); };
  auto newMul = [&](uint64_t a, uint64_t b) { return p.mul(a, b); };
  double c0 = chain(oldMul, ao[1], n), c1 = chain(newMul, an[1], n);
  double s0 = stream(oldMul, ao, bo, reps), s1 = stream(newMul, an, bn, reps);
  // The former dot-product reduction: fold lo, add carry·2^128 mod p.
  uint64_t two128Old = (uint64_t)((u128)(((u128)1 << 64) % kOldP) *
                                  (((u128)1 << 64) % kOldP) % kOldP);
  auto oldDot = [&](const DotSum &d) {
    uint64_t r = foldOldP(d.lo) +
                 foldOldP((u128)(d.carry % kOldP) * two128Old);
    return r >= kOldP ? r - kOldP : r;
  };
  auto newDot = [&](const DotSum &d) { return d.value(p); };
  double d0 = dot(oldDot, ao, bo, reps), d1 = dot(newDot, an, bn, reps);

  auto t0 = std::chrono::steady_clock::now();
  unsigned draws = 2000;
  uint64_t x = 0;
  for (unsigned k = 0; k < draws; ++k)
    x ^= FieldModuli::draw(k).q.m;
  sink = x;
  double draw = seconds(t0) / draws * 1e6;

  std::printf("| operation (ns per multiply) | fixed p, 2 folds (baseline) | "
              "drawn p, Barrett | ratio |\n|---|---|---|---|\n");
  std::printf("| chained a·b mod p (latency) | %.2f | %.2f | %.2f |\n", c0, c1,
              c1 / c0);
  std::printf("| independent a·b mod p (throughput) | %.2f | %.2f | %.2f |\n",
              s0, s1, s1 / s0);
  std::printf("| dot product, k = 4096, one reduction | %.3f | %.3f | %.2f |\n",
              d0, d1, d1 / d0);
  std::printf("\ndrawing a prime pair (q, 2q + 1): %.1f us per test "
              "(mean of %u draws)\n", draw, draws);
  return 0;
}

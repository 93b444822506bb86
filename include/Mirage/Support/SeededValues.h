//===- SeededValues.h - Counter-based random tensor contents ----*- C++ -*-===//
//
// Element `index` of tensor number `tensor` for a given `seed` is a pure
// function of the three: no generator state, no storage. The CPU execution
// check, the pipeline that writes expected outputs, and `mirage-run` (which
// builds with the CUDA toolkit alone, without LLVM) all fill inputs through
// this header, so a kernel run on a GPU sees exactly the inputs the host
// computed its reference on. Plain C++17, no LLVM includes, on purpose.
//
// Values are multiples of 1/256 in [-0.25, 0.25): exact in f16, bf16 and
// f32, so the same inputs reach every dtype unrounded. The range keeps the
// paper's softmax without max subtraction inside f16 at full shapes: for
// QKNorm (a normalised query, rms 1, against keys of std 0.14 at head dim
// 64) the scores have std 1.2, so exp stays below about 10^3 and a row sum
// over 4096 keys near 8·10^3, far from the f16 limit of 65504; with values
// in [-0.5, 0.5) both overflow.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SUPPORT_SEEDEDVALUES_H
#define MIRAGE_SUPPORT_SEEDEDVALUES_H

#include <cstdint>

namespace mirage {

/// SplitMix64's finaliser: a bijective 64-bit mixer.
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The value of element `index` of input `tensor` under `seed`.
inline double seededValue(uint64_t seed, uint64_t tensor, uint64_t index) {
  uint64_t h = mix64(mix64(seed ^ mix64(tensor)) + index);
  int64_t k = (int64_t)(h >> 57); // 7 bits: 0..127
  return (double)(k - 64) / 256.0;
}

} // namespace mirage

#endif // MIRAGE_SUPPORT_SEEDEDVALUES_H

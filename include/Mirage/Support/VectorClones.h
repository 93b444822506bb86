//===- VectorClones.h - Hot loops compiled for wider vector units -*- C++ -*-===//
//
// MIRAGE_VECTOR_CLONES on a function (out of line, not a template) makes the
// compiler emit it three times, for x86-64-v4 (AVX-512), x86-64-v3 (AVX2)
// and the baseline, and pick one at load time (an ifunc) by the CPU it runs
// on. The clones compute the same integers: only speed depends on the
// machine, never a result. The verifier's input draws use it: a decoder
// layer draws each weight once per graph for only a few multiply-adds, and
// SplitMix64's 64-bit products vectorize (vpmullq) where wyrand's 128-bit
// ones cannot (docs/Rationale/Verification.md §8).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SUPPORT_VECTORCLONES_H
#define MIRAGE_SUPPORT_VECTORCLONES_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&       \
    defined(__linux__)
#define MIRAGE_VECTOR_CLONES                                                   \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MIRAGE_VECTOR_CLONES
#endif

#endif // MIRAGE_SUPPORT_VECTORCLONES_H

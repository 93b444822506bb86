//===- FieldDot.h - Exact field matmul tiles at the speed of the products --*- C++ -*-===//
//
// The verifier's time at model scale is the multiply-adds of its matmuls
// (docs/Rationale/Verification.md §8). This kernel computes a tile
// C = A·B over Z_p × Z_q exactly, with the work per multiply-add of a
// plain modular dot product:
//
//  * one field at a time, on plain uint64_t arrays (structure of arrays):
//    the residues of a block of A and B are copied out of the FieldValue
//    records once, then every product reads two machine words;
//  * delayed reduction: residues are below 2^62, so a product is below
//    2^124 and 16 of them sum in 128 bits without overflow. The kernel
//    sums blocks of 16 products in registers (four outputs at a time) and
//    folds each block into an exact 192-bit total (DotSum), reduced once
//    per output element at the end.
//
// The result is the exact residue, the same as the element-wise
// add(mul(a, b)) chain in any order; FieldDotTest compares the two.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_ANALYSIS_FIELDDOT_H
#define MIRAGE_ANALYSIS_FIELDDOT_H

// Included at the end of FiniteField.h (it defines the domain's dotTile);
// include FiniteField.h, not this file.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mirage::ff {

/// Products summed in 128 bits before a fold: residues are below 2^62
/// (Modulus::kMax), so 16 products stay below 2^128.
constexpr int64_t kDotBlock = 16;
static_assert((unsigned __int128)(Modulus::kMax - 1) * (Modulus::kMax - 1) <=
                  ~(unsigned __int128)0 / kDotBlock,
              "a block of products must sum in 128 bits");

/// p[j] = row[j].p, q[j] = row[j].q for j < w: a row of b split into one
/// array per field (FiniteField.cpp, compiled for wide vectors).
void splitResidues(const FieldValue *row, int64_t w, uint64_t *p, uint64_t *q);

/// acc[i·accStride + j] += Σ_{t<kn} a[i·16 + t]·b[t·w + j] for i < rows,
/// j < w, in one field: a is rows × 16 (row stride 16), b is kn × w
/// (row-major, plain residues), kn ≤ 16. The full block (KN = 16) has its k loop unrolled;
/// the last block of a k that is not a multiple of 16 (KN = 0: kn given)
/// runs only its kn products instead of padding with zeros.
template <int64_t KN>
inline void dotBlock(const uint64_t *a, const uint64_t *b, int64_t rows,
                     int64_t w, DotSum *acc, int64_t accStride,
                     int64_t kn = KN) {
  using U = unsigned __int128;
  if constexpr (KN > 0)
    kn = KN;
  auto fold = [](DotSum &d, U t) {
    d.lo += t;
    d.carry += d.lo < t;
  };
  for (int64_t i = 0; i < rows; ++i) {
    const uint64_t *ai = a + i * kDotBlock;
    DotSum *ci = acc + i * accStride;
    int64_t j = 0;
    for (; j + 4 <= w; j += 4) {
      U t0 = 0, t1 = 0, t2 = 0, t3 = 0;
      for (int64_t t = 0; t < kn; ++t) {
        uint64_t x = ai[t];
        const uint64_t *bt = b + t * w + j;
        t0 += (U)x * bt[0];
        t1 += (U)x * bt[1];
        t2 += (U)x * bt[2];
        t3 += (U)x * bt[3];
      }
      fold(ci[j], t0);
      fold(ci[j + 1], t1);
      fold(ci[j + 2], t2);
      fold(ci[j + 3], t3);
    }
    for (; j < w; ++j) {
      U t0 = 0;
      for (int64_t t = 0; t < kn; ++t)
        t0 += (U)ai[t] * b[t * w + j];
      fold(ci[j], t0);
    }
  }
}

/// Adds Σ_kk pa[i·k + kk]·b[kk][j0 + j] into the exact sums accP/accQ[(i −
/// i0)·accStride + j] for i ∈ [i0, i1), j < j1 − j0 (one per field, not
/// reduced), and marks undef[(i − i0)·accStride + j] where an operand of the
/// sum had its q part undefined (columns of b are looked at only with
/// `trackUndefined`: only mode I has such values); rowOfB(kk) points at
/// b[kk][j0] (valid until the next call).
template <class RowOfB>
void fieldDotAccumulate(const FieldValue *pa, int64_t k, DotSum *accP,
                        DotSum *accQ, char *undef, int64_t accStride,
                        int64_t i0, int64_t i1, int64_t j0, int64_t j1,
                        bool trackUndefined, RowOfB &&rowOfB) {
  int64_t rows = i1 - i0, w = j1 - j0;
  // Scratch reused by every tile of this thread (a block graph runs many
  // small tiles; allocating per tile showed in profiles).
  thread_local std::vector<uint64_t> aP, aQ, bP, bQ;
  thread_local std::vector<char> rowUndef, colUndef;
  aP.resize(rows * kDotBlock);
  aQ.resize(rows * kDotBlock);
  bP.resize(kDotBlock * w);
  bQ.resize(kDotBlock * w);
  rowUndef.assign(rows, 0);
  colUndef.assign(w, 0);
  // Plain pointers: through the thread_local vectors the compiler reloads
  // the thread pointer and every data() inside the copy loops (a fifth of
  // the tile's time in a decoder layer's profile).
  uint64_t *bPd = bP.data(), *bQd = bQ.data(), *aPd = aP.data(),
           *aQd = aQ.data();
  char *rowU = rowUndef.data(), *colU = colUndef.data();
  for (int64_t k0 = 0; k0 < k; k0 += kDotBlock) {
    int64_t kn = std::min(kDotBlock, k - k0);
    for (int64_t t = 0; t < kn; ++t) {
      uint64_t *bp = bPd + t * w, *bq = bQd + t * w;
      const FieldValue *row = rowOfB(k0 + t);
      splitResidues(row, w, bp, bq);
      if (trackUndefined)
        for (int64_t j = 0; j < w; ++j)
          colU[j] |= row[j].qUndef();
    }
    for (int64_t i = 0; i < rows; ++i) {
      const FieldValue *ai = pa + (i0 + i) * k + k0;
      uint64_t *ap = aPd + i * kDotBlock, *aq = aQd + i * kDotBlock;
      char u = 0;
      for (int64_t t = 0; t < kn; ++t) {
        ap[t] = ai[t].p;
        aq[t] = ai[t].q;
        u |= ai[t].qUndef();
      }
      rowU[i] |= u;
    }
    if (kn == kDotBlock) {
      dotBlock<kDotBlock>(aPd, bPd, rows, w, accP, accStride);
      dotBlock<kDotBlock>(aQd, bQd, rows, w, accQ, accStride);
    } else {
      dotBlock<0>(aPd, bPd, rows, w, accP, accStride, kn);
      dotBlock<0>(aQd, bQd, rows, w, accQ, accStride, kn);
    }
  }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < w; ++j)
      undef[i * accStride + j] |= rowU[i] | colU[j];
}

/// pc[i·n + j0 + j] = Σ_kk pa[i·k + kk]·b[kk][j0 + j] for i ∈ [i0, i1),
/// j < j1 − j0, exact in Z_p × Z_q; rowOfB(kk) points at b[kk][j0] (valid
/// until the next call). A q part is undefined in the result where any
/// operand of its sum had it undefined, as in the element-wise chain.
template <class RowOfB>
void fieldDotTile(const FieldModuli &mod, const FieldValue *pa, int64_t k,
                  FieldValue *pc, int64_t n, int64_t i0, int64_t i1,
                  int64_t j0, int64_t j1, bool trackUndefined,
                  RowOfB &&rowOfB) {
  int64_t rows = i1 - i0, w = j1 - j0;
  thread_local std::vector<DotSum> accP, accQ;
  thread_local std::vector<char> undef;
  accP.assign(rows * w, DotSum{});
  accQ.assign(rows * w, DotSum{});
  undef.assign(rows * w, 0);
  fieldDotAccumulate(pa, k, accP.data(), accQ.data(), undef.data(), w, i0, i1,
                     j0, j1, trackUndefined, rowOfB);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < w; ++j) {
      pc[(i0 + i) * n + j0 + j] =
          FieldValue{accP[i * w + j].value(mod.p),
                     accQ[i * w + j].value(mod.q), undef[i * w + j] != 0};
    }
}

/// The exact sums of a matmul kept across calls: a block graph's for-loop
/// whose matmul tiles are summed by one accumulator adds every iteration's
/// products here and reduces each output element once, after the loop
/// (Evaluator.h, "exact partial sums"). One entry per output element.
struct FieldDotPartials {
  std::vector<DotSum> p, q;
  std::vector<char> qUndef;
  void reset(size_t n) {
    p.assign(n, DotSum{});
    q.assign(n, DotSum{});
    qUndef.assign(n, 0);
  }
};

template <class RowOfB>
void FiniteFieldSemantics::dotTile(const Value *pa, int64_t k, Value *pc,
                                   int64_t n, int64_t i0, int64_t i1,
                                   int64_t j0, int64_t j1,
                                   RowOfB &&rowOfB) const {
  fieldDotTile(mod, pa, k, pc, n, i0, i1, j0, j1,
               mode == ExpMode::Interpreted, rowOfB);
}

template <class RowOfB>
void FiniteFieldSemantics::dotTileAccumulate(const Value *pa, int64_t k,
                                             DotPartials &acc, int64_t base,
                                             int64_t n, int64_t i0, int64_t i1,
                                             int64_t j0, int64_t j1,
                                             RowOfB &&rowOfB) const {
  int64_t at = base + i0 * n + j0;
  fieldDotAccumulate(pa, k, acc.p.data() + at, acc.q.data() + at,
                     acc.qUndef.data() + at, n, i0, i1, j0, j1,
                     mode == ExpMode::Interpreted, rowOfB);
}

inline FieldValue
FiniteFieldSemantics::dotPartialValue(const DotPartials &acc,
                                      int64_t e) const {
  return FieldValue{acc.p[e].value(mod.p), acc.q[e].value(mod.q),
                    acc.qUndef[e] != 0};
}

} // namespace mirage::ff

#endif // MIRAGE_ANALYSIS_FIELDDOT_H

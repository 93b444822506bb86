//===- TileOffsets.h - Where a block's tiles sit, stated once ---*- C++ -*-===//
//
// The imap/fmap/omap offset rules, generic over an index algebra `Ix` that
// supports `Ix + Ix` and `Ix * int64_t`. The evaluator instantiates them with
// int64_t (concrete offsets of one block and iteration); the lowering with
// mlir::AffineExpr over the block ids and the loop induction variable (the
// index expressions of the generated code). One rule, two consumers, so
// they cannot disagree.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_TILEOFFSETS_H
#define MIRAGE_SEMANTICS_TILEOFFSETS_H

#include "Mirage/Semantics/ShapeRules.h"

namespace mirage {

/// Offsets of the tile (shape `tile`) that the iterator with `imap`/`fmap`
/// loads in block `blockIdx` (x, y, z) at iteration `iter` of a for-loop of
/// `forloopRange` iterations. Per dim the chunk index is block-outer and
/// iteration-inner: (b_a · F + i) · tile_d.
template <class Ix>
llvm::SmallVector<Ix, 4>
iteratorTileOffsetsOf(llvm::ArrayRef<int64_t> tile,
                      const std::array<Ix, 3> &blockIdx, Ix iter,
                      int64_t forloopRange, const AxisMap &imap, int64_t fmap,
                      Ix zero) {
  llvm::SmallVector<Ix, 4> chunk(tile.size(), zero);
  for (int a = 0; a < 3; ++a)
    if (imap[a] >= 0)
      chunk[imap[a]] = blockIdx[a];
  if (fmap >= 0)
    chunk[fmap] = chunk[fmap] * forloopRange + iter;
  llvm::SmallVector<Ix, 4> off;
  for (size_t d = 0; d < tile.size(); ++d)
    off.push_back(chunk[d] * tile[d]);
  return off;
}

/// Offsets of block `blockIdx`'s tile in the tensor an output saver with
/// `omap` writes.
template <class Ix>
llvm::SmallVector<Ix, 4> saverTileOffsetsOf(llvm::ArrayRef<int64_t> tile,
                                            const std::array<Ix, 3> &blockIdx,
                                            const AxisMap &omap, Ix zero) {
  llvm::SmallVector<Ix, 4> off(tile.size(), zero);
  for (int a = 0; a < 3; ++a)
    if (omap[a] >= 0)
      off[omap[a]] = blockIdx[a] * tile[omap[a]];
  return off;
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_TILEOFFSETS_H

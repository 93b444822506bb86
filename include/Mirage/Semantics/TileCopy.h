//===- TileCopy.h - How a tile copy is vectorized, once ---------*- C++ -*-===//
//
// A copy phase moves a box between two row-major buffers (a device tensor
// and a tile buffer). Its trailing dims that are whole in both buffers, with
// the dim before them, are one contiguous run in both; the copy moves
// 16 bytes per step along that run when the run's length allows. The plan
// (KernelPlan.cpp, planCopy: copies per thread, cp.async or synchronous),
// the lowering (CopyPhases.cpp) and the cost model's sectors (a run shorter
// than a 32-byte sector moves the whole sector) all read this rule.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_TILECOPY_H
#define MIRAGE_SEMANTICS_TILECOPY_H

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cstdint>

namespace mirage {

/// The bytes a copy step moves at most (one 16-byte vector: cp.async).
constexpr int64_t kCopyVectorBytes = 16;

struct CopyRun {
  /// The first dim of the run: dims `from + 1 ...` of the box are whole in
  /// both buffers, so dims `from ...` are contiguous in both.
  size_t from = 0;
  /// Box elements along the run (the product of its dims `from ...`).
  int64_t elements = 1;
  /// Elements per copy step: 16 bytes of the wider element type when the
  /// run is a multiple of it, else 1. A box's offsets along dim `from` are
  /// multiples of its extent there (tile offsets are), so every step is
  /// aligned.
  int64_t vec = 1;
};

/// The run of a box `box` copied between buffers of shapes `a` and `b`
/// (each of the box's rank), elements of at most `elemBytes` bytes.
inline CopyRun copyRun(llvm::ArrayRef<int64_t> box, llvm::ArrayRef<int64_t> a,
                       llvm::ArrayRef<int64_t> b, int64_t elemBytes) {
  CopyRun r;
  if (box.empty())
    return r;
  r.from = box.size() - 1;
  while (r.from > 0 && box[r.from] == a[r.from] && box[r.from] == b[r.from])
    --r.from;
  for (size_t d = r.from; d < box.size(); ++d)
    r.elements *= box[d];
  const int64_t vec = kCopyVectorBytes / std::max<int64_t>(1, elemBytes);
  r.vec = vec >= 2 && r.elements % vec == 0 ? vec : 1;
  return r;
}

} // namespace mirage

#endif // MIRAGE_SEMANTICS_TILECOPY_H

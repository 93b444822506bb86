//===- ShapeRules.h - The one set of μGraph shape rules ---------*- C++ -*-===//
//
// Every shape rule of the μGraph semantics lives here and nowhere else: the
// MLIR verifiers and type inference, the compact search graph and the
// evaluators all call these functions. A rule either returns the result
// shape or a lower-case diagnostic (no trailing period) that verifiers emit
// verbatim.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_SHAPERULES_H
#define MIRAGE_SEMANTICS_SHAPERULES_H

#include "Mirage/Dialect/Common/MirageEnums.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>
#include <string>

namespace mirage {

using Shape = llvm::SmallVector<int64_t, 4>;
using GridDims = std::array<int64_t, 3>;
/// A grid-axis map (imap/omap): for grid axis x, y, z the tensor dimension
/// that axis partitions, or -1 for replication (the paper's φ).
using AxisMap = std::array<int64_t, 3>;

/// Largest tensor rank a μGraph handles.
constexpr int64_t kMaxRank = 4;
/// Largest number of thread blocks one graph-defined kernel may launch, and
/// the largest extent of one grid axis (CUDA's limit along y and z, kept for
/// x too so that any axis maps to any hardware dimension). Not the search's
/// limit, which is smaller (kSearchMaxBlocks; docs/Rationale/GridLimits.md).
constexpr int64_t kMaxBlocks = int64_t(1) << 20;
constexpr int64_t kMaxGridExtent = 65535;
/// Largest number of elements of one tensor: 2^40, 2 TiB in f16, far above
/// any GPU's memory (a 405B-class layer's largest weight has under 2^31).
/// It keeps element and byte counts, and their sums over a graph, far inside
/// int64, and the lowering's divisor search over an extent (√extent steps)
/// short; without it a tensor of 2^63 - 1 rows verified and then aborted
/// the evaluators or hung the lowering.
constexpr int64_t kMaxTensorElements = int64_t(1) << 40;

/// The result of a shape rule: a shape, or a diagnostic. A rule asked not to
/// explain (the search's enumeration, which tries every operand pair and
/// discards the failures) fails with an empty message: building the text
/// was a tenth of an attention search.
struct ShapeResult {
  Shape shape;
  std::string error;
  bool valid = false;
  bool ok() const { return valid; }
  static ShapeResult failure(std::string msg) {
    ShapeResult r;
    r.error = std::move(msg);
    return r;
  }
  /// failure(msg()) when `explain`, else a failure without text.
  template <class Msg> static ShapeResult failure(bool explain, Msg &&msg) {
    return explain ? failure(msg()) : ShapeResult{};
  }
  static ShapeResult success(Shape s) {
    ShapeResult r;
    r.shape = std::move(s);
    r.valid = true;
    return r;
  }
};

int64_t numElements(llvm::ArrayRef<int64_t> shape);
std::string shapeToString(llvm::ArrayRef<int64_t> shape);

/// Rank, extent and size (kMaxTensorElements) checks shared by every tensor
/// in a μGraph.
ShapeResult checkTensorShape(llvm::ArrayRef<int64_t> shape);

/// Batched matmul: A[..., m, k] × B[..., k, n] -> [..., m, n]; leading dims equal.
ShapeResult matmulShape(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                        bool explain = true);

/// Broadcasting of element-wise binary ops: equal rank, each dim equal or 1.
ShapeResult broadcastShape(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                           bool explain = true);

/// Reduction of `dim` to `size` (size divides the extent); the result element
/// j sums (or maxes) the strided elements j, j+size, j+2·size, ...
ShapeResult reduceShape(llvm::ArrayRef<int64_t> x, int64_t dim, int64_t size);

/// Concatenation along `dim`; all other dims equal.
ShapeResult concatShape(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                        int64_t dim);

/// RMS normalisation over the last dim; `gamma` (may be empty = none) must
/// broadcast against x and is multiplied after normalisation.
ShapeResult rmsNormShape(llvm::ArrayRef<int64_t> x,
                         llvm::ArrayRef<int64_t> gamma, bool hasGamma,
                         bool explain = true);

/// Checks a grid: every extent ≥ 1 and at most kMaxBlocks blocks in total.
std::string checkGrid(const GridDims &grid, int64_t forloopRange);

/// Checks an imap/omap against a rank: entries in [-1, rank), no dim named twice.
std::string checkAxisMap(const AxisMap &map, int64_t rank, llvm::StringRef what);

/// Input iterator: the tile one block loads per for-loop iteration from a
/// device tensor of shape `tensor`. Each grid axis a with imap[a] = d >= 0
/// divides dim d by grid[a]; fmap = d >= 0 further divides dim d by the
/// for-loop range (block outer, iteration inner); -1 replicates.
ShapeResult iteratorTileShape(llvm::ArrayRef<int64_t> tensor,
                              const GridDims &grid, int64_t forloopRange,
                              const AxisMap &imap, int64_t fmap);

/// Offset of the tile of block `blockIdx` at iteration `iter`.
Shape iteratorTileOffset(llvm::ArrayRef<int64_t> tile, const GridDims &blockIdx,
                         int64_t iter, int64_t forloopRange,
                         const AxisMap &imap, int64_t fmap);

/// Output saver: the device tensor that all blocks' tiles form together. Every
/// grid axis with extent > 1 must map to a dimension, so that blocks write
/// disjoint regions; dim omap[a] grows by grid[a].
ShapeResult saverOutputShape(llvm::ArrayRef<int64_t> tile, const GridDims &grid,
                             const AxisMap &omap);

/// Offset of block `blockIdx`'s tile in the saved device tensor.
Shape saverTileOffset(llvm::ArrayRef<int64_t> tile, const GridDims &blockIdx,
                      const AxisMap &omap);

/// For-loop accumulator result: unchanged for sum and max; last dim reduced
/// to `size` for the *_last kinds (`size` 0 means none given: 1 for *_last).
ShapeResult accumShape(AccumKind kind, llvm::ArrayRef<int64_t> x, int64_t size,
                       bool hasRescale, llvm::ArrayRef<int64_t> rescale);

} // namespace mirage

#endif // MIRAGE_SEMANTICS_SHAPERULES_H

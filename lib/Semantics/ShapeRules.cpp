//===- ShapeRules.cpp - The one set of μGraph shape rules -----------------===//

#include "Mirage/Semantics/ShapeRules.h"
#include "Mirage/Semantics/TileOffsets.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mirage;
using llvm::ArrayRef;

int64_t mirage::numElements(ArrayRef<int64_t> shape) {
  // Saturates instead of overflowing, so that absurd shapes in unverified
  // input still compare as too large rather than wrapping around.
  int64_t n = 1;
  for (int64_t d : shape)
    if (llvm::MulOverflow(n, d, n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

std::string mirage::shapeToString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    // Dynamic extents (ShapedType::kDynamic) print as in MLIR types.
    s += shape[i] == std::numeric_limits<int64_t>::min() ? "?"
                                                          : std::to_string(shape[i]);
  }
  return s + "]";
}

static std::string str(int64_t v) { return std::to_string(v); }

ShapeResult mirage::checkTensorShape(ArrayRef<int64_t> shape) {
  if ((int64_t)shape.size() > kMaxRank)
    return ShapeResult::failure("tensor rank " + str(shape.size()) +
                                " exceeds the maximum rank " + str(kMaxRank));
  for (int64_t d : shape)
    if (d <= 0)
      return ShapeResult::failure("tensor dims must be static and positive, got " +
                                  shapeToString(shape));
  if (numElements(shape) > kMaxTensorElements)
    return ShapeResult::failure("tensor " + shapeToString(shape) +
                                " has more than 2^" +
                                str(llvm::Log2_64(kMaxTensorElements)) +
                                " elements, the limit");
  return ShapeResult::success(Shape(shape.begin(), shape.end()));
}

ShapeResult mirage::matmulShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                bool explain) {
  if (a.size() < 2 || b.size() < 2)
    return ShapeResult::failure(
        explain, [] { return "matmul operands must have rank >= 2"; });
  if (a.size() != b.size())
    return ShapeResult::failure(explain, [&] {
      return "matmul operands must have the same rank, got " + str(a.size()) +
             " and " + str(b.size());
    });
  size_t r = a.size();
  for (size_t i = 0; i + 2 < r; ++i)
    if (a[i] != b[i])
      return ShapeResult::failure(explain, [&] {
        return "matmul batch dims differ: " + shapeToString(a) + " vs " +
               shapeToString(b);
      });
  if (a[r - 1] != b[r - 2])
    return ShapeResult::failure(explain, [&] {
      return "matmul contraction dims differ: " + str(a[r - 1]) + " vs " +
             str(b[r - 2]);
    });
  Shape out(a.begin(), a.end());
  out[r - 1] = b[r - 1];
  return ShapeResult::success(out);
}

ShapeResult mirage::broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                   bool explain) {
  if (a.size() != b.size())
    return ShapeResult::failure(explain, [&] {
      return "operands of an element-wise op must have the same rank, got " +
             str(a.size()) + " and " + str(b.size());
    });
  Shape out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1)
      return ShapeResult::failure(explain, [&] {
        return "shapes " + shapeToString(a) + " and " + shapeToString(b) +
               " do not broadcast";
      });
    out.push_back(std::max(a[i], b[i]));
  }
  return ShapeResult::success(out);
}

ShapeResult mirage::reduceShape(ArrayRef<int64_t> x, int64_t dim, int64_t size) {
  if (dim < 0 || dim >= (int64_t)x.size())
    return ShapeResult::failure("reduction dim " + str(dim) +
                                " out of range for rank " + str(x.size()));
  if (size <= 0)
    return ShapeResult::failure("reduction size " + str(size) +
                                " must be positive");
  if (x[dim] % size != 0)
    return ShapeResult::failure("reduction size " + str(size) +
                                " does not divide extent " + str(x[dim]));
  Shape out(x.begin(), x.end());
  out[dim] = size;
  return ShapeResult::success(out);
}

ShapeResult mirage::concatShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                int64_t dim) {
  if (a.size() != b.size())
    return ShapeResult::failure("concat operands must have the same rank");
  if (dim < 0 || dim >= (int64_t)a.size())
    return ShapeResult::failure("concat dim " + str(dim) +
                                " out of range for rank " + str(a.size()));
  for (size_t i = 0; i < a.size(); ++i)
    if ((int64_t)i != dim && a[i] != b[i])
      return ShapeResult::failure("concat operands differ in dim " + str(i) +
                                  ": " + shapeToString(a) + " vs " +
                                  shapeToString(b));
  Shape out(a.begin(), a.end());
  out[dim] += b[dim];
  return ShapeResult::success(out);
}

ShapeResult mirage::rmsNormShape(ArrayRef<int64_t> x, ArrayRef<int64_t> gamma,
                                 bool hasGamma, bool explain) {
  if (x.empty())
    return ShapeResult::failure(
        explain, [] { return "rms_norm needs an operand of rank >= 1"; });
  if (!hasGamma)
    return ShapeResult::success(Shape(x.begin(), x.end()));
  ShapeResult r = broadcastShape(x, gamma, explain);
  if (!r.ok())
    return ShapeResult::failure(explain,
                                [&] { return "rms_norm weight: " + r.error; });
  if (r.shape != Shape(x.begin(), x.end()))
    return ShapeResult::failure(explain, [&] {
      return "rms_norm weight " + shapeToString(gamma) +
             " must broadcast to the operand shape " + shapeToString(x);
    });
  return r;
}

std::string mirage::checkGrid(const GridDims &grid, int64_t forloopRange) {
  for (int64_t g : grid)
    if (g < 1)
      return "grid dims must be positive, got " + shapeToString(grid);
  // Every extent is >= 1, so the running product only grows; stop before it
  // can overflow.
  int64_t blocks = 1;
  for (int64_t g : grid) {
    if (g > kMaxGridExtent)
      return "grid " + shapeToString(grid) + " has an axis of more than " +
             str(kMaxGridExtent) + " blocks";
    if (blocks * g > kMaxBlocks)
      return "grid " + shapeToString(grid) + " has more than the maximum " +
             str(kMaxBlocks) + " blocks";
    blocks *= g;
  }
  if (forloopRange < 1)
    return "for-loop range must be positive, got " + str(forloopRange);
  return "";
}

std::string mirage::checkAxisMap(const AxisMap &map, int64_t rank,
                                 llvm::StringRef what) {
  static const char *axes[] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    if (map[a] < -1 || map[a] >= rank)
      return what.str() + " maps grid axis " + axes[a] + " to dim " +
             str(map[a]) + ", out of range for rank " + str(rank);
    for (int b = 0; b < a; ++b)
      if (map[a] >= 0 && map[a] == map[b])
        return what.str() + " maps grid axes " + axes[b] + " and " + axes[a] +
               " to the same dim " + str(map[a]);
  }
  return "";
}

ShapeResult mirage::iteratorTileShape(ArrayRef<int64_t> tensor,
                                      const GridDims &grid, int64_t forloopRange,
                                      const AxisMap &imap, int64_t fmap) {
  static const char *axes[] = {"x", "y", "z"};
  int64_t rank = tensor.size();
  std::string err = checkAxisMap(imap, rank, "imap");
  if (!err.empty())
    return ShapeResult::failure(err);
  if (fmap < -1 || fmap >= rank)
    return ShapeResult::failure("fmap dim " + str(fmap) +
                                " out of range for rank " + str(rank));
  Shape tile(tensor.begin(), tensor.end());
  for (int a = 0; a < 3; ++a) {
    if (imap[a] < 0)
      continue;
    int64_t d = imap[a];
    if (tile[d] % grid[a] != 0)
      return ShapeResult::failure(
          "imap: grid axis " + std::string(axes[a]) + " of extent " +
          str(grid[a]) + " does not divide dim " + str(d) + " of extent " +
          str(tile[d]));
    tile[d] /= grid[a];
  }
  if (fmap >= 0) {
    if (tile[fmap] % forloopRange != 0)
      return ShapeResult::failure("fmap: for-loop range " + str(forloopRange) +
                                  " does not divide dim " + str(fmap) +
                                  " of per-block extent " + str(tile[fmap]));
    tile[fmap] /= forloopRange;
  }
  return ShapeResult::success(tile);
}

Shape mirage::iteratorTileOffset(ArrayRef<int64_t> tile,
                                 const GridDims &blockIdx, int64_t iter,
                                 int64_t forloopRange, const AxisMap &imap,
                                 int64_t fmap) {
  return iteratorTileOffsetsOf<int64_t>(tile, blockIdx, iter, forloopRange,
                                        imap, fmap, 0);
}

ShapeResult mirage::saverOutputShape(ArrayRef<int64_t> tile,
                                     const GridDims &grid, const AxisMap &omap) {
  static const char *axes[] = {"x", "y", "z"};
  std::string err = checkAxisMap(omap, tile.size(), "omap");
  if (!err.empty())
    return ShapeResult::failure(err);
  Shape out(tile.begin(), tile.end());
  for (int a = 0; a < 3; ++a) {
    if (omap[a] < 0) {
      if (grid[a] > 1)
        return ShapeResult::failure(
            "omap replicates grid axis " + std::string(axes[a]) + " of extent " +
            str(grid[a]) + ": blocks would write overlapping regions");
      continue;
    }
    out[omap[a]] *= grid[a];
  }
  return ShapeResult::success(out);
}

Shape mirage::saverTileOffset(ArrayRef<int64_t> tile, const GridDims &blockIdx,
                              const AxisMap &omap) {
  return saverTileOffsetsOf<int64_t>(tile, blockIdx, omap, 0);
}

ShapeResult mirage::accumShape(AccumKind kind, ArrayRef<int64_t> x,
                               int64_t size, bool hasRescale,
                               ArrayRef<int64_t> rescale) {
  if (x.empty())
    return ShapeResult::failure("accumulator operand must have rank >= 1");
  Shape out(x.begin(), x.end());
  // `size` is 0 when the accumulator carries none.
  switch (kind) {
  case AccumKind::sum:
  case AccumKind::max:
    if (size != 0)
      return ShapeResult::failure("accumulator '" +
                                  stringifyAccumKind(kind).str() +
                                  "' does not reduce, so it takes no size");
    break;
  case AccumKind::sum_last:
  case AccumKind::mean_last:
  case AccumKind::rms_last: {
    ShapeResult r = reduceShape(x, x.size() - 1, size == 0 ? 1 : size);
    if (!r.ok())
      return ShapeResult::failure("accumulator: " + r.error);
    out = r.shape;
    break;
  }
  }
  if (hasRescale) {
    if (kind != AccumKind::sum && kind != AccumKind::sum_last)
      return ShapeResult::failure("only 'sum' and 'sum_last' accumulators take a "
                                  "rescale operand");
    ShapeResult r = broadcastShape(out, rescale);
    if (!r.ok() || r.shape != out)
      return ShapeResult::failure("rescale operand " + shapeToString(rescale) +
                                  " must broadcast to the accumulator shape " +
                                  shapeToString(out));
  }
  return ShapeResult::success(out);
}

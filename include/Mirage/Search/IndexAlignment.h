//===- IndexAlignment.h - Loop indices of a kernel graph --------*- C++ -*-===//
//
// Groups the dims of every value of an unfused kernel graph into classes
// that one loop index runs over: an element-wise op iterates its operands'
// and result's dims together, a matmul its batch, row, column and
// contraction dims, and so on. Classes that reach an output are *parallel*
// (a grid may split them); the others are *reductions* (a for-loop may walk
// them, accumulators fold them).
//
// A fused kernel that computes a block of the output must load the matching
// chunk of every input along each parallel class it splits, so the search
// derives imap, fmap and omap from these classes instead of enumerating every
// axis-to-dim assignment blindly.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_INDEXALIGNMENT_H
#define MIRAGE_SEARCH_INDEXALIGNMENT_H

#include "Mirage/Semantics/UGraph.h"

#include <vector>

namespace mirage::search {

struct IndexClasses {
  /// classOf[value][dim]: the class of that dim, or -1 for extent-1 dims.
  std::vector<std::vector<int>> classOf;
  /// Extent of every class.
  std::vector<int64_t> extent;
  /// Whether a class occurs in some output of the graph.
  std::vector<bool> parallel;
  /// Whether some op sums or normalises over the class (a reduction's dim,
  /// an rms_norm's last dim, a matmul's contraction): an output along a
  /// reduced parallel class depends on the whole extent of the class.
  std::vector<bool> reduced;

  int numClasses() const { return extent.size(); }
  /// The dim of `value` in class `c`, or -1.
  int64_t dimIn(int32_t value, int c) const;
};

/// Index classes of a kernel-level graph (nested graphs' results get classes
/// of their own).
IndexClasses alignIndices(const UGraph &g);

} // namespace mirage::search

#endif // MIRAGE_SEARCH_INDEXALIGNMENT_H

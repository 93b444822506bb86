//===- IndexAlignment.cpp - Loop indices of a kernel graph ----------------===//
#include "Mirage/Search/IndexAlignment.h"

#include <numeric>

using namespace mirage;
using namespace mirage::search;

namespace {
/// Union-find over (value, dim) slots.
struct Slots {
  std::vector<int> first; // first slot of each value
  std::vector<int> parent;
  std::vector<int64_t> extent;

  explicit Slots(const UGraph &g) {
    for (const UValue &v : g.values) {
      first.push_back(parent.size());
      for (int64_t d : v.shape) {
        parent.push_back(parent.size());
        extent.push_back(d);
      }
    }
  }
  int slot(int32_t v, int64_t d) const { return first[v] + d; }
  int find(int s) {
    while (parent[s] != s)
      s = parent[s] = parent[parent[s]];
    return s;
  }
  /// Aligns two dims; extent-1 dims (broadcasts) align with nothing.
  void unite(int32_t a, int64_t da, int32_t b, int64_t db) {
    int sa = slot(a, da), sb = slot(b, db);
    if (extent[sa] == 1 || extent[sb] == 1 || extent[sa] != extent[sb])
      return;
    parent[find(sa)] = find(sb);
  }
};
} // namespace

int64_t IndexClasses::dimIn(int32_t value, int c) const {
  const std::vector<int> &dims = classOf[value];
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] == c)
      return d;
  return -1;
}

IndexClasses mirage::search::alignIndices(const UGraph &g) {
  Slots s(g);
  auto sameDims = [&](int32_t a, int32_t b, int64_t except = -1) {
    const Shape &sa = g.values[a].shape, &sb = g.values[b].shape;
    if (sa.size() != sb.size())
      return;
    for (size_t d = 0; d < sa.size(); ++d)
      if ((int64_t)d != except)
        s.unite(a, d, b, d);
  };
  // (value, dim) slots that an op reduces over.
  std::vector<std::pair<int32_t, int64_t>> reducedSlots;
  for (const UOp &op : g.ops) {
    int32_t out = op.results.empty() ? -1 : op.results[0];
    switch (op.kind) {
    case OpKind::Unary:
    case OpKind::Binary:
      for (int32_t in : op.operands)
        sameDims(in, out);
      break;
    case OpKind::RmsNorm:
      for (int32_t in : op.operands)
        sameDims(in, out);
      reducedSlots.push_back(
          {op.operands[0], (int64_t)g.values[op.operands[0]].shape.size() - 1});
      break;
    case OpKind::Reduce:
      // The reduced dim of the operand is its own index; a reduction to a
      // size > 1 starts a new index in the result.
      sameDims(op.operands[0], out, op.dim);
      reducedSlots.push_back({op.operands[0], op.dim});
      break;
    case OpKind::Concat:
      sameDims(op.operands[0], out, op.dim);
      sameDims(op.operands[1], out, op.dim);
      break;
    case OpKind::Matmul: {
      int32_t a = op.operands[0], b = op.operands[1];
      int64_t r = g.values[a].shape.size();
      for (int64_t d = 0; d + 2 < r; ++d) {
        s.unite(a, d, out, d);
        s.unite(b, d, out, d);
      }
      s.unite(a, r - 2, out, r - 2); // rows
      s.unite(b, r - 1, out, r - 1); // columns
      s.unite(a, r - 1, b, r - 2);   // contraction
      reducedSlots.push_back({a, r - 1});
      break;
    }
    case OpKind::Custom:
    case OpKind::ThreadGraph:
      // Nested graphs (already fused kernels): results get fresh indices.
      break;
    case OpKind::InputIterator:
    case OpKind::Accum:
    case OpKind::OutputSaver:
    case OpKind::RunningMax:
      break; // block level only; this runs on kernel graphs
    }
  }

  IndexClasses ic;
  std::vector<int> classOfRoot(s.parent.size(), -1);
  ic.classOf.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) {
    for (size_t d = 0; d < g.values[v].shape.size(); ++d) {
      int sl = s.slot(v, d);
      if (s.extent[sl] == 1) {
        ic.classOf[v].push_back(-1);
        continue;
      }
      int root = s.find(sl);
      if (classOfRoot[root] < 0) {
        classOfRoot[root] = ic.extent.size();
        ic.extent.push_back(s.extent[sl]);
        ic.parallel.push_back(false);
      }
      ic.classOf[v].push_back(classOfRoot[root]);
    }
  }
  for (int32_t o : g.outputs)
    for (int c : ic.classOf[o])
      if (c >= 0)
        ic.parallel[c] = true;
  ic.reduced.assign(ic.extent.size(), false);
  for (auto [v, d] : reducedSlots)
    if (int c = ic.classOf[v][d]; c >= 0)
      ic.reduced[c] = true;
  return ic;
}

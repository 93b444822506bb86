//===- CombineGrid.cpp - A split pair's combine over more blocks ----------===//
//
// Kernel 2 of a split pair runs on its pattern's grid with the split axis
// collapsed (a few blocks, each folding every partial of its part in one
// round trip). Here it is also spread over that free axis along one more dim
// of its outputs, so that the cost model can trade blocks against re-read
// per-row values (docs/Rationale/MultiKernel.md, "Combining kernels that
// fill the machine"). Like every candidate, the widened pair is verified at
// the real shapes; the construction is exact by `parallelAlong`.
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/OpKinds.h"
#include "Mirage/Semantics/Replay.h"
#include "Mirage/Semantics/Target.h"
#include "Mirage/Semantics/UOpVisitor.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

namespace {

/// Whether an op computes element i along dim `d` of its results from
/// elements i along `d` of its operands alone (operands of extent 1 along
/// `d` are the same for every i). Shapes are checked by the caller.
struct ParallelAlong : UOpVisitor<ParallelAlong, bool> {
  const UGraph &b;
  int64_t d;
  ParallelAlong(const UGraph &b, int64_t d) : b(b), d(d) {}

  int64_t rankOf(const UOp &op) const {
    return static_cast<int64_t>(b.values[op.results[0]].shape.size());
  }
  bool visitUnary(const UOp &) { return true; }
  bool visitBinary(const UOp &) { return true; }
  bool visitThreadGraph(const UOp &) { return true; } // element-wise body
  bool visitReduce(const UOp &op) { return op.dim != d; }
  bool visitConcat(const UOp &op) { return op.dim != d; }
  bool visitRunningMax(const UOp &op) { return op.dim != d; }
  // Rows of the left operand, columns of the right, a sum over the rest.
  bool visitMatmul(const UOp &op) { return d < rankOf(op) - 2; }
  // Normalizes along the last dim.
  bool visitRmsNorm(const UOp &op) { return d != rankOf(op) - 1; }
  bool visitAccum(const UOp &op) {
    return !accumFacts(op.accumKind()).reducesLastDim() ||
           d != rankOf(op) - 1;
  }
  // The maps are checked by the caller.
  bool visitInputIterator(const UOp &) { return true; }
  bool visitOutputSaver(const UOp &) { return true; }
  // Not in a block graph.
  bool visitCustom(const UOp &) { return false; }
};

/// Whether `m` (an imap or omap) or `fmap` selects dim `d`.
bool mapsDim(const AxisMap &m, int64_t fmap, int64_t d) {
  return fmap == d || std::find(m.begin(), m.end(), d) != m.end();
}

/// The free grid axis of block graph `b`: extent 1 and in no map; -1 if
/// none.
int freeAxis(const UGraph &b) {
  for (int a = 0; a < 3; ++a) {
    if (b.grid[a] != 1)
      continue;
    bool used = false;
    for (const UOp &op : b.ops)
      if ((op.kind == OpKind::InputIterator ||
           op.kind == OpKind::OutputSaver) &&
          op.map[a] >= 0)
        used = true;
    if (!used)
      return a;
  }
  return -1;
}

/// `b` on `f` blocks along `axis` over dim `d` (extent `e` in the tiles that
/// span it), or nullopt if `b` is not parallel along `d`.
std::optional<UGraph> widen(const UGraph &b, int axis, int64_t d, int64_t e,
                            int64_t f) {
  const size_t rank = b.values[b.outputs.front()].shape.size();
  ParallelAlong parallel(b, d);
  for (const UValue &v : b.values) {
    if (v.phase == Phase::Scalar)
      continue;
    if (v.shape.size() != rank || (v.shape[d] != e && v.shape[d] != 1))
      return std::nullopt;
  }
  for (const UOp &op : b.ops) {
    if (!parallel.dispatchUOpVisitor(op))
      return std::nullopt;
    if (op.kind == OpKind::InputIterator || op.kind == OpKind::OutputSaver) {
      if (mapsDim(op.map, op.kind == OpKind::InputIterator ? op.fmap : -1, d))
        return std::nullopt;
      // The device tensor along `d` is the tile: whole, not selected.
      const int32_t device = op.kind == OpKind::InputIterator
                                 ? op.operands[0]
                                 : op.results[0];
      const int32_t tile = op.kind == OpKind::InputIterator ? op.results[0]
                                                            : op.operands[0];
      if (b.values[device].shape[d] != b.values[tile].shape[d])
        return std::nullopt;
    }
  }
  UGraph w(Level::Block);
  w.grid = b.grid;
  w.grid[axis] = f;
  w.forloopRange = b.forloopRange;
  w.target = b.target;
  std::vector<int32_t> map(b.values.size(), -1);
  for (int32_t in : b.inputs)
    map[in] = w.addInput(b.values[in].shape, b.values[in].type);
  for (const UOp &op : b.ops) {
    UOp spread = op;
    if (op.kind == OpKind::OutputSaver ||
        (op.kind == OpKind::InputIterator &&
         b.values[op.results[0]].shape[d] == e))
      spread.map[axis] = d;
    if (!replayOp(w, spread, map,
                  op.body >= 0 ? b.bodies[op.body] : UGraph()))
      return std::nullopt;
  }
  for (int32_t o : b.outputs)
    w.markOutput(map[o]);
  std::optional<TargetInfo> info = lookupTarget(w.target);
  if (!info || !planKernel(w, *info).launchable)
    return std::nullopt;
  return w;
}

} // namespace

std::vector<int64_t> fusion::combineWideningFactors(int64_t extent,
                                                    int64_t blocks) {
  std::vector<int64_t> out;
  for (int64_t f = 2; extent % f == 0 && extent / f >= kMinCombineTile &&
                      blocks * f <= kMaxBlocks;
       f *= 2)
    out.push_back(f);
  return out;
}

std::vector<UGraph> fusion::widenedCombines(const UGraph &pair) {
  std::vector<UGraph> out;
  int32_t last = -1;
  for (size_t i = 0; i < pair.ops.size(); ++i)
    if (pair.ops[i].kind == OpKind::Custom)
      last = static_cast<int32_t>(i);
  if (last < 0 || pair.ops[last].body < 0)
    return out;
  const UGraph &b = pair.bodies[pair.ops[last].body];
  const int axis = freeAxis(b);
  if (axis < 0 || b.outputs.empty())
    return out;
  const Shape &tile = b.values[b.outputs.front()].shape;
  // The tile of the first output, along a dim no map selects; the other
  // outputs and every value must agree (checked by widen). One dim is
  // enough: kernel 2's tiles are a head's rows whole (the fold) by its
  // columns.
  for (int64_t d = static_cast<int64_t>(tile.size()) - 1; d >= 0; --d) {
    const int64_t e = tile[d];
    const int64_t blocks = b.grid[0] * b.grid[1] * b.grid[2];
    std::vector<int64_t> factors = combineWideningFactors(e, blocks);
    if (factors.empty())
      continue;
    for (int64_t f : factors) {
      std::optional<UGraph> w = widen(b, axis, d, e, f);
      if (!w)
        break; // the same checks fail for every factor
      UGraph g = pair;
      g.bodies[pair.ops[last].body] = std::move(*w);
      out.push_back(std::move(g));
    }
    if (!out.empty())
      break;
  }
  return out;
}

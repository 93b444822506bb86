//===- CombineGrid.cpp - A split pair's combine over more blocks ----------===//
//
// Kernel 2 of a split pair runs on its pattern's grid with the split axis
// collapsed (a few blocks, each folding every partial of its part in one
// round trip). Here it is also spread over that free axis along one more dim
// of its outputs, and split finer along a dim an axis already splits, so
// that the cost model can trade blocks against re-read per-row values
// (docs/Rationale/MultiKernel.md, "Combining kernels that fill the
// machine", "Refined rows"). Like every candidate, the widened pair is
// verified at the real shapes; the construction is exact by `parallelAlong`.
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

/// `b` on `f` times more blocks along `axis` over dim `d` (extent `e` in the
/// tiles that span it): with `refine` false the axis is free (extent 1, in
/// no map) and now splits `d`; with `refine` true it already splits `d` in
/// every iterator and saver whose tile spans it, and each of its blocks
/// splits in `f`. Nullopt if `b` is not parallel along `d`.
std::optional<UGraph> widen(const UGraph &b, int axis, int64_t d, int64_t e,
                            int64_t f, bool refine) {
  const size_t rank = b.values[b.outputs.front()].shape.size();
  ParallelAlong parallel(b, d);
  for (size_t i = 0; i < b.values.size(); ++i) {
    const UValue &v = b.values[i];
    if (v.phase == Phase::Scalar)
      continue;
    // Refining, the device tensors are split along `d` (the maps are
    // checked below); every tile spans `e` or broadcasts.
    const bool device =
        llvm::is_contained(b.inputs, static_cast<int32_t>(i)) ||
        (v.def >= 0 && b.ops[v.def].kind == OpKind::OutputSaver);
    if (v.shape.size() != rank ||
        (!(refine && device) && v.shape[d] != e && v.shape[d] != 1))
      return std::nullopt;
  }
  for (const UOp &op : b.ops) {
    if (!parallel.dispatchUOpVisitor(op))
      return std::nullopt;
    if (op.kind != OpKind::InputIterator && op.kind != OpKind::OutputSaver)
      continue;
    const bool iterator = op.kind == OpKind::InputIterator;
    const int32_t device = iterator ? op.operands[0] : op.results[0];
    const int32_t tile = iterator ? op.results[0] : op.operands[0];
    const bool spans = b.values[tile].shape[d] == e;
    if (refine) {
      // `axis` alone selects `d`, in exactly the maps whose tiles span it.
      AxisMap others = op.map;
      others[axis] = -1;
      if (mapsDim(others, iterator ? op.fmap : -1, d) ||
          (op.map[axis] == d) != spans)
        return std::nullopt;
      continue;
    }
    if (mapsDim(op.map, iterator ? op.fmap : -1, d))
      return std::nullopt;
    // The device tensor along `d` is the tile: whole, not selected.
    if (b.values[device].shape[d] != b.values[tile].shape[d])
      return std::nullopt;
  }
  UGraph w(Level::Block);
  w.grid = b.grid;
  w.grid[axis] = refine ? b.grid[axis] * f : f;
  w.forloopRange = b.forloopRange;
  w.target = b.target;
  std::vector<int32_t> map(b.values.size(), -1);
  for (int32_t in : b.inputs)
    map[in] = w.addInputLike(b.values[in]);
  for (const UOp &op : b.ops) {
    UOp spread = op;
    if (!refine && (op.kind == OpKind::OutputSaver ||
                    (op.kind == OpKind::InputIterator &&
                     b.values[op.results[0]].shape[d] == e)))
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

/// Copies of `pair` whose last kernel's body `b` is spread by every factor
/// along `axis` over the first output's dim `d` (widen's `refine`).
void addSpread(const UGraph &pair, int32_t last, const UGraph &b, int axis,
               int64_t d, bool refine, std::vector<UGraph> &out) {
  const UValue &saved = b.values[b.outputs.front()];
  const int64_t e =
      refine ? b.values[b.ops[saved.def].operands[0]].shape[d] : saved.shape[d];
  const int64_t blocks = b.grid[0] * b.grid[1] * b.grid[2];
  const bool contiguous = d + 1 == static_cast<int64_t>(saved.shape.size());
  for (int64_t f : combineWideningFactors(e, blocks, contiguous)) {
    std::optional<UGraph> w = widen(b, axis, d, e, f, refine);
    if (!w)
      return; // the same checks fail for every factor
    UGraph g = pair;
    g.bodies[pair.ops[last].body] = std::move(*w);
    out.push_back(std::move(g));
  }
}

} // namespace

std::vector<int64_t> fusion::combineWideningFactors(int64_t extent,
                                                    int64_t blocks,
                                                    bool contiguous) {
  std::vector<int64_t> out;
  const int64_t minTile = contiguous ? kMinCombineTile : 1;
  for (int64_t f = 2; extent % f == 0 && extent / f >= minTile &&
                      blocks * f <= kSearchMaxBlocks;
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
  if (b.outputs.empty())
    return out;
  const int64_t rank = b.values[b.outputs.front()].shape.size();
  // Along a dim no map selects, on the free axis. One dim is enough:
  // kernel 2's tiles are a head's rows whole (the fold) by its columns.
  const int free = freeAxis(b);
  if (free >= 0)
    for (int64_t d = rank - 1; d >= 0 && out.empty(); --d)
      addSpread(pair, last, b, free, d, /*refine=*/false, out);
  // Then each of those, and the pair itself, with an axis that already
  // splits a dim of the outputs splitting it finer: a combine whose
  // columns are down to kMinCombineTile can still fill the machine by its
  // rows (MultiKernel.md, "Refined rows").
  std::vector<UGraph> refined;
  auto refine = [&](const UGraph &g) {
    const UGraph &body = g.bodies[g.ops[last].body];
    const UOp &saver = body.ops[body.values[body.outputs.front()].def];
    // Not the axis just spread: its finer splits are the larger factors.
    for (int a = 0; a < 3; ++a)
      if (a != free && saver.map[a] >= 0)
        addSpread(g, last, body, a, saver.map[a], /*refine=*/true, refined);
  };
  refine(pair);
  for (const UGraph &g : out)
    refine(g);
  for (UGraph &g : refined)
    out.push_back(std::move(g));
  return out;
}

//===- KernelExpansion.cpp - Pre-defined kernels as block graphs ----------===//
//
// Each expansion builds a block graph with the UGraph builders, so every
// shape and phase rule is checked as for a hand-written μGraph. Tile sizes
// are the largest divisors under a limit: divisibility is exact by
// construction, and a dimension without a useful divisor stays whole.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/KernelExpansion.h"
#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/Target.h"

#include <algorithm>
#include <map>
#include <mutex>

using namespace mirage;

namespace {

/// The largest divisor of `extent` that is at most `limit` (at least 1).
/// Divisors come in pairs (d, extent / d) with d ≤ √extent, so √extent
/// steps suffice; scanning down from `limit` took up to `extent` steps (a
/// prime extent of 2^40 never finished).
int64_t divisorAtMost(int64_t extent, int64_t limit) {
  if (limit >= extent)
    return extent;
  int64_t best = 1;
  for (int64_t d = 1; d <= extent / d; ++d) {
    if (extent % d != 0)
      continue;
    // The first co-divisor within the limit is the largest one, and no
    // smaller than any d seen so far.
    if (extent / d <= limit)
      return extent / d;
    if (d <= limit)
      best = d;
  }
  return best;
}

/// The divisors of `extent` that are multiples of `align` or `extent`
/// itself, at most `limit` (ascending; `extent` is always included when it
/// is within the limit).
llvm::SmallVector<int64_t, 8> alignedDivisors(int64_t extent, int64_t limit,
                                              int64_t align) {
  llvm::SmallVector<int64_t, 8> out;
  for (int64_t d = align; d <= std::min(extent, limit); d += align)
    if (extent % d == 0)
      out.push_back(d);
  if (extent <= limit && (out.empty() || out.back() != extent))
    out.push_back(extent);
  return out;
}

/// The grids the expansion tiles for: fewer, larger blocks than the μGraph
/// rule allows (kMaxBlocks). Only where such tiles do not fit shared memory
/// does an element-wise kernel tile for the rule's limit instead
/// (docs/Rationale/GridLimits.md).
constexpr int64_t kPreferredBlocks = 4096;

/// A partition of an output shape over the grid: grid axis a splits dim
/// map[a] into grid[a] chunks of tile[map[a]].
struct Partition {
  GridDims grid{1, 1, 1};
  AxisMap map{-1, -1, -1};
  Shape tile;
};

/// Partitions `shape` for a block tile of about `maxElems` elements: x over
/// the last dim (at most `maxCols` wide), y over the second-last, z over the
/// first of rank ≥ 3; dims in `whole` stay whole. Grows tiles until the grid
/// has at most `maxBlocks` blocks.
Partition partition(llvm::ArrayRef<int64_t> shape, int64_t maxElems,
                    int64_t maxCols, llvm::ArrayRef<int64_t> whole = {},
                    int64_t maxBlocks = kPreferredBlocks) {
  int64_t r = shape.size();
  auto isWhole = [&](int64_t d) {
    return std::find(whole.begin(), whole.end(), d) != whole.end();
  };
  Partition p;
  p.tile.assign(shape.begin(), shape.end());
  // Dims that may be split, in x, y, z order.
  llvm::SmallVector<int64_t, 3> dims;
  for (int64_t d : {r - 1, r - 2, r >= 3 ? int64_t(0) : int64_t(-1)})
    if (d >= 0 && !isWhole(d) &&
        std::find(dims.begin(), dims.end(), d) == dims.end())
      dims.push_back(d);
  // Elements of the dims that stay whole (including unsplittable middle dims).
  int64_t fixed = 1;
  for (int64_t d = 0; d < r; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end())
      fixed *= shape[d];
  int64_t budget = std::max<int64_t>(maxElems / std::max<int64_t>(fixed, 1), 1);
  for (int64_t scale = 1;; scale *= 2) {
    int64_t left = budget * scale;
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t d = dims[i];
      int64_t limit = left;
      if (d == r - 1)
        limit = std::min(left, maxCols * scale);
      if (r >= 3 && d == 0)
        limit = 1 * scale; // one batch entry per block unless forced
      p.tile[d] = divisorAtMost(shape[d], limit);
      left = std::max<int64_t>(left / p.tile[d], 1);
    }
    int64_t blocks = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      p.grid[i] = shape[dims[i]] / p.tile[dims[i]];
      p.map[i] = p.grid[i] > 1 ? dims[i] : -1;
      if (p.grid[i] == 1)
        p.grid[i] = 1;
      blocks *= p.grid[i];
    }
    if (blocks <= maxBlocks || scale > (int64_t(1) << 40))
      return p;
  }
}

/// The imap of an operand of shape `opShape` read under an output partition:
/// an axis that splits a dim the operand broadcasts (extent 1) replicates.
AxisMap operandMap(const Partition &p, llvm::ArrayRef<int64_t> opShape,
                   llvm::ArrayRef<int64_t> outShape) {
  AxisMap m = p.map;
  for (int a = 0; a < 3; ++a)
    if (m[a] >= 0 && opShape[m[a]] != outShape[m[a]])
      m[a] = -1;
  return m;
}

/// A candidate launch of the expansion: its ranking figure, its blocks
/// (the largest grid of its kernels), and whether it is one kernel.
struct RankedLaunch {
  double rank;
  int64_t blocks;
  bool single;
};

/// The candidate the expansion takes (Lowering.md, "Large matmuls"):
/// ranking figures within 1 % of the lowest are the model's noise
/// (launch-bound kernels differ in the fourth digit); among them the grid
/// that gives more SMs a block wins, then a single kernel, then the
/// earlier candidate. `launches` is not empty.
size_t pickRanked(llvm::ArrayRef<RankedLaunch> launches,
                  const TargetInfo &target) {
  constexpr double kTieFraction = 0.01;
  double lowest = launches.front().rank;
  for (const RankedLaunch &l : launches)
    lowest = std::min(lowest, l.rank);
  auto filled = [&](const RankedLaunch &l) {
    return std::min<int64_t>(l.blocks, target.numSMs);
  };
  std::optional<size_t> best;
  for (size_t i = 0; i < launches.size(); ++i) {
    const RankedLaunch &l = launches[i];
    if (l.rank > lowest * (1 + kTieFraction))
      continue;
    if (!best || filled(l) > filled(launches[*best]) ||
        (filled(l) == filled(launches[*best]) && l.single &&
         !launches[*best].single))
      best = i;
  }
  return *best;
}

struct Expander {
  const UGraph &src;
  const KernelExpansionOptions &opt;
  const TargetInfo &target;
  UGraph out;
  std::vector<int32_t> map; // src value -> out value
  std::string error;

  Expander(const UGraph &src, const KernelExpansionOptions &opt,
           const TargetInfo &target)
      : src(src), opt(opt), target(target), map(src.values.size(), -1) {}

  const UValue &val(int32_t v) const { return src.values[v]; }

  /// A block graph skeleton over the operands of `op`.
  UGraph blockFor(const UOp &op, const Partition &p, int64_t forloop,
                  llvm::SmallVectorImpl<int32_t> &ins) const {
    UGraph b(Level::Block);
    b.grid = p.grid;
    b.forloopRange = forloop;
    for (int32_t v : op.operands)
      ins.push_back(b.addInputLike(val(v)));
    return b;
  }

  /// Adds `body` as a custom kernel over `op`'s operands; maps the results.
  bool emit(const UOp &op, UGraph body, llvm::StringRef what) {
    if (!body.error.empty())
      return fail(op, what, body.error);
    // What the lowering allocates (sums in f32, padded MMA rows), not the
    // declared dtypes: the launch plan's figure.
    int64_t smem = planKernel(body, target).sharedBytes;
    if (smem > opt.sharedMemoryBytes)
      return fail(op, what,
                  "its tiles need " + std::to_string(smem) +
                      " bytes of shared memory, more than " +
                      std::to_string(opt.sharedMemoryBytes));
    llvm::SmallVector<int32_t> operands;
    for (int32_t v : op.operands)
      operands.push_back(map[v]);
    int32_t first = out.addCustom(operands, std::move(body));
    if (first < 0)
      return fail(op, what, out.error);
    for (size_t i = 0; i < op.results.size(); ++i)
      map[op.results[i]] = first + i;
    return true;
  }

  bool fail(const UOp &op, llvm::StringRef what, const std::string &why) {
    error = "cannot expand " + what.str() + " into a block graph: " + why;
    return false;
  }

  /// Saves `tile` (an in-loop value) through an accumulator of one
  /// iteration, the way every for-loop-1 kernel hands a tile to its saver.
  int32_t saveInLoop(UGraph &b, int32_t tile, const AxisMap &omap) {
    int32_t acc = b.addAccum(AccumKind::sum, tile, -1, 0);
    return acc < 0 ? -1 : b.addOutputSaver(acc, omap);
  }

  /// How a split-K pair's combine tiles the output (splitCombineKernel).
  enum class CombineTiles {
    Default, // the reduce expansion's own tiles
    Spread,  // small enough for a block per SM
  };

  /// One tiling of a matmul: row and column tiles, K step, and S > 1 for
  /// split-K with its combine's tiles: over grid x, the partials side by
  /// side in [.., M, N·S] (whole column tile only), or `stacked` over grid
  /// y (column tiles on x): the partials in [S, M, N] for a rank-3 matmul
  /// whose batch dim is 1 (row tiles on z), in [S·M, N] for a rank-2 one
  /// whose row tile is all of M.
  struct MatmulTiling {
    int64_t tm, tn, tk, splits;
    CombineTiles combine = CombineTiles::Default;
    bool stacked = false;
  };

  /// The grid of kernel 1 of a tiling: column tiles (or splits) by row
  /// tiles by batch.
  GridDims matmulGrid(const UOp &op, const MatmulTiling &t) const {
    const Shape &os = val(op.results[0]).shape;
    int64_t r = os.size();
    if (t.stacked)
      return {os[r - 1] / t.tn, t.splits, r == 3 ? os[r - 2] / t.tm : 1};
    return {t.splits > 1 ? t.splits : os[r - 1] / t.tn, os[r - 2] / t.tm,
            r >= 3 ? os[0] : 1};
  }

  /// Whether `op` may split K stacked with row tiles of `tm`: operands
  /// and result of rank 3 with a batch dim of 1, which grid y then indexes
  /// in the partials, or of rank 2 with all of M in a tile, so that grid y
  /// stacks whole row blocks (torch-mlir's `aten.mm` after a collapse).
  bool stackable(const UOp &op, int64_t tm) const {
    const Shape &os = val(op.results[0]).shape;
    if (os.size() == 2)
      return tm == os[0] && val(op.operands[0]).shape.size() == 2 &&
             val(op.operands[1]).shape.size() == 2;
    for (int32_t v : {op.operands[0], op.operands[1], op.results[0]})
      if (val(v).shape.size() != 3 || val(v).shape[0] != 1)
        return false;
    return true;
  }

  /// Kernel 1 of a tiling: the tiled matmul, or with splits > 1 each
  /// split's partial sums saved side by side in a [.., M, N·S] tensor.
  UGraph matmulKernel(const UOp &op, const MatmulTiling &t) const {
    const Shape &os = val(op.results[0]).shape;
    const Shape &as = val(op.operands[0]).shape;
    int64_t r = os.size(), k = as[r - 1];
    Partition p;
    p.tile.assign(os.begin(), os.end());
    bool split = t.splits > 1;
    p.grid = matmulGrid(op, t);
    p.map = {r - 1, r - 2, r >= 3 ? 0 : -1};
    llvm::SmallVector<int32_t> ins;
    UGraph b = blockFor(op, p, k / t.splits / t.tk, ins);
    // With a split, grid x walks K in both operands (and the for-loop K
    // within a split); otherwise it walks B's and the output's columns.
    // Stacked, grid y walks K and the partials' leading dim, z the rows.
    AxisMap amap{split ? r - 1 : -1, r - 2, r >= 3 ? 0 : -1};
    AxisMap bmap{split ? r - 2 : r - 1, -1, r >= 3 ? 0 : -1};
    if (t.stacked && r == 3) {
      p.map = {2, 0, 1};
      amap = {-1, 2, 1};
      bmap = {2, 1, -1};
    } else if (t.stacked) {
      p.map = {1, 0, -1};
      amap = {-1, 1, -1};
      bmap = {1, 0, -1};
    }
    int32_t at = b.addInputIterator(ins[0], amap, r - 1);
    int32_t bt = b.addInputIterator(ins[1], bmap, r - 2);
    int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(at, bt), -1, 0);
    b.markOutput(b.addOutputSaver(acc, p.map));
    return b;
  }

  /// The block graph of `reduce kind dim d to s` from `xs` to `os`: a
  /// for-loop over chunks of the reduced dim, each reduced (strided) and
  /// accumulated, on output tiles small enough for a block per SM when the
  /// input moves a megabyte, or when `spread`.
  UGraph reduceKernel(const Shape &xs, ElemType type, const Shape &os,
                      int64_t d, int64_t s, ReduceKind kind,
                      bool spread = false) const {
    return chunkReduceKernel(xs, type, reducePartition(xs, type, os, d, spread),
                             d, s, kind, /*splits=*/1, /*splitAxis=*/-1);
  }

  /// The reduce expansion's output tiles: where the input is large (or
  /// with `spread`), small enough for a block per SM, down to one output
  /// row per block, each reduced by all the block's threads (the plan's
  /// lanes and tree). Dim `d` stays whole.
  Partition reducePartition(const Shape &xs, ElemType type, const Shape &os,
                            int64_t d, bool spread) const {
    int64_t outElems = opt.elementwiseTileElems / 4;
    if (spread || static_cast<double>(numElements(xs)) * elemTypeBytes(type) >=
                      kFillBytes)
      outElems = std::min(
          outElems, std::max<int64_t>(1, numElements(os) / target.numSMs));
    return partition(os, outElems, 256, {d});
  }

  /// The reduce block graph on output tiles `p`, with dim `d` of the input
  /// cut into `splits` contiguous chunks over grid axis `splitAxis` (free
  /// in `p`) when splits > 1: each block reduces its chunk to `s` and
  /// saves it at its chunk's place in a [.., splits·s, ..] tensor.
  UGraph chunkReduceKernel(const Shape &xs, ElemType type, const Partition &p,
                           int64_t d, int64_t s, ReduceKind kind,
                           int64_t splits, int splitAxis) const {
    // Chunks of the reduced dim per iteration: a multiple of the target
    // size (so each chunk's strided reduction lines up with the output) of
    // at most about the element budget.
    int64_t other = numElements(p.tile) / std::max<int64_t>(p.tile[d], 1);
    int64_t groups = xs[d] / splits / s;
    int64_t perIter = divisorAtMost(
        groups, std::max<int64_t>(opt.elementwiseTileElems / (other * s), 1));
    int64_t forloop = groups / perIter;
    AxisMap map = p.map;
    UGraph b(Level::Block);
    b.grid = p.grid;
    if (splits > 1) {
      b.grid[splitAxis] = splits;
      map[splitAxis] = d;
    }
    b.forloopRange = forloop;
    int32_t in = b.addInput(xs, type);
    int32_t xt = b.addInputIterator(in, map, forloop > 1 ? d : -1);
    int32_t red = b.addReduce(kind, xt, d, s);
    int32_t acc = b.addAccum(
        kind == ReduceKind::max ? AccumKind::max : AccumKind::sum, red, -1, 0);
    b.markOutput(b.addOutputSaver(acc, map));
    return b;
  }

  /// The combine of a split-K tiling: the reduce expansion summing the
  /// partials strided to N, on the tiles `t.combine` names. The tilings
  /// offer both and the model picks (tilingRank): a GEMV's 512 KB of
  /// partials, below the megabyte that spreads a reduce by itself, took
  /// 9.5 us on 4 default blocks and 5.7 us spread over 8 (each output row
  /// stays whole in a block, so M blocks at most). A plain reduce keeps its
  /// rule: spreading it can cost a tail that a kernel-local choice cannot
  /// see.
  UGraph splitCombineKernel(const UOp &op, const MatmulTiling &t) const {
    const UValue &o = val(op.results[0]);
    Shape partial = o.shape;
    if (t.stacked) {
      // [S, M, N] summed over dim 0, or [S·M, N] strided to M.
      int64_t to = o.shape.size() == 3 ? 1 : o.shape[0];
      partial[0] *= t.splits;
      return reduceKernel(partial, o.type, o.shape, 0, to, ReduceKind::sum,
                          t.combine == CombineTiles::Spread);
    }
    partial.back() *= t.splits;
    return reduceKernel(partial, o.type, o.shape, o.shape.size() - 1,
                        o.shape.back(), ReduceKind::sum,
                        t.combine == CombineTiles::Spread);
  }

  /// Whether a block graph's tiles, as the lowering allocates them, fit
  /// the shared-memory budget.
  bool fitsSharedMemory(const UGraph &b) const {
    return planKernel(b, target).sharedBytes <= opt.sharedMemoryBytes;
  }

  /// Whether a block graph is valid and launches within the shared-memory
  /// budget.
  bool fits(const UGraph &b) const {
    if (!b.error.empty())
      return false;
    KernelPlan plan = planKernel(b, target);
    return plan.launchable && plan.sharedBytes <= opt.sharedMemoryBytes;
  }

  /// The ranking figure (CostModel.h, rankingSeconds) of `kernels` run one
  /// after another, the first over `inputs`, each later one over the
  /// result of the one before; nothing if one cannot launch within the
  /// shared-memory budget. Priced as the graph the lowering emits: a split
  /// pair's combine may run in the split kernel's launch (TailCombine.md),
  /// which only the graph's estimate sees.
  std::optional<double> chainRank(llvm::ArrayRef<const UValue *> inputs,
                                  llvm::ArrayRef<UGraph> kernels) const {
    UGraph g;
    llvm::SmallVector<int32_t, 2> operands;
    for (const UValue *in : inputs)
      operands.push_back(g.addInputLike(*in));
    int32_t kernel = -1;
    for (const UGraph &k : kernels) {
      if (!fits(k))
        return std::nullopt;
      kernel = g.addCustom(operands, k);
      if (kernel < 0)
        return std::nullopt;
      operands.assign({kernel});
    }
    g.markOutput(kernel);
    GraphCost c = estimateCost(g, target);
    if (!c.fits)
      return std::nullopt;
    return rankingSeconds(c, target);
  }

  /// The ranking figure of a tiling's kernels (chainRank).
  std::optional<double> tilingRank(const UOp &op, const MatmulTiling &t) const {
    llvm::SmallVector<UGraph, 2> kernels{matmulKernel(op, t)};
    if (t.splits > 1)
      kernels.push_back(splitCombineKernel(op, t));
    return chainRank({&val(op.operands[0]), &val(op.operands[1])}, kernels);
  }

  /// The small-matmul rule: the largest tiles within the options, grown
  /// until the grid has at most `maxBlocks` blocks.
  MatmulTiling defaultTiling(const UOp &op,
                             int64_t maxBlocks = kPreferredBlocks) const {
    const Shape &as = val(op.operands[0]).shape;
    const Shape &os = val(op.results[0]).shape;
    int64_t r = os.size(), m = os[r - 2], n = os[r - 1], k = as[r - 1];
    int64_t batch = r >= 3 ? os[0] : 1;
    int64_t tn = divisorAtMost(n, opt.matmulTileN);
    int64_t tm = divisorAtMost(m, opt.matmulTileM);
    while ((n / tn) * (m / tm) * batch > maxBlocks && (tn < n || tm < m)) {
      if (tn < n)
        tn = divisorAtMost(n, tn * 2);
      else
        tm = divisorAtMost(m, tm * 2);
    }
    return {tm, tn, divisorAtMost(k, opt.matmulTileK), 1};
  }

  /// A matmul that moves a megabyte should fill the machine: the cheapest
  /// by the cost model of the tilings of whole MMA fragments and K steps,
  /// with split-K where the column tile is all of N (Lowering.md, "Large
  /// matmuls").
  MatmulTiling rankedTiling(const UOp &op, const MatmulTiling &base,
                            int64_t maxBlocks = kPreferredBlocks) const {
    const Shape &os = val(op.results[0]).shape;
    int64_t r = os.size(), m = os[r - 2], n = os[r - 1];
    constexpr int64_t kMaxTile = 128;
    // An FMA matmul (operands not both f16/bf16) may take taller row tiles,
    // up to all of M: a prime M (197 ViT tokens) otherwise gets one row
    // per block, each re-reading its weight slab (FmaMicroTiles.md).
    constexpr int64_t kMaxFmaRows = 256;
    auto half = [](ElemType e) {
      return e == ElemType::F16 || e == ElemType::BF16;
    };
    bool fma =
        !half(val(op.operands[0]).type) || !half(val(op.operands[1]).type);
    llvm::SmallVector<int64_t, 8> rows = alignedDivisors(
        m, std::max(fma ? kMaxFmaRows : kMaxTile, base.tm), target.mma.m);
    llvm::SmallVector<int64_t, 8> cols =
        alignedDivisors(n, std::max(kMaxTile, base.tn), target.mma.n);
    if (!llvm::is_contained(rows, base.tm))
      rows.push_back(base.tm);
    if (!llvm::is_contained(cols, base.tn))
      cols.push_back(base.tn);
    // K steps from the options' up to kMaxKStep: a GEMV's tiles are thin,
    // and only a longer step puts a pipeline's worth of bytes in flight.
    constexpr int64_t kMaxKStep = 256;
    constexpr int64_t kMaxStackedSplits = 16;
    int64_t k = val(op.operands[0]).shape[r - 1];
    llvm::SmallVector<int64_t, 8> steps{base.tk};
    for (int64_t tk : alignedDivisors(k, kMaxKStep, target.mma.k))
      if (tk > base.tk)
        steps.push_back(tk);
    // The priced tilings, and their launches in the same order.
    llvm::SmallVector<MatmulTiling> tilings;
    llvm::SmallVector<RankedLaunch> launches;
    auto consider = [&](const MatmulTiling &t) {
      GridDims g = matmulGrid(op, t);
      int64_t blocks = g[0] * g[1] * g[2];
      if (blocks > maxBlocks)
        return;
      if (std::optional<double> rank = tilingRank(op, t)) {
        tilings.push_back(t);
        launches.push_back({*rank, blocks, t.splits == 1});
      }
    };
    consider(base);
    for (int64_t tk : steps)
      for (int64_t tm : rows) {
        for (int64_t tn : cols)
          consider({tm, tn, tk, 1});
        // Split-K saves its partials side by side, so it keeps the whole
        // column tile, however wide: a decode GEMV of 256 columns and
        // K = 32768 otherwise runs on 32 blocks of 8 columns (the plan
        // refuses tiles that do not fit).
        for (int64_t s = 2; s <= k / tk; ++s)
          if ((k / tk) % s == 0)
            for (CombineTiles c : {CombineTiles::Default, CombineTiles::Spread})
              consider({tm, n, tk, s, c});
        // Stacked, the column tiles stay free: an FMA matmul whose outputs
        // are too few to fill the machine with micro-tiles (197 x 768 ViT
        // fc2 over K = 3072, GPT-2's 128 x 2304 QKV over K = 768) splits K
        // into powers of two.
        if (stackable(op, tm))
          for (int64_t s = 2; s <= kMaxStackedSplits && s <= k / tk; s *= 2)
            if ((k / tk) % s == 0)
              for (int64_t tn : cols)
                for (CombineTiles c :
                     {CombineTiles::Default, CombineTiles::Spread})
                  consider({tm, tn, tk, s, c, /*stacked=*/true});
      }
    if (tilings.empty())
      return base;
    return tilings[pickRanked(launches, target)];
  }

  bool matmul(const UOp &op) {
    // Tiles for kPreferredBlocks; where those do not fit shared memory (a
    // 32 x 8192 x 8192 score matmul needs 2.6 MB tiles on 4096 blocks),
    // tiles for the rule's limit (GridLimits.md).
    int64_t maxBlocks = kPreferredBlocks;
    MatmulTiling t = defaultTiling(op);
    if (!fits(matmulKernel(op, t))) {
      maxBlocks = kMaxBlocks;
      t = defaultTiling(op, maxBlocks);
    }
    double moved = 0;
    for (int32_t v : op.operands)
      moved += bytesOf(val(v));
    if (moved >= kFillBytes)
      t = rankedTiling(op, t, maxBlocks);
    if (t.splits == 1)
      return emit(op, matmulKernel(op, t), "matmul");
    // Split-K: kernel 1 over A and B, kernel 2 over its partials.
    UGraph k1 = matmulKernel(op, t), k2 = splitCombineKernel(op, t);
    if (!k1.error.empty())
      return fail(op, "matmul", k1.error);
    if (!k2.error.empty())
      return fail(op, "matmul", k2.error);
    int32_t partial = out.addCustom(
        {map[op.operands[0]], map[op.operands[1]]}, std::move(k1));
    if (partial < 0)
      return fail(op, "matmul", out.error);
    int32_t sum = out.addCustom({partial}, std::move(k2));
    if (sum < 0)
      return fail(op, "matmul", out.error);
    map[op.results[0]] = sum;
    return true;
  }

  /// The block graph `build` makes for a partition of `shape` into tiles of
  /// about elementwiseTileElems: for kPreferredBlocks, or for the rule's
  /// kMaxBlocks where those tiles do not fit shared memory (an element-wise
  /// op over 10^8 elements; GridLimits.md).
  UGraph
  partitioned(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> whole,
              llvm::function_ref<UGraph(const Partition &)> build) const {
    UGraph b = build(partition(shape, opt.elementwiseTileElems, 256, whole));
    if (!b.error.empty() || fitsSharedMemory(b))
      return b;
    return build(
        partition(shape, opt.elementwiseTileElems, 256, whole, kMaxBlocks));
  }

  bool elementwise(const UOp &op) {
    const Shape &os = val(op.results[0]).shape;
    UGraph b = partitioned(os, {}, [&](const Partition &p) {
      llvm::SmallVector<int32_t> ins;
      UGraph k = blockFor(op, p, 1, ins);
      llvm::SmallVector<int32_t> tiles;
      for (size_t i = 0; i < ins.size(); ++i)
        tiles.push_back(k.addInputIterator(
            ins[i], operandMap(p, val(op.operands[i]).shape, os), -1));
      int32_t res = k.addLike(op, tiles);
      if (res >= 0)
        k.markOutput(saveInLoop(k, res, p.map));
      return k;
    });
    return emit(op, std::move(b), opKindName(op.kind));
  }

  bool reduce(const UOp &op) {
    const UValue &x = val(op.operands[0]);
    const Shape &os = val(op.results[0]).shape;
    UGraph b =
        reduceKernel(x.shape, x.type, os, op.dim, op.size, op.reduceKind());
    // Below a megabyte the rule keeps few blocks (a small reduce may run in
    // the tail of the kernel before it, which this kernel-local choice
    // cannot see), unless spreading it saves more than a launch: the
    // LayerNorm mean of 197 ViT tokens (605 KB) took 43 us on one block.
    UGraph spread = reduceKernel(x.shape, x.type, os, op.dim, op.size,
                                 op.reduceKind(), /*spread=*/true);
    if (b.grid != spread.grid && spread.error.empty() && fits(spread) &&
        ownSeconds(spread) + target.launchSeconds < ownSeconds(b))
      b = std::move(spread);
    if (std::optional<std::pair<UGraph, UGraph>> pair =
            rankedSplitReduce(op, b))
      return emitPair(op, std::move(pair->first), std::move(pair->second),
                      "reduce");
    return emit(op, std::move(b), "reduce");
  }

  /// A reduce that moves a megabyte on a grid that leaves SMs idle (fewer
  /// output rows than SMs) may split its reduced dim (Lowering.md, "a
  /// reduce of few long rows splits them"): the cheapest split pair by the
  /// ranking figure, if it ranks below `single`, the rule's kernel (within
  /// the 1 % tie band, the fuller grid). Nullopt: keep `single`.
  std::optional<std::pair<UGraph, UGraph>>
  rankedSplitReduce(const UOp &op, const UGraph &single) const {
    const UValue &x = val(op.operands[0]);
    const Shape &os = val(op.results[0]).shape;
    const int64_t d = op.dim, s = op.size;
    const int64_t blocks = single.grid[0] * single.grid[1] * single.grid[2];
    if (bytesOf(x) < kFillBytes || target.fillsMachine(blocks))
      return std::nullopt;
    Partition p = reducePartition(x.shape, x.type, os, d, /*spread=*/false);
    if (p.grid != single.grid)
      return std::nullopt; // the spread rule chose other tiles
    int splitAxis = -1;
    for (int a = 2; a >= 0; --a)
      if (p.map[a] < 0 && p.grid[a] == 1)
        splitAxis = a;
    if (splitAxis < 0)
      return std::nullopt;
    // Chunks of at least this many elements: a block's worth of 16-byte
    // copies, so that a split kernel is not all round trips.
    constexpr int64_t kMinChunk = 256;
    std::optional<double> singleRank = chainRank({&x}, {single});
    if (!singleRank)
      return std::nullopt;
    // The rule's kernel first: it wins a tie of grids.
    llvm::SmallVector<RankedLaunch> launches{{*singleRank, blocks, true}};
    std::vector<std::pair<UGraph, UGraph>> pairs;
    for (int64_t splits = 2; x.shape[d] % (splits * s) == 0 &&
                             x.shape[d] / splits >= std::max(kMinChunk, s) &&
                             blocks * splits <= kPreferredBlocks;
         splits *= 2) {
      Shape partials = os;
      partials[d] = splits * s;
      UGraph k1 = chunkReduceKernel(x.shape, x.type, p, d, s, op.reduceKind(),
                                    splits, splitAxis);
      if (!k1.error.empty())
        continue;
      for (bool spread : {false, true}) {
        UGraph k2 =
            reduceKernel(partials, x.type, os, d, s, op.reduceKind(), spread);
        if (!k2.error.empty())
          continue;
        if (std::optional<double> rank = chainRank({&x}, {k1, k2})) {
          launches.push_back({*rank, blocks * splits, false});
          pairs.emplace_back(k1, std::move(k2));
        }
      }
    }
    size_t best = pickRanked(launches, target);
    if (best == 0)
      return std::nullopt;
    return pairs[best - 1];
  }

  /// Adds a pair of kernels computing `op`: `k1` over its operand, `k2`
  /// over `k1`'s result.
  bool emitPair(const UOp &op, UGraph k1, UGraph k2, llvm::StringRef what) {
    int32_t partial = out.addCustom({map[op.operands[0]]}, std::move(k1));
    if (partial < 0)
      return fail(op, what, out.error);
    int32_t result = out.addCustom({partial}, std::move(k2));
    if (result < 0)
      return fail(op, what, out.error);
    map[op.results[0]] = result;
    return true;
  }

  /// A block graph's estimate as a launch of its own.
  double ownSeconds(const UGraph &block) const {
    return estimateKernel(block, planKernel(block, target), target).seconds;
  }

  /// rms_norm in two kernels, for rows too wide for one block's tiles:
  /// kernel 1 folds each row's squares over a for-loop of column chunks
  /// (the rms_last accumulator, whose count spans the loop: AccumRules.h),
  /// kernel 2 divides every element by its row's rms and applies the
  /// weight, on a grid over rows and columns.
  bool rmsNormTwoKernels(const UOp &op) {
    const Shape &xs = val(op.operands[0]).shape;
    const ElemType type = val(op.operands[0]).type;
    int64_t r = xs.size();
    Shape rowsShape = xs;
    rowsShape.back() = 1;
    Partition rows = partition(rowsShape, 1, 1, {r - 1});
    int64_t rowsPerBlock = numElements(rows.tile);
    int64_t chunk = divisorAtMost(
        xs.back(), std::max<int64_t>(opt.elementwiseTileElems / rowsPerBlock,
                                     target.mma.n));
    int64_t forloop = xs.back() / chunk;
    UGraph a(Level::Block);
    a.grid = rows.grid;
    a.forloopRange = forloop;
    int32_t ax = a.addInput(xs, type);
    int32_t at = a.addInputIterator(ax, rows.map, forloop > 1 ? r - 1 : -1);
    int32_t rms = a.addAccum(AccumKind::rms_last, at, -1, 0, op.scalar);
    a.markOutput(a.addOutputSaver(rms, rows.map));
    if (!a.error.empty())
      return fail(op, "rms_norm", a.error);
    if (!fitsSharedMemory(a))
      return fail(op, "rms_norm", "a row chunk does not fit in shared memory");
    int32_t rmsValue = out.addCustom({map[op.operands[0]]}, std::move(a));
    if (rmsValue < 0)
      return fail(op, "rms_norm", out.error);

    UGraph b = partitioned(xs, {}, [&](const Partition &p) {
      UGraph k(Level::Block);
      k.grid = p.grid;
      k.forloopRange = 1;
      int32_t kx = k.addInput(xs, type);
      int32_t kr = k.addInput(rowsShape, type);
      int32_t y =
          k.addBinary(BinaryKind::div, k.addInputIterator(kx, p.map, -1),
                      k.addInputIterator(kr, operandMap(p, rowsShape, xs), -1));
      if (op.operands.size() > 1) {
        const UValue &w = val(op.operands[1]);
        int32_t kw = k.addInputLike(w);
        y = k.addBinary(BinaryKind::mul, y,
                        k.addInputIterator(kw, operandMap(p, w.shape, xs), -1));
      }
      k.markOutput(saveInLoop(k, y, p.map));
      return k;
    });
    llvm::SmallVector<int32_t, 3> operands{map[op.operands[0]], rmsValue};
    if (op.operands.size() > 1)
      operands.push_back(map[op.operands[1]]);
    if (!b.error.empty())
      return fail(op, "rms_norm", b.error);
    int32_t first = out.addCustom(operands, std::move(b));
    if (first < 0)
      return fail(op, "rms_norm", out.error);
    map[op.results[0]] = first;
    return true;
  }

  bool rmsNorm(const UOp &op) {
    const Shape &xs = val(op.operands[0]).shape;
    int64_t r = xs.size();
    // Rows stay whole along the normalised (last) dim; one loop iteration.
    Partition p = partition(xs, std::max<int64_t>(xs[r - 1], 256), 0, {r - 1});
    llvm::SmallVector<int32_t> ins;
    UGraph b = blockFor(op, p, 1, ins);
    int32_t xt = b.addInputIterator(ins[0], p.map, -1);
    int32_t rms = b.addAccum(AccumKind::rms_last, xt, -1, 0, op.scalar);
    int32_t x = b.addAccum(AccumKind::sum, xt, -1, 0);
    int32_t y = b.addBinary(BinaryKind::div, x, rms);
    if (ins.size() > 1) {
      int32_t wt = b.addInputIterator(
          ins[1], operandMap(p, val(op.operands[1]).shape, xs), -1);
      y = b.addBinary(BinaryKind::mul, y, b.addAccum(AccumKind::sum, wt, -1, 0));
    }
    b.markOutput(b.addOutputSaver(y, p.map));
    // Rows too wide for one block's tiles (f32 sums of a 16384-wide row
    // alone are 64 KiB each) take the two-kernel form.
    if (b.error.empty() && !fitsSharedMemory(b))
      return rmsNormTwoKernels(op);
    return emit(op, std::move(b), "rms_norm");
  }

  bool concat(const UOp &op) {
    const Shape &os = val(op.results[0]).shape;
    UGraph b = partitioned(os, {op.dim}, [&](const Partition &p) {
      llvm::SmallVector<int32_t> ins;
      UGraph k = blockFor(op, p, 1, ins);
      int32_t at = k.addInputIterator(ins[0], p.map, -1);
      int32_t bt = k.addInputIterator(ins[1], p.map, -1);
      k.markOutput(saveInLoop(k, k.addConcat(at, bt, op.dim), p.map));
      return k;
    });
    return emit(op, std::move(b), "concat");
  }

  bool custom(const UOp &op) {
    llvm::SmallVector<int32_t> operands;
    for (int32_t v : op.operands)
      operands.push_back(map[v]);
    int32_t first = out.addLike(op, operands, src.bodies[op.body]);
    if (first < 0)
      return fail(op, "custom kernel", out.error);
    for (size_t i = 0; i < op.results.size(); ++i)
      map[op.results[i]] = first + i;
    return true;
  }

  bool run() {
    out.name = src.name;
    out.reference = src.reference;
    out.target = src.target;
    for (int32_t in : src.inputs)
      map[in] = out.addInputLike(val(in));
    for (const UOp &op : src.ops) {
      bool ok = false;
      switch (op.kind) {
      case OpKind::Matmul:
        ok = matmul(op);
        break;
      case OpKind::Unary:
      case OpKind::Binary:
        ok = elementwise(op);
        break;
      case OpKind::Reduce:
        ok = reduce(op);
        break;
      case OpKind::RmsNorm:
        ok = rmsNorm(op);
        break;
      case OpKind::Concat:
        ok = concat(op);
        break;
      case OpKind::Custom:
        ok = custom(op);
        break;
      case OpKind::InputIterator:
      case OpKind::Accum:
      case OpKind::OutputSaver:
      case OpKind::ThreadGraph:
      case OpKind::RunningMax:
        ok = fail(op, opKindName(op.kind), "not a kernel-level operator");
        break;
      }
      if (!ok)
        return false;
    }
    for (int32_t o : src.outputs)
      out.markOutput(map[o]);
    return true;
  }
};

} // namespace

static std::optional<UGraph> expand(const UGraph &g,
                                    const KernelExpansionOptions &o,
                                    const TargetInfo &target,
                                    std::string &error) {
  if (g.level != Level::Kernel) {
    error = "only kernel graphs have pre-defined kernels to expand";
    return std::nullopt;
  }
  KernelExpansionOptions opts = o;
  if (opts.sharedMemoryBytes == 0)
    opts.sharedMemoryBytes = target.smemBytesPerBlock;
  Expander e(g, opts, target);
  if (!e.run()) {
    error = e.error;
    return std::nullopt;
  }
  return std::move(e.out);
}

std::optional<UGraph>
mirage::expandPredefinedKernels(const UGraph &g,
                                const KernelExpansionOptions &o,
                                std::string &error) {
  std::optional<TargetInfo> t =
      lookupTarget(g.target.empty() ? llvm::StringRef(kDefaultTarget)
                                     : llvm::StringRef(g.target));
  if (!t)
    t = lookupTarget(kDefaultTarget);
  return expand(g, o, *t, error);
}

bool mirage::hasPredefinedKernels(const UGraph &g) {
  // Every op of a kernel graph other than a custom kernel is pre-defined.
  return g.level == Level::Kernel &&
         llvm::any_of(g.ops,
                      [](const UOp &op) { return op.kind != OpKind::Custom; });
}

GraphCost mirage::estimateEmittedCost(const UGraph &g,
                                      const TargetInfo &target) {
  if (!hasPredefinedKernels(g))
    return estimateCost(g, target);
  std::string error;
  // The code generator's options: mirage-kernels-to-ptx and the CPU path
  // expand with the defaults (KernelToLoopsOptions::expansion).
  std::optional<UGraph> emitted =
      expand(g, KernelExpansionOptions(), target, error);
  return estimateCost(emitted ? *emitted : g, target);
}

std::string mirage::emittedCostFingerprint(const TargetInfo &target) {
  // The probes' expansions rank their tilings: once per process for each
  // target's figures (which the model's fingerprint stands for). Cheap: a
  // whole mirage-superoptimize run of one small graph, this included,
  // takes 0.08 s (measured 2026-12-01).
  std::string model = costModelFingerprint(target);
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mutex);
  std::string &memo = known[target.name.str() + ";" + model];
  if (!memo.empty())
    return memo;
  // The model's fingerprint and the bits of each probe's emitted estimate.
  FingerprintHash h;
  h.add(model);
  // Pre-defined kernels whose expansions take the rules' several branches:
  // a tiled and a split-K f16 GEMV, f32 matmuls of prime rows and of
  // whole row blocks (stacked split-K, FmaMicroTiles.md), a small and a
  // large reduce, an rms_norm.
  std::vector<UGraph> probes;
  auto matmul = [&](Shape a, Shape b, ElemType t) {
    UGraph g;
    g.markOutput(g.addMatmul(g.addInput(a, t), g.addInput(b, t)));
    probes.push_back(std::move(g));
  };
  matmul({16, 2048}, {2048, 2048}, ElemType::F16);
  matmul({8, 32768}, {32768, 256}, ElemType::F16);
  matmul({1, 197, 3072}, {1, 3072, 768}, ElemType::F32);
  matmul({128, 768}, {768, 2304}, ElemType::F32);
  for (Shape x : {Shape{1, 197, 768}, Shape{64, 8192}}) {
    UGraph g;
    g.markOutput(g.addReduce(ReduceKind::sum, g.addInput(x, ElemType::F32),
                             static_cast<int64_t>(x.size()) - 1, 1));
    probes.push_back(std::move(g));
  }
  {
    UGraph g;
    g.markOutput(g.addRmsNorm(g.addInput({16, 4096}, ElemType::F16), -1));
    probes.push_back(std::move(g));
  }
  for (const UGraph &g : probes) {
    GraphCost c = estimateEmittedCost(g, target);
    h.add(c.seconds);
    h.add(static_cast<double>(c.kernels.size()));
    for (const KernelCost &k : c.kernels)
      h.add(static_cast<double>(k.blocks));
  }
  memo = h.hex();
  return memo;
}

//===- Stages.h - The stages of the fused-kernel search ---------*- C++ -*-===//
//
// Private to lib/Search: one declaration per stage of searchFusedKernel
// (FusionSearch.cpp is the driver), each implemented in its own file here:
//
//   Probe.cpp           the reference scaled down to probe shapes
//   LaunchPatterns.cpp  grid and for-loop classes of a launch
//   OperatorMenu.cpp    the block operators an enumeration may add
//   Prologue.cpp        input-local op chains applied to input tiles
//   Enumerate.cpp       canonical depth-first block-graph enumeration
//   CandidateCheck.cpp  a closed prefix → candidates, witness, probe verifier
//   Transplant.cpp      a found graph rebuilt on another grid of its group
//   Instantiate.cpp     a probe block graph at real shapes, ranked by cost
//   SplitReduction.cpp  a found block graph as a split kernel + combine
//   CombineGrid.cpp     a split pair's combine spread over more blocks
//   Stabilize.cpp       the row max of a softmax put back into instances
//   OnlineSoftmax.cpp   a one-kernel instance as a flash-attention kernel
//   Progress.cpp        progress snapshots for the user
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_SEARCH_FUSIONSEARCH_STAGES_H
#define MIRAGE_LIB_SEARCH_FUSIONSEARCH_STAGES_H

#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Semantics/Tensor.h"
#include "Mirage/Search/FusionSearch.h"
#include "Mirage/Search/IndexAlignment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>

namespace mirage::search::fusion {

using Clock = std::chrono::steady_clock;
inline double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
int64_t smallestFactor(int64_t n);

//===--- Probe.cpp --------------------------------------------------------===//

/// The reference scaled down: every index class gets a small extent, distinct
/// for distinct large classes so that unrelated dims do not line up by
/// accident.
struct Probe {
  IndexClasses classes;        // of the real reference (real extents)
  std::vector<int64_t> extent; // per class, at probe size
  UGraph ref{Level::Kernel};
  bool ok = false;
};
Probe makeProbe(const UGraph &ref);

//===--- LaunchPatterns.cpp -----------------------------------------------===//

struct Pattern {
  std::vector<int> gridClasses; // one per active grid axis (x, y, z)
  int loopClass = -1;
};
/// Up to three parallel classes on the grid, at most one reduction class in
/// the for-loop. Unless `splitReduced`, a class the reference reduces over
/// never goes on the grid: in one kernel a block sees only its chunk of
/// such a class, and the outputs along it depend on all of it.
std::vector<Pattern> launchPatterns(const IndexClasses &ic, bool splitReduced);

/// Each output's omap under `pattern`: its dim in each grid class; false
/// if an output lacks one (no block graph of the pattern can save it).
bool patternOutputMaps(const Pattern &pattern, const IndexClasses &classes,
                       const UGraph &ref, std::vector<AxisMap> &omaps);

/// The enumeration groups of `patterns` (FusionSearch.md, "One enumeration
/// per loop class"): patterns with the same for-loop class whose grid
/// classes are all unreduced enumerate the same block graphs, so they share
/// a group, named by its first pattern; any other pattern is a group of its
/// own.
std::vector<size_t> enumerationGroups(const std::vector<Pattern> &patterns,
                                      const IndexClasses &classes);

/// Adds one input iterator per input of `ref` to the block graph `b`
/// (whose grid and for-loop are set): imap and fmap are each input's dims
/// in the pattern's classes. False if the pattern cannot be launched (a
/// builder rejects a map, or a grid axis splits no input). With
/// `loopWalkedOnly`, only the inputs the for-loop walks get an iterator
/// and no axis is checked: a split kernel's floor, whose loop-invariant
/// tiles its combine may load instead (AfterLoopInvariants.md).
bool addPatternIterators(UGraph &b, const Pattern &pattern,
                         const IndexClasses &classes, const UGraph &ref,
                         bool loopWalkedOnly = false);

/// `b` (an empty block graph) set up for `pattern` at probe shapes: target,
/// grid and for-loop of the probe extents, the pattern's iterators, and
/// `omaps` the outputs' omaps; false if the pattern cannot be launched.
/// Declared after the launch-pattern stage it builds on; defined in
/// Probe.cpp.
bool probeBlock(const Probe &probe, const Pattern &pattern,
                const std::string &target, UGraph &b,
                std::vector<AxisMap> &omaps);

//===--- OperatorMenu.cpp -------------------------------------------------===//

/// One step of an input chain: a binary operator combining the previous
/// value with the tile of reference input `input` (its operand `inputFirst`
/// ? 0 : 1).
struct InputStep {
  BinaryKind kind;
  int32_t input;
  bool inputFirst;
  bool operator==(const InputStep &o) const {
    return kind == o.kind && input == o.input && inputFirst == o.inputFirst;
  }
};

/// One kind of block operator the enumeration may add.
struct MenuItem {
  OpKind kind;
  int32_t sub = 0;
  double scalar = 0;
  int64_t dim = 0;
  unsigned arity = 1;
  bool commutative = false;
  bool inLoopOnly = false; // accumulators
  /// An input chain (docs/Rationale/FusionSearch.md, "Input chains"): two
  /// or more binary operators, each combining the previous value with the
  /// tile of a graph input that only it reads (a mask applied to scores,
  /// s·keep + fill; LayerNorm's ·w + b), added as one step on the item's
  /// one operand. Empty for a plain operator.
  llvm::SmallVector<InputStep, 2> chain;
  /// The same operator (commutative and inLoopOnly follow from the rest).
  bool operator==(const MenuItem &o) const;
};
/// The menu of `ref`'s ops, or of those `includeOp(index)` accepts.
std::vector<MenuItem>
operatorMenu(const UGraph &ref,
             llvm::function_ref<bool(size_t)> includeOp = nullptr);

//===--- Prologue.cpp -----------------------------------------------------===//

/// The prologues of one launch pattern's block graph.
struct Prologues {
  /// Per value of the block graph after addPrologues: 1 for a value that
  /// the enumeration must not use (only its prologue chain reads it).
  std::vector<char> hidden;
  /// Per op of the reference: applied as a prologue. The enumeration
  /// offers only the menu of the other ops (an item that only prologue ops
  /// asked for, such as the scale of a scaled input, is not needed).
  std::vector<bool> fused;
};
/// Applies to `b`'s input tiles (its iterators set, nothing else) each
/// input's prologue chain: the ops of `ref` that read that input alone (an
/// rms_norm's weight may be another input), as far as none reduces a dim
/// `pattern` splits (docs/Rationale/FusionSearch.md, "Prologues").
Prologues addPrologues(UGraph &b, const Pattern &pattern,
                       const IndexClasses &classes, const UGraph &ref);

//===--- Stabilize.cpp ----------------------------------------------------===//

/// Grid axes 0..2, then the for-loop as axis 3.
constexpr size_t kTileAxes = 4;
using TileAxisDims = std::array<int64_t, kTileAxes>;
/// For every grid axis and the for-loop, the dim of block value `v` whose
/// tiles it selects, or -1 when it leaves `v` whole; nullopt when one
/// selects a part of a sum (a matmul's contraction, a reduced dim), so that
/// `v` is not a tile of one tensor.
std::optional<TileAxisDims> partitionedDims(const UGraph &b, int32_t v);

/// A reference whose softmax subtracts the row max, without the shifts
/// (docs/Rationale/StableSoftmax.md).
struct ShiftFree {
  UGraph ref{Level::Kernel}; // exp(x − reduce_max(x, d)) → exp(x)
  const UGraph *original = nullptr; // the reference as written
  int32_t maxValue = -1;     // reduce_max(x, d) in `original`
  int64_t rowDim = -1;       // d
  unsigned shifts = 0;       // 1: one row max serves every exp
  /// The scores (the max's operand) as a kernel graph over the reference's
  /// inputs `scoresInputs` (indices): the reference's own ops, or a cheaper
  /// verified form the search found for them. The row max of every
  /// stabilized instance is the reference's reduce max over its result.
  UGraph scores{Level::Kernel};
  std::vector<size_t> scoresInputs;
};
/// The shift-free copy of `ref`, or nullopt if `ref` has no shift whose max
/// and difference have no other reader (or shifts along different dims).
std::optional<ShiftFree> shiftFreeReference(const UGraph &ref);
/// `g` (a kernel graph found for `shift.ref`) with every exp of its custom
/// kernels shifted by the row max, computed by the reference's own ops;
/// nullopt if some exp cannot be shifted (such a graph must never be
/// emitted).
std::optional<UGraph> stabilizeExps(const UGraph &g, const ShiftFree &shift);
/// The kernel graph of the reference's ops that compute its row max (every
/// stabilized instance starts with them; their cost is part of every
/// pattern's cost floor).
UGraph rowMaxGraph(const ShiftFree &shift);
/// Flash-decoding's form of a split pair `pair` (kernel 1 with a for-loop
/// of one iteration, kernel 2 folding its partials; instantiateSplit) found
/// for `shift.ref`: kernel 1 shifts its exp by the row max of its own tile
/// and saves that max beside the partials; kernel 2 takes the max M of the
/// saved maxima and scales every partial of split b by exp(m_b − M) before
/// summing it. No scores kernel, no row-max kernel: K and V are read once.
/// Verified in mode S (Verification.md §2a), since the maxima are not the
/// reference's. With `online`, kernel 1 may loop over its split (the loop
/// walking the row dim): it then shifts by its running max, rescales its
/// sums by exp(prev − cur) (rescaledAccumulators) and saves the last cur.
/// nullopt where the pair has no such form (a for-loop of more than one
/// iteration without `online`, an exp that is not a tile's row, a max
/// partial).
std::optional<UGraph> localizeSplitMax(const UGraph &pair,
                                       const ShiftFree &shift,
                                       bool online = false);

/// The index class of dim `rowDim` of the operands of `target`'s exps: the
/// softmax row that a shift-free reference's row max reduced (`target` is
/// ShiftFree::ref, normalised; `classes` its index classes), the one class
/// whose split kernels may be in flash-decoding form; -1 if the exps
/// disagree or there is none.
int softmaxRowClass(const UGraph &target, const IndexClasses &classes,
                    int64_t rowDim);

//===--- OnlineSoftmax.cpp ------------------------------------------------===//

/// Online softmax's form of a one-kernel instance `g` (instantiate) found
/// for `shift.ref` whose for-loop walks the row dim of its exp's argument y
/// (docs/Rationale/OnlineSoftmax.md, "Search"): `prev, cur = running_max y`
/// in the loop, exp(y) → exp(y − cur), and every sum accumulator the exp
/// reaches rescaled by exp(prev − cur). No row-max kernel and no second
/// pass over the scores: one flash-attention kernel. Verified in mode S.
/// nullopt where the instance has no such form (no loop, an exp that is not
/// a tile of rows walked by the loop, a path from the exp to an accumulator
/// that is not linear in it, an accumulator that is not a plain sum).
std::optional<UGraph> onlineSoftmax(const UGraph &g, const ShiftFree &shift);
/// Per op of block graph `b`: whether it is an accumulator that the in-loop
/// exp op `expIdx` reaches and that must take the rescale exp(prev − cur)
/// when the exp is shifted by the running max of dim `d`; nullopt when some
/// path from the exp to an accumulator is not linear in it or does not keep
/// its rows, or the accumulator is not a plain sum (see onlineSoftmax).
std::optional<std::vector<bool>>
rescaledAccumulators(const UGraph &b, int64_t expIdx, int64_t d);

//===--- Normalize.cpp ----------------------------------------------------===//

/// Readers of every value of `g`, ops and outputs counted alike.
std::vector<unsigned> readerCounts(const UGraph &g);

/// `ref` with x · reciprocal(y) as x / y and (a @ b) · c as (a · c) @ b
/// where the matmul alone reads a (or b): exact rewrites that bring
/// frontend spellings within the menu and the depth (a scaled input, or a
/// scaled end of a prologue chain, is part of the prologue). `ref` itself
/// if a rewrite is refused.
UGraph normalizeForSearch(const UGraph &ref);

//===--- CandidateCheck.cpp -----------------------------------------------===//

/// A one-test inequivalence witness run before the probe verifier
/// (docs/Rationale/FusionSearch.md, "Verification of every candidate").
struct ProbeWitness {
  using Sem = ff::FiniteFieldSemantics;
  using T = Tensor<ff::FieldValue>;
  struct Mode {
    uint64_t key = 0;
    ff::FieldModuli moduli; // drawn once from the key, reused per candidate
    Sem::ExpMode mode = Sem::ExpMode::Uninterpreted;
    std::vector<T> ins, outs;
    bool usable = false;
  };
  Mode modes[2];

  void init(const UGraph &ref, uint64_t seed);
  /// False only when `cand` provably differs from the reference in both
  /// modes.
  bool mayBeEquivalent(const UGraph &cand) const;
};

//===--- Shared state of one search ---------------------------------------===//

class ProgressReporter;

/// What every worker of one search shares: options, clock, counters.
struct SearchContext {
  const FusionSearchOptions &opts;
  Clock::time_point start = Clock::now();
  std::atomic<uint64_t> states{0}, pruned{0}, candidates{0}, verified{0},
      outputsPruned{0};
  std::atomic<bool> timedOut{false};
  const ProbeWitness *witness = nullptr;
  ProgressReporter *progress = nullptr;

  explicit SearchContext(const FusionSearchOptions &opts) : opts(opts) {}
  /// True once the time budget is spent (sticky).
  bool expired();
};

/// A block graph verified at probe shapes.
struct Found {
  UGraph block; // probe-shaped block graph with savers and outputs
  size_t pattern;
};

/// Closes the prefix `block` with one saver per output (sinks matched to
/// outputs by shape, in every order) and keeps the candidates that pass the
/// witness and the probe verifier. With a `session` (the enumeration's
/// pruning session, when `pruneOutputs`), an order whose saved values the
/// session rejects (PruneSession::mayBeOutput) is dropped before the
/// witness.
void checkCandidates(SearchContext &ctx, const UGraph &probeRef,
                     const UGraph &block, llvm::ArrayRef<int32_t> sinks,
                     llvm::ArrayRef<AxisMap> omaps, size_t patternIndex,
                     PruneSession *session, std::vector<Found> &found);

/// The witness, then the verifier at probe shapes, on `block` (a closed
/// probe block graph with savers and outputs) against `ref`; counts the
/// candidate and, if accepted, the verified graph.
bool acceptAtProbe(SearchContext &ctx, const UGraph &ref, const UGraph &block);

//===--- Enumerate.cpp ----------------------------------------------------===//

/// One enumeration run by several workers (FusionSearch.md, "One pattern
/// on every core"). Its branches are the prefixes of `kShareDepth`
/// operators in canonical order; every worker walks the prefixes, and each
/// branch's subtree is enumerated by the worker that claims it (in order,
/// from `nextBranch`, when it finishes its previous one). The prefixes'
/// states are counted by worker 0 alone, so the counters and, after
/// `merged`, the order of the found graphs are those of one worker alone,
/// whatever the number of workers and the scheduling.
struct SharedEnumeration {
  /// The prefix length whose subtrees are shared out: two operators give
  /// tens to hundreds of branches for the deep rounds, enough to balance
  /// two to sixteen workers, and cost each worker only the walk over them.
  static constexpr unsigned kShareDepth = 2;
  struct Worker {
    std::vector<Found> found;
    /// (branch, index in `found` where its graphs begin), ascending.
    std::vector<std::pair<uint64_t, size_t>> starts;
  };
  std::atomic<uint64_t> nextBranch{0};
  std::vector<Worker> workers;

  /// `workers` workers for a round of `ops` operators: one where no
  /// operator follows the branches' prefixes (a round that shallow is a
  /// walk over prefixes only).
  SharedEnumeration(unsigned workers, unsigned ops)
      : workers(ops > kShareDepth ? std::max(workers, 1u) : 1u) {}
  /// The found graphs of every worker, in the order one worker finds them.
  std::vector<Found> merged();
};

/// Round `ops` of one launch pattern, the part of it that worker `worker`
/// of `shared` enumerates: with `ops` == 0 the reference's own operators as
/// one block graph, otherwise every canonical block graph of exactly `ops`
/// operators.
void enumerateBlockGraphs(SearchContext &ctx, const Probe &probe,
                          const Pattern &pattern, size_t patternIndex,
                          const std::vector<MenuItem> &menu,
                          const PruneFn &prune, unsigned ops,
                          SharedEnumeration &shared, unsigned worker);

//===--- Transplant.cpp ---------------------------------------------------===//

/// `f` (found for another pattern of the same enumeration group) rebuilt
/// on `pattern`'s grid: its operators replayed on this pattern's iterators,
/// its savers on this pattern's omaps, then checked like a candidate
/// (acceptAtProbe). False if a builder refuses it or the check does not
/// accept it.
bool transplantFound(SearchContext &ctx, const Probe &probe, const Found &f,
                     const Pattern &pattern, size_t patternIndex, Found &out);

//===--- SplitReduction.cpp -----------------------------------------------===//

/// How a found block graph becomes a split pair (docs/Rationale/
/// MultiKernel.md): which ops form the loop part (kernel 1) and which the
/// after-loop part (kernel 2), and where each accumulator's partial results
/// go. Depends only on the block graph's structure, so it is computed once
/// per found graph.
struct SplitPlan {
  struct Partial {
    int32_t accum;        // the accumulator's result in the found graph
    AxisMap omap;         // the original grid axes' dims in its tile
    int64_t splitDim;     // where the splits are concatenated
    AccumKind combine;    // how kernel 2 folds the splits
  };
  std::vector<Partial> partials;
  unsigned splitAxis = 0; // the grid axis kernel 1 adds
  /// Per op of the found graph: kernel 1 replays it (its loop part, less
  /// the reloaded ops only kernel 2 reads).
  std::vector<bool> kernel1Ops;
  /// Per op: an op of the loop part that kernel 2 replays too, because its
  /// after-loop part reads the loop-invariant tile it computes (a bias;
  /// AfterLoopInvariants.md).
  std::vector<bool> reloadedOps;
  /// The found graph's inputs those replays read, in order: kernel 2's
  /// inputs after the partials.
  std::vector<size_t> reloadedInputs;
  bool ok = false;
  std::string why;        // if not ok
};
/// The split plan of `block` (a probe block graph with savers) launched by
/// `pattern`; not ok when the graph has no split form.
SplitPlan planSplit(const UGraph &block, const Pattern &pattern);

/// Builds the split pair of `block` at the reference's real shapes: kernel
/// 1 with `grid` plus `splits` blocks on the plan's split axis and a
/// for-loop of `forloop`, kernel 2 with `grid` and a for-loop over the
/// splits. With `foldSplits`, kernel 2 instead loads every split's partial
/// at once (one iteration) and folds them with a strided reduce along the
/// split dim (MultiKernel.md, "One round trip for the combine"). False if a
/// builder or the target's shared memory refuses it.
bool instantiateSplit(const UGraph &block, const SplitPlan &plan,
                      const UGraph &ref, const GridDims &grid, int64_t splits,
                      int64_t forloop, UGraph &out, bool foldSplits = false);

//===--- CombineGrid.cpp --------------------------------------------------===//

/// The fewest elements a widened combine's tile keeps along its last dim
/// (16 bytes of f16: one vector store per row). Along another dim a tile
/// may keep one element: its rows stay whole runs (MultiKernel.md,
/// "Refined rows").
constexpr int64_t kMinCombineTile = 8;

/// The largest grid the search enumerates: a bound of the search space, not
/// the μGraph rule (kMaxBlocks, far larger; docs/Rationale/GridLimits.md).
constexpr int64_t kSearchMaxBlocks = 4096;

/// The factors a combine of `blocks` blocks may be spread by along a dim of
/// extent `extent`: powers of two from 2 that divide it, leaving at least
/// kMinCombineTile elements per tile along the last (`contiguous`) dim, one
/// along another, and at most kSearchMaxBlocks blocks.
std::vector<int64_t> combineWideningFactors(int64_t extent, int64_t blocks,
                                            bool contiguous);

/// Copies of a split pair `pair` (a kernel graph whose last custom kernel
/// folds the partials: instantiateSplit, localizeSplitMax) with that kernel
/// also spread over its free grid axis along a dim of its outputs, one per
/// factor, and each of those and the pair with an axis that already splits
/// a dim of the outputs splitting it finer (docs/Rationale/MultiKernel.md,
/// "Combining kernels that fill the machine", "Refined rows"). Empty when
/// the combine is parallel along no dim it could spread or refine.
std::vector<UGraph> widenedCombines(const UGraph &pair);

//===--- Instantiate.cpp --------------------------------------------------===//

/// The cheapest real-shape instance of one found block graph in one form.
struct Instance {
  UGraph graph;
  double seconds = std::numeric_limits<double>::infinity(); // estimate
  double rank = std::numeric_limits<double>::infinity(); // ranking figure
  double paddingFlops = 0;       // LaunchEstimate::paddingFlops, for ties
  size_t pattern = 0, index = 0; // the Found's place, for a stable order
  bool split = false;            // a split pair (ranks after one kernel on ties)
  bool valid() const { return seconds < std::numeric_limits<double>::infinity(); }
};

/// Counters of one found graph's instantiation.
struct InstanceCounts {
  uint64_t instances = 0, splitInstances = 0;
};

/// Rebuilds `found` at the real shapes for every grid extent and for-loop
/// range its pattern allows (within the block and shared-memory limits) and
/// returns the cheapest one-kernel instance and, if `split` and the graph
/// has a split form, the cheapest split pair, and if `online` the cheapest
/// one-kernel instance in online-softmax form (invalid instances dropped).
std::vector<Instance> cheapestInstances(const Found &found,
                                        const Pattern &pattern,
                                        const IndexClasses &classes,
                                        const UGraph &reference,
                                        const CostFn &cost, bool split,
                                        InstanceCounts &counts,
                                        const ShiftFree *shift = nullptr,
                                        bool online = false);

/// Calls `fn(grid, forloop)` for every real launch of `pattern`: powers of
/// two dividing each class's extent, at most kSearchMaxBlocks blocks.
void forEachLaunch(const Pattern &pattern, const IndexClasses &classes,
                   llvm::function_ref<void(const GridDims &, int64_t)> fn);

/// Calls `fn(grid, splits, forloop)` for every split launch of `pattern`
/// (a for-loop class and a free grid axis needed): the pattern's grids,
/// times powers of two `splits` ≥ 2 and `forloop` ≥ 1 whose product divides
/// the for-loop class's extent, at most kSearchMaxBlocks blocks with the
/// splits.
void forEachSplitLaunch(
    const Pattern &pattern, const IndexClasses &classes,
    llvm::function_ref<void(const GridDims &, int64_t, int64_t)> fn);

/// The least costFloor over the real launches of `pattern`, split launches
/// included when `split` (infinity if none can be built). `rowMaxPrefix`
/// is the cost of the row-max kernels every stabilized instance starts
/// with; it is added to every launch but the split ones with a for-loop of
/// one iteration, which may be in flash-decoding form (localizeSplitMax),
/// and, if `online`, the one-kernel ones with a for-loop and every split
/// one, which may be in online-softmax form (onlineSoftmax, or
/// localizeSplitMax with a running max); those do without them. These forms
/// exist only where the for-loop (or split) walks `rowClass`, the class of
/// the softmax row the max reduces (-1: any class).
/// A split pair's combine costs at least the lesser of its own launch's
/// floor and `tailFloor` (FusionSearchOptions::tailCombineFloor). An
/// instance's first kernel, the custom kernel where no row-max kernels come
/// before it, pays `firstLaunch` more (FusionSearchOptions::
/// firstLaunchFloor).
double patternCostFloor(const Pattern &pattern, const IndexClasses &classes,
                        const UGraph &reference, const CostFloorFn &floor,
                        bool split, double rowMaxPrefix = 0,
                        bool online = false, int rowClass = -1,
                        double tailFloor = 0, double firstLaunch = 0);

//===--- Progress.cpp -----------------------------------------------------===//

/// Sends snapshots to the options' sink: at round ends, and from workers at
/// most every progressEverySeconds; silent until progressAfterSeconds.
class ProgressReporter {
public:
  ProgressReporter(SearchContext &ctx, size_t patterns);
  void startRound(unsigned round);
  void patternDone() { ++patternsDone; }
  void setBest(double seconds);
  /// From workers: a snapshot if one is due (never blocks).
  void tick();
  /// From the driver: a snapshot at the end of a round (if past the
  /// threshold).
  void roundDone();

private:
  SearchProgress snapshot(bool roundDone) const;
  SearchContext &ctx;
  bool enabled;
  size_t patterns;
  std::atomic<unsigned> round{0};
  std::atomic<size_t> patternsDone{0};
  std::atomic<double> bestSeconds{std::numeric_limits<double>::infinity()};
  std::mutex mutex; // one report at a time; guards lastReport
  double lastReport = 0;
};

} // namespace mirage::search::fusion

#endif // MIRAGE_LIB_SEARCH_FUSIONSEARCH_STAGES_H

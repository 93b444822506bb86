//===- FusionSearch.h - Search for fused graph-defined kernels --*- C++ -*-===//
//
// Finds a single graph-defined kernel (a block graph) equivalent to an
// unfused reference kernel graph, in three stages:
//
//  1. Launch patterns: the grid splits up to three *parallel* index classes
//     of the reference and the for-loop walks at most one *reduction* class
//     (IndexAlignment.h); imap, fmap and omap follow from the classes.
//  2. Block graphs: for every pattern, a depth-first enumeration of block
//     operators in canonical order (each new operator's key is larger than
//     the previous one's, so no permutation of a graph is built twice) at
//     *probe shapes* — every index class scaled down to a small extent, grid
//     axes of 2 blocks and a for-loop of 2 iterations — pruned by a
//     caller-supplied test (abstract expressions) and by sink counting.
//     Every complete candidate is verified against the reference at probe
//     shapes with the finite-field verifier.
//  3. Instantiation: every verified block graph is rebuilt at the real
//     shapes for every grid extent and for-loop range that divides its
//     classes, ranked by the cost model; the best is verified again at the
//     real shapes (the probe only filters: the answer's verification is at
//     full size, so the result is sound whatever the probe missed).
//     A found graph whose reduction can be split is also instantiated as a
//     split kernel plus a combining kernel (split-K, split-KV), ranked with
//     the one-kernel forms (docs/Rationale/MultiKernel.md).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_FUSIONSEARCH_H
#define MIRAGE_SEARCH_FUSIONSEARCH_H

#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Search/SearchDefaults.h"
#include "Mirage/Semantics/UGraph.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mirage::search {

/// The pruning test of one depth-first block-graph enumeration (one thread,
/// one launch pattern). The enumerator grows one block graph in place: it
/// calls `begin` once with the pattern's iterators, then `keep` after every
/// appended operator, and undoes operators in stack order (values are
/// removed from the end). So when `keep(block, v)` is called, the values
/// below `v` are exactly those passed to `begin` or to earlier `keep` calls
/// that have not been undone, and a session may cache per-value facts
/// (abstract expressions) incrementally.
class PruneSession {
public:
  virtual ~PruneSession() = default;
  virtual void begin(const UGraph &block) = 0;
  /// Keeps or prunes the prefix `block` whose last operator defines
  /// `newValue` (its first result).
  virtual bool keep(const UGraph &block, int32_t newValue) = 0;
  /// Whether `value` of the current prefix may be saved as the reference's
  /// output `output` (a closed candidate's test, before the probe check).
  /// False only when no graph equivalent to the reference can save it
  /// there; the default keeps every candidate.
  virtual bool mayBeOutput(int32_t value, size_t output) { return true; }
};
/// Makes one session per enumeration; called concurrently from worker
/// threads (the sessions themselves are used by one thread each).
using PruneFn = std::function<std::unique_ptr<PruneSession>()>;
/// Makes the pruning test for a reference graph (at probe shapes); returns
/// an empty function to disable pruning.
using PruneFactory = std::function<PruneFn(const UGraph &probeReference)>;
/// What the search knows of a kernel graph's cost: the estimated run time
/// in seconds (infinity if it does not fit the target) and the figure
/// candidates are ordered by (CostModel.h, rankingSeconds: never below the
/// estimate). A plain number is both. `paddingFlops`, the tensor-core work
/// spent on padded rows, breaks ties between launches of one graph
/// (FusionSearch.md, "Ties: padded MMA work before grid size"); 0 when
/// unknown.
struct LaunchEstimate {
  double seconds = 0, rank = 0, paddingFlops = 0;
  LaunchEstimate(double seconds) : seconds(seconds), rank(seconds) {}
  LaunchEstimate(double seconds, double rank, double paddingFlops = 0)
      : seconds(seconds), rank(rank), paddingFlops(paddingFlops) {}
};
/// The cost of a kernel graph; called concurrently from worker threads.
using CostFn = std::function<LaunchEstimate(const UGraph &)>;

/// A snapshot of a running search, for progress reports.
struct SearchProgress {
  unsigned round = 0;          // block operators of the graphs being built
  unsigned maxRounds = 0;      // the last round (max block ops)
  size_t patternsDone = 0;     // launch patterns finished in this round
  size_t patterns = 0;
  uint64_t states = 0, pruned = 0, candidates = 0, verified = 0;
  double bestSeconds = 0;      // estimated run time of the best verified
  bool haveBest = false;       // graph so far (rounds done), if any
  double elapsedSeconds = 0;
  bool roundDone = false;      // a round has just finished
};
/// Receives progress snapshots; called from one thread at a time.
using ProgressSink = std::function<void(const SearchProgress &)>;
/// One progress line: "[mirage-search] 4.0s round 5/7 patterns 3/12 ...".
std::string formatProgress(const SearchProgress &p);

/// A lower bound on the cost of every candidate launched like `block` (a
/// block graph at the real shapes holding only the launch's grid, for-loop
/// and input iterators) whose savers write `savedBytes`
/// (CostModel.h: trafficFloorSeconds).
using CostFloorFn =
    std::function<double(const UGraph &block, double savedBytes)>;

struct FusionSearchOptions {
  /// Block operators besides iterators and savers.
  unsigned maxBlockOps = defaults::kMaxBlockOps;
  /// Worker threads; 0 means all cores.
  unsigned threads = defaults::kThreads;
  /// Wall-clock budget of the search (enumeration, probe checks, ranking);
  /// after it the best candidates found so far are ranked. The final
  /// full-shape verification of the winner is not bounded by it (its cost
  /// is the arithmetic of the two graphs; see verifySeconds).
  double timeBudgetSeconds = defaults::kTimeBudgetSeconds;
  std::string target = defaults::kTarget;
  /// False-acceptance target of the probe filter and of the final check.
  unsigned probeVerifyBits = defaults::kProbeVerifyBits;
  unsigned finalVerifyBits = defaults::kFinalVerifyBits;
  /// The verifier's seed. Fixed (not drawn at random, unlike the
  /// verify-equivalence pass's default) so that one configuration always
  /// gives the same result: correct candidates pass for every seed, and the
  /// search enumerates candidates without looking at field values. The
  /// emitted graph's guarantee comes from mirage-verify-equivalence with a
  /// random seed (docs/Rationale/Verification.md §4.4).
  uint64_t seed = defaults::kSeed;
  /// Branch and bound over launch patterns: a round visits the patterns in
  /// ascending order of this floor, in waves, and after every wave a
  /// pattern whose floor cannot beat the best graph so far (within
  /// costGap) is not enumerated again. Empty: every pattern runs every
  /// round.
  CostFloorFn costFloor;
  /// The least a split pair's combining kernel costs when it runs in its
  /// split kernel's launch (a tail, docs/Rationale/TailCombine.md: at
  /// least the counter's DRAM round trip); the pair's floor takes the
  /// lesser of this and the combine's own launch. 0 is sound everywhere.
  double tailCombineFloor = 0;
  /// What a graph's first kernel pays for its launch beyond what costFloor
  /// counts for any kernel (the target's launch less its chained launch:
  /// costFloor counts the lesser, which a kernel after the first pays). An
  /// instance's first kernel is its custom kernel unless row-max kernels
  /// come before it. 0 is sound everywhere.
  double firstLaunchFloor = 0;
  /// The bound's relative optimality gap, in [0, 1): a pattern is skipped
  /// once its floor is at least (1 - costGap) times the best graph so far,
  /// so the answer costs at most 1/(1 - costGap) times the cheapest graph
  /// of the space. 0: the exact bound.
  double costGap = defaults::kCostGap;
  /// The gap of a stabilized softmax's scores search, whose answer is only
  /// priced as the row-max kernels' input (StableSoftmax.md, "The scores'
  /// gap"): the larger of this and costGap, unless costGap is 0 (an exact
  /// search is exact throughout).
  double scoresCostGap = defaults::kScoresCostGap;
  /// The gap the scores search bounds with (the rule above).
  double scoresSearchGap() const {
    return costGap > 0 ? std::max(costGap, scoresCostGap) : 0;
  }
  /// Launch patterns may put classes the reference reduces over on the
  /// grid (ablation only: no such pattern has a one-kernel candidate).
  bool splitReducedClasses = defaults::kSplitReducedClasses;
  /// Besides one kernel, instantiate every found block graph as a split
  /// pair (its reduction split over the grid, partial results, a combining
  /// kernel) where it has one, and rank both (docs/Rationale/MultiKernel.md).
  bool splitKernels = defaults::kSplitKernels;
  /// Also rank a stabilized softmax's one-kernel instances whose for-loop
  /// walks the scores' rows as flash-attention kernels (a running max in
  /// the loop; docs/Rationale/OnlineSoftmax.md).
  bool onlineSoftmax = defaults::kOnlineSoftmax;
  /// Row normalisations of graph inputs applied to the input tiles before
  /// the enumeration where a pattern keeps their rows whole, free of
  /// maxBlockOps (docs/Rationale/FusionSearch.md, "Prologues").
  bool fusePrologues = defaults::kFusePrologues;
  /// One enumeration per group of patterns that differ only in unreduced
  /// grid classes; the group's other patterns rebuild its found graphs
  /// (docs/Rationale/FusionSearch.md, "One enumeration per loop class").
  bool shareEnumerations = defaults::kShareEnumerations;
  /// Ask the pruning session (PruneSession::mayBeOutput) about every
  /// closed candidate's outputs before checking it at probe shapes.
  bool pruneOutputs = defaults::kPruneOutputs;
  /// Progress: `progress` (if set) gets a snapshot at the end of every round
  /// and every `progressEverySeconds` during one, once the search has run
  /// `progressAfterSeconds`.
  ProgressSink progress;
  double progressAfterSeconds = defaults::kProgressAfterSeconds;
  double progressEverySeconds = defaults::kProgressEverySeconds;
};

struct FusionSearchStats {
  uint64_t patterns = 0;      // launch patterns tried
  uint64_t states = 0;        // block-graph prefixes built
  uint64_t pruned = 0;        // prefixes rejected by the pruning test
                              // (outputsPruned included)
  uint64_t outputsPruned = 0; // closed candidates whose outputs it rejected
  uint64_t candidates = 0;    // complete block graphs checked at probe shapes
  uint64_t probeVerified = 0; // of which equivalent at probe shapes
  uint64_t instances = 0;     // real-shape instantiations ranked
  uint64_t splitInstances = 0; // of which split pairs (two kernels)
  uint64_t finalVerified = 0; // real-shape verifications run
  unsigned rounds = 0;        // enumeration rounds completed
  uint64_t patternsBounded = 0; // pattern rounds skipped by the cost floor
  bool timedOut = false;
  double seconds = 0;       // wall time, the final verification included
  double verifySeconds = 0; // of which the final full-shape verification
};

struct FusionSearchResult {
  bool found = false;
  UGraph best;                // kernel graph: one custom kernel, or a split
                              // kernel and its combining kernel
  double bestSeconds = 0;     // its estimated run time
  double referenceSeconds = 0;
  double log2Bound = 0;       // false-acceptance bound of the final check
  unsigned verificationTests = 0;
  FusionSearchStats stats;
  std::string message;        // why nothing was found, if so
};

FusionSearchResult searchFusedKernel(const UGraph &reference,
                                     const FusionSearchOptions &opts,
                                     const CostFn &cost,
                                     const PruneFactory &prune);

/// The check the search gives its answer: `candidate` against `reference`
/// at the real shapes, to opts.finalVerifyBits with opts.seed, the float64
/// cross-check on, outputs in order. The superoptimize pass runs it on a
/// result-cache hit too, with a fresh seed (docs/Rationale/ResultCache.md).
VerificationResult verifyFinalAnswer(const UGraph &candidate,
                                     const UGraph &reference,
                                     const FusionSearchOptions &opts);

} // namespace mirage::search

#endif // MIRAGE_SEARCH_FUSIONSEARCH_H

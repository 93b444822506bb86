//===- FusionSearch.cpp - Search for fused graph-defined kernels ----------===//
//
// The driver: probe shapes, launch patterns and the operator menu once; then
// rounds of block-graph enumeration (round k builds graphs of k operators),
// each round over the patterns in waves of ascending cost floor (one pattern
// per task on an LLVM thread pool), each found graph ranked at the real
// shapes as soon as its wave ends and bounding the waves after it; finally
// the cheapest instances are verified at the real shapes until one passes.
// A stabilized softmax's scores are searched first, by the same driver. The
// stages live in lib/Search/FusionSearch/ (Stages.h lists them).
//
//===----------------------------------------------------------------------===//
#include "FusionSearch/Stages.h"

#include "Mirage/Analysis/Verifier.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <memory>
#include <optional>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

bool SearchContext::expired() {
  if (timedOut.load(std::memory_order_relaxed))
    return true;
  // Written so that a NaN budget expires at once instead of never.
  if (!(secondsSince(start) <= opts.timeBudgetSeconds)) {
    timedOut = true;
    return true;
  }
  return false;
}

VerificationResult
mirage::search::verifyFinalAnswer(const UGraph &candidate,
                                  const UGraph &reference,
                                  const FusionSearchOptions &opts) {
  VerifyOptions vo;
  vo.targetBits = opts.finalVerifyBits;
  vo.seed = opts.seed;
  vo.allowPermutation = false;
  // Only an acceptance matters here: a candidate without a meaningful
  // bound is passed over at once instead of after a few tests.
  vo.probeWhenVacuous = false;
  // A long final check prints its own progress when the search does.
  vo.progressSeconds = opts.progress ? opts.progressEverySeconds : 0;
  return verifyEquivalence(candidate, reference, vo);
}

namespace {

/// The answer's check: the candidate against the real reference at the real
/// shapes and the final target (the probe only filtered).
VerificationResult verifyAtRealShapes(const UGraph &candidate,
                                      const UGraph &reference,
                                      const FusionSearchOptions &opts) {
  return verifyFinalAnswer(candidate, reference, opts);
}

/// Ranking order: the ranking figure (the estimate, charged for grids that
/// leave SMs idle: CostModel.md), then the order in which the graphs were
/// found per pattern, one kernel before a split pair (so ties do not depend
/// on scheduling).
bool cheaper(const Instance &a, const Instance &b) {
  if (a.rank != b.rank)
    return a.rank < b.rank;
  if (a.pattern != b.pattern)
    return a.pattern < b.pattern;
  if (a.index != b.index)
    return a.index < b.index;
  return !a.split && b.split;
}

/// Whether pattern `p`, whose cost floor is `floor`, may be skipped given
/// the best graph so far. With `gap` 0: every graph of it ranks below
/// `best` (it costs more, or as much from a later pattern: ties go to the
/// earlier pattern, then to the earlier find), so skipping it leaves the
/// ranking's head unchanged. With a gap g: none of its graphs costs less
/// than (1 - g) times `best` (docs/Rationale/FusionSearch.md, "An
/// optimality gap").
bool cannotBeat(double floor, size_t p, const Instance &best, double gap) {
  // A floor bounds the estimate, and the ranking figure is never below it.
  const double limit = best.rank * (1 - gap);
  return floor > limit || (floor == limit && p >= best.pattern);
}

/// Patterns a round enumerates together before the found graphs bound the
/// rest of the round (docs/Rationale/FusionSearch.md, "Waves of ascending
/// floor"). A constant, not the thread count, so that what is explored does
/// not depend on the machine.
constexpr size_t kWaveSize = 4;

/// How one pass of the search treats its answer and its scores.
struct SearchMode {
  /// Verify the ranked graphs at the real shapes, cheapest first; false:
  /// the cheapest is the answer unverified (a stabilized softmax's scores,
  /// whose check is the whole instance's: StableSoftmax.md).
  bool verifyAnswer = true;
  /// Search a stabilized softmax's scores first and build on their winner.
  bool fuseScores = true;
  /// This pass's optimality gap, if not the options' costGap.
  std::optional<double> costGap;
};

/// What the driver needs to know of one pass besides its result.
struct PassOutcome {
  bool scoresFused = false; // the instances compute the scores' winner
  bool refuted = false;     // a ranked graph was found not equivalent
};

FusionSearchResult searchOnce(const UGraph &reference,
                              const FusionSearchOptions &opts,
                              const CostFn &cost,
                              const PruneFactory &pruneFactory,
                              SearchMode mode, PassOutcome &outcome) {
  FusionSearchResult result;
  SearchContext ctx(opts);
  result.referenceSeconds = cost(reference).seconds;

  // A softmax that subtracts its row max is searched without the shift;
  // every instance gets it back before it is ranked, and the final check
  // is against `reference` as written (docs/Rationale/StableSoftmax.md).
  std::optional<ShiftFree> shiftFree = shiftFreeReference(reference);
  const UGraph target =
      normalizeForSearch(shiftFree ? shiftFree->ref : reference);
  const ShiftFree *shift = shiftFree ? &*shiftFree : nullptr;
  FusionSearchStats scoresStats; // of the scores' own search, added below
  if (shiftFree) {
    // The scores before the max are a graph of their own (normalisations,
    // the score matmul, its scale): searched first, so that the row max
    // reads them from one fused kernel. They have no exp, so this does not
    // recurse further.
    UGraph &scores = shiftFree->scores;
    if (mode.fuseScores && scores.ops.size() > 1) {
      PassOutcome inner;
      FusionSearchResult s =
          searchOnce(scores, opts, cost, pruneFactory,
                     SearchMode{/*verifyAnswer=*/false, /*fuseScores=*/false,
                                /*costGap=*/opts.scoresSearchGap()},
                     inner);
      scoresStats = s.stats;
      if (s.found && s.bestSeconds < cost(scores).seconds) {
        scores = std::move(s.best);
        outcome.scoresFused = true;
      }
    }
  }

  Probe probe = makeProbe(target);
  if (!probe.ok) {
    result.message = "the reference could not be scaled to probe shapes";
    return result;
  }
  std::vector<Pattern> patterns =
      launchPatterns(probe.classes, opts.splitReducedClasses);
  std::vector<MenuItem> menu = operatorMenu(target);
  PruneFn prune = pruneFactory ? pruneFactory(probe.ref) : PruneFn();
  ProbeWitness witness;
  witness.init(probe.ref, opts.seed);
  ctx.witness = &witness;
  ProgressReporter progress(ctx, patterns.size());
  ctx.progress = &progress;

  // Round 0 tries the plain fusion of every pattern; round k enumerates the
  // block graphs of k operators of every pattern. A task enumerates one
  // pattern and ranks what it found at the real shapes; the driver merges
  // in pattern order.
  std::vector<double> floors(patterns.size(), 0);
  if (opts.costFloor) {
    // Kernel costs add up: a stabilized one-kernel instance costs its
    // row-max kernels plus its custom kernel, so their cost raises its
    // floor. Not that of a split pair of one iteration that splits the
    // softmax row: in flash-decoding form it has no row-max kernel
    // (localizeSplitMax, which builds that form for no other split); nor a
    // looping one-kernel instance's over that row in online-softmax form
    // (onlineSoftmax).
    const double prefix = shift ? cost(rowMaxGraph(*shift)).seconds : 0;
    const int rowClass =
        shift ? softmaxRowClass(target, probe.classes, shift->rowDim) : -1;
    for (size_t i = 0; i < patterns.size(); ++i)
      floors[i] = patternCostFloor(
          patterns[i], probe.classes, target, opts.costFloor, opts.splitKernels,
          prefix, opts.onlineSoftmax, rowClass, opts.tailCombineFloor,
          opts.firstLaunchFloor);
  }
  // Patterns in ascending order of floor (stable: index order on ties), the
  // order in which every round visits them.
  std::vector<size_t> byFloor(patterns.size());
  for (size_t i = 0; i < byFloor.size(); ++i)
    byFloor[i] = i;
  std::stable_sort(byFloor.begin(), byFloor.end(),
                   [&](size_t a, size_t b) { return floors[a] < floors[b]; });
  std::vector<Instance> ranked;
  std::vector<size_t> foundPerPattern(patterns.size(), 0);
  std::vector<InstanceCounts> instancesPerPattern(patterns.size());
  std::optional<size_t> best; // index of the cheapest in `ranked`
  auto bounded = [&](size_t i) {
    return best && cannotBeat(floors[i], i, ranked[*best],
                              mode.costGap.value_or(opts.costGap));
  };
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(opts.threads));
  std::vector<std::vector<Instance>> fresh(patterns.size());
  // Ranks what pattern i found in this round (one task per pattern, so
  // fresh[i] and the pattern's counters have one writer).
  auto rankFound = [&](size_t i, const std::vector<Found> &found) {
    for (size_t f = 0; f < found.size(); ++f)
      for (Instance &inst : cheapestInstances(
               found[f], patterns[i], probe.classes, target, cost,
               opts.splitKernels, instancesPerPattern[i], shift,
               opts.onlineSoftmax)) {
        inst.pattern = i;
        inst.index = foundPerPattern[i] + f;
        fresh[i].push_back(std::move(inst));
      }
    foundPerPattern[i] += found.size();
    progress.patternDone();
  };
  // One enumeration per group and round (FusionSearch.md, "One enumeration
  // per loop class"): the group's first pattern to run enumerates, the
  // others rebuild its graphs on their grids.
  const std::vector<size_t> group =
      enumerationGroups(patterns, probe.classes);
  std::vector<std::vector<Found>> groupFound(patterns.size());
  for (unsigned round = 0; round <= opts.maxBlockOps && !ctx.expired();
       ++round) {
    progress.startRound(round);
    std::vector<bool> groupEnumerated(patterns.size(), false);
    for (std::vector<Found> &g : groupFound)
      g.clear();
    // One wave at a time: up to kWaveSize patterns the best so far does not
    // bound, plus those tied with the last one's floor, enumerated in
    // parallel; then their graphs are ranked and bound the next wave.
    for (size_t next = 0; next < byFloor.size() && !ctx.expired();) {
      std::vector<size_t> wave;
      for (; next < byFloor.size(); ++next) {
        size_t i = byFloor[next];
        if (wave.size() >= kWaveSize && floors[i] != floors[wave.back()])
          break;
        if (bounded(i)) {
          ++result.stats.patternsBounded;
          progress.patternDone();
          continue;
        }
        wave.push_back(i);
      }
      // Round 0 (the plain fusion) costs one graph per pattern: no groups.
      std::vector<size_t> enumerators, rebuilt;
      for (size_t i : wave) {
        if (round > 0 && opts.shareEnumerations && groupEnumerated[group[i]]) {
          rebuilt.push_back(i);
          continue;
        }
        groupEnumerated[group[i]] = true;
        enumerators.push_back(i);
      }
      // Every enumeration is shared by as many workers as the pool has
      // threads, so that a wave of one deep pattern still uses every core
      // (FusionSearch.md, "One pattern on every core").
      std::vector<std::unique_ptr<SharedEnumeration>> shares;
      for (size_t i : enumerators) {
        shares.push_back(std::make_unique<SharedEnumeration>(
            pool.getMaxConcurrency(), round));
        SharedEnumeration &shared = *shares.back();
        for (unsigned w = 0; w < shared.workers.size(); ++w)
          pool.async([&, i, w, round] {
            if (!ctx.expired())
              enumerateBlockGraphs(ctx, probe, patterns[i], i, menu, prune,
                                   round, shared, w);
          });
      }
      pool.wait();
      for (size_t e = 0; e < enumerators.size(); ++e)
        pool.async([&, e, round] {
          const size_t i = enumerators[e];
          std::vector<Found> found = shares[e]->merged();
          // With sharing, a group has one enumerator per round (the slot
          // has one writer); without it, no pattern reads the slot.
          if (round > 0 && opts.shareEnumerations)
            groupFound[group[i]] = found;
          rankFound(i, found);
        });
      pool.wait();
      for (size_t i : rebuilt)
        pool.async([&, i] {
          if (ctx.expired())
            return;
          std::vector<Found> found;
          for (const Found &f : groupFound[group[i]]) {
            Found moved;
            if (transplantFound(ctx, probe, f, patterns[i], i, moved))
              found.push_back(std::move(moved));
          }
          rankFound(i, found);
        });
      pool.wait();
      const size_t ranksBefore = ranked.size(); // `best` is among these
      for (size_t i : wave) {
        for (Instance &inst : fresh[i])
          ranked.push_back(std::move(inst));
        fresh[i].clear();
      }
      for (size_t r = ranksBefore; r < ranked.size(); ++r)
        if (!best || cheaper(ranked[r], ranked[*best]))
          best = r;
      if (best)
        progress.setBest(ranked[*best].seconds);
    }
    if (!ctx.timedOut)
      ++result.stats.rounds;
    progress.roundDone();
  }

  // The answer is verified at the real shapes, cheapest first.
  std::sort(ranked.begin(), ranked.end(), cheaper);
  // Only a graph the cost model ranks below the reference can replace it
  // (the pass keeps the reference otherwise), so the others are not
  // verified at the real shapes: for model-scale layers that check is the
  // longest step (the Llama-405B gate layer spent 197 s verifying a fused
  // kernel it then did not use).
  std::optional<double> cheapestRanked;
  for (const Instance &inst : ranked)
    cheapestRanked = std::min(cheapestRanked.value_or(inst.seconds),
                              inst.seconds);
  if (mode.verifyAnswer)
    llvm::erase_if(ranked, [&](const Instance &inst) {
      return !(inst.seconds < result.referenceSeconds);
    });
  std::string lastVerifyMessage;
  if (!mode.verifyAnswer && !ranked.empty()) {
    // Checked as part of every instance built on it (StableSoftmax.md).
    result.found = true;
    result.best = std::move(ranked.front().graph);
    result.bestSeconds = ranked.front().seconds;
    ranked.clear();
  }
  for (Instance &inst : ranked) {
    ++result.stats.finalVerified;
    VerificationResult vr = verifyAtRealShapes(inst.graph, reference, opts);
    result.stats.verifySeconds += vr.seconds;
    if (!vr.equivalent()) {
      outcome.refuted |= vr.status == VerifyStatus::NotEquivalent;
      if (vr.status == VerifyStatus::Inconclusive ||
          vr.status == VerifyStatus::NotVerified)
        lastVerifyMessage = vr.message;
      continue;
    }
    result.found = true;
    result.best = std::move(inst.graph);
    result.bestSeconds = inst.seconds;
    result.log2Bound = vr.log2Bound;
    result.verificationTests = vr.tests;
    break;
  }
  // A search that ran out of time has not seen the whole search space.
  const bool timedOut = ctx.timedOut || scoresStats.timedOut;
  std::string budget;
  llvm::raw_string_ostream(budget)
      << "the search timed out (time-budget "
      << llvm::format("%g", opts.timeBudgetSeconds) << " s)";
  if (!result.found) {
    llvm::raw_string_ostream os(result.message);
    if (!ranked.empty()) {
      os << "no candidate passed verification at real shapes";
      if (!lastVerifyMessage.empty())
        os << " (" << lastVerifyMessage << ")";
    } else if (cheapestRanked) {
      os << "no fused kernel beats it (the cheapest is estimated at "
         << llvm::format("%.2f", *cheapestRanked * 1e6)
         << " us, the graph at "
         << llvm::format("%.2f", result.referenceSeconds * 1e6) << " us)";
    } else {
      os << (timedOut ? budget + " before it found a fused kernel"
                      : "no fused kernel found in the search space");
    }
    if (timedOut && (!ranked.empty() || cheapestRanked))
      os << "; " << budget;
  }

  result.stats.patterns = patterns.size();
  for (const InstanceCounts &n : instancesPerPattern) {
    result.stats.instances += n.instances;
    result.stats.splitInstances += n.splitInstances;
  }
  result.stats.states = ctx.states + scoresStats.states;
  result.stats.pruned = ctx.pruned + scoresStats.pruned;
  result.stats.outputsPruned = ctx.outputsPruned + scoresStats.outputsPruned;
  result.stats.candidates = ctx.candidates + scoresStats.candidates;
  result.stats.probeVerified = ctx.verified + scoresStats.probeVerified;
  result.stats.verifySeconds += scoresStats.verifySeconds;
  result.stats.finalVerified += scoresStats.finalVerified;
  result.stats.timedOut = timedOut;
  result.stats.seconds = secondsSince(ctx.start);
  return result;
}

/// Adds the counters of an earlier pass to `to`'s (the time included).
void addStats(FusionSearchStats &to, const FusionSearchStats &from) {
  to.patterns += from.patterns;
  to.states += from.states;
  to.pruned += from.pruned;
  to.outputsPruned += from.outputsPruned;
  to.candidates += from.candidates;
  to.probeVerified += from.probeVerified;
  to.instances += from.instances;
  to.splitInstances += from.splitInstances;
  to.finalVerified += from.finalVerified;
  to.rounds += from.rounds;
  to.patternsBounded += from.patternsBounded;
  to.timedOut |= from.timedOut;
  to.seconds += from.seconds;
  to.verifySeconds += from.verifySeconds;
}

} // namespace

FusionSearchResult mirage::search::searchFusedKernel(
    const UGraph &reference, const FusionSearchOptions &opts,
    const CostFn &cost, const PruneFactory &pruneFactory) {
  PassOutcome outcome;
  FusionSearchResult r =
      searchOnce(reference, opts, cost, pruneFactory, SearchMode(), outcome);
  if (r.found || !outcome.scoresFused || !outcome.refuted || r.stats.timedOut)
    return r;
  // The scores' winner passed the probe check only; every instance built on
  // it failing at the real shapes may be its fault. Once more with the
  // reference's own scores ops (StableSoftmax.md).
  PassOutcome again;
  FusionSearchResult plain =
      searchOnce(reference, opts, cost, pruneFactory,
                 SearchMode{/*verifyAnswer=*/true, /*fuseScores=*/false},
                 again);
  addStats(plain.stats, r.stats);
  return plain;
}

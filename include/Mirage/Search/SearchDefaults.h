//===- SearchDefaults.h - The one place for search option defaults -*- C++ -*-===//
//
// Every default of the fused-kernel search lives here. FusionSearchOptions,
// the mirage-superoptimize pass options (Passes.td names these constants as
// its defaults) and the pipelines' options (Pipelines.h) all read them, so a
// default cannot differ between the C++ API, the pass and a pipeline
// (test/Pipelines/superoptimize-options.mlir checks the forwarding).
//
// IR-free: included by the Search library and by the pass declarations.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEARCH_SEARCHDEFAULTS_H
#define MIRAGE_SEARCH_SEARCHDEFAULTS_H

#include <cstdint>

namespace mirage::search {

/// How the pre-defined kernels of a graph (matmul, element-wise, reduce,
/// rms_norm, concat) run downstream, and so how the search prices every
/// graph it compares (docs/Rationale/PricingAsEmitted.md).
enum class PredefinedKernels {
  /// Expanded into custom kernels by this project's code generator
  /// (mirage-kernels-to-ptx, the CPU path): priced as emitted.
  Expansion,
  /// Lowered to tuned library kernels by another compiler: priced as
  /// idealised library kernels (CostModel.md, "Library kernels").
  Library,
};

} // namespace mirage::search

namespace mirage::search::defaults {

/// Block operators per block graph, besides iterators and savers.
inline constexpr unsigned kMaxBlockOps = 7;
/// Search threads; 0 means all cores.
inline constexpr unsigned kThreads = 0;
/// Wall-clock seconds of search per graph; then the best verified result
/// so far (or the graph unchanged).
inline constexpr double kTimeBudgetSeconds = 60;
/// Wall-clock seconds for all graphs of a module (one pass run): a graph's
/// search gets at most what is left, and once it is spent the remaining
/// graphs are left unchanged with a remark (cache hits and repeats of an
/// earlier graph are still used, they need no search).
inline constexpr double kModuleTimeBudgetSeconds = 600;
/// Cost-model target.
inline constexpr const char *kTarget = "h100";
/// Pre-defined kernels priced as this project's code generator emits them.
inline constexpr PredefinedKernels kPredefinedKernels =
    PredefinedKernels::Expansion;
/// False-acceptance targets (bits) of the probe filter and of the final
/// check at the real shapes.
inline constexpr unsigned kProbeVerifyBits = 32;
inline constexpr unsigned kFinalVerifyBits = 64;
/// Seed of the probe witness and of the verifier's tests.
inline constexpr uint64_t kSeed = 1;
/// Abstract-expression pruning; Z3 as its last stage.
inline constexpr bool kPrune = true;
inline constexpr bool kPruneZ3 = false;
/// Abstract-expression pruning refinements (docs/Rationale/SearchSpace.md):
/// the exp-depth model in the oracle's refutation stage, and the reverse
/// test on a candidate's outputs (the reference output must be a
/// subexpression of the candidate's).
inline constexpr bool kPruneExpDepth = true;
inline constexpr bool kPruneOutputs = true;
/// Skip launch patterns whose cost floor cannot beat the best so far.
inline constexpr bool kCostBound = true;
/// The bound's optimality gap: a pattern whose floor is at least
/// (1 - kCostGap) times the best so far is skipped, so the answer costs at
/// most 1/(1 - kCostGap) times the cheapest graph of the space
/// (docs/Rationale/FusionSearch.md, "An optimality gap").
inline constexpr double kCostGap = 0.03;
/// The gap of a stabilized softmax's scores search (StableSoftmax.md,
/// "The scores' gap"): its answer is never emitted alone, only priced as
/// the row-max kernels' input, so it may cost up to 1/(1 - gap) times the
/// cheapest scores kernel. Not applied when the search is asked to be
/// exact (a cost gap of 0).
inline constexpr double kScoresCostGap = 0.2;
/// Launch patterns that split a reduced class (ablation only).
inline constexpr bool kSplitReducedClasses = false;
/// Also rank split-K/split-KV kernel pairs built from the found block graphs
/// (docs/Rationale/MultiKernel.md).
inline constexpr bool kSplitKernels = true;
/// Apply a reference's rms_norm of a graph input to the input's tile in
/// launch patterns that keep the normalised dim whole, outside the operator
/// count (docs/Rationale/FusionSearch.md, "Prologues").
inline constexpr bool kFusePrologues = true;
/// Patterns that differ only in unreduced grid classes share one
/// enumeration per round; the others rebuild its graphs on their grids
/// (docs/Rationale/FusionSearch.md, "One enumeration per loop class").
inline constexpr bool kShareEnumerations = true;
/// Rank a stabilized softmax's one-kernel instances whose for-loop walks the
/// scores' rows also in online-softmax form: a running max in the loop, no
/// row-max kernel (docs/Rationale/OnlineSoftmax.md).
inline constexpr bool kOnlineSoftmax = true;
/// Progress on stderr: on by default, first line once a search has run
/// this long (short searches stay quiet), then one line every
/// kProgressEverySeconds.
inline constexpr bool kProgress = true;
inline constexpr double kProgressAfterSeconds = 3;
inline constexpr double kProgressEverySeconds = 2;

} // namespace mirage::search::defaults

#endif // MIRAGE_SEARCH_SEARCHDEFAULTS_H

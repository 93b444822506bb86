//===- Superoptimize.cpp - Replace kernel graphs by verified fused ones ---===//
//
// For every kernel graph that is not itself a candidate (it names no
// `reference`), look the graph up in the result cache or run the fused-kernel
// search, and if a cheaper verified graph exists, insert it after the
// original with `reference` pointing at the original and redirect all uses.
// The original stays as the reference, so mirage-verify-equivalence can check
// the pair again; it has no uses left and later pipelines drop it.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Dialect/Block/IR/BlockUGraph.h"
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Dialect/Kernel/Transforms/LaxPartition.h"
#include "Mirage/Search/AbstractPrune.h"
#include "Mirage/Search/CanonicalHash.h"
#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/KernelExpansion.h"
#include "Mirage/Semantics/TailCombine.h"
#include "Mirage/Search/FusionSearch.h"
#include "Mirage/Search/ResultCache.h"
#include "Mirage/Search/SearchReport.h"
#include "Mirage/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

namespace mirage {
#define GEN_PASS_DEF_MIRAGESUPEROPTIMIZE
#include "Mirage/Transforms/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

namespace {

int64_t countKernels(const UGraph &g) { return g.ops.size(); }

/// The winner as a standalone module `func.func @winner(...) { graph }`, the
/// form the result cache stores.
std::string winnerText(MLIRContext *ctx, const UGraph &g) {
  OpBuilder b(ctx);
  Location loc = UnknownLoc::get(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  SmallVector<Type> ins, outs;
  for (int32_t v : g.inputs)
    ins.push_back(RankedTensorType::get(storedShape(g, v),
                                        toMLIRType(ctx, g.values[v].type)));
  for (int32_t v : g.outputs)
    outs.push_back(RankedTensorType::get(g.values[v].shape,
                                         toMLIRType(ctx, g.values[v].type)));
  auto fn = func::FuncOp::create(b, loc, "winner", b.getFunctionType(ins, outs));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  kernel::GraphOp graph =
      kernel::exportKernelGraph(b, loc, g, entry->getArguments());
  func::ReturnOp::create(b, loc, graph.getResults());
  std::string s;
  llvm::raw_string_ostream os(s);
  module->print(os);
  return s;
}

/// Why a cached winner's signature (inputs and outputs: count, shape,
/// element type) differs from the program graph's; empty when it does not.
std::string signatureMismatch(const UGraph &cand, const UGraph &ref) {
  auto side = [&](const char *what, const std::vector<int32_t> &c,
                  const std::vector<int32_t> &r) -> std::string {
    if (c.size() != r.size())
      return std::to_string(c.size()) + " " + what + "s, the program's graph has " +
             std::to_string(r.size());
    for (size_t i = 0; i < c.size(); ++i) {
      const auto &a = cand.values[c[i]];
      const auto &b = ref.values[r[i]];
      if (a.shape != b.shape || a.type != b.type)
        return std::string(what) + " " + std::to_string(i) +
               " differs in shape or element type from the program's graph";
    }
    return "";
  };
  std::string why = side("input", cand.inputs, ref.inputs);
  if (why.empty())
    why = side("output", cand.outputs, ref.outputs);
  return why;
}

/// A log2 bound as the remark prints it: an integer exponent ≤ 0, or
/// std::nullopt for a value that is not one (NaN, positive, or too small to
/// be a meaningful exponent, e.g. a corrupt 1e308 or -1e308).
std::optional<long> printableLog2Bound(double log2Bound) {
  if (!std::isfinite(log2Bound) || log2Bound > 0 || log2Bound < -1e6)
    return std::nullopt;
  return (long)std::ceil(log2Bound);
}

/// A counter read from a cached report: finite and non-negative, else 0.
uint64_t validCount(double v) {
  return std::isfinite(v) && v >= 0 && v < 1e18 ? (uint64_t)v : 0;
}

/// Parses a cached winner back; std::nullopt if the text is unusable.
std::optional<UGraph> parseWinner(MLIRContext *ctx, StringRef text) {
  // Diagnostics of a stale entry are not the user's concern: swallow them.
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, ctx);
  if (!module)
    return std::nullopt;
  std::optional<UGraph> out;
  module->walk([&](kernel::GraphOp g) {
    FailureOr<UGraph> u = kernel::importKernelGraph(g);
    if (succeeded(u))
      out = std::move(*u);
  });
  return out;
}

struct SuperoptimizePass
    : mirage::impl::MirageSuperoptimizeBase<SuperoptimizePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<TargetInfo> info = lookupTarget(target);
    if (!info) {
      module.emitError("unknown target '") << target << "'";
      return signalPassFailure();
    }
    if (!(costGap >= 0 && costGap < 1)) {
      std::string shown;
      llvm::raw_string_ostream(shown) << llvm::format("%g", double(costGap));
      module.emitError("cost-gap must be in [0, 1), got ") << shown;
      return signalPassFailure();
    }
    // NaN compares false with every elapsed time, so it would never expire.
    for (auto [name, value] : {std::pair<const char *, double>{
                                   "time-budget", timeBudget},
                               {"module-time-budget", moduleTimeBudget}}) {
      if (value >= 0 && !std::isinf(value))
        continue;
      std::string shown;
      llvm::raw_string_ostream(shown) << llvm::format("%g", value);
      module.emitError(name)
          << " must be a finite number of seconds >= 0, got " << shown;
      return signalPassFailure();
    }
    passStart = std::chrono::steady_clock::now();
    answers.clear();
    ResultCache cache = ResultCache::open(CacheConfig::parse(cachePath));
    if (!cache.error().empty())
      mlir::emitWarning(module.getLoc())
          << "result cache ignored: " << cache.error();

    SmallVector<kernel::GraphOp> graphs;
    takenNames.clear();
    nameSuffix = 1;
    module.walk([&](kernel::GraphOp g) {
      if (g.getSymName())
        takenNames.insert(*g.getSymName());
      if (!g.getReference())
        graphs.push_back(g);
    });
    std::vector<SearchReport> reports;
    unnamed = 0;
    for (kernel::GraphOp graph : graphs)
      if (failed(searchOrSplit(graph, cache, reports)))
        return signalPassFailure();
    if (!reports.empty())
      emitModuleSummary(module, reports);
    if (!reportPath.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(reportPath, ec, llvm::sys::fs::OF_Text);
      if (ec) {
        module.emitError("cannot write report '")
            << reportPath << "': " << ec.message();
        return signalPassFailure();
      }
      os << reportsToJSON(reports) << "\n";
    }
  }

  /// Searches `graph`. A graph the search does not improve is split (at
  /// its matmul chains, or a graph of one chain before its matmuls) and
  /// each piece searched the same way (FusionSearch.md, "Graphs too large
  /// for one kernel", "Prologues cut off before a matmul"). The pieces stay
  /// only if their estimates sum below the graph's own: each pays a graph's
  /// first launch, so pieces that gain less than that cost more in all, and
  /// the graph is put back. The pieces' reports replace the graph's when
  /// they stay. Returns the estimate (us) of what the graph became.
  FailureOr<double> searchOrSplit(kernel::GraphOp graph, ResultCache &cache,
                                  std::vector<SearchReport> &reports) {
    if (!graph.getSymName()) {
      std::string name;
      do
        name = "graph" + std::to_string(unnamed++);
      while (!takenNames.insert(name).second);
      graph.setSymName(name);
    }
    if (failed(optimize(graph, cache, reports)))
      return failure();
    const SearchReport &report = reports.back();
    if (report.improved() || report.moduleBudgetSpent)
      return report.bestCostUs;
    const double wholeUs = report.inputCostUs;
    std::string name = graph.getSymName()->str();
    Location loc = graph.getLoc();
    uint64_t kernels = report.kernelsInInput;
    // What the pieces go between, and the graph's uses, to put it back.
    Operation *next = graph->getNextNode();
    OpBuilder b(graph);
    auto kept = cast<kernel::GraphOp>(b.clone(*graph.getOperation()));
    SmallVector<SmallVector<OpOperand *>> uses(graph->getNumResults());
    for (auto [i, r] : llvm::enumerate(graph->getResults()))
      for (OpOperand &u : r.getUses())
        uses[i].push_back(&u);
    StringRef how = "at its matmul chains";
    SmallVector<kernel::GraphOp> pieces = splitAtMatmulChains(graph);
    if (pieces.size() < 2) {
      how = "before its matmuls";
      pieces = splitMatmulPrologues(graph);
    }
    if (pieces.size() < 2) {
      kept.erase();
      return wholeUs;
    }
    SearchReport whole = std::move(reports.back());
    reports.pop_back();
    const size_t firstPieceReport = reports.size();
    std::string names;
    for (auto [i, piece] : llvm::enumerate(pieces)) {
      piece.setSymName(freshGraphName(name + "_part" + std::to_string(i)));
      names += (i ? ", " : "") + piece.getSymName()->str();
    }
    mlir::emitRemark(loc) << "graph '" << name << "' (" << kernels
                          << " kernels) has no fused kernel as a whole: "
                             "split "
                          << how << " into " << pieces.size() << " graphs ("
                          << names << "), each searched";
    double piecesUs = 0;
    for (kernel::GraphOp piece : pieces) {
      FailureOr<double> us = searchOrSplit(piece, cache, reports);
      if (failed(us))
        return failure();
      piecesUs += *us;
    }
    if (piecesUs < wholeUs) {
      kept.erase();
      return piecesUs;
    }
    // Put the graph back: its uses, then the pieces and every graph made
    // for them (all between the graph's place and `next`), users first.
    for (auto [i, list] : llvm::enumerate(uses))
      for (OpOperand *u : list)
        u->set(kept->getResult(i));
    SmallVector<Operation *> made;
    for (Operation *op = kept->getNextNode(); op != next;
         op = op->getNextNode())
      made.push_back(op);
    for (Operation *op : llvm::reverse(made))
      op->erase();
    // The graph's report stands for it again, with the pieces' time.
    for (size_t i = firstPieceReport; i < reports.size(); ++i) {
      numImproved -= reports[i].improved();
      whole.seconds += reports[i].seconds;
      whole.searchSeconds += reports[i].searchSeconds;
      whole.verificationSeconds += reports[i].verificationSeconds;
    }
    reports.erase(reports.begin() + firstPieceReport, reports.end());
    reports.push_back(std::move(whole));
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << "graph '" << name << "' kept whole: its pieces are estimated at "
       << llvm::format("%.2f", piecesUs) << " us in all, the graph at "
       << llvm::format("%.2f", wholeUs) << " us";
    mlir::emitRemark(loc, msg);
    return wholeUs;
  }

  /// One remark on the module with the totals of its graphs.
  void emitModuleSummary(ModuleOp module, ArrayRef<SearchReport> reports) {
    ReportTotals t = totalsOf(reports);
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << "superoptimized " << t.graphs << " graph(s): " << t.searched
       << " searched, " << t.cacheHits << " cache hit(s), " << t.repeats
       << " repeat(s) of an earlier graph";
    if (t.budgetSkipped)
      os << ", " << t.budgetSkipped << " left unsearched (module budget of "
         << llvm::format("%g", double(moduleTimeBudget)) << " s spent)";
    os << "; " << t.improved << " improved, kernels " << t.kernelsInInput
       << " -> " << t.kernelsInWinner << ", estimated "
       << llvm::format("%.2f", t.inputCostUs) << " us -> "
       << llvm::format("%.2f", t.bestCostUs) << " us on " << target << "; "
       << llvm::format("%.2f", t.seconds) << " s (search "
       << llvm::format("%.2f", t.searchSeconds) << " s, verification "
       << llvm::format("%.2f", t.verificationSeconds) << " s)";
    mlir::emitRemark(module.getLoc(), msg);
  }

  /// The answer of a graph this run searched (or found in the cache), by
  /// cache key: a later graph with the same key (the same canonical graph,
  /// inputs in the same order, same target and options) reuses it.
  struct Answer {
    std::string graph;
    std::optional<UGraph> winner;
    double log2Bound = 0;
    uint64_t tests = 0;
  };
  llvm::StringMap<Answer> answers;
  /// The next number of an unnamed graph (graph<k>).
  unsigned unnamed = 0;
  std::chrono::steady_clock::time_point passStart;

  /// Graph names of the module, the ones this pass gave included.
  llvm::StringSet<> takenNames;
  unsigned nameSuffix = 1;

  /// `base`, or `base_<n>` when a graph of the module already has that name:
  /// a reference pair is found by name, so a duplicate would pair the
  /// winner with the wrong graph.
  std::string freshGraphName(StringRef base) {
    if (takenNames.insert(base).second)
      return base.str();
    return SymbolTable::generateSymbolName<64>(
               base,
               [&](StringRef n) { return !takenNames.insert(n).second; },
               nameSuffix)
        .str()
        .str();
  }

  search::SubexprOracleOptions oracleOptions() const {
    search::SubexprOracleOptions o;
    o.useZ3 = pruneZ3;
    o.useExpDepth = pruneExpDepth;
    return o;
  }

  /// The options that can change the result, for the cache key. The
  /// leading version names the search's own rules where they change what a
  /// search returns: v4, combines spread to rows of one (MultiKernel.md,
  /// "Rows of one"); v3, ties between launches by padded MMA work
  /// (FusionSearch.md, "Ties: padded MMA work before grid size").
  std::string optionKey() const {
    return "fusion-v4;max_block_ops=" + std::to_string(maxBlockOps) +
           ";prune=" + std::to_string(prune) +
           ";prune_exp_depth=" + std::to_string(pruneExpDepth) +
           ";prune_outputs=" + std::to_string(pruneOutputs) +
           ";cost_bound=" + std::to_string(costBound) +
           ";cost_gap=" + std::to_string(costBound ? double(costGap) : 0.0) +
           ";scores_cost_gap=" +
           std::to_string(costBound ? searchOptions().scoresSearchGap() : 0.0) +
           ";split_reduced=" + std::to_string(splitReducedClasses) +
           ";split_kernels=" + std::to_string(splitKernels) +
           ";online_softmax=" + std::to_string(onlineSoftmax) +
           ";fuse_prologues=" + std::to_string(fusePrologues) +
           ";share_enumerations=" + std::to_string(shareEnumerations) +
           ";predefined_kernels=" +
           (predefinedKernels == search::PredefinedKernels::Library
                ? "library"
                : "expansion");
  }

  /// The search's options from the pass's (no cost floor, no progress).
  search::FusionSearchOptions searchOptions() const {
    search::FusionSearchOptions opts;
    opts.maxBlockOps = maxBlockOps;
    opts.threads = threads;
    opts.timeBudgetSeconds = timeBudget;
    opts.target = target;
    opts.splitReducedClasses = splitReducedClasses;
    opts.splitKernels = splitKernels;
    opts.onlineSoftmax = onlineSoftmax;
    opts.fusePrologues = fusePrologues;
    opts.shareEnumerations = shareEnumerations;
    opts.pruneOutputs = pruneOutputs;
    opts.costGap = costGap;
    return opts;
  }

  /// Adds one search's counters to the pass statistics.
  void countSearch(const search::FusionSearchStats &st) {
    numPatterns += st.patterns;
    numPatternsBounded += st.patternsBounded;
    numStates += st.states;
    numPruned += st.pruned;
    numOutputsPruned += st.outputsPruned;
    numCandidates += st.candidates;
    numProbeVerified += st.probeVerified;
    numInstances += st.instances;
    numSplitInstances += st.splitInstances;
    numFinalVerified += st.finalVerified;
    numTimedOut += st.timedOut;
  }

  /// Searches `graph`, replaces it by a cheaper winner, and appends its
  /// report to `reports`.
  LogicalResult optimize(kernel::GraphOp graph, ResultCache &cache,
                         std::vector<SearchReport> &reports) {
    auto t0 = std::chrono::steady_clock::now();
    FailureOr<UGraph> ref = kernel::importKernelGraph(graph);
    if (failed(ref))
      return failure();
    const TargetInfo info = *lookupTarget(target); // checked by the caller
    // Every graph compared is priced as it will run downstream
    // (PricingAsEmitted.md): the reference, each candidate, and the row-max
    // kernels the search puts before a stabilized softmax.
    const bool asEmitted =
        predefinedKernels == search::PredefinedKernels::Expansion;
    auto costOf = [&](const UGraph &g) -> search::LaunchEstimate {
      GraphCost c =
          asEmitted ? estimateEmittedCost(g, info) : estimateCost(g, info);
      if (!c.fits)
        return std::numeric_limits<double>::infinity();
      return {c.seconds, rankingSeconds(c, info), c.paddingFlops()};
    };
    SearchReport report;
    report.graph = graph.getSymName()->str();
    report.target = target;
    // Keyed by the cost model too: a winner ranked by another model (or
    // other target figures) is never reused; priced as emitted, by the
    // expansion's rules as well.
    report.cacheKey = cacheKey(*ref, target,
                               optionKey() + ";cost_model=" +
                                   (asEmitted ? emittedCostFingerprint(info)
                                              : costModelFingerprint(info)));
    report.inputCostUs = costOf(*ref).seconds * 1e6;
    GraphCost asLibrary = estimateCost(*ref, info);
    report.libraryCostUs = asLibrary.fits
                               ? asLibrary.seconds * 1e6
                               : std::numeric_limits<double>::infinity();
    report.kernelsInInput = countKernels(*ref);
    report.cache = cache.enabled() ? CacheStatus::Miss : CacheStatus::Disabled;
    report.cacheError = cache.error();

    std::optional<UGraph> winner;
    if (auto it = answers.find(report.cacheKey); it != answers.end()) {
      // The same canonical graph earlier in this module: its answer, already
      // verified against an identical graph, without a search (a repeated
      // decoder block is searched once). Not re-checked like a cache hit:
      // the cache file is outside the program's control, this answer is not.
      report.repeatOf = it->second.graph;
      winner = it->second.winner;
      report.verificationLog2Bound = it->second.log2Bound;
      report.verificationTests = it->second.tests;
    }
    std::string errorBefore = cache.error();
    std::optional<CacheEntry> hit;
    if (report.repeatOf.empty())
      hit = cache.lookup(report.cacheKey);
    if (!hit && cache.error() != errorBefore) {
      // A damaged entry or a read failure: a miss, said once, and the
      // search's store below replaces the entry.
      report.cacheError = cache.error();
      mlir::emitWarning(graph.getLoc()) << "result cache: " << cache.error();
    }
    if (hit) {
      // The cache proposes, the program decides: a hit is used only if it
      // parses, has the program graph's signature, and passes the search's
      // final check with a fresh seed (docs/Rationale/ResultCache.md).
      std::string rejected;
      std::optional<UGraph> cached = parseWinner(&getContext(), hit->graphText);
      llvm::Expected<SearchReport> old = parseSearchReport(hit->reportJson);
      if (!cached) {
        rejected = "its graph does not parse as a kernel graph";
      } else if (!old) {
        rejected = "its report does not parse (" +
                   llvm::toString(old.takeError()) + ")";
      } else if (std::string why = signatureMismatch(*cached, *ref);
                 !why.empty()) {
        rejected = "wrong signature: " + why;
      } else {
        search::FusionSearchOptions vopts = searchOptions();
        vopts.seed = drawRandomSeed();
        VerificationResult vr = search::verifyFinalAnswer(*cached, *ref, vopts);
        report.verificationSeconds = vr.seconds;
        if (!vr.equivalent()) {
          rejected = "its graph fails verification against the program (" +
                     (vr.message.empty() ? std::string("not equivalent")
                                         : vr.message) +
                     ")";
        } else {
          winner = std::move(cached);
          report.cache = CacheStatus::Hit;
          report.verificationLog2Bound = vr.log2Bound;
          report.verificationTests = vr.tests;
          report.statesExplored = validCount(old->statesExplored);
          report.statesPruned = validCount(old->statesPruned);
          report.candidatesVerified = validCount(old->candidatesVerified);
        }
      }
      if (!old)
        llvm::consumeError(old.takeError());
      if (!rejected.empty()) {
        report.cacheError = "result cache '" + cache.path() + "': entry '" +
                            report.cacheKey + "' rejected, " + rejected +
                            "; treated as a miss";
        mlir::emitWarning(graph.getLoc()) << report.cacheError;
      }
    }
    double moduleLeft =
        moduleTimeBudget - std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - passStart)
                               .count();
    bool searched = false;
    if (!winner && report.repeatOf.empty() && !(moduleLeft > 0)) {
      report.moduleBudgetSpent = true;
      report.timedOut = true;
      std::string shown;
      llvm::raw_string_ostream(shown)
          << llvm::format("%g", double(moduleTimeBudget));
      mlir::emitRemark(graph.getLoc())
          << "graph '" << report.graph
          << "' left unchanged: the module's search budget (" << shown
          << " s, module-time-budget) is spent";
    } else if (!winner && report.repeatOf.empty()) {
      searched = true;
      search::FusionSearchOptions opts = searchOptions();
      opts.timeBudgetSeconds = std::min<double>(timeBudget, moduleLeft);
      if (costBound) {
        opts.costFloor = [info](const UGraph &block, double savedBytes) {
          return trafficFloorSeconds(block, savedBytes, info);
        };
        opts.tailCombineFloor = tailCombineFloorSeconds(info);
        opts.firstLaunchFloor = firstLaunchFloorSeconds(info);
      }
      if (progress) {
        opts.progressAfterSeconds = progressAfter;
        opts.progress = [](const search::SearchProgress &p) {
          llvm::errs() << search::formatProgress(p) << "\n";
        };
      }
      search::FusionSearchResult r = search::searchFusedKernel(
          *ref, opts, costOf,
          prune ? search::abstractExprPruneFactory(oracleOptions())
                : search::PruneFactory());
      countSearch(r.stats);
      report.statesExplored = r.stats.states;
      report.statesPruned = r.stats.pruned;
      report.candidatesVerified = r.stats.candidates;
      report.timedOut = r.stats.timedOut;
      report.verificationSeconds = r.stats.verifySeconds;
      report.searchSeconds = r.stats.seconds - r.stats.verifySeconds;
      if (r.found) {
        winner = std::move(r.best);
        report.verificationLog2Bound = r.log2Bound;
        report.verificationTests = r.verificationTests;
      } else {
        mlir::emitRemark(graph.getLoc())
            << "graph '" << report.graph << "' left unchanged: " << r.message;
      }
    }

    double bestUs = winner ? costOf(*winner).seconds * 1e6 : report.inputCostUs;
    bool improves = winner && bestUs < report.inputCostUs;
    report.bestCostUs = improves ? bestUs : report.inputCostUs;
    report.kernelsInWinner = improves ? countKernels(*winner)
                                      : report.kernelsInInput;
    report.seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - t0)
                         .count();
    if ((searched || report.cache == CacheStatus::Hit) &&
        !answers.count(report.cacheKey))
      answers[report.cacheKey] =
          Answer{report.graph, winner, report.verificationLog2Bound,
                 report.verificationTests};
    if (winner && report.cache == CacheStatus::Miss &&
        report.repeatOf.empty() &&
        !cache.store(report.cacheKey,
                     CacheEntry{winnerText(&getContext(), *winner),
                                reportToJSON(report), 0})) {
      // Not fatal (the output is the same), but the next run will search
      // again, and the user should know why.
      report.cacheError = cache.error();
      mlir::emitWarning(graph.getLoc())
          << cache.error() << "; the result is not cached";
    }

    // The winner reads the graph's operands as they lie; a search stage
    // that dropped an input's layout (OperandLayouts.md) would export a
    // graph that does not verify, and its kernels would read the wrong
    // elements. Kept as it was, loudly, instead.
    if (improves)
      for (auto [i, v] : llvm::enumerate(winner->inputs))
        if (winner->values[v].transposed != graph.isTransposedInput(i)) {
          mlir::emitWarning(graph.getLoc())
              << "the winner for '" << report.graph << "' does not read input #"
              << i << " as it is stored (a search bug); the graph is kept";
          improves = false;
          break;
        }
    if (improves) {
      OpBuilder b(graph);
      b.setInsertionPointAfter(graph);
      winner->name = freshGraphName(report.graph + "_opt");
      winner->reference = report.graph;
      kernel::GraphOp opt =
          kernel::exportKernelGraph(b, graph.getLoc(), *winner, graph.getInputs());
      graph.getResults().replaceAllUsesWith(opt.getResults());
      std::string msg;
      llvm::raw_string_ostream os(msg);
      os << "superoptimized '" << report.graph << "': " << report.kernelsInInput
         << " kernel(s) -> " << report.kernelsInWinner << ", estimated "
         << llvm::format("%.2f", report.inputCostUs) << " us -> "
         << llvm::format("%.2f", report.bestCostUs) << " us ("
         << llvm::format("%.2f", report.estimatedSpeedup()) << "x) on "
         << target;
      if (asEmitted && report.libraryCostUs != report.inputCostUs)
        os << " (the reference as library kernels: "
           << llvm::format("%.2f", report.libraryCostUs) << " us)";
      os << "; verified with " << report.verificationTests
         << testsNoun(report.verificationTests)
         << ", false-acceptance bound ";
      if (std::optional<long> e =
              printableLog2Bound(report.verificationLog2Bound))
        os << "2^" << *e;
      else
        os << "unknown";
      os << "; cache "
         << cacheStatusName(report.cache) << "; "
         << llvm::format("%.2f", report.seconds) << " s (search "
         << llvm::format("%.2f", report.searchSeconds) << " s, verification "
         << llvm::format("%.2f", report.verificationSeconds) << " s)";
      mlir::emitRemark(graph.getLoc(), msg);
    } else if (winner) {
      mlir::emitRemark(graph.getLoc())
          << "graph '" << report.graph
          << "' left unchanged: no fused kernel beats it on " << target;
    }
    ++numGraphs;
    numCacheHits += report.cache == CacheStatus::Hit;
    numRepeats += !report.repeatOf.empty();
    numBudgetSkipped += report.moduleBudgetSpent;
    numImproved += improves;
    reports.push_back(std::move(report));
    return success();
  }
};
} // namespace

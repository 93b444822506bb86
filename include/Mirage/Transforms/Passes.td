//===- Passes.td - Mirage passes ----------------------------*- tablegen -*-===//
#ifndef MIRAGE_TRANSFORMS_PASSES_TD
#define MIRAGE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MirageEvaluate : Pass<"mirage-evaluate", "::mlir::ModuleOp"> {
  let summary = "evaluate every kernel graph on seeded random inputs";
  let description = [{
    Runs each `mirage_kernel.graph` of the module through the float64
    reference evaluator (the executable semantics of kernel, block and thread
    graphs) on inputs drawn uniformly from [-1, 1) with a seeded generator, and
    reports each output's shape, sum and first elements as a remark on the
    graph. An operand defined by a dense floating-point constant
    (`arith.constant`, `tosa.const`) takes the constant's values instead of
    random ones; with `print-all` every output's values are printed too.
    A graph whose run would not fit in memory (MemoryLimit.h) is an error,
    before anything is allocated. Changes no IR.

    ```mlir
    // mirage-opt --mirage-evaluate="seed=7" x.mlir
    // remark: graph 'g' output #0 tensor<8x32xf32>: sum = 1.25, first = [...]
    ```
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "1", "seed of the input generator">,
    Option<"printCount", "print-count", "unsigned", "4",
           "how many leading elements of each output to print">,
    Option<"printAll", "print-all", "bool", "false",
           "also print all values of each output (one remark per output)">
  ];
}

def MirageCompare : Pass<"mirage-compare", "::mlir::ModuleOp"> {
  let summary = "compare each graph with its reference on random inputs";
  let description = [{
    For every `mirage_kernel.graph` that names a `reference` graph of the
    module, evaluates both in float64 on the same seeded random inputs
    (several trials) and compares their outputs in order. Reports the largest
    relative error as a remark, or an error on the graph when it exceeds
    `tolerance`, the signatures differ, the graph does not read the values
    its reference reads in the same order, or the runs would not fit in
    memory. Changes no IR.

    ```mlir
    %r = mirage_kernel.graph "ref" (...) ...
    %b = mirage_kernel.graph "best" reference "ref" (...) ...
    // mirage-opt --mirage-compare x.mlir
    // remark: graph 'best' matches reference 'ref': max relative error 3.1e-16
    ```
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "1", "seed of the input generator">,
    Option<"trials", "trials", "unsigned", "3", "independent random trials">,
    Option<"tolerance", "tolerance", "double", "1e-9",
           "largest accepted relative error (float64 evaluation)">
  ];
}

def MirageSuperoptimize : Pass<"mirage-superoptimize", "::mlir::ModuleOp"> {
  let summary = "replace kernel graphs by verified, cheaper fused μGraphs";
  let description = [{
    For every `mirage_kernel.graph` that names no `reference`, searches for a
    single graph-defined kernel computing the same outputs (see
    docs/Rationale/SearchSpace.md): launch patterns from the graph's index
    classes, block graphs enumerated in canonical order at probe shapes and
    pruned with abstract expressions, every candidate verified with the
    finite-field verifier, real grid and for-loop sizes chosen by the cost
    model of `target`, and the winner verified again at the real shapes.

    Every graph compared (the reference, each candidate) is priced as it
    will run: with `predefined-kernels=expansion` (the default) its
    pre-defined kernels are priced as the custom kernels this project's code
    generator expands them into, the code `mirage-superoptimize-to-ptx`
    writes; with `predefined-kernels=library`, for a compiler that lowers
    kept pre-defined kernels to library calls, as idealised library kernels
    (docs/Rationale/PricingAsEmitted.md). The remark and the report also
    give the reference priced as library kernels.

    A cheaper winner is inserted after the original as `<name>_opt` (or,
    when the module has a graph of that name, the first free
    `<name>_opt_<n>`) with `reference "<name>"`, and all uses are
    redirected; the original stays as the reference (it has no uses left).
    Results are cached in an SQLite file keyed by the graph's canonical
    hash, the target and the options; a remark summarises each graph, and
    `report` writes a JSON report; the search counters are also pass
    statistics (`--mlir-pass-statistics`).
    A search that runs longer than `progress-after` seconds prints one
    progress line per round (and every 2 s) on stderr: round, states,
    pruned, best cost so far, elapsed; `progress=false` silences it. The
    defaults of the search options live in Mirage/Search/SearchDefaults.h.

    Whole modules: a graph with the cache key of an earlier graph of the
    module (the same canonical graph, target and options) reuses that
    graph's answer without a search or a second check; `module-time-budget`
    bounds the searches of the whole module; a closing remark on the module
    gives the totals (graphs, searched, cache hits, repeats, improved,
    kernels and estimated time before and after, seconds), and the JSON
    report has them as "totals".

    A graph the search does not improve (no kernel found, or none cheaper)
    and that has two matmuls on one path is split at its matmul chains
    into graphs `<name>_part<k>` in program order (no path of a piece
    crosses two matmuls), each searched in turn; a remark says so, and the
    totals count the pieces instead of the whole (docs/Rationale/
    FusionSearch.md, "Graphs too large for one kernel"). A graph of one
    chain the search does not improve is split before its matmuls instead:
    a matmul reading a value computed in the graph (a LayerNorm's output)
    starts the next piece with its bias and activation, so the
    normalisation and the product are searched apart (FusionSearch.md,
    "Prologues cut off before a matmul"). Pieces whose estimates do not sum
    below the graph's own (each pays a graph's first launch) are undone:
    the graph is put back and a remark says it was kept whole.

    Time: `time-budget` bounds the search (enumeration, probe checks and
    ranking). It does not bound the import, the cost model, or the final
    verification of the winner at full shapes, whose cost is the
    multiply-adds of the two graphs (a few seconds for a decoder layer);
    the remark and the report give search and verification seconds apart,
    and `progress` prints both on stderr. A winner whose full-shape check
    would not fit in memory leaves the graph unchanged with a remark that
    says so.

    ```mlir
    // mirage-opt --mirage-superoptimize="target=h100 report=r.json" x.mlir
    %r = mirage_kernel.graph "g" (%x, %w) ... { rms_norm; matmul }
    // becomes
    %r = mirage_kernel.graph "g" (%x, %w) ...            // no uses
    %o = mirage_kernel.graph "g_opt" reference "g" (%x, %w) ... {
      mirage_kernel.custom (...) grid = [128, 1, 1] forloop = 1 { ... }
    }
    ```
  }];
  let dependentDialects = ["::mirage::kernel::KernelDialect",
                           "::mirage::block::BlockDialect",
                           "::mirage::thread::ThreadDialect",
                           "::mlir::func::FuncDialect"];
  // Defaults: include/Mirage/Search/SearchDefaults.h, the one place for
  // them (the C++ API and the pipelines read the same constants).
  let options = [
    Option<"target", "target", "std::string",
           "::mirage::search::defaults::kTarget",
           "cost-model target: h100 or a100">,
    Option<"predefinedKernels", "predefined-kernels",
           "::mirage::search::PredefinedKernels",
           "::mirage::search::defaults::kPredefinedKernels",
           "how the pre-defined kernels of a graph run downstream, and so how "
           "every graph compared is priced (see "
           "docs/Rationale/PricingAsEmitted.md)",
           [{::llvm::cl::values(
             clEnumValN(::mirage::search::PredefinedKernels::Expansion,
                        "expansion",
                        "expanded into custom kernels by this project's code "
                        "generator (mirage-kernels-to-ptx): priced as emitted"),
             clEnumValN(::mirage::search::PredefinedKernels::Library,
                        "library",
                        "lowered to tuned library kernels by another "
                        "compiler: priced as idealised library kernels"))}]>,
    Option<"maxBlockOps", "max-block-ops", "unsigned",
           "::mirage::search::defaults::kMaxBlockOps",
           "block operators per block graph, besides iterators and savers">,
    Option<"threads", "threads", "unsigned",
           "::mirage::search::defaults::kThreads",
           "search threads (0: all cores)">,
    Option<"timeBudget", "time-budget", "double",
           "::mirage::search::defaults::kTimeBudgetSeconds",
           "seconds of search per graph, finite and >= 0; then the best "
           "result so far is used, and a graph left unchanged says the "
           "search timed out. The final full-shape verification of the "
           "winner is not bounded by it (reported apart)">,
    Option<"moduleTimeBudget", "module-time-budget", "double",
           "::mirage::search::defaults::kModuleTimeBudgetSeconds",
           "seconds for the whole module, finite and >= 0: a graph's search "
           "gets at most what is left of it, and once it is spent the "
           "remaining graphs are left unchanged with a remark (cache hits "
           "and repeats of an earlier graph need no search and are still "
           "used)">,
    Option<"cachePath", "cache", "std::string", "\"\"",
           "result cache: empty for the default file in the user cache "
           "directory, 'off' to disable, or a path">,
    Option<"reportPath", "report", "std::string", "\"\"",
           "write a JSON report of every graph to this file">,
    Option<"prune", "prune", "bool", "::mirage::search::defaults::kPrune",
           "prune with abstract expressions (off only for ablation)">,
    Option<"pruneZ3", "prune-z3", "bool",
           "::mirage::search::defaults::kPruneZ3",
           "ask Z3 about abstract expressions that the structural prover and "
           "the model refutation leave open (it can only turn 'unknown' into "
           "'keep', so it never prunes more; see docs/Rationale/SearchSpace.md)">,
    Option<"pruneExpDepth", "prune-exp-depth", "bool",
           "::mirage::search::defaults::kPruneExpDepth",
           "let the model refutation also compare exp nesting depths (a model "
           "of the axioms in which exp is not infinite; off only for "
           "ablation, see docs/Rationale/SearchSpace.md)">,
    Option<"pruneOutputs", "prune-outputs", "bool",
           "::mirage::search::defaults::kPruneOutputs",
           "drop a closed candidate whose saved value's abstract expression "
           "provably does not contain the reference output's (off only for "
           "ablation, see docs/Rationale/SearchSpace.md)">,
    Option<"costBound", "cost-bound", "bool",
           "::mirage::search::defaults::kCostBound",
           "skip launch patterns whose memory-time floor cannot beat the best "
           "graph so far (off only for ablation)">,
    Option<"costGap", "cost-gap", "double",
           "::mirage::search::defaults::kCostGap",
           "the cost bound's relative optimality gap in [0, 1): a pattern is "
           "skipped once its floor is within this fraction of the best graph "
           "so far, so the answer costs at most 1/(1 - gap) times the "
           "cheapest graph of the search space (0: exact); a stabilized "
           "softmax's scores, searched first, take a gap of at least 0.2 "
           "unless it is 0 (docs/Rationale/StableSoftmax.md)">,
    Option<"splitReducedClasses", "split-reduced-classes", "bool",
           "::mirage::search::defaults::kSplitReducedClasses",
           "also try launch patterns whose grid splits an index class the "
           "reference reduces over (ablation only)">,
    Option<"splitKernels", "split-kernels", "bool",
           "::mirage::search::defaults::kSplitKernels",
           "also rank split-K/split-KV pairs (the found kernel with its "
           "reduction split over the grid, then a combining kernel; see "
           "docs/Rationale/MultiKernel.md)">,
    Option<"onlineSoftmax", "online-softmax", "bool",
           "::mirage::search::defaults::kOnlineSoftmax",
           "also rank a stabilized softmax's one-kernel instances whose "
           "for-loop walks the scores' rows as flash-attention kernels (a "
           "running max in the loop; see docs/Rationale/OnlineSoftmax.md)">,
    Option<"fusePrologues", "fuse-prologues", "bool",
           "::mirage::search::defaults::kFusePrologues",
           "apply an rms_norm of a graph input to the input's tile in launch "
           "patterns that keep its rows whole, outside max-block-ops (see "
           "docs/Rationale/FusionSearch.md, Prologues)">,
    Option<"shareEnumerations", "share-enumerations", "bool",
           "::mirage::search::defaults::kShareEnumerations",
           "enumerate once per group of launch patterns that differ only in "
           "grid classes no operator reduces; the group's other patterns "
           "rebuild the found graphs on their grids and check them at probe "
           "shapes (see docs/Rationale/FusionSearch.md, One enumeration per "
           "loop class)">,
    Option<"progress", "progress", "bool",
           "::mirage::search::defaults::kProgress",
           "print progress on stderr (round, states, pruned, best cost so far, "
           "elapsed) once a search has run progress-after seconds, and of the "
           "final full-shape verification">,
    Option<"progressAfter", "progress-after", "double",
           "::mirage::search::defaults::kProgressAfterSeconds",
           "seconds of search before the first progress line">
  ];
  let statistics = [
    Statistic<"numGraphs", "graphs", "kernel graphs superoptimized">,
    Statistic<"numCacheHits", "cache-hits", "graphs answered by the result cache">,
    Statistic<"numImproved", "improved", "graphs replaced by a cheaper one">,
    Statistic<"numTimedOut", "timed-out", "searches that ran out of budget">,
    Statistic<"numRepeats", "repeats", "graphs answered by an earlier graph of the module with the same cache key">,
    Statistic<"numBudgetSkipped", "module-budget-skipped", "graphs left unsearched because the module budget was spent">,
    Statistic<"numPatterns", "patterns", "launch patterns tried">,
    Statistic<"numPatternsBounded", "patterns-bounded", "pattern rounds skipped by the cost floor">,
    Statistic<"numStates", "states", "block-graph prefixes built at probe shapes">,
    Statistic<"numPruned", "pruned", "prefixes rejected by abstract expressions">,
    Statistic<"numOutputsPruned", "outputs-pruned", "closed candidates whose outputs abstract expressions rejected (counted in pruned too)">,
    Statistic<"numCandidates", "candidates", "complete block graphs checked at probe shapes">,
    Statistic<"numProbeVerified", "probe-verified", "candidates equivalent at probe shapes">,
    Statistic<"numInstances", "instances", "real-shape launch configurations costed">,
    Statistic<"numSplitInstances", "split-instances",
              "of which split pairs (split kernel + combining kernel)">,
    Statistic<"numFinalVerified", "final-verifications", "real-shape verifications run">
  ];
}

def MirageFuseThreadGraphs : Pass<"mirage-fuse-thread-graphs", "::mlir::ModuleOp"> {
  let summary = "fuse element-wise block operators into thread graphs";
  let description = [{
    Inside every `mirage_kernel.custom` body, groups maximal connected
    sets of element-wise block operators (`mirage_block.unary`,
    `mirage_block.binary`, and existing `mirage_block.thread_graph`s, which
    are merged) into one `mirage_block.thread_graph` whose body is the
    scalar `mirage_thread` form, so that intermediate tiles live in
    registers instead of shared memory (docs/Rationale/ThreadGraphs.md).

    A group has one phase (in-loop or after-loop, never both), is convex (no
    path leaves it and re-enters it), and every value it defines that is used
    outside becomes a result, so all its values must have the broadcast shape
    of its inputs; a smaller-shape producer (e.g. a unary on a 16x1 tile that
    a 16x32 binary broadcasts) joins only when nothing outside the group uses
    it. Inputs are the group's external operands, deduplicated. A lone
    operator is left alone: a one-op thread graph saves no shared memory.

    ```mlir
    %q = mirage_block.binary div %a, %r
         : tensor<16x32xf32>, tensor<16x1xf32> -> tensor<16x32xf32>
    %e = mirage_block.unary silu %q : tensor<16x32xf32>
    // becomes
    %e = mirage_block.thread_graph (%a, %r)
         : (tensor<16x32xf32>, tensor<16x1xf32>) -> tensor<16x32xf32> {
    ^bb0(%x: f32, %s: f32):
      %0 = mirage_thread.binary div %x, %s : f32
      %1 = mirage_thread.unary silu %0 : f32
      mirage_thread.yield %1 : f32
    }
    ```
  }];
  let dependentDialects = ["::mirage::kernel::KernelDialect",
                           "::mirage::block::BlockDialect",
                           "::mirage::thread::ThreadDialect"];
}

def MiragePrintGraphs : Pass<"mirage-print-graphs", "::mlir::ModuleOp"> {
  let summary = "print every kernel graph as Graphviz dot or a text summary";
  let description = [{
    Writes each `mirage_kernel.graph` of the module (after import into the
    compact UGraph, so nested graphs are shown as the verifier and the search
    see them) to `output` (default stdout). `format=dot` gives one `digraph`
    per graph, with every custom kernel as a cluster labelled with its grid
    and for-loop, iterators and savers labelled with their maps, and thread
    graphs as nested clusters; `format=summary` gives a compact text view.
    Changes no IR.

    ```mlir
    // mirage-opt x.mlir --mirage-print-graphs=output=g.dot -o /dev/null
    // dot -Tpng g.dot > g.png
    // mirage-opt x.mlir --mirage-print-graphs=format=summary -o /dev/null
    // graph 'best' (reference 'ref'): 2 inputs, 1 kernels, 1 outputs
    //   custom grid [4,1,1] forloop 4: 2 iterators, 2 ops, ...
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", "\"dot\"",
           "dot or summary">,
    Option<"output", "output", "std::string", "\"-\"",
           "file to write ('-': stdout)">
  ];
}

#endif // MIRAGE_TRANSFORMS_PASSES_TD

//===- Pipelines.h - Registered Mirage pass pipelines -----------*- C++ -*-===//
//
// The pipelines users run from mirage-opt and that other compilers build into
// their own pass managers, with the same options in both places.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PIPELINES_PIPELINES_H
#define MIRAGE_PIPELINES_PIPELINES_H

#include "Mirage/Search/SearchDefaults.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mirage {

/// The options of the superoptimize pipeline, shared by every pipeline that
/// contains it (CRTP: PassPipelineOptions needs the final type).
template <class Derived>
struct SuperoptimizeOptionsBase : public mlir::PassPipelineOptions<Derived> {
  template <class T> using Option = mlir::detail::PassOptions::Option<T>;
  // Search defaults: Mirage/Search/SearchDefaults.h (shared with the pass).
  Option<std::string> target{
      *this, "target", llvm::cl::desc("cost-model target: h100 or a100"),
      llvm::cl::init(search::defaults::kTarget)};
  Option<unsigned> maxBlockOps{
      *this, "max-block-ops",
      llvm::cl::desc("block operators per block graph"),
      llvm::cl::init(search::defaults::kMaxBlockOps)};
  Option<unsigned> threads{*this, "threads",
                           llvm::cl::desc("search threads (0: all cores)"),
                           llvm::cl::init(search::defaults::kThreads)};
  Option<double> timeBudget{
      *this, "time-budget", llvm::cl::desc("search seconds per graph (not the final "
                                     "verification, reported apart)"),
      llvm::cl::init(search::defaults::kTimeBudgetSeconds)};
  Option<double> moduleTimeBudget{
      *this, "module-time-budget",
      llvm::cl::desc("search seconds for the whole module; then the "
                     "remaining graphs are left unchanged"),
      llvm::cl::init(search::defaults::kModuleTimeBudgetSeconds)};
  Option<bool> prune{
      *this, "prune",
      llvm::cl::desc("prune with abstract expressions (off only for ablation)"),
      llvm::cl::init(search::defaults::kPrune)};
  Option<bool> pruneZ3{
      *this, "prune-z3",
      llvm::cl::desc("ask Z3 about expressions the cheap stages leave open"),
      llvm::cl::init(search::defaults::kPruneZ3)};
  Option<bool> pruneExpDepth{
      *this, "prune-exp-depth",
      llvm::cl::desc("also refute by exp nesting depth (off only for "
                     "ablation)"),
      llvm::cl::init(search::defaults::kPruneExpDepth)};
  Option<bool> pruneOutputs{
      *this, "prune-outputs",
      llvm::cl::desc("test candidates' outputs against the reference's "
                     "abstract expression (off only for ablation)"),
      llvm::cl::init(search::defaults::kPruneOutputs)};
  Option<bool> costBound{
      *this, "cost-bound",
      llvm::cl::desc("skip launch patterns that cannot beat the best so far"),
      llvm::cl::init(search::defaults::kCostBound)};
  Option<double> costGap{
      *this, "cost-gap",
      llvm::cl::desc("the cost bound's relative optimality gap in [0, 1)"),
      llvm::cl::init(search::defaults::kCostGap)};
  Option<bool> splitReducedClasses{
      *this, "split-reduced-classes",
      llvm::cl::desc("also split reduced index classes (ablation only)"),
      llvm::cl::init(search::defaults::kSplitReducedClasses)};
  Option<bool> splitKernels{
      *this, "split-kernels",
      llvm::cl::desc("also rank split-K/split-KV kernel pairs"),
      llvm::cl::init(search::defaults::kSplitKernels)};
  Option<bool> onlineSoftmax{
      *this, "online-softmax",
      llvm::cl::desc("also rank flash-attention kernels (a running max in "
                     "the loop) for a stabilized softmax"),
      llvm::cl::init(search::defaults::kOnlineSoftmax)};
  Option<bool> fusePrologues{
      *this, "fuse-prologues",
      llvm::cl::desc("apply rms_norms of graph inputs to their tiles"),
      llvm::cl::init(search::defaults::kFusePrologues)};
  Option<bool> shareEnumerations{
      *this, "share-enumerations",
      llvm::cl::desc("one enumeration per group of patterns that differ "
                     "only in unreduced grid classes"),
      llvm::cl::init(search::defaults::kShareEnumerations)};
  Option<bool> progress{*this, "progress",
                        llvm::cl::desc("print search progress on stderr"),
                        llvm::cl::init(search::defaults::kProgress)};
  Option<double> progressAfter{
      *this, "progress-after",
      llvm::cl::desc("seconds of search before the first progress line"),
      llvm::cl::init(search::defaults::kProgressAfterSeconds)};
  Option<std::string> cache{
      *this, "cache",
      llvm::cl::desc("result cache: empty (default file), 'off' or a path"),
      llvm::cl::init("")};
  Option<std::string> report{*this, "report",
                             llvm::cl::desc("JSON report path"),
                             llvm::cl::init("")};
  Option<unsigned> targetBits{
      *this, "target-bits",
      llvm::cl::desc("false-acceptance target of the final verification"),
      llvm::cl::init(64)};
  Option<bool> fuseThreadGraphs{
      *this, "fuse-thread-graphs",
      llvm::cl::desc("fuse element-wise block operators of every winner into "
                     "thread graphs (mirage-fuse-thread-graphs)"),
      llvm::cl::init(true)};
};

/// The IR-to-IR pipeline also says how the pre-defined kernels its graphs
/// keep run downstream; mirage-superoptimize-to-ptx emits them itself, so
/// it always prices them as emitted (docs/Rationale/PricingAsEmitted.md).
struct SuperoptimizePipelineOptions
    : public SuperoptimizeOptionsBase<SuperoptimizePipelineOptions> {
  Option<search::PredefinedKernels> predefinedKernels{
      *this, "predefined-kernels",
      llvm::cl::desc("how kept pre-defined kernels run downstream, and so "
                     "how graphs are priced"),
      llvm::cl::init(search::defaults::kPredefinedKernels),
      llvm::cl::values(
          clEnumValN(search::PredefinedKernels::Expansion, "expansion",
                     "expanded by this project's code generator"),
          clEnumValN(search::PredefinedKernels::Library, "library",
                     "tuned library kernels of another compiler"))};
};

/// linalg/TOSA → kernel graphs (mirage-import), superoptimization
/// (mirage-superoptimize), thread-graph fusion of element-wise block operators
/// (mirage-fuse-thread-graphs, unless fuse-thread-graphs=false) and an
/// independent re-verification of every winner against its reference
/// (mirage-verify-equivalence).
void buildSuperoptimizePipeline(mlir::OpPassManager &pm,
                                const SuperoptimizePipelineOptions &options);

struct KernelsToGPUPipelineOptions
    : public mlir::PassPipelineOptions<KernelsToGPUPipelineOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("NVPTX chip: sm_80, sm_90 (the default target's) or "
                     "sm_90a; any other is refused before lowering"),
      llvm::cl::init("sm_90")};
};

struct SuperoptimizeToPTXPipelineOptions
    : public SuperoptimizeOptionsBase<SuperoptimizeToPTXPipelineOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("NVPTX chip (sm_80, sm_90, sm_90a); empty: the "
                     "target's. Given alone it sets the target (sm_90: h100, "
                     "sm_80: a100); given with another target's name, the "
                     "pipeline refuses the pair before searching"),
      llvm::cl::init("")};
  Option<std::string> outputDir{
      *this, "output-dir",
      llvm::cl::desc("directory for the PTX files, manifests and expected "
                     "outputs"),
      llvm::cl::init(".")};
};

/// mirage-lower-kernels-to-loops, then the host lowering of the nested
/// kernel module to the LLVM dialect (bare-pointer calling convention).
void buildKernelsToCPUPipeline(mlir::OpPassManager &pm);

/// mirage-lower-kernels-to-loops, then mirage-loops-to-gpu on the nested
/// kernel module: the PTX of every graph in a gpu.binary.
void buildKernelsToGPUPipeline(mlir::OpPassManager &pm,
                               const KernelsToGPUPipelineOptions &options);

/// The superoptimize pipeline (import, search, fusion, verification), then
/// mirage-kernels-to-ptx: PTX, manifests and expected outputs on disk for
/// the winners and their references.
void buildSuperoptimizeToPTXPipeline(
    mlir::OpPassManager &pm, const SuperoptimizeToPTXPipelineOptions &options);

/// Registers "mirage-superoptimize-pipeline", "mirage-kernels-to-cpu",
/// "mirage-kernels-to-gpu" and "mirage-superoptimize-to-ptx".
void registerMiragePipelines();

} // namespace mirage

#endif // MIRAGE_PIPELINES_PIPELINES_H

//===- Pipelines.cpp - Registered Mirage pass pipelines -------------------===//
#include "Mirage/Pipelines/Pipelines.h"
#include "Mirage/Analysis/Passes.h"
#include "Mirage/Conversion/CodegenPasses.h"
#include "Mirage/Conversion/LoopsToCPU.h"
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Conversion/Passes.h"
#include "Mirage/Semantics/Target.h"
#include "Mirage/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace mirage {
/// The superoptimize stages for cost target `target`, pricing pre-defined
/// kernels by `pricing`.
template <class Derived>
static void buildSuperoptimizeStages(
    OpPassManager &pm, const SuperoptimizeOptionsBase<Derived> &options,
    const std::string &target, search::PredefinedKernels pricing) {
  pm.addNestedPass<func::FuncOp>(createMirageImport());
  MirageSuperoptimizeOptions so;
  so.target = target;
  so.predefinedKernels = pricing;
  so.maxBlockOps = options.maxBlockOps;
  so.threads = options.threads;
  so.timeBudget = options.timeBudget;
  so.moduleTimeBudget = options.moduleTimeBudget;
  so.cachePath = options.cache;
  so.reportPath = options.report;
  so.prune = options.prune;
  so.pruneZ3 = options.pruneZ3;
  so.pruneExpDepth = options.pruneExpDepth;
  so.pruneOutputs = options.pruneOutputs;
  so.costBound = options.costBound;
  so.costGap = options.costGap;
  so.splitReducedClasses = options.splitReducedClasses;
  so.splitKernels = options.splitKernels;
  so.onlineSoftmax = options.onlineSoftmax;
  so.fusePrologues = options.fusePrologues;
  so.shareEnumerations = options.shareEnumerations;
  so.progress = options.progress;
  so.progressAfter = options.progressAfter;
  pm.addPass(createMirageSuperoptimize(so));
  if (options.fuseThreadGraphs)
    pm.addPass(createMirageFuseThreadGraphs());
  MirageVerifyEquivalenceOptions vo;
  vo.targetBits = options.targetBits;
  pm.addPass(createMirageVerifyEquivalence(vo));
}
} // namespace mirage

void mirage::buildSuperoptimizePipeline(
    OpPassManager &pm, const SuperoptimizePipelineOptions &options) {
  buildSuperoptimizeStages(pm, options, options.target,
                           options.predefinedKernels);
}

void mirage::buildKernelsToCPUPipeline(OpPassManager &pm) {
  pm.addPass(createMirageLowerKernelsToLoops());
  buildLoopsToLLVMPipeline(pm.nest<ModuleOp>());
}

void mirage::buildKernelsToGPUPipeline(
    OpPassManager &pm, const KernelsToGPUPipelineOptions &options) {
  pm.addPass(createMirageLowerKernelsToLoops());
  GpuCodegenOptions gpu;
  gpu.chip = options.chip;
  buildLoopsToGPUPipeline(pm.nest<ModuleOp>(), gpu);
}

void mirage::buildSuperoptimizeToPTXPipeline(
    OpPassManager &pm, const SuperoptimizeToPTXPipelineOptions &options) {
  // One target from the search to the PTX (docs/Rationale/LaunchPlan.md):
  // a chip given alone names the target; a chip and a target that disagree
  // reach mirage-kernels-to-ptx alone, which refuses them at once, instead
  // of after a search ranked for the wrong machine.
  std::string target = options.target;
  std::optional<TargetInfo> byChip = lookupTargetByChip(options.chip);
  if (byChip && !options.target.hasValue())
    target = byChip->name.str();
  MirageKernelsToPTXOptions ptx;
  ptx.target = target;
  ptx.chip = options.chip;
  ptx.outputDir = options.outputDir;
  // A whole program is written even when one graph cannot be lowered.
  ptx.keepGoing = true;
  if (options.chip.empty() || (byChip && byChip->name == target))
    mirage::buildSuperoptimizeStages(pm, options, target,
                                     search::PredefinedKernels::Expansion);
  pm.addPass(createMirageKernelsToPTX(ptx));
}

void mirage::registerMiragePipelines() {
  PassPipelineRegistration<>(
      "mirage-kernels-to-cpu",
      "lower every kernel graph to loops and the loops to LLVM for the host "
      "(into the nested module @mirage_kernels)",
      buildKernelsToCPUPipeline);
  PassPipelineRegistration<KernelsToGPUPipelineOptions>(
      "mirage-kernels-to-gpu",
      "lower every kernel graph to loops and the loops to PTX (a gpu.binary "
      "in the nested module @mirage_kernels)",
      buildKernelsToGPUPipeline);
  PassPipelineRegistration<SuperoptimizeToPTXPipelineOptions>(
      "mirage-superoptimize-to-ptx",
      "import linalg/TOSA, superoptimize, verify, and write PTX and "
      "mirage-run manifests for every winner and its reference",
      buildSuperoptimizeToPTXPipeline);
  PassPipelineRegistration<SuperoptimizePipelineOptions>(
      "mirage-superoptimize-pipeline",
      "import linalg/TOSA into kernel graphs, superoptimize them and verify "
      "every winner against its reference",
      [](OpPassManager &pm, const SuperoptimizePipelineOptions &options) {
        buildSuperoptimizePipeline(pm, options);
      });
}

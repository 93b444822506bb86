//===- Pipelines.cpp - Registered Mirage pass pipelines -------------------===//
#include "Mirage/Pipelines/Pipelines.h"
#include "Mirage/Analysis/Passes.h"
#include "Mirage/Conversion/Passes.h"
#include "Mirage/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mirage::buildSuperoptimizePipeline(
    OpPassManager &pm, const SuperoptimizePipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(createMirageImport());
  MirageSuperoptimizeOptions so;
  so.target = options.target;
  so.maxBlockOps = options.maxBlockOps;
  so.threads = options.threads;
  so.timeBudget = options.timeBudget;
  so.cachePath = options.cache;
  so.reportPath = options.report;
  pm.addPass(createMirageSuperoptimize(so));
  if (options.fuseThreadGraphs)
    pm.addPass(createMirageFuseThreadGraphs());
  MirageVerifyEquivalenceOptions vo;
  vo.targetBits = options.targetBits;
  pm.addPass(createMirageVerifyEquivalence(vo));
}

void mirage::registerMiragePipelines() {
  PassPipelineRegistration<SuperoptimizePipelineOptions>(
      "mirage-superoptimize-pipeline",
      "import linalg/TOSA into kernel graphs, superoptimize them and verify "
      "every winner against its reference",
      buildSuperoptimizePipeline);
}

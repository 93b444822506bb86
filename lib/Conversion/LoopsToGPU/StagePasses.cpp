//===- StagePasses.cpp - One pass per stage of the GPU lowering -----------===//
//
// Thin passes over the stage functions of LoopsToGPU.h, each applied to the
// `mirage_kernel.kernel` functions of the module it is anchored on. The pipeline
// that chains them is in LoopsToPTX.cpp.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Semantics/Target.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEGPUWARPREDUCTIONS
#define GEN_PASS_DEF_MIRAGEGPUMAPFORALLS
#define GEN_PASS_DEF_MIRAGEGPUTENSORCORES
#define GEN_PASS_DEF_MIRAGEGPUASYNCCOPIES
#define GEN_PASS_DEF_MIRAGEGPUCHECKCONVERGENCE
#define GEN_PASS_DEF_MIRAGEGPUCHECKSHAREDRACES
#define GEN_PASS_DEF_MIRAGEGPUSERIALIZETOPTX
#include "Mirage/Conversion/LoopsToGPUPasses.h.inc"
} // namespace mirage

using namespace mlir;

namespace {
/// Runs `stage` on every kernel of the module; the first failure fails the
/// pass (the stage has emitted the error).
template <typename Stage>
LogicalResult forEachKernel(ModuleOp module, Stage stage) {
  for (func::FuncOp k : mirage::getMirageKernels(module))
    if (failed(stage(k)))
      return failure();
  return success();
}

struct WarpReductions
    : mirage::impl::MirageGPUWarpReductionsBase<WarpReductions> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    mirage::registerLoopsToGPUDependentDialects(registry);
  }
  void runOnOperation() override {
    mirage::WarpReductionCounts counts;
    if (failed(forEachKernel(getOperation(), [&](func::FuncOp k) {
          return mirage::foldReductionTreesInWarps(k, counts);
        })))
      return signalPassFailure();
    numTrees += counts.trees;
    numFolded += counts.folded;
    numKept += counts.kept;
    numPhasesRemoved += counts.phasesRemoved;
  }
};

struct MapForalls : mirage::impl::MirageGPUMapForallsBase<MapForalls> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    mirage::registerLoopsToGPUDependentDialects(registry);
  }
  void runOnOperation() override {
    if (failed(forEachKernel(getOperation(), mirage::mapKernelToGPU)))
      signalPassFailure();
  }
};

struct TensorCores : mirage::impl::MirageGPUTensorCoresBase<TensorCores> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    mirage::registerLoopsToGPUDependentDialects(registry);
  }
  void runOnOperation() override {
    if (failed(forEachKernel(getOperation(), [&](func::FuncOp k) {
          return mirage::convertContractsToTensorCores(k, tf32, fma);
        })))
      signalPassFailure();
  }
};

struct AsyncCopies : mirage::impl::MirageGPUAsyncCopiesBase<AsyncCopies> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    mirage::registerLoopsToGPUDependentDialects(registry);
  }
  void runOnOperation() override {
    int64_t dropped = 0;
    if (failed(forEachKernel(getOperation(), [&](func::FuncOp k) {
          return mirage::optimizeSharedMemoryCopies(
              k, asyncCopies, swizzle, eliminateBarriers, &dropped);
        })))
      signalPassFailure();
    numIssueBarriers += dropped;
  }
};

struct CheckConvergence
    : mirage::impl::MirageGPUCheckConvergenceBase<CheckConvergence> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    mirage::registerLoopsToGPUDependentDialects(registry);
  }
  void runOnOperation() override {
    mirage::ConvergenceCounts counts;
    if (failed(forEachKernel(getOperation(), [&](func::FuncOp k) {
          return mirage::verifyConvergentOps(k, &counts);
        })))
      signalPassFailure();
    numBarriers += counts.barriers;
    numWarpOps += counts.warpOps;
  }
};

struct CheckSharedRaces
    : mirage::impl::MirageGPUCheckSharedRacesBase<CheckSharedRaces> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    mirage::registerLoopsToGPUDependentDialects(registry);
  }
  void runOnOperation() override {
    mirage::SharedRaceCounts counts;
    if (failed(forEachKernel(getOperation(), [&](func::FuncOp k) {
          return mirage::verifySharedMemoryRaceFree(k, &counts);
        })))
      signalPassFailure();
    numChecked += counts.checked;
    numSkipped += counts.skipped;
    numAccesses += counts.accesses;
  }
};

struct SerializeToPTX
    : mirage::impl::MirageGPUSerializeToPTXBase<SerializeToPTX> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    mirage::registerLoopsToGPUDependentDialects(registry);
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The NVPTX back end aborts ("Cannot select") on chips without the
    // instructions the lowering emits: only the targets' chips get there.
    if (!mirage::lookupTargetByChip(chip)) {
      module.emitError(mirage::unsupportedChipMessage(chip));
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> kernels = mirage::getMirageKernels(module);
    if (kernels.empty()) {
      module.emitError("no `mirage_kernel.kernel` function in the module");
      return signalPassFailure();
    }
    Builder b(module.getContext());
    SmallVector<NamedAttribute> info;
    for (func::FuncOp k : kernels) {
      // As stage 4 placed the buffers (SharedPlacement).
      auto bytes = [&](StringRef attr) {
        auto v = k->getAttrOfType<IntegerAttr>(attr);
        return v ? v.getInt() : int64_t(0);
      };
      info.push_back(b.getNamedAttr(
          k.getName(),
          b.getDenseI64ArrayAttr({bytes(mirage::kDynamicSharedBytesAttr),
                                  bytes(mirage::kStaticSharedBytesAttr)})));
    }
    mirage::GpuCodegenOptions opts;
    opts.chip = chip;
    opts.features = features;
    opts.optLevel = optLevel;
    opts.cudaPath = cudaPath;
    FailureOr<std::string> ptx = mirage::outlineAndSerializeToPTX(module, opts);
    if (failed(ptx))
      return signalPassFailure();
    for (auto bin : module.getOps<gpu::BinaryOp>())
      bin->setAttr(mirage::kPtxKernelsAttr, b.getDictionaryAttr(info));
    if (ptxFile.empty())
      return;
    std::string err;
    auto out = openOutputFile(ptxFile, &err);
    if (!out) {
      module.emitError("cannot write PTX: ") << err;
      return signalPassFailure();
    }
    out->os() << *ptx;
    out->keep();
  }
};
} // namespace

//===- LoopsToPTX.cpp - The whole GPU lowering and its pass ---------------===//
//
// Chains the stages of LoopsToGPU.h on a copy of the kernels module, so that
// a failure leaves the caller's module unchanged (Lowering.md, "Errors"),
// and provides mirage-loops-to-gpu.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Semantics/Target.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGELOOPSTOGPU
#include "Mirage/Conversion/LoopsToGPUPasses.h.inc"
} // namespace mirage

using namespace mlir;

void mirage::registerLoopsToGPUDependentDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect,
                  gpu::GPUDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect,
                  nvgpu::NVGPUDialect, scf::SCFDialect, ub::UBDialect,
                  vector::VectorDialect>();
  // ConvertToLLVM interfaces used by convert-gpu-to-nvvm, the NVVM target
  // serialiser and LLVM IR translation.
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

namespace {
/// How far lowerLoopsToPTX goes; every value is a stopping point of the
/// stop-after pass option.
enum class Stage { Map, Mma, Copies, Smem, Ptx };

std::optional<Stage> parseStage(StringRef s) {
  return llvm::StringSwitch<std::optional<Stage>>(s)
      .Case("map", Stage::Map)
      .Case("mma", Stage::Mma)
      .Case("copies", Stage::Copies)
      .Case("smem", Stage::Smem)
      .Case("", Stage::Ptx)
      .Default(std::nullopt);
}

int64_t workgroupBytes(func::FuncOp kernel) {
  int64_t total = 0;
  kernel.walk([&](memref::AllocOp a) {
    if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(a.getType()))
      total += llvm::alignTo(a.getType().getNumElements() *
                                 a.getType().getElementTypeBitWidth() / 8,
                             16);
  });
  return total;
}

FailureOr<mirage::PtxModule> runStages(ModuleOp kernels,
                                       const mirage::GpuCodegenOptions &opts,
                                       Stage last) {
  mirage::PtxModule result;
  SmallVector<func::FuncOp> funcs = mirage::getMirageKernels(kernels);
  if (funcs.empty())
    return kernels.emitError("no `mirage.kernel` function in the module");
  for (func::FuncOp k : funcs)
    result.kernels.push_back({k.getName().str(), 0, 0});

  for (func::FuncOp k : funcs)
    if (failed(mirage::mapKernelToGPU(k)))
      return failure();
  if (last == Stage::Map)
    return result;
  for (func::FuncOp k : funcs)
    if (failed(mirage::convertContractsToTensorCores(k, opts.tf32,
                                                     opts.fmaContraction)))
      return failure();
  if (last == Stage::Mma)
    return result;
  for (func::FuncOp k : funcs)
    if (failed(mirage::optimizeSharedMemoryCopies(k, opts.asyncCopies,
                                                  opts.swizzleSharedMemory)))
      return failure();
  if (last == Stage::Copies)
    return result;
  for (auto [k, info] : llvm::zip(funcs, result.kernels)) {
    int64_t bytes = workgroupBytes(k);
    FailureOr<int64_t> dyn = mirage::placeWorkgroupBuffers(
        k, opts.maxStaticSharedBytes, opts.dynamicSharedReserve);
    if (failed(dyn))
      return failure();
    info.dynamicSharedBytes = *dyn;
    info.staticSharedBytes = *dyn ? 0 : bytes;
  }
  if (last == Stage::Smem)
    return result;
  FailureOr<std::string> ptx = mirage::outlineAndSerializeToPTX(kernels, opts);
  if (failed(ptx))
    return failure();
  result.ptx = std::move(*ptx);
  return result;
}

FailureOr<mirage::PtxModule> lowerInPlace(ModuleOp kernels,
                                          const mirage::GpuCodegenOptions &o,
                                          Stage last) {
  // The NVPTX back end aborts ("Cannot select") on chips without the
  // instructions the lowering emits: only the targets' chips get that far.
  if (!mirage::lookupTargetByChip(o.chip))
    return kernels.emitError("unsupported chip '")
           << o.chip << "' (supported: " << mirage::supportedChips() << ")";
  // Work on a copy: on failure the caller's module stays as it was.
  OwningOpRef<ModuleOp> work(cast<ModuleOp>(kernels->clone()));
  FailureOr<mirage::PtxModule> result = runStages(*work, o, last);
  if (failed(result))
    return failure();
  kernels.getBody()->clear();
  kernels.getBody()->getOperations().splice(
      kernels.getBody()->end(), work->getBody()->getOperations());
  kernels->setDiscardableAttrs(
      work->getOperation()->getDiscardableAttrDictionary());
  return result;
}
} // namespace

FailureOr<mirage::PtxModule>
mirage::lowerLoopsToPTX(ModuleOp kernels, const GpuCodegenOptions &opts) {
  return lowerInPlace(kernels, opts, Stage::Ptx);
}

namespace {
struct LoopsToGPUPass : mirage::impl::MirageLoopsToGPUBase<LoopsToGPUPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    mirage::registerLoopsToGPUDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<Stage> last = parseStage(stopAfter);
    if (!last) {
      module.emitError("unknown stop-after stage '")
          << stopAfter << "' (map, mma, copies, smem)";
      return signalPassFailure();
    }
    mirage::GpuCodegenOptions opts;
    opts.chip = chip;
    opts.features = features;
    opts.optLevel = optLevel;
    opts.tf32 = tf32;
    opts.fmaContraction = fma;
    opts.asyncCopies = asyncCopies;
    opts.swizzleSharedMemory = swizzle;
    opts.maxStaticSharedBytes = maxStaticSharedBytes;
    opts.cudaPath = cudaPath;
    FailureOr<mirage::PtxModule> ptx = lowerInPlace(module, opts, *last);
    if (failed(ptx))
      return signalPassFailure();
    if (*last != Stage::Ptx)
      return;

    Builder b(module.getContext());
    SmallVector<NamedAttribute> info;
    for (const mirage::PtxKernelInfo &k : ptx->kernels)
      info.push_back(b.getNamedAttr(
          k.name, b.getDenseI64ArrayAttr(
                      {k.dynamicSharedBytes, k.staticSharedBytes})));
    for (auto bin : module.getOps<gpu::BinaryOp>())
      bin->setAttr("mirage.kernels", b.getDictionaryAttr(info));

    if (!ptxFile.empty()) {
      std::string err;
      auto out = openOutputFile(ptxFile, &err);
      if (!out) {
        module.emitError("cannot write PTX: ") << err;
        return signalPassFailure();
      }
      out->os() << ptx->ptx;
      out->keep();
    }
  }
};
} // namespace

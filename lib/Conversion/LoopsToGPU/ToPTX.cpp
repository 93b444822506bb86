//===- ToPTX.cpp - Stage 5: outline into one gpu.module, NVVM, PTX --------===//
//
// Outlining is done here rather than by gpu-kernel-outlining because the
// launcher needs a fixed ABI: one gpu.module for all kernels, entry names
// equal to the kernel function names, and parameters exactly the kernel's
// memref arguments in order (the pass appends captured values in use order,
// drops unused arguments and names entries <func>_kernel). Host code is
// erased: the launcher sequences kernels from its manifest.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Conversion/KernelToLoops.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"

#include "UpstreamWorkarounds.h"

#include <cstdlib>

#define DEBUG_TYPE "mirage-loops-to-gpu"

using namespace mlir;

static constexpr StringLiteral kGpuModuleName = "mirage_kernels_ptx";

/// The CUDA toolkit root: `explicitPath` if set, else CUDA_ROOT, CUDA_HOME,
/// CUDA_PATH (the variables the NVVM target itself reads), else
/// /usr/local/cuda. Only libdevice is used from it.
static std::string resolveCudaPath(StringRef explicitPath) {
  if (!explicitPath.empty())
    return explicitPath.str();
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *v = std::getenv(var); v && *v)
      return v;
  return "/usr/local/cuda";
}

/// Moves the gpu.launch of every kernel into one gpu.module as a gpu.func
/// named like the kernel, with the workgroup globals it uses, and erases
/// everything else of `kernels`.
static FailureOr<gpu::GPUModuleOp> outlineKernels(ModuleOp kernels) {
  MLIRContext *ctx = kernels.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(kernels.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, kernels.getLoc(),
                                            kGpuModuleName);
  SymbolTable gpuSymbols(gpuModule);
  SymbolTable hostSymbols(kernels);
  for (func::FuncOp kernel : mirage::getMirageKernels(kernels)) {
    auto launches = llvm::to_vector(kernel.getOps<gpu::LaunchOp>());
    if (launches.size() != 1)
      return kernel.emitError("expected exactly one gpu.launch in the kernel "
                              "after GPU mapping, found ")
             << launches.size();
    gpu::LaunchOp launch = launches.front();
    // Constants and other pure ops used by the launch are recomputed inside.
    if (failed(sinkOperationsIntoLaunchOp(launch, [](Operation *op) {
          return op->getNumRegions() == 0 && isMemoryEffectFree(op);
        })))
      return launch.emitError("could not sink values into the launch");
    SmallVector<Value> operands(kernel.getArguments());
    gpu::GPUFuncOp func =
        outlineKernelFunc(launch, kernel.getName(), operands);
    if (operands.size() != kernel.getNumArguments()) {
      func.erase();
      return launch.emitError("kernel body uses values other than the "
                              "kernel's arguments, the PTX ABI would not be "
                              "one pointer per memref argument");
    }
    gpuSymbols.insert(func);
    // Programmatic dependent launch (Lowering.md): the wait comes before
    // any other instruction of the kernel, then the trigger.
    OpBuilder entry = OpBuilder::atBlockBegin(&func.getBody().front());
    if (kernel->hasAttr(mirage::kWaitsOnPreviousAttr))
      NVVM::GriddepcontrolOp::create(entry, func.getLoc(),
                                     NVVM::GridDepActionKind::wait);
    if (kernel->hasAttr(mirage::kLaunchesDependentsAttr))
      NVVM::GriddepcontrolOp::create(
          entry, func.getLoc(), NVVM::GridDepActionKind::launch_dependents);
    // The plan's occupancy promise (KernelPlan::minBlocksPerSM) tells ptxas
    // the register budget: .minnctapersm N with .maxntid T lets each thread
    // use up to registersPerSM / (N * T) registers. Without it ptxas picks
    // its own budget (64 for 128 threads) and spills where one block per SM
    // could have kept every value in registers.
    if (auto n = kernel->getAttrOfType<IntegerAttr>(mirage::kMinBlocksPerSMAttr))
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b.getI32IntegerAttr(static_cast<int32_t>(n.getInt())));
    if (func.getName() != kernel.getName())
      return kernel.emitError("duplicate kernel name");
    // Workgroup globals referenced by the body move into the gpu.module.
    WalkResult r = func.walk([&](memref::GetGlobalOp g) {
      if (gpuSymbols.lookup(g.getName()))
        return WalkResult::advance();
      auto global = hostSymbols.lookup<memref::GlobalOp>(g.getName());
      if (!global) {
        g.emitError("unknown global ") << g.getName();
        return WalkResult::interrupt();
      }
      OpBuilder gb(ctx);
      gb.setInsertionPointToStart(gpuModule.getBody());
      gb.clone(*global);
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
  }
  // Host code (kernel funcs with their launches, the host graph function,
  // globals now copied) is not part of the PTX.
  for (Operation &op : llvm::make_early_inc_range(*kernels.getBody()))
    if (&op != gpuModule.getOperation())
      op.erase();
  kernels->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                   UnitAttr::get(ctx));
  return gpuModule;
}

void mirage::populateVectorTransferToLoadStorePatterns(
    RewritePatternSet &patterns) {
  // n-D transfers unrolled into 1-D ones (no local-memory staging buffer),
  // permutations made explicit, then 1-D in-bounds transfers become
  // vector.load/store.
  populateVectorToSCFConversionPatterns(
      patterns, VectorTransferToSCFOptions().enableFullUnroll());
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  vector::populateVectorTransferLoweringPatterns(patterns,
                                                 /*maxTransferRank=*/1);
}

FailureOr<std::string>
mirage::outlineAndSerializeToPTX(ModuleOp kernels,
                                 const GpuCodegenOptions &opts) {
  FailureOr<gpu::GPUModuleOp> gpuModule = outlineKernels(kernels);
  if (failed(gpuModule))
    return failure();

  MLIRContext *ctx = kernels.getContext();
  if (failed(mirage::detail::rejectKernelMallocs(*gpuModule)))
    return failure();
  // Transfers that did not become cp.async, ldmatrix or fragment loads
  // (copies with async-copies off, copies other than 16 bytes, stores to
  // global) have no LLVM lowering in convert-gpu-to-nvvm.
  llvm::SmallPtrSet<Operation *, 32> before;
  (*gpuModule).walk([&](Operation *op) {
    if (isa<vector::LoadOp, vector::StoreOp>(op))
      before.insert(op);
  });
  RewritePatternSet transfers(ctx);
  mirage::populateVectorTransferToLoadStorePatterns(transfers);
  if (failed(applyPatternsGreedily(*gpuModule, std::move(transfers))))
    return gpuModule->emitError("lowering vector transfers failed");
  mirage::detail::alignVectorAccesses(*gpuModule, before);

  PassManager pm(ctx, ModuleOp::getOperationName());
  GpuNVVMAttachTargetOptions target;
  target.chip = opts.chip;
  target.features = opts.features;
  target.optLevel = opts.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
  // Same order as upstream gpu-lower-to-nvvm-pipeline, restricted to the
  // device module.
  gpm.addPass(createConvertNVGPUToNVVMPass());
  gpm.addPass(createSCFToControlFlowPass());
  gpm.addPass(memref::createExpandStridedMetadataPass());
  gpm.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  // One .u64 parameter per memref (static shapes only).
  nvvm.useBarePtrCallConv = true;
  gpm.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  gpm.addPass(createConvertNVVMToLLVMPass());
  gpm.addPass(createCanonicalizerPass());
  gpm.addPass(createCSEPass());
  gpm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(kernels)))
    return failure();

  mirage::detail::externalizeDynamicSharedMemory(*gpuModule);

  // Math functions lower to libdevice calls (__nv_expf, ...). The NVVM
  // serialiser links libdevice only if it finds a CUDA toolkit, from the
  // environment unless told, and otherwise leaves `.extern .func` calls in
  // the PTX that no driver resolves. Use an explicit path and fail clearly.
  std::string cuda = resolveCudaPath(opts.cudaPath);
  std::string libdevice = cuda + "/nvvm/libdevice/libdevice.10.bc";
  bool needsLibdevice = false;
  (*gpuModule).walk([&](LLVM::LLVMFuncOp f) {
    if (f.isExternal() && f.getName().starts_with("__nv_")) {
      needsLibdevice = true;
      LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] libdevice: " << f.getName()
                              << "\n");
    }
  });
  if (needsLibdevice && !llvm::sys::fs::exists(libdevice))
    return kernels.emitError("kernels call libdevice math functions but ")
           << libdevice
           << " does not exist; set the CUDA toolkit path (cuda-path)";

  PassManager binPm(ctx, ModuleOp::getOperationName());
  GpuModuleToBinaryPassOptions bin;
  bin.compilationTarget = "isa";
  bin.toolkitPath = cuda;
  binPm.addPass(createGpuModuleToBinaryPass(bin));
  if (failed(binPm.run(kernels)))
    return failure();

  auto binary = kernels.lookupSymbol<gpu::BinaryOp>(kGpuModuleName);
  if (!binary || binary.getObjects().size() != 1)
    return kernels.emitError("internal: expected one gpu.binary object");
  auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
  if (object.getFormat() != gpu::CompilationTarget::Assembly)
    return kernels.emitError("internal: expected a PTX (isa) object");
  return object.getObject().getValue().str();
}

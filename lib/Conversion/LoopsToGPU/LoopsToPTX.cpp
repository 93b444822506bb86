//===- LoopsToPTX.cpp - The GPU lowering as a pipeline of its stages ------===//
//
// buildLoopsToGPUPipeline chains the stage passes (StagePasses.cpp); it is
// the registered pipeline mirage-loops-to-gpu, and lowerLoopsToPTX runs it on
// a copy of the kernels module, so that a failure leaves the caller's module
// unchanged (Lowering.md, "Errors").
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mirage::registerLoopsToGPUDependentDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect,
                  gpu::GPUDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect,
                  nvgpu::NVGPUDialect, scf::SCFDialect, ub::UBDialect,
                  vector::VectorDialect, mirage::kernel::KernelDialect>();
  // ConvertToLLVM interfaces used by convert-gpu-to-nvvm, the NVVM target
  // serialiser and LLVM IR translation.
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

void mirage::buildLoopsToGPUPipeline(OpPassManager &pm,
                                     const GpuCodegenOptions &opts,
                                     GpuStage last) {
  if (opts.warpReductions)
    pm.addPass(createMirageGPUWarpReductions());
  pm.addPass(createMirageGPUMapForalls());
  if (opts.eliminateBarriers)
    pm.addNestedPass<func::FuncOp>(createGpuEliminateBarriers());
  if (last == GpuStage::Map)
    return;
  MirageGPUTensorCoresOptions mma;
  mma.tf32 = opts.tf32;
  mma.fma = opts.fmaContraction;
  pm.addPass(createMirageGPUTensorCores(mma));
  if (last == GpuStage::Mma)
    return;
  MirageGPUAsyncCopiesOptions copies;
  copies.asyncCopies = opts.asyncCopies;
  copies.swizzle = opts.swizzleSharedMemory;
  copies.eliminateBarriers = opts.eliminateBarriers;
  pm.addPass(createMirageGPUAsyncCopies(copies));
  if (last == GpuStage::Copies)
    return;
  MirageWorkgroupAllocToGlobalOptions smem;
  smem.maxStaticBytes = opts.maxStaticSharedBytes;
  smem.dynamicReserve = opts.dynamicSharedReserve;
  pm.addPass(createMirageWorkgroupAllocToGlobal(smem));
  // What the CPU path cannot see: collectives under divergent guards.
  pm.addPass(createMirageGPUCheckConvergence());
  pm.addPass(createMirageGPUCheckSharedRaces());
  if (last == GpuStage::Smem)
    return;
  MirageGPUSerializeToPTXOptions ptx;
  ptx.chip = opts.chip;
  ptx.features = opts.features;
  ptx.optLevel = opts.optLevel;
  ptx.cudaPath = opts.cudaPath;
  ptx.ptxFile = opts.ptxFile;
  pm.addPass(createMirageGPUSerializeToPTX(ptx));
}

FailureOr<mirage::PtxModule>
mirage::lowerLoopsToPTX(ModuleOp kernels, const GpuCodegenOptions &opts) {
  // Work on a copy: on failure the caller's module stays as it was.
  OwningOpRef<ModuleOp> work(cast<ModuleOp>(kernels->clone()));
  SmallVector<std::string> names;
  for (func::FuncOp k : getMirageKernels(*work))
    names.push_back(k.getName().str());
  PassManager pm(kernels.getContext(), ModuleOp::getOperationName());
  buildLoopsToGPUPipeline(pm, opts);
  if (failed(pm.run(*work)))
    return failure();

  PtxModule result;
  auto binaries = llvm::to_vector(work->getOps<gpu::BinaryOp>());
  auto info = binaries.size() == 1
                  ? binaries.front()->getAttrOfType<DictionaryAttr>(
                        kPtxKernelsAttr)
                  : DictionaryAttr();
  if (!info || binaries.front().getObjects().size() != 1)
    return kernels.emitError("internal: the GPU lowering left no single PTX "
                             "binary with its kernel table");
  result.ptx = cast<gpu::ObjectAttr>(binaries.front().getObjects()[0])
                   .getObject()
                   .str();
  for (const std::string &name : names) {
    auto sizes = info.getAs<DenseI64ArrayAttr>(name);
    if (!sizes || sizes.size() != 2)
      return kernels.emitError("internal: no shared-memory sizes for kernel '")
             << name << "'";
    result.kernels.push_back({name, sizes[0], sizes[1]});
  }
  kernels.getBody()->clear();
  kernels.getBody()->getOperations().splice(
      kernels.getBody()->end(), work->getBody()->getOperations());
  kernels->setDiscardableAttrs(
      work->getOperation()->getDiscardableAttrDictionary());
  return result;
}

namespace {
/// Options of the registered pipeline: the GpuCodegenOptions, and where to
/// stop (for tests that inspect a stage).
struct LoopsToGPUPipelineOptions
    : public PassPipelineOptions<LoopsToGPUPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("NVPTX target chip: sm_80, sm_90 "
                                          "or sm_90a; any other is refused"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features", llvm::cl::desc("NVPTX target features (PTX ISA)"),
      llvm::cl::init("+ptx80")};
  Option<int> optLevel{*this, "O",
                       llvm::cl::desc("NVPTX optimisation level"),
                       llvm::cl::init(3)};
  Option<bool> tf32{*this, "tf32",
                    llvm::cl::desc("map f32 contractions to tf32 tensor "
                                   "cores"),
                    llvm::cl::init(false)};
  Option<bool> fma{*this, "fma",
                   llvm::cl::desc("let f32 multiply-adds fuse into fma.rn"),
                   llvm::cl::init(true)};
  Option<bool> asyncCopies{
      *this, "async-copies",
      llvm::cl::desc("16-byte global-to-shared copies become cp.async"),
      llvm::cl::init(true)};
  Option<bool> swizzle{*this, "swizzle",
                       llvm::cl::desc("XOR-swizzle shared tiles read by "
                                      "ldmatrix"),
                       llvm::cl::init(true)};
  Option<bool> warpReductions{
      *this, "warp-reductions",
      llvm::cl::desc("fold reduction trees in warps with shuffles"),
      llvm::cl::init(true)};
  Option<bool> eliminateBarriers{
      *this, "eliminate-barriers",
      llvm::cl::desc("drop barriers between phases whose memory effects do "
                     "not conflict (upstream gpu-eliminate-barriers, and "
                     "stage 3 once the copies are cp.async)"),
      llvm::cl::init(true)};
  Option<int64_t> maxStaticSharedBytes{
      *this, "max-static-shared-bytes",
      llvm::cl::desc("above this, workgroup buffers use dynamic shared "
                     "memory"),
      llvm::cl::init(48 * 1024)};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit root for libdevice (default: "
                     "$CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda)"),
      llvm::cl::init("")};
  Option<std::string> ptxFile{
      *this, "ptx-file", llvm::cl::desc("also write the PTX text to this file"),
      llvm::cl::init("")};
  Option<mirage::GpuStage> stopAfter{
      *this, "stop-after", llvm::cl::desc("stop after a stage (for tests)"),
      llvm::cl::init(mirage::GpuStage::Ptx),
      llvm::cl::values(
          clEnumValN(mirage::GpuStage::Map, "map", "mirage-gpu-map-foralls"),
          clEnumValN(mirage::GpuStage::Mma, "mma", "mirage-gpu-tensor-cores"),
          clEnumValN(mirage::GpuStage::Copies, "copies",
                     "mirage-gpu-async-copies"),
          clEnumValN(mirage::GpuStage::Smem, "smem",
                     "mirage-workgroup-alloc-to-global"),
          clEnumValN(mirage::GpuStage::Ptx, "ptx",
                     "mirage-gpu-serialize-to-ptx (the whole lowering)"))};
};
} // namespace

void mirage::registerLoopsToGPUPipeline() {
  PassPipelineRegistration<LoopsToGPUPipelineOptions>(
      "mirage-loops-to-gpu",
      "lower a @mirage_kernels module of loop-level kernels to PTX: the "
      "stage passes mirage-gpu-warp-reductions, mirage-gpu-map-foralls, "
      "gpu-eliminate-barriers, mirage-gpu-tensor-cores, "
      "mirage-gpu-async-copies, mirage-workgroup-alloc-to-global and "
      "mirage-gpu-serialize-to-ptx (anchor it on the nested module)",
      [](OpPassManager &pm, const LoopsToGPUPipelineOptions &o) {
        GpuCodegenOptions opts;
        opts.chip = o.chip;
        opts.features = o.features;
        opts.optLevel = o.optLevel;
        opts.tf32 = o.tf32;
        opts.fmaContraction = o.fma;
        opts.asyncCopies = o.asyncCopies;
        opts.swizzleSharedMemory = o.swizzle;
        opts.warpReductions = o.warpReductions;
        opts.eliminateBarriers = o.eliminateBarriers;
        opts.maxStaticSharedBytes = o.maxStaticSharedBytes;
        opts.cudaPath = o.cudaPath;
        opts.ptxFile = o.ptxFile;
        buildLoopsToGPUPipeline(pm, opts, o.stopAfter);
      });
}

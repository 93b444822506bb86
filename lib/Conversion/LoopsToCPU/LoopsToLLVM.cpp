//===- LoopsToLLVM.cpp - Loop-level kernels to host LLVM ------------------===//
//
// The checked pass order of ../shared/reference/gpu-lowering.md §8:
// workgroup tiles become per-block stack buffers, foralls become loops,
// vectors lower to SCF and LLVM with the outer-product contraction (the
// default `dot` lowering leaves mixed-precision contracts behind), and
// functions take bare pointers. Blocks run one after another: a parallel
// grid (OpenMP) is not wired up yet.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToCPU.h"
#include "Mirage/Semantics/KernelPlan.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mirage::convertWorkgroupTilesToStack(Operation *root) {
  SmallVector<memref::AllocOp> allocs;
  root->walk([&](memref::AllocOp a) {
    if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(a.getType()))
      allocs.push_back(a);
  });
  for (memref::AllocOp a : allocs) {
    // At the function's entry, not in the block body: the grid becomes a
    // loop, and an alloca per iteration would grow the stack by the tiles of
    // every block. Blocks run one after another, so one set serves all.
    auto fn = a->getParentOfType<func::FuncOp>();
    OpBuilder b = fn ? OpBuilder::atBlockBegin(&fn.getBody().front())
                     : OpBuilder(a);
    MemRefType t = MemRefType::get(a.getType().getShape(),
                                   a.getType().getElementType());
    // Aligned as the GPU's shared memory places it (kStaticSharedAlign at
    // least): vector accesses of element phases carry that alignment
    // (VectorElementPhases.md).
    int64_t align =
        std::max<int64_t>(a.getAlignment().value_or(0), kStaticSharedAlign);
    Value stack =
        memref::AllocaOp::create(b, a.getLoc(), t, b.getI64IntegerAttr(align));
    // Users see the default memory space now; the result types of views
    // (a pipelined tile's stage subview, collapse_shape, the transposed
    // view of a tile stored transposed, and views of those) follow their
    // operand.
    a.getResult().replaceAllUsesWith(stack);
    a.erase();
    SmallVector<Value> worklist{stack};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (!isa<memref::SubViewOp, memref::CollapseShapeOp,
                 memref::TransposeOp>(user))
          continue;
        Value view = user->getResult(0);
        auto vt = cast<MemRefType>(view.getType());
        view.setType(MemRefType::get(vt.getShape(), vt.getElementType(),
                                     vt.getLayout()));
        worklist.push_back(view);
      }
    }
  }
}

namespace {
/// Pass form of convertWorkgroupTilesToStack, for the pipeline.
struct WorkgroupTilesToStack
    : PassWrapper<WorkgroupTilesToStack, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(WorkgroupTilesToStack)
  StringRef getArgument() const override {
    return "mirage-workgroup-tiles-to-stack";
  }
  void runOnOperation() override {
    mirage::convertWorkgroupTilesToStack(getOperation());
  }
};

} // namespace

void mirage::buildLoopsToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(std::make_unique<WorkgroupTilesToStack>());
  pm.addPass(createForallToForLoopPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLowerAffinePass());
  // Fully unrolled: the default keeps n-D transfers as loops over a stack
  // temporary allocated where the transfer is, i.e. in every iteration of
  // the warp and k loops, which grew the stack by megabytes in a pipelined
  // attention kernel and overflowed it.
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(createLowerAffinePass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  ConvertVectorToLLVMPassOptions vec;
  vec.vectorContractLowering = vector::VectorContractLowering::OuterProduct;
  pm.addPass(createConvertVectorToLLVMPass(vec));
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  // bf16 has no native host arithmetic: expand its conversions to integer
  // code. Functions without an LLVM intrinsic go to libm.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions fn;
  fn.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(fn));
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

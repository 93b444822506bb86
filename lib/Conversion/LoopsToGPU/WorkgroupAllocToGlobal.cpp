//===- WorkgroupAllocToGlobal.cpp - Workgroup allocs to .shared globals ---===//
#include "Mirage/Conversion/LoopsToGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEWORKGROUPALLOCTOGLOBAL
#include "Mirage/Conversion/LoopsToGPUPasses.h.inc"
} // namespace mirage

using namespace mlir;

namespace {
struct WorkgroupAllocToGlobal
    : mirage::impl::MirageWorkgroupAllocToGlobalBase<WorkgroupAllocToGlobal> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp a) {
      auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
          a.getType().getMemorySpace());
      if (space && space.getValue() == gpu::AddressSpace::Workgroup)
        allocs.push_back(a);
    });
    for (memref::AllocOp a : allocs) {
      if (!a.getType().hasStaticShape() || !a.getDynamicSizes().empty()) {
        a.emitError("workgroup allocation must have a static shape");
        return signalPassFailure();
      }
      OpBuilder b(module.getBodyRegion());
      auto global = memref::GlobalOp::create(
          b, a.getLoc(), "__mirage_smem", b.getStringAttr("private"),
          a.getType(), Attribute(), /*constant=*/false,
          a.getAlignmentAttr());
      symbols.insert(global);
      b.setInsertionPoint(a);
      Value g = memref::GetGlobalOp::create(b, a.getLoc(), a.getType(),
                                            global.getSymName());
      // Deallocations of a static buffer have nothing left to free.
      for (Operation *user : llvm::make_early_inc_range(a->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      a.replaceAllUsesWith(g);
      a.erase();
    }
  }
};
} // namespace

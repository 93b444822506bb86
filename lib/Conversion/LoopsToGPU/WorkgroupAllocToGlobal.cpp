//===- WorkgroupAllocToGlobal.cpp - Stage 4: place workgroup buffers ------===//
//
// A `memref.alloc` in #gpu.address_space<workgroup> inside a GPU kernel
// silently becomes a per-thread malloc in convert-gpu-to-nvvm
// (gpu-lowering.md 2.2). Upstream transforms (swizzle, multi-buffering) only
// work on allocs, so they stay allocs until here and are then placed:
//   * total <= the static budget: views at planned offsets of one
//     module-level workgroup memref.global of i8 (NVPTX: `.shared .align 16
//     .b8 name[bytes]`), so ptxas allocates exactly the plan's bytes;
//   * above it (ptxas caps static .shared at 48 KiB): views of
//     gpu.dynamic_shared_memory at planned offsets. The first `reserve` bytes
//     stay unused (gpu-lowering.md 7.3: where the dynamic base lies relative
//     to other .shared symbols is unverified on hardware).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"
#include "Mirage/Semantics/KernelPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "mirage-loops-to-gpu"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEWORKGROUPALLOCTOGLOBAL
#include "Mirage/Conversion/LoopsToGPUPasses.h.inc"
} // namespace mirage

using namespace mlir;

namespace {
// The layout rule is the launch plan's (KernelPlan.h, sharedLayoutBytes):
// 16-byte static buffers (cp.async.cg and ldmatrix rows), 128-byte dynamic
// ones (one bank-conflict-free swizzle period), the dynamic size rounded up
// to 128 bytes.
constexpr int64_t kStaticAlign = mirage::kStaticSharedAlign;
constexpr int64_t kDynamicAlign = mirage::kDynamicSharedAlign;

bool isWorkgroupAlloc(memref::AllocOp a) {
  return gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(a.getType());
}

int64_t byteSize(MemRefType t) {
  return t.getNumElements() *
         llvm::divideCeil(t.getElementTypeBitWidth(), 8);
}

void eraseDeallocs(memref::AllocOp a) {
  // Deallocations of a static buffer have nothing left to free.
  for (Operation *user : llvm::make_early_inc_range(a->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
}

/// Replaces each of `allocs`, in order, by a view of the i8 buffer `base`
/// from byte `start` on, each at an offset aligned to `alignOf(alloc)`;
/// returns the end of the last one.
int64_t placeAsViews(ArrayRef<memref::AllocOp> allocs, Value base,
                     int64_t start,
                     llvm::function_ref<int64_t(memref::AllocOp)> alignOf) {
  OpBuilder b(base.getContext());
  int64_t offset = start;
  for (memref::AllocOp a : allocs) {
    offset = llvm::alignTo(offset, alignOf(a));
    b.setInsertionPoint(a);
    Value off = arith::ConstantIndexOp::create(b, a.getLoc(), offset);
    Value view = memref::ViewOp::create(b, a.getLoc(), a.getType(), base, off,
                                        ValueRange{});
    offset += byteSize(a.getType());
    eraseDeallocs(a);
    a.replaceAllUsesWith(view);
    a.erase();
  }
  return offset;
}
} // namespace

FailureOr<mirage::SharedPlacement>
mirage::placeWorkgroupBuffers(func::FuncOp kernel, int64_t maxStaticBytes,
                              int64_t reserve) {
  SmallVector<memref::AllocOp> allocs;
  kernel.walk([&](memref::AllocOp a) {
    if (isWorkgroupAlloc(a))
      allocs.push_back(a);
  });
  if (allocs.empty())
    return SharedPlacement{};
  int64_t total = 0;
  for (memref::AllocOp a : allocs) {
    MemRefType t = a.getType();
    if (!t.hasStaticShape() || !t.getLayout().isIdentity())
      return a.emitError("workgroup allocation must have a static shape and "
                         "identity layout"),
             failure();
    total += llvm::alignTo(byteSize(t), kStaticAlign);
  }

  if (total <= maxStaticBytes) {
    // One buffer holding them all at the plan's offsets: ptxas lays out
    // separate .shared symbols in declaration order, each aligned but the
    // last one unpadded, so their sum would depend on an order the plan
    // cannot see (three buffers of 8, 8 and 16 bytes take 48 or 40).
    auto module = kernel->getParentOfType<ModuleOp>();
    SymbolTable symbols(module);
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPoint(kernel);
    Location loc = allocs.front().getLoc();
    int64_t align = kStaticAlign;
    for (memref::AllocOp a : allocs)
      align = std::max<int64_t>(align, a.getAlignment().value_or(0));
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto type = MemRefType::get({total}, b.getI8Type(),
                                MemRefLayoutAttrInterface(), space);
    auto global = memref::GlobalOp::create(
        b, loc, "__mirage_smem", b.getStringAttr("private"), type,
        Attribute(), /*constant=*/false, b.getI64IntegerAttr(align));
    symbols.insert(global); // uniquifies the name
    // One reference to it, where it dominates every buffer: the start of
    // the kernel's gpu.launch body (the outliner copies a referenced global
    // into the GPU module once per reference), or of the function.
    auto launch = allocs.front()->getParentOfType<gpu::LaunchOp>();
    if (launch && llvm::any_of(allocs, [&](memref::AllocOp a) {
          return a->getParentOfType<gpu::LaunchOp>() != launch;
        }))
      return allocs.front().emitError(
                 "workgroup buffers of one function must sit in one "
                 "gpu.launch"),
             failure();
    b.setInsertionPointToStart(launch ? &launch.getBody().front()
                                      : &kernel.getBody().front());
    Value base =
        memref::GetGlobalOp::create(b, loc, type, global.getSymName());
    int64_t end = placeAsViews(allocs, base, 0, [](memref::AllocOp a) {
      return std::max<int64_t>(a.getAlignment().value_or(0), kStaticAlign);
    });
    total = llvm::alignTo(end, kStaticAlign);
    LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] " << kernel.getName() << ": "
                            << total << " B static shared\n");
    return SharedPlacement{total, 0};
  }

  // Dynamic: every alloc must sit in the same gpu.launch (one kernel).
  auto launch = allocs.front()->getParentOfType<gpu::LaunchOp>();
  if (!launch || llvm::any_of(allocs, [&](memref::AllocOp a) {
        return a->getParentOfType<gpu::LaunchOp>() != launch;
      }))
    return allocs.front().emitError(
               "workgroup buffers above the static shared-memory budget "
               "need to be inside one gpu.launch (run the GPU mapping "
               "first)"),
           failure();
  OpBuilder b(launch.getContext());
  b.setInsertionPointToStart(&launch.getBody().front());
  Location loc = launch.getLoc();
  auto i8Space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
  Value base = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), i8Space));
  int64_t offset = llvm::alignTo(
      placeAsViews(allocs, base, reserve,
                   [](memref::AllocOp) { return kDynamicAlign; }),
      kDynamicAlign);
  LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] " << kernel.getName() << ": "
                          << offset << " B dynamic shared\n");
  return SharedPlacement{0, offset};
}

namespace {
struct WorkgroupAllocToGlobal
    : mirage::impl::MirageWorkgroupAllocToGlobalBase<WorkgroupAllocToGlobal> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp f : funcs) {
      FailureOr<mirage::SharedPlacement> placed =
          mirage::placeWorkgroupBuffers(f, maxStaticBytes, dynamicReserve);
      if (failed(placed))
        return signalPassFailure();
      Builder b(f);
      if (placed->dynamicBytes > 0)
        f->setAttr(mirage::kDynamicSharedBytesAttr,
                   b.getI64IntegerAttr(placed->dynamicBytes));
      if (placed->staticBytes > 0)
        f->setAttr(mirage::kStaticSharedBytesAttr,
                   b.getI64IntegerAttr(placed->staticBytes));
    }
  }
};
} // namespace

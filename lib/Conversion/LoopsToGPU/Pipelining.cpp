//===- Pipelining.cpp - Stage 3b: multi-stage cp.async pipelines ----------===//
//
// With cp.async groups in place, the for-loop around a copy phase can keep
// `depth - 1` tile loads in flight while it computes (gpu-lowering.md 5):
// each shared tile written by cp.async in the loop gets `depth` buffers
// (memref::multiBuffer, the loop iteration picks one), then nvgpu's shared
// memory pipeliner issues the copies of iteration k + depth - 1 in iteration
// k and waits with `cp.async.wait_group depth - 2`. The epilogue is peeled
// (transfer ops cannot be predicated). The pipeliner has no C++ entry point,
// so it runs from an embedded transform script on loops we mark.
//
// Multi-buffering skips upstream's override analysis, which does not
// understand our loops: it is safe because we only take tiles whose writes
// in the loop are all cp.async (each iteration rewrites its stage before
// reading it) and whose uses are all inside the loop.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Debug.h"

#include "Simplify.h"

#define DEBUG_TYPE "mirage-loops-to-gpu"

using namespace mlir;

static constexpr StringLiteral kPipelineMark = "mirage.pipeline";
/// Inner loops up to this trip count are unrolled to make a loop pipelinable.
static constexpr int64_t kMaxUnrolledTrips = 8;

/// Is every use of `alloc` inside `loop`, and every write a cp.async?
static bool onlyAsyncCopiedIn(memref::AllocOp alloc, scf::ForOp loop) {
  return llvm::all_of(alloc->getUsers(), [&](Operation *user) {
    if (!loop->isProperAncestor(user))
      return false;
    if (isa<nvgpu::DeviceAsyncCopyOp>(user))
      return true;
    auto mem = dyn_cast<MemoryEffectOpInterface>(user);
    return mem && !mem.hasEffect<MemoryEffects::Write>();
  });
}

LogicalResult mirage::pipelineSharedMemoryCopies(func::FuncOp kernel,
                                                 unsigned depth) {
  if (depth < 2)
    return success();
  MLIRContext *ctx = kernel.getContext();
  SetVector<Operation *> loops;
  kernel.walk([&](nvgpu::DeviceAsyncCopyOp cp) {
    if (auto loop = dyn_cast<scf::ForOp>(cp->getParentOp()))
      loops.insert(loop);
  });
  IRRewriter rewriter(ctx);
  bool any = false;
  for (Operation *op : loops) {
    auto loop = cast<scf::ForOp>(op);
    SetVector<memref::AllocOp> tiles;
    bool ok = true;
    loop.walk([&](nvgpu::DeviceAsyncCopyOp cp) {
      auto alloc = cp.getDst().getDefiningOp<memref::AllocOp>();
      if (!alloc || !onlyAsyncCopiedIn(alloc, loop))
        ok = false;
      else
        tiles.insert(alloc);
    });
    if (!ok || tiles.empty()) {
      LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] not pipelining " << loop
                              << "\n");
      continue;
    }
    // The pipeliner only takes loop bodies without nested regions: the
    // warp phases' k-steps (a few iterations) are unrolled.
    SmallVector<scf::ForOp> inner;
    for (Operation &o : *loop.getBody())
      if (auto f = dyn_cast<scf::ForOp>(o)) {
        std::optional<APInt> trips = f.getStaticTripCount();
        if (trips && trips->getSExtValue() <= kMaxUnrolledTrips)
          inner.push_back(f);
      }
    for (scf::ForOp f : inner)
      (void)loopUnrollFull(f);
    if (llvm::any_of(*loop.getBody(),
                     [](Operation &o) { return o.getNumRegions() > 0; })) {
      LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] not pipelining (nested "
                                 "regions) "
                              << loop << "\n");
      continue;
    }
    for (memref::AllocOp tile : tiles)
      if (failed(memref::multiBuffer(rewriter, tile, depth,
                                     /*skipOverrideAnalysis=*/true)))
        return tile.emitError("multi-buffering a copied tile failed");
    loop->setAttr(kPipelineMark, UnitAttr::get(ctx));
    any = true;
  }
  if (!any)
    return success();

  std::string script = R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["scf.for"]}
        attributes{mirage.pipeline} in %root
        : (!transform.any_op) -> !transform.any_op
    %p = transform.nvgpu.pipeline_shared_memory_copies failures(propagate)
        %loops {depth = )mlir" + std::to_string(depth) +
                       R"mlir( : i64, peel_epilogue}
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
})mlir";
  OwningOpRef<ModuleOp> lib =
      parseSourceString<ModuleOp>(script, ParserConfig(ctx));
  if (!lib)
    return kernel.emitError("internal: pipelining script does not parse");
  auto entry =
      lib->lookupSymbol<transform::TransformOpInterface>("__transform_main");
  if (failed(transform::applyTransforms(kernel, entry, {},
                                        transform::TransformOptions(),
                                        /*enforceToplevelTransformOp=*/false)))
    return kernel.emitError("pipelining the shared-memory copies failed");
  kernel.walk([](scf::ForOp loop) { loop->removeAttr(kPipelineMark); });
  detail::simplify(kernel);
  return success();
}

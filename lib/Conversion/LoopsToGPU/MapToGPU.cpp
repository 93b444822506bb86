//===- MapToGPU.cpp - Stage 1: foralls to gpu.launch, accumulators in regs ===//
//
// The block forall becomes a gpu.launch (grid = forall trip counts, block =
// `mirage.block`), thread and warp foralls become thread-id guarded bodies
// with a barrier after each (upstream transform-dialect mapping, run from an
// embedded script because generate_gpu_launch has no public C++ entry
// point). Then loop-invariant code leaves the for-loop and the warp phases'
// read/contract/write of accumulator tiles becomes loop-carried registers
// (gpu-lowering.md 4).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/LoopsToGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Dialect/Vector/Transforms/VectorTransforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/Support/Debug.h"

#include "Simplify.h"

#define DEBUG_TYPE "mirage-loops-to-gpu"

using namespace mlir;

namespace mirage {
namespace detail {
/// Canonicalization patterns of every loaded dialect and registered op (what
/// the canonicalize pass uses), frozen once per call site.
FrozenRewritePatternSet getCanonicalizationPatterns(MLIRContext *ctx) {
  RewritePatternSet patterns(ctx);
  for (Dialect *d : ctx->getLoadedDialects())
    d->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  return FrozenRewritePatternSet(std::move(patterns));
}

void simplify(Operation *root) {
  (void)applyPatternsGreedily(root,
                              getCanonicalizationPatterns(root->getContext()));
  IRRewriter rewriter(root->getContext());
  DominanceInfo dom(root);
  eliminateCommonSubExpressions(rewriter, dom, root);
}
} // namespace detail
} // namespace mirage

SmallVector<func::FuncOp> mirage::getMirageKernels(ModuleOp module) {
  SmallVector<func::FuncOp> kernels;
  for (auto f : module.getOps<func::FuncOp>())
    if (f->hasAttr("mirage.kernel"))
      kernels.push_back(f);
  return kernels;
}

/// The mapping script: generate_gpu_launch and the thread/warp mapping only
/// exist as transform ops. The block dims are spliced in per kernel.
static std::string mappingScript(ArrayRef<int64_t> block) {
  std::string dims = std::to_string(block[0]) + ", " +
                     std::to_string(block[1]) + ", " +
                     std::to_string(block[2]);
  return R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.consumed}) {
    %launch = transform.gpu.map_forall_to_blocks %root generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    %mapped = transform.gpu.map_nested_forall_to_threads %launch
        block_dims = [)mlir" +
         dims + R"mlir(] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
})mlir";
}

LogicalResult mirage::mapKernelToGPU(func::FuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  auto block = kernel->getAttrOfType<DenseI64ArrayAttr>("mirage.block");
  if (!block || block.size() != 3 ||
      llvm::any_of(block.asArrayRef(), [](int64_t d) { return d <= 0; }))
    return kernel.emitError(
        "mirage kernel needs `mirage.block = array<i64: x, y, z>` with "
        "positive sizes");
  auto foralls = llvm::to_vector(kernel.getOps<scf::ForallOp>());
  if (foralls.size() != 1 || !foralls.front().getMapping() ||
      !llvm::all_of(*foralls.front().getMapping(), [](Attribute a) {
        return isa<gpu::GPUBlockMappingAttr>(a);
      }))
    return kernel.emitError("mirage kernel body must be one scf.forall "
                            "mapped to #gpu.block<...>");

  OwningOpRef<ModuleOp> script =
      parseSourceString<ModuleOp>(mappingScript(block.asArrayRef()),
                                  ParserConfig(ctx));
  if (!script)
    return kernel.emitError("internal: GPU mapping script does not parse");
  auto entry = script->lookupSymbol<transform::TransformOpInterface>(
      "__transform_main");
  if (failed(transform::applyTransforms(kernel, entry, {},
                                        transform::TransformOptions(),
                                        /*enforceToplevelTransformOp=*/false)))
    return kernel.emitError("mapping the kernel's foralls to the GPU failed");
  LLVM_DEBUG(llvm::dbgs() << "[loops-to-gpu] mapped " << kernel.getName()
                          << "\n");

  // The mapping syncs after every phase, the last one included; a barrier
  // right before the kernel ends orders nothing.
  kernel.walk([](gpu::LaunchOp launch) {
    Block &body = launch.getBody().back();
    Operation *term = body.getTerminator();
    if (auto barrier = dyn_cast_or_null<gpu::BarrierOp>(term->getPrevNode()))
      barrier.erase();
  });

  // Index math of the warp phases depends only on thread ids: hoist it so
  // that the accumulator transfers have loop-invariant indices.
  detail::simplify(kernel);
  kernel.walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
  detail::simplify(kernel);
  // Accumulator tiles: read before / write after the for-loop, carried in
  // iter_args (legal: each warp alone touches its tiles inside the loop).
  linalg::hoistRedundantVectorTransfers(kernel);
  IRRewriter rewriter(ctx);
  vector::transferOpflowOpt(rewriter, kernel);
  detail::simplify(kernel);
  return success();
}

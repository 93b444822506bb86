//===- LaunchPlanAgreementTest.cpp - Lowering, plan and cost model agree ---===//
//
// The launch plan is stated once (KernelPlan.h); the loop-level lowering
// emits it and the cost model prices it. For every graph of the six paper
// workloads (references expanded, hand-written bests), the emitted kernels
// allocate the plan's tiles, put on tensor cores the matmuls the plan does
// (and the cost model counts the same), and mark the plan's pipeline; a
// kernel the cost model prices as its predecessor's tail is emitted in that
// predecessor's function (TailCombine.md).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/KernelToLoops.h"
#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/TailCombine.h"

#include "TestGraphs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

using namespace mirage;

namespace {
/// Bytes of the workgroup allocations of kernel function `name` in `m`.
std::vector<int64_t> workgroupAllocBytes(mlir::ModuleOp m,
                                         llvm::StringRef name) {
  std::vector<int64_t> bytes;
  auto fn = m.lookupSymbol<mlir::func::FuncOp>(name);
  if (!fn)
    return bytes;
  fn.walk([&](mlir::memref::AllocOp a) {
    if (mlir::gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(a.getType()))
      bytes.push_back(a.getType().getNumElements() *
                      a.getType().getElementTypeBitWidth() / 8);
  });
  return bytes;
}

int64_t count(mlir::ModuleOp m, llvm::StringRef name,
              llvm::function_ref<bool(mlir::Operation *)> pred) {
  int64_t n = 0;
  if (auto fn = m.lookupSymbol<mlir::func::FuncOp>(name))
    fn.walk([&](mlir::Operation *op) { n += pred(op); });
  return n;
}
} // namespace

TEST(LaunchPlanAgreement, LoweringAndCostModelFollowThePlan) {
  auto ctx = test::makeMirageContext();
  auto loops = test::makeCodegenContext();
  TargetInfo h100 = *lookupTarget("h100");
  int kernels = 0;
  for (const char *name : {"rmsnorm_matmul", "gated_mlp", "lora", "gqa",
                           "qknorm", "ntrans"}) {
    std::string path = test::sourceFile("test/Workloads", name);
    auto module = test::parseMlirFile(path, *ctx);
    ASSERT_TRUE(module) << path;
    std::vector<test::GraphPair> pairs;
    ASSERT_TRUE(test::importReferencePairs(*module, pairs)) << path;
    for (const test::GraphPair &p : pairs) {
      mlir::OwningOpRef<mlir::ModuleOp> into =
          mlir::ModuleOp::create(mlir::UnknownLoc::get(loops.get()));
      std::string error;
      std::optional<LaunchPlan> plan = lowerGraphToLoops(
          p.cand, "g", *into, into->getLoc(), LoopLoweringOptions(), error);
      ASSERT_TRUE(plan) << p.name << ": " << error;
      GraphCost cost = estimateCost(p.cand, h100);
      // The cost model's launches: its kernels but those it prices as the
      // tail of the one before (TailCombine.md), as the lowering emits them.
      std::vector<size_t> launches;
      for (size_t i = 0; i < cost.kernels.size(); ++i)
        if (!cost.kernels[i].inTail)
          launches.push_back(i);
      ASSERT_EQ(launches.size(), plan->kernels.size()) << p.name;
      for (size_t k = 0; k < plan->kernels.size(); ++k) {
        const KernelLaunch &launch = plan->kernels[k];
        const KernelPlan &kp = launch.plan;
        const size_t c = launches[k];
        const bool tail = launch.tail.has_value();
        ASSERT_EQ(tail, c + 1 < cost.kernels.size() &&
                            cost.kernels[c + 1].inTail)
            << launch.name;
        // Tiles: one allocation per planned tile, of the planned bytes; a
        // tail's flag word and its kernel's tiles after them.
        std::vector<int64_t> planned;
        for (const TilePlan &t : kp.tiles)
          planned.push_back(t.bytes * t.buffers);
        if (tail) {
          planned.push_back(kTailCombineFlagBytes);
          for (const TilePlan &t : launch.tailPlan.tiles)
            planned.push_back(t.bytes * t.buffers);
        }
        EXPECT_EQ(workgroupAllocBytes(*into, launch.name), planned)
            << launch.name;
        // Tensor cores: the emitted contractions and the cost model's count.
        int64_t tensorCores =
            kp.tensorCoreMatmuls() +
            (tail ? launch.tailPlan.tensorCoreMatmuls() : 0);
        int64_t contracts = count(*into, launch.name, [](mlir::Operation *op) {
          return mlir::isa<mlir::vector::ContractionOp>(op);
        });
        EXPECT_EQ(contracts > 0, tensorCores > 0) << launch.name;
        EXPECT_EQ(cost.kernels[c].tensorCoreMatmuls +
                      (tail ? cost.kernels[c + 1].tensorCoreMatmuls : 0),
                  tensorCores)
            << launch.name;
        EXPECT_EQ(cost.kernels[c].smemBytes, kp.sharedBytes) << launch.name;
        // Pipeline: the copies carry the plan's stages.
        int64_t marked = count(*into, launch.name, [&](mlir::Operation *op) {
          auto s = op->getAttrOfType<mlir::IntegerAttr>(kPrefetchStagesAttr);
          return s && s.getInt() == kp.stages && kp.stages > 1;
        });
        EXPECT_EQ(marked > 0, kp.stages > 1) << launch.name;
        ++kernels;
      }
    }
  }
  EXPECT_GE(kernels, 7);
}

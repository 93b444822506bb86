//===- CostModelTest.cpp - The analytic cost model ------------------------===//
#include "Mirage/Search/CostModel.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace mirage;

namespace {
/// A custom kernel reading X [m, k] (replicated over the grid, iterated
/// over k) and W [k, n] (split over grid x on n, iterated over k).
UGraph fusedMatmul(int64_t m, int64_t k, int64_t n, int64_t gridX,
                   int64_t forloop) {
  UGraph g;
  int32_t x = g.addInput({m, k}, ElemType::F16);
  int32_t w = g.addInput({k, n}, ElemType::F16);
  UGraph b(Level::Block);
  b.grid = {gridX, 1, 1};
  b.forloopRange = forloop;
  int32_t bx = b.addInput({m, k}, ElemType::F16);
  int32_t bw = b.addInput({k, n}, ElemType::F16);
  int32_t xt = b.addInputIterator(bx, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(bw, {1, -1, -1}, 0);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  b.markOutput(b.addOutputSaver(acc, {1, -1, -1}));
  EXPECT_TRUE(b.error.empty()) << b.error;
  int32_t o = g.addCustom({x, w}, std::move(b));
  EXPECT_GE(o, 0) << g.error;
  g.markOutput(o);
  return g;
}
} // namespace

TEST(CostModel, PredefinedKernels) {
  UGraph g;
  int32_t x = g.addInput({16, 4096}, ElemType::F16);
  int32_t w = g.addInput({4096, 6144}, ElemType::F16);
  int32_t y = g.addMatmul(x, w);
  g.markOutput(g.addUnary(UnaryKind::exp, y));
  GraphCost c = estimateCost(g, "h100");
  ASSERT_EQ(c.numKernels(), 2);
  const KernelCost &mm = c.kernels[0];
  EXPECT_DOUBLE_EQ(mm.dramBytes, 2.0 * (16 * 4096 + 4096 * 6144 + 16 * 6144));
  EXPECT_DOUBLE_EQ(mm.flops, 2.0 * 16 * 4096 * 6144);
  EXPECT_DOUBLE_EQ(mm.tensorFlops, mm.flops);
  EXPECT_DOUBLE_EQ(c.kernels[1].dramBytes, 2.0 * 2 * 16 * 6144);
  EXPECT_DOUBLE_EQ(c.kernels[1].flops, 16.0 * 6144);
  // Memory-bound skinny GEMM: time ≈ bytes / effective bandwidth + launch.
  TargetInfo h100 = *lookupTarget("h100");
  CostParams p = costParamsFor(h100);
  EXPECT_NEAR(mm.seconds,
              mm.dramBytes / (h100.dramBytesPerSecond * p.memoryEfficiency) +
                  p.launchSeconds,
              1e-9);
  EXPECT_DOUBLE_EQ(c.seconds, c.kernels[0].seconds + c.kernels[1].seconds);
  EXPECT_NE(c.describe().find("2 kernels"), std::string::npos)
      << c.describe();
}

TEST(CostModel, CustomKernelTraffic) {
  // X 16x4096 replicated over 64 blocks, W split: X is re-read from L2.
  UGraph g = fusedMatmul(16, 4096, 6144, 64, 16);
  GraphCost c = estimateCost(g, "h100");
  ASSERT_EQ(c.numKernels(), 1);
  const KernelCost &k = c.kernels[0];
  double xBytes = 2.0 * 16 * 4096, wBytes = 2.0 * 4096 * 6144,
         oBytes = 2.0 * 16 * 6144;
  EXPECT_EQ(k.blocks, 64);
  EXPECT_DOUBLE_EQ(k.l2Bytes, xBytes * 64 + wBytes + oBytes);
  EXPECT_DOUBLE_EQ(k.dramBytes, xBytes + wBytes + oBytes);
  // matmul 2mnk over all blocks and iterations, plus the accumulation.
  EXPECT_DOUBLE_EQ(k.flops, 2.0 * 16 * 4096 * 6144 + 16.0 * 6144 * 16);
  // tiles: X 16x256, W 256x96, mm 16x96, acc 16x96 (f16).
  EXPECT_EQ(k.smemBytes, 2 * (16 * 256 + 256 * 96 + 16 * 96 + 16 * 96));
  EXPECT_EQ(k.blocksPerSM, std::min<int64_t>(32, 228 * 1024 / k.smemBytes));
  EXPECT_NEAR(k.smFill, 64.0 / 132, 1e-12);
  EXPECT_TRUE(k.fits);
}

TEST(CostModel, GridFillMatters) {
  // The same work on 16 blocks (under-filled) is slower than on 128.
  GraphCost small = estimateCost(fusedMatmul(16, 4096, 6144, 16, 16), "h100");
  GraphCost full = estimateCost(fusedMatmul(16, 4096, 6144, 128, 16), "h100");
  EXPECT_GT(small.seconds, full.seconds);
  // A grid slightly over one wave pays for the tail.
  GraphCost tail = estimateCost(fusedMatmul(16, 4096, 6144, 192, 16), "h100");
  EXPECT_LT(tail.kernels[0].smFill, 1.0);
}

TEST(CostModel, SharedMemoryLimit) {
  // One block with all of W (8 MiB tile) cannot fit.
  GraphCost c = estimateCost(fusedMatmul(16, 2048, 2048, 1, 1), "a100");
  EXPECT_FALSE(c.fits);
  EXPECT_FALSE(c.kernels[0].fits);
  EXPECT_NE(c.kernels[0].note.find("shared memory"), std::string::npos);
  EXPECT_EQ(c.target, "a100");
}

TEST(CostModel, UnknownTargetFallsBack) {
  GraphCost c = estimateCost(fusedMatmul(16, 256, 256, 4, 2), "tpu");
  EXPECT_EQ(c.target, "h100");
}

TEST(CostModel, A100SlowerThanH100) {
  UGraph g = fusedMatmul(16, 4096, 6144, 128, 16);
  EXPECT_GT(estimateCost(g, "a100").seconds, estimateCost(g, "h100").seconds);
}

// Every hand-written best μGraph of the paper workloads at full shapes must
// come out cheaper than its reference on both targets.
TEST(CostModel, WorkloadBestGraphsBeatReferences) {
  auto ctx = test::makeMirageContext();
  int pairs = 0;
  for (const char *name : {"rmsnorm_matmul", "gated_mlp", "lora", "gqa",
                           "qknorm", "ntrans"}) {
    std::string path = test::sourceFile("bench/workloads", name);
    auto module = test::parseMlirFile(path, *ctx);
    ASSERT_TRUE(module) << path;
    std::vector<test::GraphPair> graphs;
    ASSERT_TRUE(test::importReferencePairs(*module, graphs)) << path;
    for (const test::GraphPair &p : graphs) {
      for (const char *t : {"h100", "a100"}) {
        GraphCost rc = estimateCost(p.ref, t), cc = estimateCost(p.cand, t);
        EXPECT_TRUE(cc.fits) << p.name << "\n" << cc.describe();
        EXPECT_LT(cc.seconds, rc.seconds)
            << p.name << " on " << t << "\nreference: " << rc.describe()
            << "candidate: " << cc.describe();
        EXPECT_LT(cc.numKernels(), rc.numKernels());
      }
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 7); // six workloads, LoRA with two candidates
}

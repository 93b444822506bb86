//===- CostModelTest.cpp - The analytic cost model ------------------------===//
#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/KernelPlan.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace mirage;

namespace {
/// A custom kernel reading X [m, k] (replicated over the grid, iterated
/// over k) and W [k, n] (split over grid x on n, iterated over k).
UGraph fusedMatmul(int64_t m, int64_t k, int64_t n, int64_t gridX,
                   int64_t forloop, ElemType t = ElemType::F16,
                   bool wTransposed = false) {
  UGraph g;
  int32_t x = g.addInput({m, k}, t);
  // addCustom gives the body's W the same layout (OperandLayouts.md).
  int32_t w = g.addInput({k, n}, t, wTransposed);
  UGraph b(Level::Block);
  b.grid = {gridX, 1, 1};
  b.forloopRange = forloop;
  int32_t bx = b.addInput({m, k}, t);
  int32_t bw = b.addInput({k, n}, t);
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
  EXPECT_NEAR(mm.seconds,
              mm.dramBytes / (h100.dramBytesPerSecond * h100.memoryEfficiency) +
                  h100.launchSeconds,
              1e-9);
  EXPECT_DOUBLE_EQ(c.seconds, c.kernels[0].seconds + c.kernels[1].seconds);
  EXPECT_NE(c.describe().find("2 kernels"), std::string::npos)
      << c.describe();
  // The first kernel pays a whole launch, the second a dependent one after
  // it (calibrated on an H200: CostModel.md, "Calibration"); on a target
  // without dependent launch both pay the whole one.
  EXPECT_DOUBLE_EQ(c.kernels[0].launchSeconds, h100.launchSeconds);
  EXPECT_DOUBLE_EQ(c.kernels[1].launchSeconds, h100.chainedLaunchSeconds);
  EXPECT_LT(h100.chainedLaunchSeconds, h100.launchSeconds);
  GraphCost a = estimateCost(g, "a100");
  TargetInfo a100 = *lookupTarget("a100");
  ASSERT_FALSE(a100.gridDependencyControl);
  EXPECT_DOUBLE_EQ(a.kernels[1].launchSeconds, a100.launchSeconds);
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
  // Per input: X loaded by every block, W once.
  ASSERT_EQ(k.inputLoadBytes.size(), 2u);
  EXPECT_DOUBLE_EQ(k.inputLoadBytes[0], xBytes * 64);
  EXPECT_DOUBLE_EQ(k.inputLoadBytes[1], wBytes);
  // matmul 2mnk over all blocks and iterations, plus the accumulation.
  EXPECT_DOUBLE_EQ(k.flops, 2.0 * 16 * 4096 * 6144 + 16.0 * 6144 * 16);
  // The launch plan's tiles: X 16x256 (its 512-byte rows read by ldmatrix
  // padded to 264, TilePlan::pitch) and W 256x96 f16 (one buffer per
  // pipeline stage), the accumulator 16x96 in f32 (the product adds into
  // it: no tile of its own); past the 48 KiB static limit, so dynamic,
  // after a 1 KiB reserve.
  int64_t stages = planKernel(g.bodies[0], *lookupTarget("h100")).stages;
  EXPECT_GE(stages, 2);
  EXPECT_EQ(k.smemBytes,
            1024 + stages * 2 * (16 * 264 + 256 * 96) + 4 * 16 * 96);
  // Resident blocks: shared memory with CUDA's 1 KiB per block.
  EXPECT_EQ(k.blocksPerSM, 228 * 1024 / (k.smemBytes + 1024));
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

// Every hand-written best μGraph of the paper workloads at full shapes
// launches, has fewer kernels and moves no more DRAM bytes than its
// reference on both targets. Whether it is also *faster* depends on the
// kernels the lowering makes of it: priced by their launch plans (serial
// reductions, a copy round trip per iteration), five of the seven are not
// yet (bench/README.md, "Kernels at the roofline"); that is issue 20's
// remaining work, not a property to assert here.
TEST(CostModel, WorkloadBestGraphsLaunchAndMoveLess) {
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
        EXPECT_LE(cc.dramBytes, rc.dramBytes)
            << p.name << " on " << t << "\nreference: " << rc.describe()
            << "candidate: " << cc.describe();
        EXPECT_LT(cc.numKernels(), rc.numKernels());
      }
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 7); // six workloads, LoRA with two candidates
}

TEST(CostModel, SynchronousCopiesAreLatencyBound) {
  // W in 4-column slices over 1024 blocks: 8-byte rows cannot be 16-byte
  // cp.async copies, so each thread loads its 8 elements one round trip at
  // a time; Little's law leaves a few KB in flight per SM.
  UGraph narrow = fusedMatmul(4, 256, 4096, 1024, 1);
  GraphCost c = estimateCost(narrow, "h100");
  TargetInfo h100 = *lookupTarget("h100");
  const KernelCost &k = c.kernels[0];
  EXPECT_LT(k.bytesInFlightPerSM, 16e3) << c.describe();
  EXPECT_GT(k.seconds - k.launchSeconds,
            10 * k.dramBytes / h100.dramBytesPerSecond)
      << c.describe();
  // The same work in 16-column slices (one cp.async group per block) is
  // several times faster, launch aside.
  GraphCost wide = estimateCost(fusedMatmul(4, 256, 4096, 256, 1), "h100");
  EXPECT_LT((wide.kernels[0].seconds - wide.kernels[0].launchSeconds) * 4,
            k.seconds - k.launchSeconds)
      << wide.describe();
}

TEST(CostModel, PipelinedLoopsApproachBandwidth) {
  // The Qwen-MLP shape of issue 20 with a for-loop, on a grid that fills
  // the SMs evenly (1184 blocks: 9 on the busiest SM, 8.97 on average):
  // the plan pipelines the weight tiles, and the planned time comes within
  // 1.5x of bytes over the bandwidth our kernels achieve (the calibrated
  // memoryEfficiency: CostModel.md, "Calibration").
  GraphCost c = estimateCost(fusedMatmul(4, 3584, 18944, 1184, 56), "h100");
  TargetInfo h100 = *lookupTarget("h100");
  const KernelCost &k = c.kernels[0];
  EXPECT_GE(k.bytesInFlightPerSM, 16e3) << c.describe();
  EXPECT_LT(k.seconds, 1.5 * k.dramBytes / (h100.dramBytesPerSecond *
                                            h100.memoryEfficiency) +
                           k.launchSeconds)
      << c.describe();
}

TEST(CostModel, GridsReachDramOnlyOnEverySM) {
  // The same GEMV, pipelined, on grids of 32, 74 and 1184 blocks: one SM
  // pulls at most its share of DRAM (CostModel.md, "An SM's share of
  // DRAM"), so 32 blocks take about 132/32 times as long as the full grid
  // however much they keep in flight, and an uneven last round (296 blocks:
  // three on 32 SMs) costs its busiest SM's time.
  TargetInfo h100 = *lookupTarget("h100");
  auto memory = [](int64_t blocks) {
    GraphCost c =
        estimateCost(fusedMatmul(4, 3584, 18944, blocks, 56), "h100");
    return c.kernels[0].memorySeconds;
  };
  double full = memory(1184);
  EXPECT_GT(memory(32), 3.9 * full);
  EXPECT_GT(memory(74), 1.7 * full);
  EXPECT_GT(memory(296), 1.3 * full);
  // The full grid is at DRAM's bandwidth: no SM term binds above it.
  GraphCost c = estimateCost(fusedMatmul(4, 3584, 18944, 1184, 56), "h100");
  EXPECT_LT(full, 1.01 * c.kernels[0].dramBytes /
                      (h100.dramBytesPerSecond * h100.memoryEfficiency))
      << c.describe();
  // A library kernel balances its work over the SMs (stream-K): a GEMV of
  // the same bytes is not charged for a tail.
  UGraph lib;
  int32_t x = lib.addInput({4, 3584}, ElemType::F16);
  int32_t w = lib.addInput({3584, 18944}, ElemType::F16);
  lib.markOutput(lib.addMatmul(x, w));
  GraphCost lc = estimateCost(lib, "h100");
  EXPECT_LT(lc.kernels[0].memorySeconds,
            1.01 * lc.kernels[0].dramBytes /
                (h100.dramBytesPerSecond * h100.memoryEfficiency))
      << lc.describe();
}

TEST(CostModel, TensorCoresOnlyWhereThePlanPutsThem) {
  // K-tiles of 56 (3584 / 64) cannot take m16n8k16: priced on FMA.
  GraphCost fma = estimateCost(fusedMatmul(16, 3584, 4096, 128, 64), "h100");
  EXPECT_EQ(fma.kernels[0].matmuls, 1);
  EXPECT_EQ(fma.kernels[0].tensorCoreMatmuls, 0);
  EXPECT_EQ(fma.kernels[0].tensorFlops, 0);
  GraphCost tc = estimateCost(fusedMatmul(16, 4096, 4096, 128, 64), "h100");
  EXPECT_EQ(tc.kernels[0].tensorCoreMatmuls, 1);
  EXPECT_DOUBLE_EQ(tc.kernels[0].tensorFlops, 2.0 * 16 * 4096 * 4096);
}

TEST(CostModel, FmaMatmulsRunAtTheirPlansPipeDemand) {
  // An f32 prefill matmul (256 x 4096 x 4096, 64 columns per block): on
  // FMA, priced by its micro-tile's pipe cycles on the busiest SM
  // (FmaMicroTiles.md), which is slower than the FMA peak would say.
  UGraph g = fusedMatmul(256, 4096, 4096, 64, 64, ElemType::F32);
  TargetInfo h100 = *lookupTarget("h100");
  GraphCost c = estimateCost(g, h100);
  const KernelCost &k = c.kernels[0];
  EXPECT_EQ(k.tensorCoreMatmuls, 0);
  EXPECT_DOUBLE_EQ(k.fmaMatmulFlops, 2.0 * 256 * 4096 * 4096);
  KernelPlan plan = planKernel(g.bodies[0], h100);
  ASSERT_EQ(plan.matmuls.size(), 1u);
  const MatmulPlan &m = plan.matmuls[0];
  EXPECT_GT(m.microRows * m.microCols, 1);
  // The plan's cycles, every run (64 iterations) of one block; the
  // busiest SM's blocks (64 blocks: one each) in one round.
  EXPECT_DOUBLE_EQ(k.fmaPipeCyclesPerBlock, m.fmaPipeCycles * 64);
  EXPECT_DOUBLE_EQ(k.fmaIssueCyclesPerBlock, m.fmaIssueCycles * 64);
  double pipe = std::max(k.fmaPipeCyclesPerBlock, k.fmaIssueCyclesPerBlock) *
                static_cast<double>(k.blocksOnBusiestSM) /
                (h100.clockHz * h100.computeEfficiency);
  EXPECT_GE(k.computeSeconds, pipe);
  double peak = k.fmaMatmulFlops /
                (h100.fp32FlopsPerSecond * h100.computeEfficiency * k.smFill);
  EXPECT_GT(k.computeSeconds, peak);
  EXPECT_GE(k.seconds, k.computeSeconds);
  // One output per thread would have cost more than the micro-tile.
  EXPECT_LT(std::max(m.fmaPipeCycles, m.fmaIssueCycles),
            fmaCycles(1, 256, 64, 64, 1, 1, 128, h100).pipe);
}

TEST(CostModel, TrafficFloorBoundsTheEstimateOfRandomGraphs) {
  // The search's branch and bound is exact only if the floor never exceeds
  // the estimate of a graph with the same grid, loop and iterators; the
  // graph's one kernel is its first launch, which pays the first-launch
  // floor on top (the search adds it where nothing launches before).
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto pick = [&](std::initializer_list<int64_t> xs) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return *(xs.begin() + (state >> 33) % xs.size());
  };
  TargetInfo h100 = *lookupTarget("h100");
  for (int i = 0; i < 200; ++i) {
    int64_t m = pick({1, 4, 16, 64}), k = pick({256, 1024, 4096}),
            n = pick({512, 2048, 8192}), grid = pick({1, 8, 32, 128, 512}),
            loop = pick({1, 4, 16, 64});
    if (n % grid != 0 || k % loop != 0)
      continue;
    UGraph g = fusedMatmul(m, k, n, grid, loop);
    const UGraph &block = g.bodies[0];
    double saved = 2.0 * m * n;
    GraphCost c = estimateCost(g, h100);
    EXPECT_LE(trafficFloorSeconds(block, saved, h100) +
                  firstLaunchFloorSeconds(h100),
              c.seconds * (1 + 1e-12))
        << "m " << m << " k " << k << " n " << n << " grid " << grid << " loop "
        << loop << "\n"
        << c.describe();
  }
}

TEST(CostModel, NarrowTileRowsMoveWholeSectors) {
  // W split into 2-column tiles: each 4-byte row segment moves a 32-byte
  // sector, 8x the tile's bytes (the split-K test's shape).
  UGraph narrow = fusedMatmul(8, 4096, 64, 32, 8);
  UGraph wide = fusedMatmul(8, 4096, 64, 2, 8);
  double wBytes = 2.0 * 4096 * 64;
  GraphCost n = estimateCost(narrow, "h100"), w = estimateCost(wide, "h100");
  EXPECT_GE(n.kernels[0].l2Bytes, 8 * wBytes);
  EXPECT_LT(w.kernels[0].l2Bytes, 2 * wBytes + 32 * 2.0 * 8 * 4096);
}

TEST(CostModel, TransposedWeightsMoveTheirStoredRuns) {
  // The narrow tiles above with W stored as nn.Linear stores it, N x K
  // (OperandLayouts.md): each block's 2 columns are 2 stored rows of a
  // K-tile of 512 elements, whole sectors, so W moves its own bytes.
  UGraph narrow = fusedMatmul(8, 4096, 64, 32, 8, ElemType::F16, true);
  const UGraph &body = narrow.bodies[0];
  EXPECT_TRUE(body.values[body.inputs[1]].transposed);
  // W once, X by each of the 32 blocks, the output.
  double wBytes = 2.0 * 4096 * 64, xBytes = 2.0 * 8 * 4096;
  GraphCost t = estimateCost(narrow, "h100");
  EXPECT_DOUBLE_EQ(t.kernels[0].l2Bytes, wBytes + 32 * xBytes + 2.0 * 8 * 64);
  // Stored K x N, the same tiles move W 8 times over.
  GraphCost n = estimateCost(fusedMatmul(8, 4096, 64, 32, 8), "h100");
  EXPECT_DOUBLE_EQ(n.kernels[0].l2Bytes - t.kernels[0].l2Bytes, 7 * wBytes);
}

// The MMA work spent on padded rows (GraphCost::paddingFlops), which breaks
// ties between launches (FusionSearch.md, "Ties: padded MMA work before
// grid size"): a 4-token GEMV over an N x K weight (Qwen2.5-7B's 3584 x
// 18944 projection) on 8 weight columns a block pads the tokens to the
// MMA's 16 rows, 3 times the useful work; on 16 columns the weight is the
// transposed MMA's 16-row operand and the tokens its 8 columns, once.
TEST(CostModel, PaddingFlopsCountTheMmaRowsNoOutputKeeps) {
  GraphCost eight = estimateCost(
      fusedMatmul(4, 3584, 18944, 2368, 4, ElemType::F16, true), "h100");
  GraphCost sixteen = estimateCost(
      fusedMatmul(4, 3584, 18944, 1184, 4, ElemType::F16, true), "h100");
  double useful = 2.0 * 4 * 3584 * 18944;
  ASSERT_EQ(eight.kernels[0].tensorCoreMatmuls, 1);
  ASSERT_EQ(sixteen.kernels[0].tensorCoreMatmuls, 1);
  EXPECT_DOUBLE_EQ(eight.paddingFlops(), 3 * useful);
  EXPECT_DOUBLE_EQ(sixteen.paddingFlops(), useful);
  // The estimate cannot tell them apart (memory-bound, the same sectors).
  EXPECT_NEAR(eight.seconds, sixteen.seconds, 1e-3 * sixteen.seconds);
}

// Target 2 of kernel-roofline.md as TargetInfo::fillsMachine states it: a
// block on every SM, and at most 10 % of the SM-time idle when the busiest
// SM runs ceil(blocks / SMs) blocks.
TEST(CostModel, FillingTheMachineIsTargetTwo) {
  TargetInfo h100 = *lookupTarget("h100");
  ASSERT_EQ(h100.numSMs, 132);
  EXPECT_FALSE(h100.fillsMachine(128)) << "4 SMs idle";
  EXPECT_TRUE(h100.fillsMachine(132));
  EXPECT_FALSE(h100.fillsMachine(140)) << "8 SMs run two blocks: 47 % idle";
  EXPECT_TRUE(h100.fillsMachine(256)) << "124 SMs run two: 3 % idle";
  // Two per SM are 264 blocks; 10 % of them idle leaves 237.6.
  EXPECT_TRUE(h100.fillsMachine(238));
  EXPECT_FALSE(h100.fillsMachine(237));
  EXPECT_TRUE(h100.fillsMachine(1792)) << "14 on the busiest SM: 3 % idle";
}

// The ranking figure (CostModel.md, "Ranking: a charge for grids that leave
// SMs idle"): a kernel moving a megabyte on a grid that does not fill the
// machine is charged kUnderfillCharge; one on a filling grid, or one moving
// less, is ranked at its estimate. The charge only orders: the estimate is
// unchanged, and the figure is never below it.
TEST(CostModel, RankingChargesGridsThatLeaveSMsIdle) {
  TargetInfo h100 = *lookupTarget("h100");
  auto rankOf = [&](const UGraph &g) {
    GraphCost c = estimateCost(g, h100);
    EXPECT_GE(rankingSeconds(c, h100), c.seconds);
    return std::make_pair(c.seconds, rankingSeconds(c, h100));
  };
  // 4 x 3584 by 3584 x 18944: 136 MB of weights.
  auto [narrowSecs, narrowRank] = rankOf(fusedMatmul(4, 3584, 18944, 74, 56));
  EXPECT_DOUBLE_EQ(narrowRank, narrowSecs * (1 + kUnderfillCharge));
  // 128 blocks leave 4 of the 132 SMs idle.
  auto [pow2Secs, pow2Rank] = rankOf(fusedMatmul(4, 3584, 18944, 128, 56));
  EXPECT_DOUBLE_EQ(pow2Rank, pow2Secs * (1 + kUnderfillCharge));
  // 148 blocks: 16 SMs run two, 44 % of the SM-time idle.
  auto [edgeSecs, edgeRank] = rankOf(fusedMatmul(4, 3584, 18944, 148, 56));
  EXPECT_DOUBLE_EQ(edgeRank, edgeSecs * (1 + kUnderfillCharge));
  // 296 blocks: 32 SMs run three, 25 % idle; 592: 64 run five, 10.3 %;
  // 1184: 128 run nine, 0.3 %.
  auto [s296, r296] = rankOf(fusedMatmul(4, 3584, 18944, 296, 56));
  EXPECT_DOUBLE_EQ(r296, s296 * (1 + kUnderfillCharge));
  auto [s592, r592] = rankOf(fusedMatmul(4, 3584, 18944, 592, 56));
  EXPECT_DOUBLE_EQ(r592, s592 * (1 + kUnderfillCharge));
  auto [s1184, r1184] = rankOf(fusedMatmul(4, 3584, 18944, 1184, 56));
  EXPECT_DOUBLE_EQ(r1184, s1184);
  // 4 x 256 by 256 x 512: 0.26 MB, latency-bound on any grid.
  auto [smallSecs, smallRank] = rankOf(fusedMatmul(4, 256, 512, 4, 4));
  EXPECT_DOUBLE_EQ(smallRank, smallSecs);
}

// The charge is per kernel (CostModel.md, "Per kernel"): of a graph's
// kernels only those that move a megabyte on a grid that leaves SMs idle
// pay it, on their own estimate; a filling kernel, a small one and a tail
// (which launches no grid) are ranked at their estimates. So filling the
// large kernel of a pair pays off even where its small one cannot fill.
TEST(CostModel, RankingChargesEachKernelThatLeavesSMsIdle) {
  TargetInfo h100 = *lookupTarget("h100");
  auto kernel = [](double bytes, int64_t blocks, double seconds) {
    KernelCost k;
    k.dramBytes = bytes;
    k.blocks = blocks;
    k.seconds = seconds;
    return k;
  };
  KernelCost idle = kernel(10e6, 128, 10e-6);
  KernelCost filled = kernel(10e6, 256, 11e-6);
  KernelCost smallIdle = kernel(0.5e6, 8, 1e-6);
  KernelCost tail = kernel(2e6, 8, 2e-6);
  tail.inTail = true;
  KernelCost combineIdle = kernel(1.1e6, 128, 3e-6);
  std::vector<KernelCost> a{idle, smallIdle, tail};
  EXPECT_DOUBLE_EQ(rankingSeconds(13e-6, a, h100),
                   13e-6 + kUnderfillCharge * 10e-6);
  std::vector<KernelCost> b{filled, combineIdle};
  EXPECT_DOUBLE_EQ(rankingSeconds(14e-6, b, h100),
                   14e-6 + kUnderfillCharge * 3e-6);
  // The pair with the filled large kernel ranks first although its
  // estimate is higher, and neither figure is below its estimate.
  std::vector<KernelCost> c{idle, kernel(0.9e6, 128, 3.5e-6)};
  EXPECT_LT(rankingSeconds(14e-6, b, h100), rankingSeconds(13.5e-6, c, h100));
  std::vector<KernelCost> none{filled, smallIdle, tail};
  EXPECT_DOUBLE_EQ(rankingSeconds(14e-6, none, h100), 14e-6);
}

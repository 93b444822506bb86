//===- TailCombineTest.cpp - Groups of a producer/consumer kernel pair ----===//
#include "Mirage/Semantics/TailCombine.h"
#include "Mirage/Semantics/CostModel.h"

#include <gtest/gtest.h>

using namespace mirage;

namespace {
/// A split-K pair for X (8 x k) by W (k x 64): the producer on
/// [4, 8] blocks (x: 16-column tiles, y: 8 splits of K) writes partials
/// stacked along the rows (64 x 64); the consumer on [consumerX, 1] blocks
/// (x: columns, `consumerX` tiles) sums the 8 splits of each row.
UGraph splitKPair(int64_t consumerX, bool consumerFmapCols = false,
                  int64_t k = 256) {
  UGraph g;
  int32_t x = g.addInput({8, k}, ElemType::F16);
  int32_t w = g.addInput({k, 64}, ElemType::F16);
  UGraph p(Level::Block);
  p.grid = {4, 8, 1};
  int32_t px = p.addInput({8, k}, ElemType::F16);
  int32_t pw = p.addInput({k, 64}, ElemType::F16);
  int32_t xt = p.addInputIterator(px, {-1, 1, -1}, -1);
  int32_t wt = p.addInputIterator(pw, {1, 0, -1}, -1);
  int32_t acc = p.addAccum(AccumKind::sum, p.addMatmul(xt, wt), -1, 0);
  p.markOutput(p.addOutputSaver(acc, {1, 0, -1}));
  EXPECT_TRUE(p.error.empty()) << p.error;
  int32_t partial = g.addCustom({x, w}, std::move(p));
  UGraph c(Level::Block);
  c.grid = {consumerX, 1, 1};
  int32_t cp = c.addInput({64, 64}, ElemType::F16);
  int32_t tile;
  if (consumerFmapCols) {
    // The for-loop walks the columns: every block reads all of them.
    c.forloopRange = 4;
    tile = c.addInputIterator(cp, {-1, -1, -1}, 1);
    int32_t sum = c.addReduce(ReduceKind::sum, tile, 0, 8);
    c.markOutput(c.addOutputSaver(
        c.addAccum(AccumKind::sum, sum, -1, 0), {-1, -1, -1}));
  } else {
    tile = c.addInputIterator(cp, {1, -1, -1}, -1);
    int32_t sum = c.addReduce(ReduceKind::sum, tile, 0, 8);
    c.markOutput(c.addOutputSaver(c.addAccum(AccumKind::sum, sum, -1, 0),
                                  {1, -1, -1}));
  }
  EXPECT_TRUE(c.error.empty()) << c.error;
  g.markOutput(g.addCustom({partial}, std::move(c)));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}

std::optional<TailCombine> plan(const UGraph &g, std::string *why = nullptr) {
  TargetInfo t = *lookupTarget("h100");
  return planTailCombine(g, 0, planKernel(g.bodies[g.ops[0].body], t),
                         planKernel(g.bodies[g.ops[1].body], t), t, why);
}
} // namespace

// The producer's column axis is the consumer's: 4 groups of the 8 splits of
// one column tile, each finished by one consumer block.
TEST(TailCombine, SplitKGroupsByColumnTile) {
  UGraph g = splitKPair(4);
  std::string why;
  std::optional<TailCombine> t = plan(g, &why);
  ASSERT_TRUE(t) << why;
  EXPECT_EQ(t->tiedTo[0], 0);
  EXPECT_EQ(t->tiedTo[1], -1);
  EXPECT_EQ(t->groups, 4);
  EXPECT_EQ(t->producerBlocksPerGroup, 8);
  EXPECT_EQ(t->consumerBlocksPerGroup, 1);
  const GridDims pg = g.bodies[g.ops[0].body].grid;
  // Every producer block of column tile 3 is in group 3, whose consumer
  // block is column tile 3.
  for (int64_t s = 0; s < 8; ++s) {
    EXPECT_EQ(t->groupOf({3, s, 0}, pg), 3);
    EXPECT_EQ(t->consumerBlock({3, s, 0}),
              (std::array<int64_t, 3>{3, 0, 0}));
  }
}

// Column tiles of another width: a consumer block reads what several
// producer column tiles wrote, so the whole grid is one group, with two
// consumer blocks: they would run one after another on one SM, so the pair
// keeps two launches.
TEST(TailCombine, OneConsumerBlockPerGroup) {
  UGraph g = splitKPair(2);
  std::string why;
  EXPECT_FALSE(plan(g, &why));
  EXPECT_EQ(why, "more than one consumer block per group");
}

// A consumer whose for-loop walks the dim the producer's x axis splits reads
// every column tile: x is free.
TEST(TailCombine, ForLoopOverATiedDimFreesTheAxis) {
  UGraph g = splitKPair(1, /*consumerFmapCols=*/true);
  std::string why;
  std::optional<TailCombine> t = plan(g, &why);
  ASSERT_TRUE(t) << why;
  EXPECT_EQ(t->groups, 1);
  EXPECT_EQ(t->producerBlocksPerGroup, 32);
}

// Not a producer/consumer pair: the last kernel has no successor.
TEST(TailCombine, NeedsAConsumer) {
  UGraph g = splitKPair(4);
  TargetInfo t = *lookupTarget("h100");
  KernelPlan p = planKernel(g.bodies[g.ops[1].body], t);
  std::string why;
  EXPECT_FALSE(planTailCombine(g, 1, p, p, t, &why));
  EXPECT_EQ(why, "no kernel follows");
}

// The tail's price: its consumer block's round trips at L2 latency and its
// bytes at one SM's bandwidth, plus the counter's DRAM round trip; never
// below tailCombineFloorSeconds, and below the consumer's own launch.
TEST(TailCombine, TailSecondsAreBoundedBelow) {
  TargetInfo target = *lookupTarget("h100");
  UGraph one = splitKPair(4);
  KernelPlan c1 = planKernel(one.bodies[one.ops[1].body], target);
  double s1 = tailCombineSeconds(*plan(one), c1, 1, target);
  EXPECT_GE(s1, tailCombineFloorSeconds(target));
  EXPECT_LT(s1, estimateKernel(one.bodies[one.ops[1].body], c1, target).seconds);
}

// The fused kernel allocates both kernels' tiles; where that holds fewer
// producer blocks per SM (TailCombine.md, "a tail that lowers the
// producer's occupancy"), the pair fuses only if the producer at the lower
// residency plus the tail beats the producer as planned plus the
// consumer's own launch, and then the model prices the producer at that
// residency. Over K the producer's tiles grow until the consumer's 64 x 16
// tile tips the occupancy.
TEST(TailCombine, ATailThatLowersOccupancyIsPricedAtIt) {
  EXPECT_TRUE(plan(splitKPair(4, false, 256)));
  // Counts of pairs whose fused launch would lower the residency: fused,
  // and left as two launches.
  auto weigh = [](const TargetInfo &target, int &taken, int &refused) {
    for (int64_t k = 512; k <= 65536; k *= 2) {
      UGraph g = splitKPair(4, false, k);
      const UGraph &pb = g.bodies[g.ops[0].body];
      const UGraph &cb = g.bodies[g.ops[1].body];
      KernelPlan pp = planKernel(pb, target), cp = planKernel(cb, target);
      bool dynamic = false;
      int64_t resident = residentBlocksPerSM(
          tailCombineSharedBytes(pp, cp, target, dynamic), pp.threads, target);
      if (resident >= pp.residentBlocksPerSM)
        continue;
      std::string why;
      std::optional<TailCombine> t =
          planTailCombine(g, 0, pp, cp, target, &why);
      // What the decision weighs, computed here from its parts.
      TailCombine probe;
      probe.producerResidentBlocksPerSM = resident;
      KernelPlan fused = fusedProducerPlan(probe, pp, cp, target);
      EXPECT_EQ(fused.residentBlocksPerSM, resident);
      double producerThere = estimateKernel(pb, fused, target).seconds;
      double producerOwn = estimateKernel(pb, pp, target).seconds;
      double consumerOwn = estimateKernel(cb, cp, target).seconds;
      double tail = tailCombineSeconds(probe, cp, cb.forloopRange, target);
      GraphCost c = estimateCost(g, target);
      ASSERT_EQ(c.kernels.size(), 2u);
      if (t) {
        ++taken;
        EXPECT_EQ(t->producerResidentBlocksPerSM, resident) << "K = " << k;
        EXPECT_LT(producerThere + tail, producerOwn + consumerOwn);
        EXPECT_TRUE(c.kernels[1].inTail);
        EXPECT_EQ(c.kernels[0].blocksPerSM, resident);
        EXPECT_DOUBLE_EQ(c.kernels[0].seconds, producerThere);
      } else {
        ++refused;
        EXPECT_EQ(why, "at the occupancy the consumer's shared memory "
                       "leaves the producer, two launches are faster");
        EXPECT_GE(producerThere + tail, producerOwn + consumerOwn);
        EXPECT_FALSE(c.kernels[1].inTail);
        EXPECT_EQ(c.kernels[0].blocksPerSM, pp.residentBlocksPerSM);
      }
    }
  };
  int taken = 0, refused = 0;
  weigh(*lookupTarget("h100"), taken, refused);
  EXPECT_GT(taken, 0) << "latency-bound producers lose nothing at one "
                         "block fewer per SM";
  // A machine whose L2 round trips cost more than a launch: the tail's
  // reads of the partials do, and the same pairs stay two launches.
  TargetInfo slowCounter = *lookupTarget("h100");
  slowCounter.l2LatencySeconds = 100 * slowCounter.launchSeconds;
  taken = refused = 0;
  weigh(slowCounter, taken, refused);
  EXPECT_GT(refused, 0);
}

// The cost model prices the pair as the lowering emits it: the consumer as
// the tail (no launch, never charged for leaving SMs idle), the producer
// with both kernels' shared memory.
TEST(TailCombine, CostModelPricesTheTail) {
  TargetInfo target = *lookupTarget("h100");
  UGraph g = splitKPair(4);
  const UGraph &pb = g.bodies[g.ops[0].body], &cb = g.bodies[g.ops[1].body];
  KernelPlan pp = planKernel(pb, target), cp = planKernel(cb, target);
  std::optional<TailCombine> t = plan(g);
  ASSERT_TRUE(t);
  GraphCost c = estimateCost(g, target);
  ASSERT_EQ(c.kernels.size(), 2u);
  EXPECT_FALSE(c.kernels[0].inTail);
  EXPECT_TRUE(c.kernels[1].inTail);
  EXPECT_EQ(c.kernels[1].launchSeconds, 0);
  EXPECT_DOUBLE_EQ(c.kernels[1].seconds,
                   tailCombineSeconds(*t, cp, cb.forloopRange, target));
  bool dynamic = false;
  EXPECT_EQ(c.kernels[0].smemBytes,
            tailCombineSharedBytes(pp, cp, target, dynamic));
  EXPECT_TRUE(fillsMachine(c.kernels[1], target));
}

// In a chain a kernel is a tail or a producer, not both: of the pairs
// (0, 1) and (1, 2) of a split-K pair followed by an element-wise kernel
// over the combine's tiles, planTails fuses the one that saves more (both
// qualify alone), and the cost model prices what it chose.
TEST(TailCombine, OverlappingPairsFuseTheOneThatSavesMore) {
  TargetInfo target = *lookupTarget("h100");
  UGraph g = splitKPair(4);
  int32_t combined = g.outputs[0];
  g.outputs.clear();
  UGraph e(Level::Block);
  e.grid = {4, 1, 1};
  int32_t in = e.addInput({8, 64}, ElemType::F16);
  int32_t tile = e.addInputIterator(in, {1, -1, -1}, -1);
  e.markOutput(e.addOutputSaver(
      e.addAccum(AccumKind::sum, e.addUnary(UnaryKind::exp, tile), -1, 0),
      {1, -1, -1}));
  ASSERT_TRUE(e.error.empty()) << e.error;
  g.markOutput(g.addCustom({combined}, std::move(e)));
  ASSERT_TRUE(g.error.empty()) << g.error;

  std::vector<KernelPlan> plans;
  for (const UOp &op : g.ops)
    plans.push_back(planKernel(g.bodies[op.body], target));
  std::optional<TailCombine> first =
      planTailCombine(g, 0, plans[0], plans[1], target);
  std::optional<TailCombine> second =
      planTailCombine(g, 1, plans[1], plans[2], target);
  ASSERT_TRUE(first);
  ASSERT_TRUE(second);
  std::vector<std::optional<TailCombine>> tails =
      planTails(g, {&plans[0], &plans[1], &plans[2]}, target);
  ASSERT_EQ(tails.size(), 3u);
  EXPECT_FALSE(tails[0]);
  EXPECT_NE(tails[1].has_value(), tails[2].has_value());
  if (tails[1]) {
    EXPECT_GE(first->savedSeconds, second->savedSeconds);
  } else {
    EXPECT_GT(second->savedSeconds, first->savedSeconds);
  }
  GraphCost c = estimateCost(g, target);
  ASSERT_EQ(c.kernels.size(), 3u);
  EXPECT_EQ(c.kernels[1].inTail, tails[1].has_value());
  EXPECT_EQ(c.kernels[2].inTail, tails[2].has_value());
}

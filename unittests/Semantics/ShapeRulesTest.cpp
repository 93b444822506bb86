//===- ShapeRulesTest.cpp - Tests of the shared shape rules ---------------===//
#include "Mirage/Semantics/ShapeRules.h"

#include <gtest/gtest.h>

#include <limits>

using namespace mirage;

TEST(ShapeRules, MatmulBatched) {
  ShapeResult r = matmulShape({2, 16, 64}, {2, 64, 32});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({2, 16, 32}));
  EXPECT_FALSE(matmulShape({2, 16, 64}, {3, 64, 32}).ok());
  EXPECT_FALSE(matmulShape({16, 64}, {63, 32}).ok());
}

TEST(ShapeRules, BroadcastNeedsEqualOrUnitDims) {
  EXPECT_EQ(broadcastShape({8, 1}, {1, 64}).shape, Shape({8, 64}));
  EXPECT_FALSE(broadcastShape({8, 2}, {8, 3}).ok());
  EXPECT_FALSE(broadcastShape({8}, {8, 1}).ok());
}

TEST(ShapeRules, ReduceToSizeMustDivide) {
  EXPECT_EQ(reduceShape({8, 512}, 1, 64).shape, Shape({8, 64}));
  EXPECT_FALSE(reduceShape({8, 100}, 1, 64).ok());
  EXPECT_FALSE(reduceShape({8, 100}, 2, 1).ok());
}

TEST(ShapeRules, IteratorTileBlockOuterIterationInner) {
  // W [64, 32], grid x=4 over dim 1, for-loop 4 over dim 0.
  ShapeResult r = iteratorTileShape({64, 32}, {4, 1, 1}, 4, {1, -1, -1}, 0);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.shape, Shape({16, 8}));
  // Same dim split by grid and loop: block 1, iteration 2 of 4 -> chunk 6.
  ShapeResult t = iteratorTileShape({64, 8}, {2, 1, 1}, 4, {0, -1, -1}, 0);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.shape, Shape({8, 8}));
  Shape off = iteratorTileOffset(t.shape, {1, 0, 0}, 2, 4, {0, -1, -1}, 0);
  EXPECT_EQ(off, Shape({48, 0}));
}

TEST(ShapeRules, IteratorRejectsIndivisibleAndDuplicateAxes) {
  EXPECT_FALSE(iteratorTileShape({64, 30}, {4, 1, 1}, 1, {1, -1, -1}, -1).ok());
  EXPECT_FALSE(iteratorTileShape({64, 32}, {2, 2, 1}, 1, {1, 1, -1}, -1).ok());
  EXPECT_FALSE(iteratorTileShape({64, 32}, {1, 1, 1}, 3, {-1, -1, -1}, 0).ok());
}

TEST(ShapeRules, SaverNeedsDisjointRegions) {
  EXPECT_EQ(saverOutputShape({4, 8}, {4, 1, 1}, {1, -1, -1}).shape,
            Shape({4, 32}));
  ShapeResult r = saverOutputShape({4, 8}, {4, 1, 1}, {-1, -1, -1});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("overlapping"), std::string::npos);
}

// docs/Rationale/GridLimits.md: 2^20 blocks in all, 65,535 along an axis
// (the search's 4096 is its own bound, not the rule).
TEST(ShapeRules, GridLimit) {
  EXPECT_TRUE(checkGrid({64, 64, 2}, 1).empty());
  EXPECT_TRUE(checkGrid({1024, 1024, 1}, 1).empty());
  EXPECT_FALSE(checkGrid({1024, 1024, 2}, 1).empty());
  EXPECT_TRUE(checkGrid({65535, 16, 1}, 1).empty());
  for (GridDims g : {GridDims{65536, 1, 1}, GridDims{1, 65536, 1},
                     GridDims{1, 1, 65536}})
    EXPECT_EQ(checkGrid(g, 1), "grid " + shapeToString(g) +
                                   " has an axis of more than 65535 blocks");
}

TEST(ShapeRules, GridBlockCountDoesNotOverflow) {
  // 2^32 · 2^32 wraps to 0 in int64 arithmetic.
  int64_t big = int64_t(1) << 32;
  EXPECT_FALSE(checkGrid({big, big, 1}, 1).empty());
  EXPECT_FALSE(checkGrid({0, 1, 1}, 1).empty());
  EXPECT_FALSE(checkGrid({1, 1, 1}, 0).empty());
}

TEST(ShapeRules, ReduceSizeMustBePositive) {
  ShapeResult r = reduceShape({8, 64}, 1, 0);
  EXPECT_EQ(r.error, "reduction size 0 must be positive");
}

TEST(ShapeRules, TensorSizeLimit) {
  // Issue 23: a tensor of 2^63 - 1 rows verified, then aborted the
  // evaluators (std::length_error) and hung the lowering.
  int64_t side = int64_t(1) << 20;
  EXPECT_TRUE(checkTensorShape({side, side}).ok());
  ShapeResult r = checkTensorShape({side, side, 2});
  EXPECT_EQ(r.error, "tensor [1048576, 1048576, 2] has more than 2^40 "
                     "elements, the limit");
  EXPECT_FALSE(
      checkTensorShape({std::numeric_limits<int64_t>::max(), 4}).ok());
}

TEST(ShapeRules, NumElementsSaturates) {
  int64_t big = int64_t(1) << 32;
  EXPECT_EQ(numElements({big, big}), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(numElements({4, 16}), 64);
}

TEST(ShapeRules, AccumShapes) {
  EXPECT_EQ(accumShape(AccumKind::rms_last, {4, 16}, 0, false, {}).shape,
            Shape({4, 1}));
  EXPECT_EQ(accumShape(AccumKind::sum_last, {4, 512}, 64, false, {}).shape,
            Shape({4, 64}));
  EXPECT_FALSE(accumShape(AccumKind::sum, {4, 16}, 4, false, {}).ok());
  EXPECT_FALSE(accumShape(AccumKind::max, {4, 16}, 0, true, {4, 1}).ok());
}

//===- FusionSearchTest.cpp - Tests of the fused-kernel search ------------===//
#include "Mirage/Search/CostModel.h"
#include "Mirage/Search/FusionSearch.h"
#include "Mirage/Search/IndexAlignment.h"

#include <gtest/gtest.h>

using namespace mirage;
using namespace mirage::search;

static UGraph rmsNormMatmul(int64_t m, int64_t k, int64_t n) {
  UGraph g;
  int32_t x = g.addInput({m, k}, ElemType::F16);
  int32_t w = g.addInput({k, n}, ElemType::F16);
  g.markOutput(g.addMatmul(g.addRmsNorm(x, -1), w));
  return g;
}

TEST(IndexAlignment, MatmulClasses) {
  UGraph g = rmsNormMatmul(16, 256, 512);
  IndexClasses ic = alignIndices(g);
  ASSERT_EQ(ic.numClasses(), 3);
  int32_t x = g.inputs[0], w = g.inputs[1];
  // Rows of X reach the output, K does not, columns of W do.
  int rows = ic.classOf[x][0], k = ic.classOf[x][1], cols = ic.classOf[w][1];
  EXPECT_EQ(ic.classOf[w][0], k);
  EXPECT_TRUE(ic.parallel[rows]);
  EXPECT_FALSE(ic.parallel[k]);
  EXPECT_TRUE(ic.parallel[cols]);
  EXPECT_EQ(ic.extent[k], 256);
}

TEST(FusionSearch, FindsFusedRmsNormMatmul) {
  UGraph ref = rmsNormMatmul(16, 1024, 2048);
  FusionSearchOptions opts;
  opts.maxBlockOps = 4;
  opts.threads = 2;
  FusionSearchResult r = searchFusedKernel(
      ref, opts, [](const UGraph &g) { return estimateCost(g).seconds; },
      PruneFactory());
  ASSERT_TRUE(r.found) << r.message;
  EXPECT_LE(r.log2Bound, -64);
  EXPECT_LT(r.bestSeconds, r.referenceSeconds);
  // One graph-defined kernel, as in the paper's Figure 3b.
  ASSERT_EQ(r.best.ops.size(), 1u);
  EXPECT_EQ(r.best.ops[0].kind, OpKind::Custom);
  const UGraph &b = r.best.bodies[r.best.ops[0].body];
  bool hasMatmul = false;
  for (const UOp &op : b.ops)
    hasMatmul |= op.kind == OpKind::Matmul;
  EXPECT_TRUE(hasMatmul);
  EXPECT_GT(r.stats.candidates, 0u);
  std::printf("patterns %llu states %llu candidates %llu verified %llu "
              "instances %llu final %llu: %.2fs, grid [%lld,%lld,%lld] "
              "forloop %lld, %.2f us vs %.2f us\n",
              (unsigned long long)r.stats.patterns,
              (unsigned long long)r.stats.states,
              (unsigned long long)r.stats.candidates,
              (unsigned long long)r.stats.probeVerified,
              (unsigned long long)r.stats.instances,
              (unsigned long long)r.stats.finalVerified, r.stats.seconds,
              (long long)b.grid[0], (long long)b.grid[1], (long long)b.grid[2],
              (long long)b.forloopRange, r.bestSeconds * 1e6,
              r.referenceSeconds * 1e6);
}

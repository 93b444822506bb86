//===- KernelExpansionTest.cpp - Pre-defined kernels as block graphs ------===//
//
// Every expansion must compute what the op it replaces computes: checked by
// the float64 evaluator on the six workloads' reference graphs (small and
// full shapes skipped: small suffices for the rule, full is bench work) and
// on shapes chosen to hit the odd cases (prime extents, broadcasting, batch,
// strided reductions, eps and weights).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/KernelExpansion.h"
#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/RandomInputs.h"
#include "Mirage/Semantics/ShapeRules.h"
#include "Mirage/Semantics/Target.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace mirage;

namespace {

/// Expands `g`, checks only custom kernels remain, and compares outputs.
void expectExpansionEqual(const UGraph &g, const KernelExpansionOptions &o =
                                               KernelExpansionOptions()) {
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, o, err);
  ASSERT_TRUE(e.has_value()) << err;
  for (const UOp &op : e->ops)
    EXPECT_EQ(op.kind, OpKind::Custom);
  static Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem, 1);
  auto ins = seededInputs(g, 7);
  auto a = eval.run(g, ins), b = eval.run(*e, ins);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape, b[i].shape);
    EXPECT_LT(maxRelativeError(b[i], a[i]), 1e-12) << "output " << i;
  }
}

} // namespace

TEST(KernelExpansion, MatmulShapes) {
  for (auto [m, k, n] : {std::array<int64_t, 3>{4, 64, 48},
                         {16, 96, 200},
                         {7, 13, 5},
                         {128, 256, 128}}) {
    UGraph g;
    int32_t a = g.addInput({m, k}, ElemType::F16);
    int32_t b = g.addInput({k, n}, ElemType::F16);
    g.markOutput(g.addMatmul(a, b));
    expectExpansionEqual(g);
  }
  UGraph g; // batched
  int32_t a = g.addInput({3, 16, 32}, ElemType::F32);
  int32_t b = g.addInput({3, 32, 24}, ElemType::F32);
  g.markOutput(g.addMatmul(a, b));
  expectExpansionEqual(g);
}

TEST(KernelExpansion, ElementwiseWithBroadcasting) {
  UGraph g;
  int32_t x = g.addInput({2, 16, 300}, ElemType::F16);
  int32_t r = g.addInput({2, 16, 1}, ElemType::F16);
  int32_t e = g.addUnary(UnaryKind::exp, x);
  g.markOutput(g.addBinary(BinaryKind::div, e, r));
  g.markOutput(g.addUnary(UnaryKind::mul_scalar, x, 0.25));
  expectExpansionEqual(g);
}

TEST(KernelExpansion, ReductionsStridedAndLong) {
  UGraph g;
  int32_t x = g.addInput({4, 4096}, ElemType::F32);
  g.markOutput(g.addReduce(ReduceKind::sum, x, 1, 1));
  g.markOutput(g.addReduce(ReduceKind::max, x, 1, 64));
  g.markOutput(g.addReduce(ReduceKind::sum, x, 0, 1));
  expectExpansionEqual(g);
}

TEST(KernelExpansion, RmsNormWithWeightAndEps) {
  UGraph g;
  int32_t x = g.addInput({6, 512}, ElemType::F16);
  int32_t w = g.addInput({1, 512}, ElemType::F16);
  g.markOutput(g.addRmsNorm(x, w, 1e-5));
  g.markOutput(g.addRmsNorm(x, -1, 0));
  expectExpansionEqual(g);
}

TEST(KernelExpansion, Concat) {
  UGraph g;
  int32_t a = g.addInput({8, 24}, ElemType::F32);
  int32_t b = g.addInput({8, 40}, ElemType::F32);
  g.markOutput(g.addConcat(a, b, 1));
  expectExpansionEqual(g);
}

TEST(KernelExpansion, SixWorkloadReferencesAndBestGraphs) {
  auto ctx = test::makeMirageContext();
  for (const char *w :
       {"rmsnorm_matmul", "gated_mlp", "lora", "gqa", "qknorm", "ntrans"}) {
    auto module =
        test::parseMlirFile(test::sourceFile("test/Workloads", w), *ctx);
    ASSERT_TRUE(module) << w;
    std::vector<test::GraphPair> pairs;
    ASSERT_TRUE(test::importReferencePairs(*module, pairs)) << w;
    ASSERT_FALSE(pairs.empty()) << w;
    for (const test::GraphPair &p : pairs) {
      SCOPED_TRACE(p.name);
      expectExpansionEqual(p.ref);
      expectExpansionEqual(p.cand);
    }
  }
}

TEST(KernelExpansion, TooLargeForSharedMemoryIsAnError) {
  // A concat keeps its concatenated dim whole in a block: 2^20 f32 columns
  // cannot fit.
  UGraph g;
  int32_t x = g.addInput({2, 1 << 19}, ElemType::F32);
  int32_t y = g.addInput({2, 1 << 19}, ElemType::F32);
  g.markOutput(g.addConcat(x, y, 1));
  std::string err;
  KernelExpansionOptions o;
  EXPECT_FALSE(expandPredefinedKernels(g, o, err).has_value());
  EXPECT_NE(err.find("concat"), std::string::npos) << err;
  EXPECT_NE(err.find("shared memory"), std::string::npos) << err;
}

namespace {

/// The one kernel of an expanded single-op graph and its plan.
std::pair<UGraph, KernelPlan> onlyKernel(const UGraph &g,
                                         const KernelExpansionOptions &o) {
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, o, err);
  EXPECT_TRUE(e.has_value()) << err;
  if (!e || e->ops.size() != 1 || e->ops[0].kind != OpKind::Custom)
    return {UGraph(Level::Block), KernelPlan()};
  const UGraph &body = e->bodies[e->ops[0].body];
  return {body, planKernel(body, *lookupTarget(kDefaultTarget))};
}

int64_t blocksOf(const UGraph &body) {
  return body.grid[0] * body.grid[1] * body.grid[2];
}

} // namespace

// docs/Rationale/GridLimits.md: an element-wise op too large for tiles on
// 4096 blocks (the scores of a 32-head, 2048-token prefill attention:
// 263,168 bytes of tiles) tiles for the rule's grid limit instead, within
// shared memory and every axis within CUDA's 65,535.
TEST(KernelExpansion, HugeElementwiseTilesForTheRulesGridLimit) {
  UGraph g;
  g.markOutput(g.addUnary(UnaryKind::mul_scalar,
                          g.addInput({32, 2048, 2048}, ElemType::F16), 0.5));
  auto [body, plan] = onlyKernel(g, {});
  EXPECT_GT(blocksOf(body), 4096);
  EXPECT_LE(blocksOf(body), kMaxBlocks);
  for (int64_t extent : body.grid)
    EXPECT_LE(extent, kMaxGridExtent);
  EXPECT_LE(plan.sharedBytes, lookupTarget(kDefaultTarget)->smemBytesPerBlock);

  // The same fallback at evaluable sizes, by a smaller shared-memory budget:
  // tiles that fit it, more blocks, and still the op.
  UGraph h;
  int32_t a = h.addInput({8, 256, 256}, ElemType::F32);
  int32_t b = h.addInput({8, 256, 256}, ElemType::F32);
  h.markOutput(h.addBinary(BinaryKind::mul, a, b));
  KernelExpansionOptions o;
  o.elementwiseTileElems = 64;
  auto [preferred, preferredPlan] = onlyKernel(h, o);
  EXPECT_LE(blocksOf(preferred), 4096);
  o.sharedMemoryBytes = preferredPlan.sharedBytes - 1;
  auto [fallback, fallbackPlan] = onlyKernel(h, o);
  EXPECT_GT(blocksOf(fallback), blocksOf(preferred));
  EXPECT_LE(fallbackPlan.sharedBytes, o.sharedMemoryBytes);
  expectExpansionEqual(h, o);
}

// The same for a matmul: the scores of an 8192-token prefill (32 heads)
// need 2.6 MB tiles on 4096 blocks; the expansion tiles for the rule's
// limit instead.
TEST(KernelExpansion, HugeMatmulTilesForTheRulesGridLimit) {
  UGraph g;
  int32_t q = g.addInput({32, 8192, 128}, ElemType::F16);
  int32_t k = g.addInput({32, 128, 8192}, ElemType::F16);
  g.markOutput(g.addMatmul(q, k));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  const TargetInfo t = *lookupTarget(kDefaultTarget);
  int64_t most = 0;
  for (const UOp &op : e->ops) {
    ASSERT_EQ(op.kind, OpKind::Custom);
    const UGraph &body = e->bodies[op.body];
    EXPECT_LE(planKernel(body, t).sharedBytes, t.smemBytesPerBlock);
    for (int64_t extent : body.grid)
      EXPECT_LE(extent, kMaxGridExtent);
    most = std::max(most, blocksOf(body));
  }
  EXPECT_GT(most, 4096);

  // At evaluable sizes, by a smaller budget: 8 x 8 tiles from the options,
  // grown to 16 x 8 for 4096 blocks; a budget below the grown tile's falls
  // back to 8 x 8 on 8192 blocks, and the op is still computed.
  UGraph h;
  int32_t a = h.addInput({2, 512, 32}, ElemType::F32);
  int32_t b = h.addInput({2, 32, 512}, ElemType::F32);
  h.markOutput(h.addMatmul(a, b));
  KernelExpansionOptions o;
  o.matmulTileM = o.matmulTileN = 8;
  auto [preferred, preferredPlan] = onlyKernel(h, o);
  EXPECT_EQ(blocksOf(preferred), 4096);
  o.sharedMemoryBytes = preferredPlan.sharedBytes - 1;
  auto [fallback, fallbackPlan] = onlyKernel(h, o);
  EXPECT_EQ(blocksOf(fallback), 8192);
  EXPECT_LE(fallbackPlan.sharedBytes, o.sharedMemoryBytes);
  expectExpansionEqual(h, o);
}

TEST(KernelExpansion, RowsTooWideForOneBlockTakeTwoKernels) {
  // 32,768 f16 columns with a weight: the one-kernel form's tiles exceed a
  // block's shared memory (16,384 columns fit since the weighing is
  // computed where its saver writes it, ElementsInReductions.md); the
  // expansion folds each row's squares over column chunks in one kernel and
  // divides and weighs in a second, equal to the op.
  UGraph g;
  int32_t x = g.addInput({2, 32768}, ElemType::F16);
  int32_t w = g.addInput({1, 32768}, ElemType::F16);
  g.markOutput(g.addRmsNorm(x, w, 1e-5));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  int kernels = 0;
  for (const UOp &op : e->ops)
    kernels += op.kind == OpKind::Custom;
  EXPECT_EQ(kernels, 2);
  expectExpansionEqual(g);
  // Without the weight too.
  UGraph h;
  h.markOutput(h.addRmsNorm(h.addInput({4, 1 << 20}, ElemType::F32), -1, 0));
  ASSERT_TRUE(expandPredefinedKernels(h, {}, err).has_value()) << err;
}

namespace {

/// The old fill rule's kernel for a batched matmul: one kernel, column tiles
/// of `tn`, row tiles of `tm`, K steps of `tk`, no split.
UGraph columnTiledMatmul(const Shape &as, const Shape &bs, int64_t tm,
                         int64_t tn, int64_t tk) {
  UGraph g;
  int32_t a = g.addInput(as, ElemType::F16), b = g.addInput(bs, ElemType::F16);
  UGraph k(Level::Block);
  k.grid = {bs[2] / tn, as[1] / tm, as[0]};
  k.forloopRange = as[2] / tk;
  int32_t ka = k.addInput(as, ElemType::F16), kb = k.addInput(bs, ElemType::F16);
  int32_t at = k.addInputIterator(ka, {-1, 1, 0}, 2);
  int32_t bt = k.addInputIterator(kb, {2, -1, 0}, 1);
  int32_t acc = k.addAccum(AccumKind::sum, k.addMatmul(at, bt), -1, 0);
  k.markOutput(k.addOutputSaver(acc, {2, 1, 0}));
  g.markOutput(g.addCustom({a, b}, std::move(k)));
  return g;
}

} // namespace

// Attention's P @ V (Lowering.md, "Large matmuls"): a 32 K-element output
// over K = 4096. The expansion picks split-K on a grid that fills the
// machine (kernel 1's grid x walks K in both operands, kernel 2 sums the
// partials strided), still computes the op, and the model prices it below
// the old rule's kernel (8 column tiles of 8 re-reading P on 64 blocks).
TEST(KernelExpansion, LargeMatmulsPickTheirTilesByTheCostModel) {
  Shape as{2, 256, 4096}, bs{2, 4096, 64};
  UGraph g;
  g.markOutput(g.addMatmul(g.addInput(as, ElemType::F16),
                           g.addInput(bs, ElemType::F16)));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  ASSERT_EQ(e->ops.size(), 2u);
  const UGraph &k1 = e->bodies[e->ops[0].body];
  EXPECT_GT(k1.grid[0], 1);
  for (const UOp &op : k1.ops) {
    if (op.kind == OpKind::InputIterator) {
      EXPECT_EQ(op.map[0], op.fmap) << "grid x walks K";
    }
  }
  TargetInfo t = *lookupTarget(kDefaultTarget);
  EXPECT_GE(k1.grid[0] * k1.grid[1] * k1.grid[2], t.numSMs);
  const UGraph &k2 = e->bodies[e->ops[1].body];
  bool strided = false;
  for (const UOp &op : k2.ops)
    strided |= op.kind == OpKind::Reduce && op.size == 64;
  EXPECT_TRUE(strided);
  expectExpansionEqual(g);

  double ranked = estimateCost(*e, t).seconds;
  double old = estimateCost(columnTiledMatmul(as, bs, 64, 8, 32), t).seconds;
  EXPECT_LT(ranked, old);
}

// A decode GEMV (16 tokens): a megabyte of weights, so the ranked tiling
// fills the machine, and it is still the op.
TEST(KernelExpansion, DecodeGemvFillsTheMachine) {
  UGraph g;
  g.markOutput(g.addMatmul(g.addInput({16, 2048}, ElemType::F16),
                           g.addInput({2048, 2048}, ElemType::F16)));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  const UGraph &k1 = e->bodies[e->ops[0].body];
  TargetInfo t = *lookupTarget(kDefaultTarget);
  EXPECT_GE(k1.grid[0] * k1.grid[1] * k1.grid[2], t.numSMs / 2);
  expectExpansionEqual(g);
}

// The search prices a graph as the code generator emits it
// (PricingAsEmitted.md): its expansion's cost, for the target asked.
TEST(KernelExpansion, EmittedCostIsTheExpansionsCost) {
  UGraph g;
  int32_t x = g.addInput({8, 4096}, ElemType::F16);
  int32_t w = g.addInput({4096, 4096}, ElemType::F16);
  g.markOutput(g.addMatmul(g.addRmsNorm(x, -1), w));
  ASSERT_TRUE(hasPredefinedKernels(g));
  for (const char *name : {"h100", "a100"}) {
    SCOPED_TRACE(name);
    TargetInfo t = *lookupTarget(name);
    UGraph forTarget = g;
    forTarget.target = name;
    std::string err;
    std::optional<UGraph> e =
        expandPredefinedKernels(forTarget, KernelExpansionOptions(), err);
    ASSERT_TRUE(e.has_value()) << err;
    ASSERT_FALSE(hasPredefinedKernels(*e));
    GraphCost emitted = estimateEmittedCost(g, t);
    GraphCost expansion = estimateCost(*e, t);
    EXPECT_EQ(emitted.seconds, expansion.seconds);
    EXPECT_EQ(emitted.numKernels(), expansion.numKernels());
    // Not the library price: the expansion's GEMV and rms_norm are not
    // idealised library kernels.
    EXPECT_NE(emitted.seconds, estimateCost(g, t).seconds);
  }
}

// A graph of custom kernels only is priced as it is; one whose expansion
// fails is priced as written (its lowering gives the reason).
TEST(KernelExpansion, EmittedCostOfCustomOrUnexpandableGraphs) {
  TargetInfo t = *lookupTarget(kDefaultTarget);
  UGraph g;
  int32_t x = g.addInput({8, 4096}, ElemType::F16);
  int32_t w = g.addInput({4096, 4096}, ElemType::F16);
  g.markOutput(g.addMatmul(g.addRmsNorm(x, -1), w));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  EXPECT_EQ(estimateEmittedCost(*e, t).seconds, estimateCost(*e, t).seconds);

  UGraph wide; // TooLargeForSharedMemoryIsAnError's concat
  int32_t a = wide.addInput({2, 1 << 19}, ElemType::F32);
  int32_t b = wide.addInput({2, 1 << 19}, ElemType::F32);
  wide.markOutput(wide.addConcat(a, b, 1));
  ASSERT_FALSE(expandPredefinedKernels(wide, {}, err).has_value());
  EXPECT_EQ(estimateEmittedCost(wide, t).seconds,
            estimateCost(wide, t).seconds);
}

// A decode GEMV of 256 columns (wider than the largest ordinary column
// tile) and K = 32768 splits K over the machine instead of running on 32
// blocks of 8 columns: side by side with whole column tiles, or stacked by
// row blocks (all 8 rows in a tile), whichever the model ranks first; its
// combine spreads the partials over more than one block.
TEST(KernelExpansion, WideDecodeGemvSplitsK) {
  UGraph g;
  g.markOutput(g.addMatmul(g.addInput({8, 32768}, ElemType::F16),
                           g.addInput({32768, 256}, ElemType::F16)));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  ASSERT_EQ(e->ops.size(), 2u) << "a split kernel and its combine";
  TargetInfo t = *lookupTarget(kDefaultTarget);
  const UGraph &split = e->bodies[e->ops[0].body];
  EXPECT_GE(split.grid[0] * split.grid[1] * split.grid[2], t.numSMs / 2);
  const UGraph &combine = e->bodies[e->ops[1].body];
  EXPECT_GT(combine.grid[0] * combine.grid[1] * combine.grid[2], 1);
  expectExpansionEqual(g);
}

// FmaMicroTiles.md: an f32 matmul of 197 rows (prime) gets one row tile of
// all 197 rows, not 197 blocks of one row, and with 197 x 768 outputs over
// K = 3072 (ViT-B's fc2) too few for the machine, it splits K stacked over
// grid y: partials [S, 197, 768], summed by a second kernel over dim 0.
TEST(KernelExpansion, FmaMatmulOfPrimeRowsSplitsKStacked) {
  UGraph g;
  g.markOutput(g.addMatmul(g.addInput({1, 197, 3072}, ElemType::F32),
                           g.addInput({1, 3072, 768}, ElemType::F32)));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  ASSERT_EQ(e->ops.size(), 2u) << "a split kernel and its combine";
  const UGraph &split = e->bodies[e->ops[0].body];
  EXPECT_EQ(split.grid[2], 1) << "all 197 rows in one row tile";
  EXPECT_GT(split.grid[1], 1) << "K split over grid y";
  TargetInfo t = *lookupTarget(kDefaultTarget);
  EXPECT_GE(split.grid[0] * split.grid[1] * split.grid[2], t.numSMs);
  const UValue &partials = e->values[e->ops[0].results[0]];
  EXPECT_EQ(partials.shape, (Shape{split.grid[1], 197, 768}));
  // The evaluator at a smaller K (the same rule; full shapes are bench work).
  UGraph small;
  small.markOutput(
      small.addMatmul(small.addInput({1, 13, 4096}, ElemType::F32),
                      small.addInput({1, 4096, 64}, ElemType::F32)));
  expectExpansionEqual(small);
}

// Rank-2 matmuls (torch-mlir's `aten.mm` after a collapse) stack their
// splits as whole row blocks: GPT-2's 128 x 768 x 2304 QKV projection has
// 2,304 outputs per block for a 128-thread block of 8 x 8 micro-tiles, so
// without a split it fills 36 SMs.
TEST(KernelExpansion, RankTwoFmaMatmulSplitsKStackedByRowBlocks) {
  UGraph g;
  g.markOutput(g.addMatmul(g.addInput({128, 768}, ElemType::F32),
                           g.addInput({768, 2304}, ElemType::F32)));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  ASSERT_EQ(e->ops.size(), 2u) << "a split kernel and its combine";
  const UGraph &split = e->bodies[e->ops[0].body];
  EXPECT_EQ(split.grid[2], 1);
  ASSERT_GT(split.grid[1], 1) << "K split over grid y";
  TargetInfo t = *lookupTarget(kDefaultTarget);
  EXPECT_GE(split.grid[0] * split.grid[1], t.numSMs);
  const UValue &partials = e->values[e->ops[0].results[0]];
  EXPECT_EQ(partials.shape, (Shape{split.grid[1] * 128, 2304}))
      << "each split's rows stacked below the previous split's";
  // The evaluator at smaller shapes that take the same rule.
  UGraph small;
  small.markOutput(small.addMatmul(small.addInput({13, 2048}, ElemType::F32),
                                   small.addInput({2048, 512}, ElemType::F32)));
  std::optional<UGraph> es = expandPredefinedKernels(small, {}, err);
  ASSERT_TRUE(es.has_value()) << err;
  ASSERT_EQ(es->ops.size(), 2u);
  const UGraph &b = es->bodies[es->ops[0].body];
  EXPECT_GT(b.grid[1], 1) << "stacked: K split over grid y";
  expectExpansionEqual(small);
}

// Lowering.md ("Revised 2026-12-01"): a reduce below a megabyte spreads
// when that saves more than a launch. The LayerNorm sum of 197 ViT tokens
// (605 KB) otherwise ran on one block.
TEST(KernelExpansion, SmallReduceSpreadsWhenThatSavesALaunch) {
  UGraph g;
  g.markOutput(g.addReduce(ReduceKind::sum,
                           g.addInput({1, 197, 768}, ElemType::F32), 2, 1));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  const UGraph &k = e->bodies[e->ops[0].body];
  EXPECT_GE(k.grid[0] * k.grid[1] * k.grid[2], 197);
  expectExpansionEqual(g);
}

// The result cache keys on these (ResultCache.md): the model's fingerprint
// prices an FMA matmul (a probe on FMA: FmaMicroTiles.md), and the emitted
// one extends it by the expansion's rules.
TEST(KernelExpansion, FingerprintsSeeFmaPricingAndTheExpansion) {
  TargetInfo h100 = *lookupTarget("h100");
  TargetInfo narrow = h100;
  narrow.sharedBytesPerCycle = 64;
  EXPECT_NE(costModelFingerprint(h100), costModelFingerprint(narrow));
  std::string emitted = emittedCostFingerprint(h100);
  EXPECT_EQ(emitted, emittedCostFingerprint(h100));
  EXPECT_NE(emitted, costModelFingerprint(h100));
  EXPECT_NE(emitted, emittedCostFingerprint(narrow));
  EXPECT_NE(emitted, emittedCostFingerprint(*lookupTarget("a100")));
}

// Lowering.md ("a reduce of few long rows splits them"): the output rows
// alone cannot fill the machine, so a reduce of 8 rows of 131,072 (2 MB)
// splits each row into contiguous chunks on a filling grid, and a second
// kernel folds the chunks. Sum and max, and a strided reduce to 64 (each
// chunk a multiple of 64), all equal to the op.
TEST(KernelExpansion, FewLongRowsSplitTheirReduction) {
  TargetInfo t = *lookupTarget(kDefaultTarget);
  for (auto [kind, to] : {std::pair{ReduceKind::sum, int64_t(1)},
                          std::pair{ReduceKind::max, int64_t(1)},
                          std::pair{ReduceKind::sum, int64_t(64)}}) {
    UGraph g;
    g.markOutput(
        g.addReduce(kind, g.addInput({8, 131072}, ElemType::F16), 1, to));
    std::string err;
    std::optional<UGraph> e = expandPredefinedKernels(g, {}, err);
    ASSERT_TRUE(e.has_value()) << err;
    ASSERT_EQ(e->ops.size(), 2u) << "a split kernel and its fold";
    const UGraph &k1 = e->bodies[e->ops[0].body];
    EXPECT_TRUE(t.fillsMachine(k1.grid[0] * k1.grid[1] * k1.grid[2]));
    const Shape &partials = e->values[e->ops[0].results[0]].shape;
    EXPECT_EQ(partials[0], 8);
    EXPECT_GT(partials[1], to);
    EXPECT_EQ(partials[1] % to, 0);
    expectExpansionEqual(g);
  }
  // Below a megabyte the rule's kernel stays one kernel.
  UGraph small;
  small.markOutput(small.addReduce(
      ReduceKind::sum, small.addInput({8, 16384}, ElemType::F16), 1, 1));
  std::string err;
  std::optional<UGraph> e = expandPredefinedKernels(small, {}, err);
  ASSERT_TRUE(e.has_value()) << err;
  EXPECT_EQ(e->ops.size(), 1u);
}

//===- SplitReductionTest.cpp - Split kernel + combine construction -------===//
//
// The kernel-level construction of docs/Rationale/MultiKernel.md, tested on
// hand-written one-kernel graphs (the search finds the same ones; its
// end-to-end structure tests are in FusionSearchTest and the lit tests):
// the pair's structure, its equivalence at the real shapes with a
// non-vacuous bound, and the graphs that have no split form.
//
//===----------------------------------------------------------------------===//
// The construction is a private stage of the search library.
#include "FusionSearch/Stages.h"

#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;
using mirage::test::gqaReference;

namespace {

/// The one-kernel form the search finds for it under the pattern (grid:
/// heads, rows; for-loop: keys): exp-sum and exp-weighted V sum
/// accumulated over the keys, divided after the loop.
UGraph gqaOneKernelBlock(const UGraph &ref, int64_t rowBlocks, int64_t loop) {
  UGraph b(Level::Block);
  b.grid = {ref.values[ref.inputs[0]].shape[0], rowBlocks, 1};
  b.forloopRange = loop;
  b.target = "h100";
  for (int32_t in : ref.inputs)
    b.addInput(ref.values[in].shape, ref.values[in].type);
  int32_t qt = b.addInputIterator(b.inputs[0], {0, 1, -1}, -1);
  int32_t kt = b.addInputIterator(b.inputs[1], {0, -1, -1}, 2);
  int32_t vt = b.addInputIterator(b.inputs[2], {0, -1, -1}, 1);
  int32_t s = b.addMatmul(qt, kt);
  int32_t e = b.addUnary(UnaryKind::exp, s);
  int32_t den = b.addAccum(AccumKind::sum_last, e, -1, 0);
  int32_t n = b.addMatmul(e, vt);
  int32_t num = b.addAccum(AccumKind::sum, n, -1, 0);
  int32_t o = b.addBinary(BinaryKind::div, num, den);
  b.markOutput(b.addOutputSaver(o, {0, 1, -1}));
  EXPECT_TRUE(b.error.empty()) << b.error;
  return b;
}

/// The pattern of gqaOneKernelBlock: two grid classes and a for-loop (the
/// construction reads only how many grid axes it uses and that it loops).
Pattern twoAxesAndLoop() { return Pattern{{0, 1}, 2}; }

const UGraph &body(const UGraph &k, size_t op) {
  return k.bodies[k.ops[op].body];
}

const UOp *firstOf(const UGraph &b, OpKind kind) {
  for (const UOp &op : b.ops)
    if (op.kind == kind)
      return &op;
  return nullptr;
}

/// Flash-decoding's pair for a shift-free GQA reference of 2 heads: the
/// one-kernel form with one row block per head, its keys split over 8
/// blocks of one iteration, each shifted by its own maxima
/// (localizeSplitMax); nullopt where a stage refuses.
std::optional<UGraph> flashDecodingPair(const ShiftFree &sf) {
  UGraph one = gqaOneKernelBlock(sf.ref, 1, 4);
  SplitPlan plan = planSplit(one, twoAxesAndLoop());
  UGraph pair;
  if (!plan.ok || !instantiateSplit(one, plan, sf.ref, {2, 1, 1},
                                    /*splits=*/8, /*forloop=*/1, pair))
    return std::nullopt;
  return localizeSplitMax(pair, sf);
}

VerificationResult verifyAt64Bits(const UGraph &cand, const UGraph &ref) {
  VerifyOptions vo;
  vo.targetBits = 64;
  vo.seed = 7;
  vo.allowPermutation = false;
  return verifyEquivalence(cand, ref, vo);
}

} // namespace

TEST(SplitReduction, GqaPairStructure) {
  UGraph ref = gqaReference(2, 16, 8, 256);
  UGraph one = gqaOneKernelBlock(ref, 2, 4);
  SplitPlan plan = planSplit(one, twoAxesAndLoop());
  ASSERT_TRUE(plan.ok) << plan.why;
  EXPECT_EQ(plan.splitAxis, 2u);
  ASSERT_EQ(plan.partials.size(), 2u);
  for (const SplitPlan::Partial &p : plan.partials) {
    // heads and rows keep their dims; the splits go to the free last dim.
    EXPECT_EQ(p.omap[0], 0);
    EXPECT_EQ(p.omap[1], 1);
    EXPECT_EQ(p.splitDim, 2);
    EXPECT_EQ(p.combine, AccumKind::sum);
  }

  UGraph pair;
  ASSERT_TRUE(instantiateSplit(one, plan, ref, {2, 2, 1}, /*splits=*/8,
                               /*forloop=*/4, pair));
  ASSERT_EQ(pair.ops.size(), 2u);
  ASSERT_EQ(pair.ops[0].kind, OpKind::Custom);
  ASSERT_EQ(pair.ops[1].kind, OpKind::Custom);
  const UGraph &k1 = body(pair, 0), &k2 = body(pair, 1);
  // Kernel 1: 8 splits of the 256 keys on grid z, 4 steps of 8 keys each.
  EXPECT_EQ(k1.grid, (GridDims{2, 2, 8}));
  EXPECT_EQ(k1.forloopRange, 4);
  for (const UOp &op : k1.ops) {
    if (op.kind == OpKind::InputIterator) {
      EXPECT_EQ(op.map[2], op.fmap); // K and V split, Q replicated
    }
  }
  EXPECT_EQ(firstOf(k1, OpKind::Binary), nullptr); // the division moved
  // Partials: exp-sums [2, 16, 8 splits] and V sums [2, 16, 8·8].
  ASSERT_EQ(pair.ops[0].results.size(), 2u);
  EXPECT_EQ(pair.value(pair.ops[0].results[0]).shape, (Shape{2, 16, 8}));
  EXPECT_EQ(pair.value(pair.ops[0].results[1]).shape, (Shape{2, 16, 64}));
  // Kernel 2: the original grid, a for-loop over the 8 splits, two sums,
  // the division.
  EXPECT_EQ(k2.grid, (GridDims{2, 2, 1}));
  EXPECT_EQ(k2.forloopRange, 8);
  unsigned sums = 0;
  for (const UOp &op : k2.ops)
    sums += op.kind == OpKind::Accum && op.accumKind() == AccumKind::sum;
  EXPECT_EQ(sums, 2u);
  const UOp *div = firstOf(k2, OpKind::Binary);
  ASSERT_NE(div, nullptr);
  EXPECT_EQ(div->binaryKind(), BinaryKind::div);

  VerificationResult vr = verifyAt64Bits(pair, ref);
  EXPECT_EQ(vr.status, VerifyStatus::Equivalent) << vr.message;
  EXPECT_LE(vr.log2Bound, -64) << vr.message;
}

// AfterLoopInvariants.md: a bias added after the loop is a tile the same in
// every iteration. The split pair's combine loads it itself (one more input,
// its iterator replayed with fmap -1), and the split kernel, which does not
// read it, no longer loads it.
TEST(SplitReduction, CombineReloadsLoopInvariantTiles) {
  UGraph ref;
  int32_t x = ref.addInput({16, 256}, ElemType::F32);
  int32_t w = ref.addInput({256, 64}, ElemType::F32);
  int32_t bias = ref.addInput({1, 64}, ElemType::F32);
  ref.markOutput(ref.addBinary(BinaryKind::add, ref.addMatmul(x, w), bias));
  UGraph one(Level::Block);
  one.grid = {4, 1, 1};
  one.forloopRange = 4;
  one.target = "h100";
  int32_t bx = one.addInput({16, 256}, ElemType::F32);
  int32_t bw = one.addInput({256, 64}, ElemType::F32);
  int32_t bb = one.addInput({1, 64}, ElemType::F32);
  int32_t xt = one.addInputIterator(bx, {-1, -1, -1}, 1);
  int32_t wt = one.addInputIterator(bw, {1, -1, -1}, 0);
  int32_t bt = one.addInputIterator(bb, {1, -1, -1}, -1);
  int32_t acc = one.addAccum(AccumKind::sum, one.addMatmul(xt, wt), -1, 0);
  int32_t y = one.addBinary(BinaryKind::add, acc, bt);
  one.markOutput(one.addOutputSaver(y, {1, -1, -1}));
  ASSERT_TRUE(one.error.empty()) << one.error;

  SplitPlan plan = planSplit(one, Pattern{{0}, 1});
  ASSERT_TRUE(plan.ok) << plan.why;
  for (bool fold : {false, true}) {
    UGraph pair;
    ASSERT_TRUE(instantiateSplit(one, plan, ref, {4, 1, 1}, /*splits=*/4,
                                 /*forloop=*/1, pair, fold));
    ASSERT_EQ(pair.ops.size(), 2u);
    const UGraph &k1 = body(pair, 0), &k2 = body(pair, 1);
    unsigned k1Iterators = 0;
    for (const UOp &op : k1.ops)
      k1Iterators += op.kind == OpKind::InputIterator;
    EXPECT_EQ(k1Iterators, 2u) << "x and w; the bias is kernel 2's";
    ASSERT_EQ(k2.inputs.size(), 2u) << "the partials, then the bias";
    EXPECT_EQ(pair.ops[1].operands[1], pair.inputs[2]);
    VerificationResult vr = verifyAt64Bits(pair, ref);
    EXPECT_EQ(vr.status, VerifyStatus::Equivalent) << vr.message;
    EXPECT_LE(vr.log2Bound, -64) << vr.message;
  }
}

// With foldSplits the combine loads every split's partials in one
// iteration and folds them by a strided reduce to one split's extent: the
// same values as the for-loop over the splits (verified), in one round trip
// where the loop took one per split, so the cost model ranks it cheaper.
TEST(SplitReduction, FoldedCombineLoadsEverySplitAtOnce) {
  UGraph ref = gqaReference(2, 16, 8, 256);
  UGraph one = gqaOneKernelBlock(ref, 2, 4);
  SplitPlan plan = planSplit(one, twoAxesAndLoop());
  ASSERT_TRUE(plan.ok) << plan.why;
  UGraph looped, folded;
  ASSERT_TRUE(instantiateSplit(one, plan, ref, {2, 2, 1}, /*splits=*/8,
                               /*forloop=*/4, looped));
  ASSERT_TRUE(instantiateSplit(one, plan, ref, {2, 2, 1}, /*splits=*/8,
                               /*forloop=*/4, folded, /*foldSplits=*/true));
  // Kernel 1 is the same; kernel 2 has one iteration, and each partial is
  // loaded whole along the split dim and reduced to one split's extent.
  EXPECT_EQ(body(folded, 0).grid, body(looped, 0).grid);
  const UGraph &k2 = body(folded, 1);
  EXPECT_EQ(k2.forloopRange, 1);
  std::vector<Shape> reduced;
  for (const UOp &op : k2.ops)
    if (op.kind == OpKind::Reduce) {
      EXPECT_EQ(op.reduceKind(), ReduceKind::sum);
      EXPECT_EQ(op.dim, 2);
      reduced.push_back(k2.values[op.results[0]].shape);
      EXPECT_EQ(k2.values[op.operands[0]].shape[2],
                8 * k2.values[op.results[0]].shape[2]);
    }
  // The exp-sums fold [1, 8, 8 splits] to [1, 8, 1], the V sums
  // [1, 8, 8 splits x 8] to [1, 8, 8].
  EXPECT_EQ(reduced, (std::vector<Shape>{{1, 8, 1}, {1, 8, 8}}));

  VerificationResult vr = verifyAt64Bits(folded, ref);
  EXPECT_EQ(vr.status, VerifyStatus::Equivalent) << vr.message;
  EXPECT_LE(vr.log2Bound, -64) << vr.message;
  EXPECT_LT(estimateCost(folded).seconds, estimateCost(looped).seconds)
      << estimateCost(folded).describe() << estimateCost(looped).describe();
}

// At the paper's GQA shapes the one-kernel form has 64 blocks, each
// streaming its head's K and V; the model prefers the split pair, and the
// gain comes from the fill, not from traffic.
TEST(SplitReduction, CostModelPrefersSplitKvAtPaperShapes) {
  UGraph ref = gqaReference(2, 256, 64, 4096);
  UGraph one = gqaOneKernelBlock(ref, 8, 8);
  SplitPlan plan = planSplit(one, twoAxesAndLoop());
  ASSERT_TRUE(plan.ok) << plan.why;
  UGraph k(Level::Kernel);
  llvm::SmallVector<int32_t, 3> ins;
  for (int32_t in : ref.inputs)
    ins.push_back(k.addInput(ref.values[in].shape, ref.values[in].type));
  k.markOutput(k.addCustom(ins, one));
  ASSERT_TRUE(k.error.empty()) << k.error;
  UGraph pair;
  ASSERT_TRUE(instantiateSplit(one, plan, ref, {2, 8, 1}, 8, 8, pair));
  GraphCost c1 = estimateCost(k), c2 = estimateCost(pair);
  EXPECT_EQ(c2.numKernels(), 2);
  EXPECT_LT(c2.seconds, c1.seconds) << c1.describe() << c2.describe();
  EXPECT_GT(c2.kernels[0].blocks, c1.kernels[0].blocks);
}

TEST(SplitReduction, NoSplitFormWithoutLoopOrFreeAxis) {
  UGraph ref = gqaReference(2, 16, 8, 256);
  UGraph one = gqaOneKernelBlock(ref, 2, 4);
  EXPECT_FALSE(planSplit(one, Pattern{{0, 1}, -1}).ok);
  EXPECT_FALSE(planSplit(one, Pattern{{0, 1, 3}, 2}).ok);
}

// rms_last finishes with a division by the count and a sqrt: its partials
// cannot be summed, so RMSNorm+MatMul's fused kernel has no split form.
TEST(SplitReduction, NoSplitFormForRmsAccumulator) {
  UGraph b(Level::Block);
  b.grid = {4, 1, 1};
  b.forloopRange = 4;
  b.target = "h100";
  int32_t x = b.addInput({8, 64}, ElemType::F16);
  int32_t w = b.addInput({64, 32}, ElemType::F16);
  int32_t xt = b.addInputIterator(x, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(w, {1, -1, -1}, 0);
  int32_t m = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  int32_t r = b.addAccum(AccumKind::rms_last, xt, -1, 0);
  b.markOutput(b.addOutputSaver(b.addBinary(BinaryKind::div, m, r),
                                {1, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  SplitPlan plan = planSplit(b, Pattern{{2}, 1});
  EXPECT_FALSE(plan.ok);
  EXPECT_NE(plan.why.find("cannot be folded"), std::string::npos);
}

// The reference's softmax @ V sums 4096 fractions over one row's exp-sum;
// with one shared denominator the bound of the pair at the paper's shapes
// is real (it was vacuous when the analysis multiplied the 4096
// denominators out: a 49000-bit height).
TEST(SplitReduction, PairBoundAtPaperShapesIsNotVacuous) {
  UGraph ref = gqaReference(2, 256, 64, 4096);
  UGraph one = gqaOneKernelBlock(ref, 8, 8);
  SplitPlan plan = planSplit(one, twoAxesAndLoop());
  ASSERT_TRUE(plan.ok) << plan.why;
  UGraph pair;
  ASSERT_TRUE(instantiateSplit(one, plan, ref, {2, 8, 1}, 8, 8, pair));
  ErrorBound b = computeErrorBound(pair, ref, /*expInterpreted=*/false, 64);
  EXPECT_FALSE(b.vacuous());
  EXPECT_LE(b.log2Total, -64);
  EXPECT_LT(b.heightBits, 60);
}

namespace {
/// gqaReference with the softmax as frontends write it: the row max
/// subtracted before the exp.
UGraph stableGqaReference(int64_t heads, int64_t rows, int64_t d,
                          int64_t keys) {
  UGraph g(Level::Kernel);
  int32_t q = g.addInput({heads, rows, d}, ElemType::F16);
  int32_t k = g.addInput({heads, d, keys}, ElemType::F16);
  int32_t v = g.addInput({heads, keys, d}, ElemType::F16);
  int32_t s = g.addMatmul(q, k);
  int32_t m = g.addReduce(ReduceKind::max, s, 2);
  int32_t e = g.addUnary(UnaryKind::exp, g.addBinary(BinaryKind::sub, s, m));
  int32_t den = g.addReduce(ReduceKind::sum, e, 2);
  g.markOutput(g.addMatmul(g.addBinary(BinaryKind::div, e, den), v));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}
} // namespace

// Flash-decoding's form (issue 21; Verification.md §2a): each split of a
// one-iteration split kernel shifts its exp by its own row max and saves
// it, the splits stacked along the rows; the combine reads all splits of
// its rows at once and scales every split's partials by exp(m_b − M). It is
// verified against the reference as written, in mode S, and a split kernel
// that loops has no such form.
TEST(SplitReduction, LocalMaximaSplitVerifiesInModeS) {
  UGraph ref = stableGqaReference(2, 16, 8, 256);
  std::optional<ShiftFree> sf = shiftFreeReference(ref);
  ASSERT_TRUE(sf);
  UGraph one = gqaOneKernelBlock(sf->ref, 1, 4);
  SplitPlan plan = planSplit(one, twoAxesAndLoop());
  ASSERT_TRUE(plan.ok) << plan.why;
  UGraph pair;
  ASSERT_TRUE(instantiateSplit(one, plan, sf->ref, {2, 1, 1}, /*splits=*/8,
                               /*forloop=*/1, pair));
  std::optional<UGraph> local = localizeSplitMax(pair, *sf);
  ASSERT_TRUE(local);
  ASSERT_EQ(local->ops.size(), 2u); // two kernels, no row-max kernel
  const UGraph &k1 = body(*local, 0), &k2 = body(*local, 1);
  // Kernel 1: its own row max before the exp (a running max of its one
  // iteration, floored at a finite value), saved with the partials; the 8
  // splits stacked along the 16 rows.
  EXPECT_EQ(local->ops[0].results.size(), 3u);
  EXPECT_EQ(local->value(local->ops[0].results[0]).shape, (Shape{2, 128, 1}));
  EXPECT_EQ(local->value(local->ops[0].results[1]).shape, (Shape{2, 128, 8}));
  EXPECT_EQ(local->value(local->ops[0].results[2]).shape, (Shape{2, 128, 1}));
  const UOp *max1 = firstOf(k1, OpKind::RunningMax);
  ASSERT_NE(max1, nullptr);
  EXPECT_EQ(max1->dim, 2);
  // Kernel 2: one iteration over all splits: the max of the maxima, two
  // rescaled partials, each folded over the splits.
  EXPECT_EQ(k2.forloopRange, 1);
  unsigned muls = 0, folds = 0;
  for (const UOp &op : k2.ops) {
    muls += op.kind == OpKind::Binary && op.binaryKind() == BinaryKind::mul;
    folds += op.kind == OpKind::Reduce && op.size == 16;
  }
  EXPECT_EQ(muls, 2u);
  EXPECT_EQ(folds, 3u); // the max of the maxima and the two sums

  VerificationResult vr = verifyAt64Bits(*local, ref);
  EXPECT_EQ(vr.status, VerifyStatus::Equivalent) << vr.message;
  EXPECT_LE(vr.log2Bound, -64) << vr.message;
  EXPECT_NE(vr.message.find("mode S"), std::string::npos) << vr.message;

  // A looping split kernel would shift each iteration by another max;
  // with online softmax it shifts by its running max instead (next test).
  UGraph looping;
  ASSERT_TRUE(instantiateSplit(one, plan, sf->ref, {2, 1, 1}, 8, 2, looping));
  EXPECT_FALSE(localizeSplitMax(looping, *sf));
}

// The row-max prefix in the cost floors (FusionSearch.md, "Waves of
// ascending floor"): a split pair of one iteration may do without the row
// max only when its split walks the softmax row, since localizeSplitMax
// builds the flash-decoding form for no other split; a pattern whose loop
// walks the head dim (the QKᵀ contraction) pays the prefix on every launch.
TEST(SplitReduction, RowMaxPrefixSparesOnlySplitsOfTheSoftmaxRow) {
  UGraph ref = stableGqaReference(2, 16, 64, 256);
  std::optional<ShiftFree> sf = shiftFreeReference(ref);
  ASSERT_TRUE(sf);
  IndexClasses ic = alignIndices(sf->ref);
  const int keys = ic.classOf[sf->ref.inputs[1]][2];
  const int headDim = ic.classOf[sf->ref.inputs[0]][2];
  const int heads = ic.classOf[sf->ref.inputs[0]][0];
  ASSERT_GE(keys, 0);
  ASSERT_GE(headDim, 0);
  ASSERT_NE(keys, headDim);
  EXPECT_EQ(softmaxRowClass(sf->ref, ic, sf->rowDim), keys);

  // Every launch costs 1 and the prefix 10: a floor of 1 is a pair in
  // flash-decoding form (its split kernel; its combine may run in that
  // kernel's tail, TailCombine.md), 11 a launch after the row max.
  CostFloorFn unit = [](const UGraph &, double) { return 1.0; };
  const double prefix = 10;
  Pattern overKeys{{heads}, keys}, overHeadDim{{heads}, headDim};
  EXPECT_EQ(patternCostFloor(overKeys, ic, sf->ref, unit, true, prefix, false, keys),
            1.0);
  EXPECT_EQ(
      patternCostFloor(overHeadDim, ic, sf->ref, unit, true, prefix, false,
                       keys),
      11.0);
  // Where the row is not known, every one-iteration split is spared.
  EXPECT_EQ(
      patternCostFloor(overHeadDim, ic, sf->ref, unit, true, prefix, false, -1), 1.0);
  // Without split launches, every launch pays the prefix.
  EXPECT_EQ(patternCostFloor(overKeys, ic, sf->ref, unit, false, prefix, false, keys),
            11.0);
  // A looping one-kernel launch over the row may be in online-softmax form
  // (a floor of 1); over the head dim it may not.
  EXPECT_EQ(patternCostFloor(overKeys, ic, sf->ref, unit, false, prefix,
                             /*online=*/true, keys),
            1.0);
  EXPECT_EQ(patternCostFloor(overHeadDim, ic, sf->ref, unit, false, prefix,
                             /*online=*/true, keys),
            11.0);
  // With online softmax a looping split over the row is spared too, one
  // over the head dim still is not.
  EXPECT_EQ(patternCostFloor(overHeadDim, ic, sf->ref, unit, true, prefix,
                             /*online=*/true, keys),
            11.0);
  // A graph's first launch costs more than a chained one: the custom
  // kernel pays it where no row-max kernel launches before it (the prefix
  // has it otherwise), in either form.
  const double first = 0.5;
  EXPECT_EQ(patternCostFloor(overKeys, ic, sf->ref, unit, true, prefix, false,
                             keys, /*tailFloor=*/0, first),
            1.5);
  EXPECT_EQ(patternCostFloor(overHeadDim, ic, sf->ref, unit, true, prefix,
                             false, keys, /*tailFloor=*/0, first),
            11.0);
  EXPECT_EQ(patternCostFloor(overHeadDim, ic, sf->ref, unit, false,
                             /*rowMaxPrefix=*/0, false, keys,
                             /*tailFloor=*/0, first),
            1.5);
}

// With online softmax (OnlineSoftmax.md) a split kernel that loops over its
// part of the keys keeps a running max, rescales its sums by exp(prev −
// cur) and saves its last cur beside the partials; the combine is
// flash-decoding's. Verified in mode S against the reference as written.
TEST(SplitReduction, LoopingSplitWithARunningMaxVerifiesInModeS) {
  UGraph ref = stableGqaReference(2, 16, 8, 256);
  std::optional<ShiftFree> sf = shiftFreeReference(ref);
  ASSERT_TRUE(sf);
  UGraph one = gqaOneKernelBlock(sf->ref, 1, 4);
  SplitPlan plan = planSplit(one, twoAxesAndLoop());
  ASSERT_TRUE(plan.ok) << plan.why;
  UGraph looping;
  ASSERT_TRUE(instantiateSplit(one, plan, sf->ref, {2, 1, 1}, /*splits=*/4,
                               /*forloop=*/4, looping));
  // Not the one-kernel form: a grid axis splits the row, so no block sees
  // a whole row over its iterations.
  EXPECT_FALSE(onlineSoftmax(looping, *sf));
  std::optional<UGraph> local = localizeSplitMax(looping, *sf, true);
  ASSERT_TRUE(local);
  ASSERT_EQ(local->ops.size(), 2u); // no row-max kernel
  const UGraph &k1 = body(*local, 0);
  EXPECT_EQ(k1.forloopRange, 4);
  const UOp *rm = firstOf(k1, OpKind::RunningMax);
  ASSERT_NE(rm, nullptr);
  // The two sums rescaled by exp(prev − cur), and the last cur kept for
  // the combine (a sum rescaled by zero: the state is the last cur).
  unsigned rescaled = 0, kept = 0;
  for (const UOp &op : k1.ops)
    if (op.kind == OpKind::Accum && op.operands.size() == 2) {
      ++rescaled;
      kept += op.operands[0] == rm->results[1];
    }
  EXPECT_EQ(rescaled, 3u);
  EXPECT_EQ(kept, 1u);
  VerificationResult vr = verifyAt64Bits(*local, ref);
  EXPECT_EQ(vr.status, VerifyStatus::Equivalent) << vr.message;
  EXPECT_LE(vr.log2Bound, -64) << vr.message;
  EXPECT_NE(vr.message.find("mode S"), std::string::npos) << vr.message;
}

// Prefill (MultiKernel.md, "Prefill: stacking along a dim of one"): one
// head whose query rows the grid splits into 4 row blocks, so no dim of two
// or more is whole in every block; the splits stack along the head dim, of
// extent 1 in the tile: partials of 4 × 16 × 8 and maxima of 4 × 16 × 1,
// folded from 4 to 1 by kernel 2. Verified in mode S.
TEST(SplitReduction, PrefillSplitsStackAlongADimOfOne) {
  UGraph ref = stableGqaReference(1, 16, 8, 256);
  std::optional<ShiftFree> sf = shiftFreeReference(ref);
  ASSERT_TRUE(sf);
  UGraph one = gqaOneKernelBlock(sf->ref, 4, 4);
  SplitPlan plan = planSplit(one, twoAxesAndLoop());
  ASSERT_TRUE(plan.ok) << plan.why;
  UGraph looping;
  ASSERT_TRUE(instantiateSplit(one, plan, sf->ref, {1, 4, 1}, /*splits=*/4,
                               /*forloop=*/4, looping));
  std::optional<UGraph> local = localizeSplitMax(looping, *sf, true);
  ASSERT_TRUE(local);
  ASSERT_EQ(local->ops.size(), 2u);
  const UGraph &k1 = body(*local, 0);
  ASSERT_EQ(k1.outputs.size(), 3u); // two partials, then the maxima
  for (int32_t o : k1.outputs) {
    const Shape &shape = k1.values[o].shape;
    ASSERT_EQ(shape.size(), 3u);
    EXPECT_EQ(shape[0], 4);  // the splits, stacked along the head dim
    EXPECT_EQ(shape[1], 16); // every query row
  }
  EXPECT_EQ(body(*local, 1).grid[1], 4); // kernel 2 keeps the row blocks
  VerificationResult vr = verifyAt64Bits(*local, ref);
  EXPECT_EQ(vr.status, VerifyStatus::Equivalent) << vr.message;
  EXPECT_LE(vr.log2Bound, -64) << vr.message;
  EXPECT_NE(vr.message.find("mode S"), std::string::npos) << vr.message;
}

// Online softmax's form (OnlineSoftmax.md, "Search"): a one-kernel instance
// whose for-loop walks the keys gets a running max of the score row, its
// exp shifted by cur and both sums rescaled by exp(prev − cur): one kernel,
// no row-max kernel, verified against the reference as written in mode S.
// Without a loop, or with a path from the exp to a sum that is not linear
// in it, there is no such form.
TEST(SplitReduction, OnlineSoftmaxIsOneFlashKernel) {
  UGraph ref = stableGqaReference(2, 16, 8, 256);
  std::optional<ShiftFree> sf = shiftFreeReference(ref);
  ASSERT_TRUE(sf);
  auto kernelOf = [&](UGraph block) {
    UGraph k(Level::Kernel);
    llvm::SmallVector<int32_t, 3> ins;
    for (int32_t in : sf->ref.inputs)
      ins.push_back(
          k.addInput(sf->ref.values[in].shape, sf->ref.values[in].type));
    k.markOutput(k.addCustom(ins, std::move(block)));
    EXPECT_TRUE(k.error.empty()) << k.error;
    return k;
  };
  std::optional<UGraph> flash =
      onlineSoftmax(kernelOf(gqaOneKernelBlock(sf->ref, 2, 4)), *sf);
  ASSERT_TRUE(flash);
  ASSERT_EQ(flash->ops.size(), 1u); // one kernel, no row-max kernel
  const UGraph &k = body(*flash, 0);
  const UOp *rm = firstOf(k, OpKind::RunningMax);
  ASSERT_NE(rm, nullptr);
  EXPECT_EQ(rm->dim, 2);
  unsigned rescaled = 0;
  for (const UOp &op : k.ops)
    rescaled += op.kind == OpKind::Accum && op.operands.size() == 2;
  EXPECT_EQ(rescaled, 2u); // the exp-sum and P·V
  VerificationResult vr = verifyAt64Bits(*flash, ref);
  EXPECT_EQ(vr.status, VerifyStatus::Equivalent) << vr.message;
  EXPECT_LE(vr.log2Bound, -64) << vr.message;
  EXPECT_NE(vr.message.find("mode S"), std::string::npos) << vr.message;

  // One iteration: nothing to carry (stabilized or flash-decoding instead).
  EXPECT_FALSE(onlineSoftmax(kernelOf(gqaOneKernelBlock(sf->ref, 2, 1)), *sf));
  // exp² summed: each element carries e^{−2·cur}, which one rescale by
  // exp(prev − cur) does not correct.
  UGraph sq(Level::Block);
  {
    const UGraph &src = sf->ref;
    sq.grid = {2, 2, 1};
    sq.forloopRange = 4;
    sq.target = "h100";
    for (int32_t in : src.inputs)
      sq.addInput(src.values[in].shape, src.values[in].type);
    int32_t qt = sq.addInputIterator(sq.inputs[0], {0, 1, -1}, -1);
    int32_t kt = sq.addInputIterator(sq.inputs[1], {0, -1, -1}, 2);
    int32_t vt = sq.addInputIterator(sq.inputs[2], {0, -1, -1}, 1);
    int32_t e = sq.addUnary(UnaryKind::exp, sq.addMatmul(qt, kt));
    int32_t den = sq.addAccum(AccumKind::sum_last,
                              sq.addBinary(BinaryKind::mul, e, e), -1, 0);
    int32_t num = sq.addAccum(AccumKind::sum, sq.addMatmul(e, vt), -1, 0);
    sq.markOutput(sq.addOutputSaver(sq.addBinary(BinaryKind::div, num, den),
                                    {0, 1, -1}));
    ASSERT_TRUE(sq.error.empty()) << sq.error;
  }
  EXPECT_FALSE(onlineSoftmax(kernelOf(std::move(sq)), *sf));
}

namespace {
/// stableGqaReference with an attention mask over the keys added to the
/// scores before the row max, as exported models pass it.
UGraph maskedGqaReference(int64_t heads, int64_t rows, int64_t d,
                          int64_t keys) {
  UGraph g(Level::Kernel);
  int32_t q = g.addInput({heads, rows, d}, ElemType::F16);
  int32_t mask = g.addInput({1, 1, keys}, ElemType::F16);
  int32_t k = g.addInput({heads, d, keys}, ElemType::F16);
  int32_t v = g.addInput({heads, keys, d}, ElemType::F16);
  int32_t s = g.addBinary(BinaryKind::add, g.addMatmul(q, k), mask);
  int32_t m = g.addReduce(ReduceKind::max, s, 2);
  int32_t e = g.addUnary(UnaryKind::exp, g.addBinary(BinaryKind::sub, s, m));
  int32_t den = g.addReduce(ReduceKind::sum, e, 2);
  g.markOutput(g.addMatmul(g.addBinary(BinaryKind::div, e, den), v));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}
} // namespace

// A mask of −∞ over a whole split (padding, or the keys a causal mask
// hides): the reference is finite wherever a row has a visible key, and
// so must flash-decoding be. A split whose keys are all masked has the
// row max −∞ and would shift its exps by it (exp(−∞ + ∞) = NaN) unless
// the local max is kept finite.
TEST(SplitReduction, FlashDecodingIsFiniteWhereASplitIsAllMasked) {
  const int64_t heads = 2, rows = 4, d = 8, keys = 64;
  UGraph ref = maskedGqaReference(heads, rows, d, keys);
  std::optional<ShiftFree> sf = shiftFreeReference(ref);
  ASSERT_TRUE(sf);
  // The one-kernel form over the keys, with the mask tile added.
  UGraph b(Level::Block);
  b.grid = {heads, 1, 1};
  b.forloopRange = 2;
  b.target = "h100";
  for (int32_t in : sf->ref.inputs)
    b.addInput(sf->ref.values[in].shape, sf->ref.values[in].type);
  int32_t qt = b.addInputIterator(b.inputs[0], {0, -1, -1}, -1);
  int32_t mt = b.addInputIterator(b.inputs[1], {-1, -1, -1}, 2);
  int32_t kt = b.addInputIterator(b.inputs[2], {0, -1, -1}, 2);
  int32_t vt = b.addInputIterator(b.inputs[3], {0, -1, -1}, 1);
  int32_t e = b.addUnary(UnaryKind::exp,
                         b.addBinary(BinaryKind::add, b.addMatmul(qt, kt), mt));
  int32_t den = b.addAccum(AccumKind::sum_last, e, -1, 0);
  int32_t num = b.addAccum(AccumKind::sum, b.addMatmul(e, vt), -1, 0);
  b.markOutput(b.addOutputSaver(b.addBinary(BinaryKind::div, num, den),
                                {0, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  SplitPlan plan = planSplit(b, Pattern{{0}, 3});
  ASSERT_TRUE(plan.ok) << plan.why;
  UGraph pair;
  ASSERT_TRUE(instantiateSplit(b, plan, sf->ref, {heads, 1, 1}, /*splits=*/4,
                               /*forloop=*/1, pair));
  std::optional<UGraph> local = localizeSplitMax(pair, *sf);
  ASSERT_TRUE(local);

  // Keys 0..15 (the first split) masked for every row, the rest visible.
  std::vector<Tensor<double>> ins;
  uint64_t x = 12345;
  auto next = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return double(int64_t(x >> 11) % 2001 - 1000) / 1000.0;
  };
  for (int32_t in : ref.inputs) {
    Tensor<double> t(ref.values[in].shape, 0.0);
    for (double &v : t.data)
      v = next();
    ins.push_back(std::move(t));
  }
  for (int64_t k = 0; k < keys; ++k)
    ins[1].data[k] = k < keys / 4 ? -std::numeric_limits<double>::infinity()
                                  : 0.0;
  Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem, 1);
  std::vector<Tensor<double>> want = eval.run(ref, ins);
  std::vector<Tensor<double>> got = eval.run(*local, ins);
  ASSERT_EQ(want.size(), 1u);
  ASSERT_EQ(got.size(), 1u);
  for (int64_t i = 0; i < want[0].size(); ++i) {
    ASSERT_TRUE(std::isfinite(want[0].data[i]));
    EXPECT_NEAR(got[0].data[i], want[0].data[i], 1e-9) << "element " << i;
  }
}

// Kernel 2 of a flash-decoding pair runs one block per head, each folding
// every partial of its head. widenedCombines spreads it over the free grid
// axis along the head dim (V's columns): each block folds its columns of
// every split, the per-row maxima and sums whole (MultiKernel.md,
// "Combining kernels that fill the machine"). Each widened pair verifies
// like the pair, the model finds the combine on more blocks faster, and
// the split pattern's cost floor stays below every widened pair. (Its
// heads are one per block already: no refinement of the rows adds forms.)
TEST(SplitReduction, WidenedCombinesSpreadTheFoldOverColumns) {
  UGraph ref = stableGqaReference(2, 16, 64, 256);
  std::optional<ShiftFree> sf = shiftFreeReference(ref);
  ASSERT_TRUE(sf);
  std::optional<UGraph> local = flashDecodingPair(*sf);
  ASSERT_TRUE(local);

  std::vector<UGraph> wide = widenedCombines(*local);
  // 2, 4 and 8 blocks per head: 32, 16 and 8 of the 64 columns each.
  ASSERT_EQ(wide.size(), 3u);
  // The combines as launches of their own: the pair's one block per head
  // may run in its split kernel's tail instead (TailCombine.md), the
  // widened ones, several blocks a head, may not.
  const TargetInfo target = *lookupTarget("h100");
  auto combineAlone = [&](const UGraph &pair) {
    const UGraph &k2 = body(pair, 1);
    return estimateKernel(k2, planKernel(k2, target), target).seconds;
  };
  const double before = combineAlone(*local);
  for (size_t i = 0; i < wide.size(); ++i) {
    const int64_t f = int64_t(2) << i;
    const UGraph &k1 = body(wide[i], 0), &k2 = body(wide[i], 1);
    EXPECT_EQ(k1.grid, body(*local, 0).grid); // kernel 1 as it was
    EXPECT_EQ(k2.grid[0] * k2.grid[1] * k2.grid[2], 2 * f);
    const UOp *saver = firstOf(k2, OpKind::OutputSaver);
    ASSERT_NE(saver, nullptr);
    int axis = -1;
    for (int a = 0; a < 3; ++a)
      if (saver->map[a] == 2)
        axis = a;
    ASSERT_GE(axis, 0);
    EXPECT_EQ(k2.grid[axis], f);
    for (const UOp &op : k2.ops) {
      if (op.kind != OpKind::InputIterator)
        continue;
      // The partial outputs are split by columns, the saved maxima and
      // sums (one per row) read whole by every block.
      const bool columns = k2.values[op.operands[0]].shape[2] == 64;
      EXPECT_EQ(op.map[axis], columns ? 2 : -1);
      if (columns) {
        EXPECT_EQ(k2.values[op.results[0]].shape[2], 64 / f);
      }
    }
    VerificationResult vr = verifyAt64Bits(wide[i], ref);
    EXPECT_EQ(vr.status, VerifyStatus::Equivalent) << vr.message;
    EXPECT_LE(vr.log2Bound, -64) << vr.message;
  }
  EXPECT_LT(combineAlone(wide.back()), before);
  EXPECT_FALSE(estimateCost(wide.back(), target).kernels[1].inTail);

  // The floor of the split pattern over the keys is below every widened
  // pair's estimate (it takes the least over the combine's grids).
  IndexClasses ic = alignIndices(sf->ref);
  const int keys = ic.classOf[sf->ref.inputs[1]][2];
  const int heads = ic.classOf[sf->ref.inputs[0]][0];
  std::optional<TargetInfo> h100 = lookupTarget("h100");
  ASSERT_TRUE(h100);
  CostFloorFn floor = [&](const UGraph &b, double saved) {
    return trafficFloorSeconds(b, saved, *h100);
  };
  const double least = patternCostFloor(Pattern{{heads}, keys}, ic, sf->ref,
                                        floor, true, 0, false, keys);
  for (const UGraph &w : wide)
    EXPECT_LE(least, estimateCost(w, "h100").seconds);
}

// The fold of a split pair of instantiateSplit walks the partials' last
// dim with its for-loop, the columns' dim: no block can own some columns
// of every split there, so the pair has no form spread over its columns.
// What it has is its rows split finer by the axis that already splits them
// (the refinement that lets a combine fill the machine by its rows), each
// equivalent to the reference.
TEST(SplitReduction, NoWidenedCombineWhereTheFoldWalksTheColumns) {
  UGraph ref = gqaReference(2, 16, 64, 256);
  UGraph one = gqaOneKernelBlock(ref, 1, 4);
  SplitPlan plan = planSplit(one, twoAxesAndLoop());
  ASSERT_TRUE(plan.ok) << plan.why;
  UGraph pair;
  ASSERT_TRUE(instantiateSplit(one, plan, ref, {2, 1, 1}, 8, 1, pair));
  const UGraph &k2 = body(pair, 1);
  const int64_t blocks = k2.grid[0] * k2.grid[1] * k2.grid[2];
  std::vector<UGraph> wide = widenedCombines(pair);
  ASSERT_FALSE(wide.empty());
  bool rowPerBlock = false;
  for (const UGraph &w : wide) {
    const UGraph &w2 = body(w, 1);
    EXPECT_GT(w2.grid[0] * w2.grid[1] * w2.grid[2], blocks);
    const UOp *saver = firstOf(w2, OpKind::OutputSaver);
    ASSERT_NE(saver, nullptr);
    const int64_t last = w2.values[saver->operands[0]].shape.size() - 1;
    EXPECT_EQ(w2.values[saver->operands[0]].shape[last],
              w2.values[saver->results[0]].shape[last])
        << "the columns stay whole";
    if (w2.values[saver->operands[0]].shape[1] == 1)
      rowPerBlock = true;
    VerificationResult vr = verifyAt64Bits(w, ref);
    EXPECT_EQ(vr.status, VerifyStatus::Equivalent) << vr.message;
  }
  // The rows are not the contiguous dim, so the spread goes down to one
  // row a block (MultiKernel.md, "Rows of one").
  EXPECT_TRUE(rowPerBlock);
}

// The widening factors keep 8 elements a tile along the last dim (one
// 16-byte copy of f16 a row) but go down to one along another, and never
// past the search's grid bound.
TEST(SplitReduction, WideningFactorsKeepWholeCopiesOnlyAlongTheLastDim) {
  EXPECT_EQ(combineWideningFactors(64, 2, /*contiguous=*/true),
            (std::vector<int64_t>{2, 4, 8}));
  EXPECT_EQ(combineWideningFactors(64, 2, /*contiguous=*/false),
            (std::vector<int64_t>{2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(combineWideningFactors(256, 1024, /*contiguous=*/false),
            (std::vector<int64_t>{2, 4}));
  // Powers of two that divide the extent: 12 stops at 4.
  EXPECT_EQ(combineWideningFactors(12, 2, /*contiguous=*/false),
            (std::vector<int64_t>{2, 4}));
}

//===- BlockScheduleTest.cpp - Ops run once, before the loop --------------===//
//
// docs/Rationale/LoopInvariantOps.md: the schedule's beforeLoop rule, and
// that the plan, the cost model and the evaluator count and run such ops
// once while computing the same values.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/BlockSchedule.h"
#include "Mirage/Semantics/CostModel.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/RandomInputs.h"

#include <gtest/gtest.h>

using namespace mirage;

namespace {
const TargetInfo &h100() {
  static const TargetInfo t = *lookupTarget("h100");
  return t;
}

/// Ops of the block below, by name.
struct Ops {
  int32_t qt, kt, norm, scaled, mm, acc, run, save;
};

/// Σ_i (rms_norm(Q)·0.125) @ K_i over `loop` chunks of K's columns, with a
/// running max of the product: Q [16, 64] fmap -1, K [64, 64·loop].
UGraph qkBlock(int64_t loop, Ops &ops) {
  UGraph b(Level::Block);
  b.grid = {1, 1, 1};
  b.forloopRange = loop;
  int32_t q = b.addInput({16, 64}, ElemType::F16);
  int32_t k = b.addInput({64, 64 * loop}, ElemType::F16);
  auto def = [&](int32_t v) { return b.values[v].def; };
  int32_t qt = b.addInputIterator(q, {-1, -1, -1}, -1);
  int32_t kt = b.addInputIterator(k, {-1, -1, -1}, 1);
  int32_t norm = b.addRmsNorm(qt, -1, 1e-6);
  int32_t scaled = b.addUnary(UnaryKind::mul_scalar, norm, 0.125);
  int32_t mm = b.addMatmul(scaled, kt);
  int32_t acc = b.addAccum(AccumKind::sum, mm, -1, 0);
  int32_t cur = b.addRunningMax(mm, 1);
  int32_t save = b.addOutputSaver(acc, {-1, -1, -1});
  b.markOutput(save);
  EXPECT_TRUE(b.error.empty()) << b.error;
  ops = {def(qt), def(kt), def(norm), def(scaled), def(mm), def(acc),
         def(cur), def(save)};
  return b;
}
} // namespace

TEST(BlockSchedule, OpsOverLoopInvariantTilesRunBeforeTheLoop) {
  Ops o;
  UGraph b = qkBlock(4, o);
  BlockSchedule s = scheduleBlock(b);
  // Q's iterator and the ops over Q alone: once.
  EXPECT_TRUE(s.beforeLoop[o.qt]);
  EXPECT_TRUE(s.beforeLoop[o.norm]);
  EXPECT_TRUE(s.beforeLoop[o.scaled]);
  // K's tiles, the product over them, the state that changes.
  EXPECT_FALSE(s.beforeLoop[o.kt]);
  EXPECT_FALSE(s.beforeLoop[o.mm]);
  EXPECT_FALSE(s.beforeLoop[o.acc]);
  EXPECT_FALSE(s.beforeLoop[o.run]);
  EXPECT_FALSE(s.beforeLoop[o.save]);
  // Their stages stay the μGraph's: in the loop.
  EXPECT_EQ(s.stage[o.norm], BlockStage::InLoop);
  EXPECT_EQ(timesRun(b, s, o.norm), 1);
  EXPECT_EQ(timesRun(b, s, o.qt), 1);
  EXPECT_EQ(timesRun(b, s, o.mm), 4);
  EXPECT_EQ(timesRun(b, s, o.acc), 4);
  EXPECT_EQ(timesRun(b, s, o.save), 1);
}

TEST(BlockSchedule, NothingIsHoistedWithoutALoop) {
  Ops o;
  UGraph b = qkBlock(1, o);
  BlockSchedule s = scheduleBlock(b);
  for (size_t i = 0; i < b.ops.size(); ++i) {
    EXPECT_FALSE(s.beforeLoop[i]) << "op " << i;
    EXPECT_EQ(timesRun(b, s, i), 1);
  }
}

TEST(BlockSchedule, ARunningMaxOverAnInvariantTileStaysInTheLoop) {
  // Its state changes every iteration even when its operand does not.
  UGraph b(Level::Block);
  b.grid = {1, 1, 1};
  b.forloopRange = 2;
  int32_t x = b.addInput({4, 8}, ElemType::F32);
  int32_t y = b.addInput({4, 16}, ElemType::F32);
  int32_t xt = b.addInputIterator(x, {-1, -1, -1}, -1);
  int32_t yt = b.addInputIterator(y, {-1, -1, -1}, 1);
  int32_t cur = b.addRunningMax(xt, 1);
  int32_t sum = b.addBinary(BinaryKind::add, yt, xt);
  b.markOutput(b.addOutputSaver(b.addAccum(AccumKind::sum, sum, -1, 0),
                                {-1, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  BlockSchedule s = scheduleBlock(b);
  EXPECT_TRUE(s.beforeLoop[b.values[xt].def]);
  EXPECT_FALSE(s.beforeLoop[b.values[cur].def]);
  EXPECT_FALSE(s.beforeLoop[b.values[sum].def]);
}

TEST(BlockSchedule, PlanAndCostCountHoistedOpsOnce) {
  Ops o1, o4, o8;
  UGraph b1 = qkBlock(1, o1), b4 = qkBlock(4, o4), b8 = qkBlock(8, o8);
  KernelPlan p1 = planKernel(b1, h100()), p4 = planKernel(b4, h100()),
             p8 = planKernel(b8, h100());
  // Serial steps are once + loop · perIteration: the running max folds the
  // product's rows in every iteration, rms_norm(Q) its rows once.
  int64_t perIteration = (p8.serialSteps - p4.serialSteps) / 4;
  int64_t once = p4.serialSteps - 4 * perIteration;
  EXPECT_GT(perIteration, 0);
  EXPECT_GT(once, 0);
  EXPECT_EQ(p1.serialSteps, once + perIteration);
  // Q is copied once; K in every iteration.
  ASSERT_EQ(p4.copies.size(), 2u);
  EXPECT_FALSE(p4.copies[0].inLoop);
  EXPECT_TRUE(p4.copies[1].inLoop);

  // FLOPs: rms_norm and the scaling once per block, the matmul and the
  // accumulator per iteration.
  auto kernelOf = [](const UGraph &b) {
    UGraph k(Level::Kernel);
    int32_t q = k.addInput(b.values[b.inputs[0]].shape, ElemType::F16);
    int32_t kk = k.addInput(b.values[b.inputs[1]].shape, ElemType::F16);
    k.markOutput(k.addCustom({q, kk}, b));
    EXPECT_TRUE(k.error.empty()) << k.error;
    return k;
  };
  GraphCost c4 = estimateCost(kernelOf(b4), h100());
  double onceFlops = opFlops(b4, b4.ops[o4.norm]) + opFlops(b4, b4.ops[o4.scaled]);
  double loopFlops = opFlops(b4, b4.ops[o4.mm]) +
                     opFlops(b4, b4.ops[o4.acc]) +
                     opFlops(b4, b4.ops[o4.run]);
  EXPECT_DOUBLE_EQ(c4.flops, onceFlops + 4 * loopFlops);
}

TEST(BlockSchedule, TheEvaluatorComputesTheSameValuesOnce) {
  // Σ_i (rms_norm(Q)·0.125) @ K_i as a kernel graph of the hoisted block,
  // against the plain formula evaluated op by op at kernel level:
  // rms_norm, mul_scalar, the whole matmul, and the strided sum of its
  // column chunks.
  Ops o;
  UGraph b = qkBlock(4, o);
  UGraph fused(Level::Kernel);
  int32_t q = fused.addInput({16, 64}, ElemType::F16);
  int32_t k = fused.addInput({64, 256}, ElemType::F16);
  int32_t outs = fused.addCustom({q, k}, b);
  fused.markOutput(outs);
  ASSERT_TRUE(fused.error.empty()) << fused.error;

  UGraph ref(Level::Kernel);
  int32_t rq = ref.addInput({16, 64}, ElemType::F16);
  int32_t rk = ref.addInput({64, 256}, ElemType::F16);
  int32_t scaled = ref.addUnary(UnaryKind::mul_scalar,
                                ref.addRmsNorm(rq, -1, 1e-6), 0.125);
  ref.markOutput(
      ref.addReduce(ReduceKind::sum, ref.addMatmul(scaled, rk), 1, 64));
  ASSERT_TRUE(ref.error.empty()) << ref.error;

  static Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem);
  auto inputs = randomInputs(ref, 7);
  auto a = eval.run(ref, inputs);
  auto r = eval.run(fused, inputs);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_LT(maxRelativeError(r[0], a[0]), 1e-12);
}

// docs/Rationale/GridInvariantOps.md: an iterator that replicates every
// grid axis of extent > 1, and what is computed from such tiles alone, are
// the same in every block; a saver never is.
TEST(BlockSchedule, SameInEveryBlock) {
  UGraph b(Level::Block);
  b.grid = {4, 1, 1};
  b.forloopRange = 2;
  int32_t x = b.addInput({8, 64}, ElemType::F32);
  int32_t w = b.addInput({64, 32}, ElemType::F32);
  int32_t xt = b.addInputIterator(x, {-1, -1, -1}, 1);
  // Grid y has extent 1: a map on it replicates nothing.
  int32_t xt2 = b.addInputIterator(x, {-1, 0, -1}, 1);
  int32_t wt = b.addInputIterator(w, {1, -1, -1}, 0);
  int32_t sq = b.addBinary(BinaryKind::mul, xt, xt2);
  int32_t rms = b.addAccum(AccumKind::rms_last, sq, -1, 0);
  int32_t mm = b.addMatmul(xt, wt);
  int32_t acc = b.addAccum(AccumKind::sum, mm, -1, 0);
  int32_t out = b.addBinary(BinaryKind::div, acc, rms);
  int32_t save = b.addOutputSaver(out, {1, -1, -1});
  b.markOutput(save);
  ASSERT_TRUE(b.error.empty()) << b.error;
  BlockSchedule s = scheduleBlock(b);
  auto same = [&](int32_t v) { return s.sameInEveryBlock[b.values[v].def]; };
  EXPECT_TRUE(same(xt));
  EXPECT_TRUE(same(xt2));
  EXPECT_TRUE(same(sq));
  EXPECT_TRUE(same(rms));
  EXPECT_FALSE(same(wt));
  EXPECT_FALSE(same(mm));
  EXPECT_FALSE(same(acc));
  EXPECT_FALSE(same(out));
  EXPECT_FALSE(same(save));
}

// The evaluator computes such results once (block 0) and every other block
// reads them: the outputs are those of the same graph in which every block
// reads its own copy of the replicated input, element for element, with
// results the same in every block of each kind (before the loop, per
// iteration, a running max's state, an accumulator, after the loop).
TEST(BlockSchedule, EvaluatorSharesGridInvariantResults) {
  constexpr int64_t kBlocks = 3, kLoop = 4, kM = 4, kK = 16, kN = 8;
  // `copies`: X is [kBlocks, kM, kK·kLoop], one copy per block (imap x -> 0),
  // else [1, kM, kK·kLoop], replicated (imap -1).
  auto build = [&](bool copies) {
    UGraph b(Level::Block);
    b.grid = {kBlocks, 1, 1};
    b.forloopRange = kLoop;
    int32_t x = b.addInput({copies ? kBlocks : 1, kM, kK * kLoop}, ElemType::F32);
    int32_t g = b.addInput({copies ? kBlocks : 1, kM, 1}, ElemType::F32);
    int32_t w = b.addInput({1, kK * kLoop, kN * kBlocks}, ElemType::F32);
    int32_t copy = copies ? 0 : -1;
    int32_t xt = b.addInputIterator(x, {copy, -1, -1}, 2);
    int32_t gt = b.addInputIterator(g, {copy, -1, -1}, -1); // before the loop
    int32_t wt = b.addInputIterator(w, {2, -1, -1}, 1);
    int32_t e = b.addUnary(UnaryKind::exp, b.addBinary(BinaryKind::mul, xt, gt));
    int32_t run = b.addRunningMax(e, 2);
    int32_t prev = run, cur = run + 1;
    int32_t shifted = b.addBinary(BinaryKind::sub, e, cur);
    int32_t norm = b.addAccum(AccumKind::rms_last, shifted, -1, 0);
    int32_t rescale = b.addUnary(UnaryKind::exp,
                                 b.addBinary(BinaryKind::sub, prev, cur));
    int32_t mm = b.addMatmul(shifted, wt);
    int32_t acc = b.addAccum(AccumKind::sum, mm, rescale, 0);
    int32_t scale = b.addUnary(UnaryKind::sqrt, norm); // after the loop
    b.markOutput(b.addOutputSaver(b.addBinary(BinaryKind::div, acc, scale),
                                  {2, -1, -1}));
    EXPECT_TRUE(b.error.empty()) << b.error;
    return b;
  };
  UGraph shared = build(false), own = build(true);
  BlockSchedule s = scheduleBlock(shared);
  ASSERT_TRUE(llvm::count(s.sameInEveryBlock, true) >= 8)
      << "the case must exercise the shared results";
  ASSERT_TRUE(llvm::none_of(scheduleBlock(own).sameInEveryBlock,
                            [](bool b) { return b; }));
  auto in = randomInputs(shared, 5);
  auto replicate = [&](const Tensor<double> &t) {
    Tensor<double> r({kBlocks, t.shape[1], t.shape[2]}, 0.0);
    for (int64_t c = 0; c < kBlocks; ++c)
      std::copy(t.data.begin(), t.data.end(), r.data.begin() + c * t.size());
    return r;
  };
  std::vector<Tensor<double>> copies{replicate(in[0]), replicate(in[1]), in[2]};
  static Float64Semantics sem;
  for (unsigned threads : {1u, 3u}) {
    Evaluator<Float64Semantics> eval(sem, threads);
    auto a = eval.runBlockGraph(shared, in);
    auto b = eval.runBlockGraph(own, copies);
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(a[0].shape, b[0].shape);
    for (int64_t i = 0; i < a[0].size(); ++i)
      ASSERT_EQ(a[0].data[i], b[0].data[i]) << "element " << i;
  }
}

// docs/Rationale/ElementsInReductions.md: an element-wise result whose only
// reader is a reduce in the same place is computed in the reduce's fold and
// gets no tile; a result with two readers keeps its phase and its tile.
TEST(BlockSchedule, AnOperandOnlyAReduceReadsIsComputedThere) {
  UGraph b(Level::Block);
  b.grid = {1, 1, 1};
  b.forloopRange = 4;
  int32_t k = b.addInput({128, 256}, ElemType::F16);
  int32_t kt = b.addInputIterator(k, {-1, -1, -1}, 1);
  int32_t squares = b.addBinary(BinaryKind::mul, kt, kt);
  int32_t sums = b.addReduce(ReduceKind::sum, squares, 0, 1);
  int32_t e = b.addUnary(UnaryKind::exp, kt);
  int32_t maxes = b.addReduce(ReduceKind::max, e, 1, 1);
  b.markOutput(
      b.addOutputSaver(b.addAccum(AccumKind::sum, sums, -1, 0), {-1, -1, -1}));
  b.markOutput(
      b.addOutputSaver(b.addAccum(AccumKind::sum, maxes, -1, 0), {-1, -1, -1}));
  b.markOutput(
      b.addOutputSaver(b.addAccum(AccumKind::sum, e, -1, 0), {-1, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  BlockSchedule s = scheduleBlock(b);
  auto def = [&](int32_t v) { return b.values[v].def; };
  EXPECT_EQ(s.computedIn[def(squares)], def(sums));
  EXPECT_FALSE(s.buffered[squares]);
  // exp(K) is read by its row max and by an accumulator.
  EXPECT_EQ(s.computedIn[def(e)], -1);
  EXPECT_TRUE(s.buffered[e]);
  // The plan allocates no tile for the squares, one for exp(K).
  KernelPlan p = planKernel(b, h100());
  auto tileOf = [&](int32_t v) {
    return llvm::any_of(p.tiles,
                        [&](const TilePlan &t) { return t.value == v; });
  };
  EXPECT_FALSE(tileOf(squares));
  EXPECT_TRUE(tileOf(e));
  EXPECT_TRUE(tileOf(kt));
}

// ElementsInReductions.md, "Concats": a concat whose readers all read it
// element by element where it runs is read in place and gets no tile; one
// a saver or a matmul reads keeps its tile.
TEST(BlockSchedule, ConcatsReadByElementsAreReadInPlace) {
  UGraph b(Level::Block);
  b.grid = {1, 1, 1};
  int32_t m = b.addInput({32, 1}, ElemType::F16);
  int32_t v = b.addInput({32, 64}, ElemType::F16);
  int32_t x = b.addInput({8, 32}, ElemType::F16);
  int32_t mt = b.addInputIterator(m, {-1, -1, -1}, -1);
  int32_t vt = b.addInputIterator(v, {-1, -1, -1}, -1);
  int32_t xt = b.addInputIterator(x, {-1, -1, -1}, -1);
  auto save = [&](int32_t t) {
    b.markOutput(
        b.addOutputSaver(b.addAccum(AccumKind::sum, t, -1, 0), {-1, -1, -1}));
  };
  // Read by element-wise ops and a reduce: in place.
  int32_t maxes = b.addReduce(ReduceKind::max, mt, 0, 16);
  int32_t twice = b.addConcat(maxes, maxes, 0);
  int32_t weights = b.addBinary(BinaryKind::sub, mt, twice);
  int32_t weighted = b.addBinary(BinaryKind::mul, vt, weights);
  int32_t rows = b.addConcat(vt, vt, 0);
  save(b.addReduce(ReduceKind::sum, rows, 0, 1));
  // Read by an accumulator: in place; by a matmul: a tile.
  int32_t wide = b.addConcat(weighted, weighted, 1);
  save(wide);
  int32_t cols = b.addConcat(vt, vt, 1);
  save(b.addMatmul(xt, cols));
  ASSERT_TRUE(b.error.empty()) << b.error;
  BlockSchedule s = scheduleBlock(b);
  auto def = [&](int32_t t) { return b.values[t].def; };
  EXPECT_TRUE(s.concatInPlace[def(twice)]);
  EXPECT_FALSE(s.buffered[twice]);
  EXPECT_TRUE(s.concatInPlace[def(rows)]);
  EXPECT_TRUE(s.concatInPlace[def(wide)]);
  EXPECT_FALSE(s.concatInPlace[def(cols)]);
  EXPECT_TRUE(s.buffered[cols]);
}

// ElementsInReductions.md: an after-loop element-wise result whose only
// reader is its saver is computed where the saver writes it.
TEST(BlockSchedule, AResultOnlyASaverReadsIsComputedThere) {
  UGraph b(Level::Block);
  b.grid = {1, 1, 1};
  b.forloopRange = 2;
  int32_t x = b.addInput({64, 256}, ElemType::F16);
  int32_t xt = b.addInputIterator(x, {-1, -1, -1}, 1);
  int32_t acc = b.addAccum(AccumKind::sum, xt, -1, 0);
  int32_t half = b.addUnary(UnaryKind::mul_scalar, acc, 0.5);
  int32_t save = b.addOutputSaver(half, {-1, -1, -1});
  b.markOutput(save);
  ASSERT_TRUE(b.error.empty()) << b.error;
  BlockSchedule s = scheduleBlock(b);
  EXPECT_EQ(s.computedIn[b.values[half].def], b.values[save].def);
  EXPECT_FALSE(s.buffered[half]);
  EXPECT_TRUE(s.buffered[acc]);
}

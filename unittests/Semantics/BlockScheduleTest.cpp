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

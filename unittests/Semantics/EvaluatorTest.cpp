//===- EvaluatorTest.cpp - Tests of the executable semantics --------------===//
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace mirage;
using test::rmsEpsMatmulFused;
using test::rmsEpsMatmulReference;
using test::rmsMatmulFused;
using test::rmsMatmulReference;

static Evaluator<Float64Semantics> makeEval() {
  static Float64Semantics sem;
  return Evaluator<Float64Semantics>(sem);
}

TEST(Evaluator, FusedRmsNormMatmulEqualsReference) {
  UGraph ref = rmsMatmulReference(4, 64, 32);
  UGraph fused = rmsMatmulFused(4, 64, 32, 4, 4);
  auto eval = makeEval();
  auto inputs = randomInputs(ref, 42);
  auto a = eval.run(ref, inputs);
  auto b = eval.run(fused, inputs);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_LT(maxRelativeError(b[0], a[0]), 1e-12);
}

TEST(Evaluator, FusedRmsNormWithEpsAndWeightEqualsReference) {
  auto eval = makeEval();
  for (double eps : {1e-5, 0.5}) {
    UGraph ref = rmsEpsMatmulReference(4, 64, 32, eps);
    UGraph fused = rmsEpsMatmulFused(4, 64, 32, 4, 4, eps);
    auto inputs = randomInputs(ref, 42);
    auto a = eval.run(ref, inputs);
    auto b = eval.run(fused, inputs);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_LT(maxRelativeError(b[0], a[0]), 1e-12) << "eps " << eps;
  }
  // Without the eps the fused form computes something else.
  UGraph ref = rmsEpsMatmulReference(4, 64, 32, 0.5);
  auto inputs = randomInputs(ref, 42);
  auto a = eval.run(ref, inputs);
  auto c = eval.run(rmsEpsMatmulFused(4, 64, 32, 4, 4, 0.0), inputs);
  EXPECT_GT(maxRelativeError(c[0], a[0]), 1e-3);
}

TEST(Evaluator, AccumEpsOnlyForRmsLast) {
  UGraph b(Level::Block);
  b.forloopRange = 2;
  int32_t X = b.addInput({4, 8}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  EXPECT_LT(b.addAccum(AccumKind::mean_last, xt, -1, 0, 1e-5), 0);
  EXPECT_NE(b.error.find("eps"), std::string::npos) << b.error;
  int32_t r = b.addAccum(AccumKind::rms_last, xt, -1, 0, 1e-5);
  ASSERT_GE(r, 0) << b.error;
  EXPECT_EQ(b.ops.back().scalar, 1e-5);
  // addLike carries the eps.
  UGraph c(Level::Block);
  c.forloopRange = 2;
  int32_t Y = c.addInput({4, 8}, ElemType::F32);
  int32_t yt = c.addInputIterator(Y, {-1, -1, -1}, 1);
  ASSERT_GE(c.addLike(b.ops.back(), {yt}), 0) << c.error;
  EXPECT_EQ(c.ops.back().scalar, 1e-5);
}

TEST(Evaluator, WrongAccumulatorIsDetected) {
  // A mean instead of an rms accumulator builds fine but computes otherwise.
  UGraph ref = rmsMatmulReference(4, 64, 32);
  UGraph g = rmsMatmulFused(4, 64, 32, 4, 4, AccumKind::mean_last);
  ASSERT_TRUE(g.error.empty()) << g.error;
  ASSERT_EQ(g.outputs.size(), 1u);
  ASSERT_GE(g.outputs[0], 0) << g.error;
  auto eval = makeEval();
  auto inputs = randomInputs(ref, 1);
  auto r = eval.run(ref, inputs);
  auto c = eval.run(g, inputs);
  EXPECT_GT(maxRelativeError(c[0], r[0]), 1e-3);
}

TEST(Evaluator, PhaseRulesRejectMissingAccumulator) {
  UGraph b(Level::Block);
  b.grid = {2, 1, 1};
  int32_t X = b.addInput({4, 8}, ElemType::F32);
  // fmap 0: a tile the loop walks (an fmap -1 tile, the same in every
  // iteration, may be read after the loop: AfterLoopInvariants.md).
  int32_t xt = b.addInputIterator(X, {1, -1, -1}, 0);
  EXPECT_EQ(b.addOutputSaver(xt, {1, -1, -1}), -1);
  EXPECT_NE(b.error.find("after-loop"), std::string::npos);
  int32_t acc = b.addAccum(AccumKind::sum, xt, -1, 0);
  EXPECT_EQ(b.addBinary(BinaryKind::add, acc, xt), -1);
  EXPECT_NE(b.error.find("mixes"), std::string::npos);
  EXPECT_EQ(b.addAccum(AccumKind::sum, acc, -1, 0), -1);
}

TEST(Evaluator, StridedReduceUndoesConcatOfChunks) {
  UGraph g;
  int32_t a = g.addInput({2, 4}, ElemType::F32);
  int32_t b = g.addInput({2, 4}, ElemType::F32);
  int32_t c = g.addConcat(a, b, 1);
  g.markOutput(g.addReduce(ReduceKind::sum, c, 1, 4));
  g.markOutput(g.addBinary(BinaryKind::add, a, b));
  auto eval = makeEval();
  auto out = eval.run(g, randomInputs(g, 3));
  EXPECT_LT(maxRelativeError(out[0], out[1]), 1e-15);
}

TEST(Evaluator, RescaledAccumulator) {
  // acc <- acc * r + x with r = 2 each iteration over 3 iterations of ones:
  // ((1)*2 + 1)*2 + 1 = 7.
  UGraph b(Level::Block);
  b.forloopRange = 3;
  int32_t X = b.addInput({1, 3}, ElemType::F32);
  int32_t R = b.addInput({1, 3}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t rt = b.addInputIterator(R, {-1, -1, -1}, 1);
  int32_t acc = b.addAccum(AccumKind::sum, xt, rt, 0);
  ASSERT_GE(acc, 0) << b.error;
  b.markOutput(b.addOutputSaver(acc, {-1, -1, -1}));
  Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem);
  Tensor<double> ones({1, 3}, 1.0), twos({1, 3}, 2.0);
  auto out = eval.runBlockGraph(b, {ones, twos});
  EXPECT_EQ(out[0].data[0], 7.0);
}

// running_max (RunningMaxRule.h): in iteration t, cur_t = max(prev_t,
// rowmax(x_t)) and prev_t = cur_{t-1}, prev_0 = cur_0 = rowmax(x_0). Each
// iteration's prev and cur are weighted by 10^t and summed, so the outputs
// spell the whole sequence in decimal digits.
TEST(Evaluator, RunningMaxCarriesItsStateAcrossIterations) {
  UGraph b(Level::Block);
  b.forloopRange = 4;
  int32_t X = b.addInput({2, 8}, ElemType::F32);
  int32_t W = b.addInput({1, 4}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(W, {-1, -1, -1}, 1);
  int32_t prev = b.addRunningMax(xt, 1);
  ASSERT_GE(prev, 0) << b.error;
  EXPECT_EQ(b.values[prev].shape, (Shape{2, 1}));
  EXPECT_EQ(b.values[prev + 1].shape, (Shape{2, 1}));
  for (int32_t v : {prev, prev + 1})
    b.markOutput(b.addOutputSaver(
        b.addAccum(AccumKind::sum, b.addBinary(BinaryKind::mul, v, wt), -1, 0),
        {-1, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  Tensor<double> x({2, 8}, 0.0), w({1, 4}, 0.0);
  // Row 0: tile maxima 3, 2, 5, 1; row 1: -1, -3, 0, 7.
  x.data = {3, 1, 0, 2, 5, 4, 1, 1, -1, -2, -4, -3, 0, -5, 7, 6};
  w.data = {1, 10, 100, 1000};
  Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem);
  auto out = eval.runBlockGraph(b, {x, w});
  // prev: 3, 3, 3, 5 and -1, -1, -1, 0; cur: 3, 3, 5, 5 and -1, -1, 0, 7.
  EXPECT_EQ(out[0].data, (std::vector<double>{5333, -111}));
  EXPECT_EQ(out[1].data, (std::vector<double>{5533, 6989}));
}

TEST(Evaluator, RunningMaxNeedsAnInLoopOperandAndADimInRange) {
  UGraph b(Level::Block);
  b.forloopRange = 2;
  int32_t X = b.addInput({2, 8}, ElemType::F32);
  EXPECT_LT(b.addRunningMax(X, 1), 0);
  EXPECT_NE(b.error.find("in-loop value, not a device tensor"),
            std::string::npos)
      << b.error;
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t acc = b.addAccum(AccumKind::sum, xt, -1, 0);
  EXPECT_LT(b.addRunningMax(acc, 1), 0);
  EXPECT_NE(b.error.find("not an after-loop value"), std::string::npos)
      << b.error;
  EXPECT_LT(b.addRunningMax(xt, 2), 0);
  EXPECT_NE(b.error.find("out of range"), std::string::npos) << b.error;
  UGraph k(Level::Kernel);
  EXPECT_LT(k.addRunningMax(k.addInput({2, 8}, ElemType::F32), 1), 0);
}

// The float64 matmul tile (Float64Semantics::dotTile) sums each output as a
// left fold from 0.0 in ascending k: bit-identical to the plain triple loop,
// for shapes with partial blocks of k (64) and of columns (groups of 8).
TEST(Evaluator, MatmulIsThePlainLoopBitForBit) {
  for (auto [m, k, n] : {std::array<int64_t, 3>{1, 1, 1}, {3, 65, 9},
                         {8, 128, 33}, {70, 7, 300}}) {
    UGraph g;
    int32_t a = g.addInput({m, k}, ElemType::F32);
    int32_t b = g.addInput({k, n}, ElemType::F32);
    g.markOutput(g.addMatmul(a, b));
    auto inputs = randomInputs(g, 7);
    auto out = makeEval().run(g, inputs);
    ASSERT_EQ(out.size(), 1u);
    const auto &x = inputs[0].data, &y = inputs[1].data;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0.0;
        for (int64_t kk = 0; kk < k; ++kk)
          s = s + x[i * k + kk] * y[kk * n + j];
        ASSERT_EQ(out[0].data[i * n + j], s) << m << "x" << k << "x" << n;
      }
  }
}

// The memory a run holds, counted before it runs (MemoryLimit.h, the
// verifier's refusal): run()'s allocations replayed, each kernel-level value
// from its operator to its last reader, the outputs copied at the end. A
// chain of four 1000-element ops holds two tensors at a time, not four (the
// old bound summed every result: 5000).
TEST(Evaluator, StoredElementsFollowTheRunsLiveness) {
  using E = Evaluator<Float64Semantics>;
  UGraph chain;
  int32_t v = chain.addInput({10, 100}, ElemType::F32);
  for (int i = 0; i < 4; ++i)
    v = chain.addUnary(UnaryKind::exp, v);
  chain.markOutput(v);
  E::StoredElements s = E::storedElements(chain, {});
  EXPECT_EQ(s.peak, 2000);
  EXPECT_EQ(s.outputs, 1000);

  // A diamond keeps both branches until their join: three tensors.
  UGraph d;
  int32_t x = d.addInput({10, 100}, ElemType::F32);
  int32_t a = d.addUnary(UnaryKind::exp, x);
  int32_t b = d.addUnary(UnaryKind::exp, a);
  d.markOutput(d.addBinary(BinaryKind::add, a, b));
  EXPECT_EQ(E::storedElements(d, {}).peak, 3000);

  // A generated input read whole (by a reduce) is stored from that reader
  // to its last one; read by a custom kernel's iterators it is never
  // stored.
  UGraph r;
  int32_t gx = r.addInput({10, 100}, ElemType::F32);
  r.markOutput(r.addReduce(ReduceKind::sum, gx, 1));
  EXPECT_EQ(E::storedElements(r, {true}).peak, 1000 + 10);
  EXPECT_EQ(E::storedElements(r, {false}).peak, 10 + 10);

  // Runs one after another keep the earlier runs' outputs: the chain's
  // 1000 while the diamond peaks at 3000.
  EXPECT_EQ(E::storedElementsOfRuns({&chain, &d}, {}), 4000);
  EXPECT_EQ(E::storedElementsOfRuns({&d, &chain}, {}), 3000);
}

//===- EvaluatorTest.cpp - Tests of the executable semantics --------------===//
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include <gtest/gtest.h>

using namespace mirage;

static Evaluator<Float64Semantics> makeEval() {
  static Float64Semantics sem;
  return Evaluator<Float64Semantics>(sem);
}

/// rms_norm(X) @ W as a kernel graph.
static UGraph rmsMatmulReference(int64_t m, int64_t k, int64_t n) {
  UGraph g;
  int32_t x = g.addInput({m, k}, ElemType::F32);
  int32_t w = g.addInput({k, n}, ElemType::F32);
  g.markOutput(g.addMatmul(g.addRmsNorm(x, -1), w));
  return g;
}

/// The paper's fused μGraph: the division moves after the matmul.
static UGraph rmsMatmulFused(int64_t m, int64_t k, int64_t n, int64_t gx,
                             int64_t loop) {
  UGraph b(Level::Block);
  b.grid = {gx, 1, 1};
  b.forloopRange = loop;
  int32_t X = b.addInput({m, k}, ElemType::F32);
  int32_t W = b.addInput({k, n}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(W, {1, -1, -1}, 0);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  int32_t rms = b.addAccum(AccumKind::rms_last, xt, -1, 0);
  int32_t d = b.addBinary(BinaryKind::div, acc, rms);
  b.markOutput(b.addOutputSaver(d, {1, -1, -1}));
  EXPECT_TRUE(b.error.empty()) << b.error;
  UGraph g;
  int32_t x = g.addInput({m, k}, ElemType::F32);
  int32_t w = g.addInput({k, n}, ElemType::F32);
  int32_t o = g.addCustom({x, w}, std::move(b));
  EXPECT_GE(o, 0) << g.error;
  g.markOutput(o);
  return g;
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

/// rms_norm(X, weight g, eps) @ W, and its fused form: the loop walks the
/// reduction dim; X·g feeds the matmul, X alone the `rms_last` accumulator
/// with the same eps; the division by the RMS follows the loop.
static UGraph rmsEpsMatmulReference(int64_t m, int64_t k, int64_t n,
                                    double eps) {
  UGraph g;
  int32_t x = g.addInput({m, k}, ElemType::F32);
  int32_t gamma = g.addInput({1, k}, ElemType::F32);
  int32_t w = g.addInput({k, n}, ElemType::F32);
  g.markOutput(g.addMatmul(g.addRmsNorm(x, gamma, eps), w));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}

static UGraph rmsEpsMatmulFused(int64_t m, int64_t k, int64_t n, int64_t gx,
                                int64_t loop, double eps) {
  UGraph b(Level::Block);
  b.grid = {gx, 1, 1};
  b.forloopRange = loop;
  int32_t X = b.addInput({m, k}, ElemType::F32);
  int32_t G = b.addInput({1, k}, ElemType::F32);
  int32_t W = b.addInput({k, n}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t gt = b.addInputIterator(G, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(W, {1, -1, -1}, 0);
  int32_t xg = b.addBinary(BinaryKind::mul, xt, gt);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xg, wt), -1, 0);
  int32_t rms = b.addAccum(AccumKind::rms_last, xt, -1, 0, eps);
  int32_t d = b.addBinary(BinaryKind::div, acc, rms);
  b.markOutput(b.addOutputSaver(d, {1, -1, -1}));
  EXPECT_TRUE(b.error.empty()) << b.error;
  UGraph g;
  int32_t x = g.addInput({m, k}, ElemType::F32);
  int32_t gamma = g.addInput({1, k}, ElemType::F32);
  int32_t w = g.addInput({k, n}, ElemType::F32);
  int32_t o = g.addCustom({x, gamma, w}, std::move(b));
  EXPECT_GE(o, 0) << g.error;
  g.markOutput(o);
  return g;
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
  UGraph b(Level::Block);
  b.grid = {4, 1, 1};
  b.forloopRange = 4;
  int32_t X = b.addInput({4, 64}, ElemType::F32);
  int32_t W = b.addInput({64, 32}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(W, {1, -1, -1}, 0);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  int32_t d = b.addBinary(BinaryKind::div, acc,
                          b.addAccum(AccumKind::mean_last, xt, -1, 0));
  ASSERT_GE(d, 0) << b.error;
  b.markOutput(b.addOutputSaver(d, {1, -1, -1}));
  UGraph g;
  int32_t x = g.addInput({4, 64}, ElemType::F32);
  int32_t w = g.addInput({64, 32}, ElemType::F32);
  int32_t o = g.addCustom({x, w}, std::move(b));
  ASSERT_GE(o, 0) << g.error;
  g.markOutput(o);
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
  int32_t xt = b.addInputIterator(X, {1, -1, -1}, -1);
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

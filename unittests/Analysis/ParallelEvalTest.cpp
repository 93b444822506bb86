//===- ParallelEvalTest.cpp - Threaded evaluation is bit-identical --------===//
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include "SameTensors.h"

#include "FieldInputs.h"

#include <gtest/gtest.h>


using namespace mirage;
using ff::FieldValue;

namespace {
/// rms_norm(X) @ W fused, grid over the columns of W and over a batch-free
/// second axis to exercise 2-D grids: 24 blocks, 4 iterations.
UGraph fused(int64_t m, int64_t k, int64_t n) {
  UGraph b(Level::Block);
  b.grid = {8, 3, 1};
  b.forloopRange = 4;
  int32_t X = b.addInput({m, k}, ElemType::F32);
  int32_t W = b.addInput({k, n}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, 0, -1}, 1);
  int32_t wt = b.addInputIterator(W, {1, -1, -1}, 0);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  int32_t rms = b.addAccum(AccumKind::rms_last, xt, -1, 0);
  b.markOutput(b.addOutputSaver(b.addBinary(BinaryKind::div, acc, rms),
                                {1, 0, -1}));
  UGraph g;
  int32_t x = g.addInput({m, k}, ElemType::F32);
  int32_t w = g.addInput({k, n}, ElemType::F32);
  g.markOutput(g.addCustom({x, w}, std::move(b)));
  return g;
}

/// A kernel-level batched matmul followed by exp (oracle) and a reduction.
UGraph batched() {
  UGraph g;
  int32_t a = g.addInput({3, 48, 64}, ElemType::F32);
  int32_t b = g.addInput({3, 64, 40}, ElemType::F32);
  int32_t mm = g.addMatmul(a, b);
  g.markOutput(mm);
  g.markOutput(g.addReduce(ReduceKind::sum, g.addUnary(UnaryKind::exp, mm), 2));
  return g;
}

} // namespace

TEST(ParallelEval, Float64BitIdenticalForEveryThreadCount) {
  for (const UGraph &g : {fused(6, 256, 128), batched()}) {
    ASSERT_TRUE(g.error.empty()) << g.error;
    auto ins = randomInputs(g, 3);
    Float64Semantics sem;
    auto serial = Evaluator<Float64Semantics>(sem, 1).run(g, ins);
    for (unsigned t : {2u, 3u, 4u, 7u, 0u})
      EXPECT_TRUE(test::sameTensors(serial,
                           Evaluator<Float64Semantics>(sem, t).run(g, ins)))
          << t;
  }
}

TEST(ParallelEval, FiniteFieldBitIdenticalForEveryThreadCount) {
  for (const UGraph &g : {fused(6, 256, 128), batched()}) {
    std::mt19937_64 rng(5);
    FiniteFieldSemantics sem(9, FiniteFieldSemantics::ExpMode::Uninterpreted);
    std::vector<Tensor<FieldValue>> ins = test::randomFieldInputs(g, sem, rng);
    auto serial = Evaluator<FiniteFieldSemantics>(sem, 1).run(g, ins);
    for (unsigned t : {2u, 4u, 5u}) {
      EXPECT_TRUE(test::sameTensors(
          serial, Evaluator<FiniteFieldSemantics>(sem, t).run(g, ins)))
          << t;
    }
    EXPECT_TRUE(sem.conclusive());
  }
}

TEST(ParallelEval, ThreadOption) {
  Float64Semantics sem;
  EXPECT_EQ(Evaluator<Float64Semantics>(sem, 1).numThreads(), 1u);
  EXPECT_EQ(Evaluator<Float64Semantics>(sem).numThreads(),
            defaultEvaluatorThreads());
  EXPECT_EQ(Evaluator<Float64Semantics>(sem, 3).numThreads(), 3u);
}

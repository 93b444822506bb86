//===- UGraphTest.cpp - Tests of the compact μGraph builders --------------===//
//
// The builders are the one statement of the block-graph phase rules (only
// iterators read device tensors; accumulators turn in-loop into after-loop
// values; savers take after-loop values; no operator mixes phases) and
// verifyUGraphOutputs checks what they cannot. Each rule is tested by one
// violation, with the message the MLIR verifier shows to users.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/UGraph.h"
#include "Mirage/Semantics/RandomInputs.h"

#include <gtest/gtest.h>

#include <limits>

using namespace mirage;

namespace {

/// A block graph over X [4, 64] and W [64, 32] on grid [4, 1, 1] with four
/// iterations, ready for operators to be added.
struct BlockFixture {
  UGraph b{Level::Block};
  int32_t X, W;
  BlockFixture() {
    b.grid = {4, 1, 1};
    b.forloopRange = 4;
    X = b.addInput({4, 64}, ElemType::F32);
    W = b.addInput({64, 32}, ElemType::F32);
  }
  int32_t xTile() { return b.addInputIterator(X, {-1, -1, -1}, 1); } // [4, 16]
  int32_t wTile() { return b.addInputIterator(W, {1, -1, -1}, 0); }  // [16, 8]
};

/// A thread-level body computing x / y.
UGraph divBody() {
  UGraph t(Level::Thread);
  int32_t p = t.addInput({}, ElemType::F32);
  int32_t q = t.addInput({}, ElemType::F32);
  t.markOutput(t.addBinary(BinaryKind::div, p, q));
  return t;
}

/// Asserts that a builder returned -1 with `msg` in the graph's error.
#define EXPECT_REFUSED(g, call, msg)                                          \
  do {                                                                        \
    int32_t id_ = (call);                                                     \
    EXPECT_EQ(id_, -1);                                                       \
    EXPECT_NE((g).error.find(msg), std::string::npos)                         \
        << "error was: " << (g).error;                                        \
  } while (0)

} // namespace

//===----------------------------------------------------------------------===//
// A valid block graph
//===----------------------------------------------------------------------===//

TEST(UGraph, BuildsValidBlockGraph) {
  BlockFixture f;
  UGraph &b = f.b;
  int32_t xt = f.xTile(), wt = f.wTile();
  ASSERT_GE(xt, 0) << b.error;
  ASSERT_GE(wt, 0) << b.error;
  EXPECT_EQ(b.value(xt).shape, Shape({4, 16}));
  EXPECT_EQ(b.value(wt).shape, Shape({16, 8}));
  EXPECT_EQ(b.value(xt).phase, Phase::InLoop);

  int32_t m = b.addMatmul(xt, wt);
  ASSERT_GE(m, 0) << b.error;
  EXPECT_EQ(b.value(m).phase, Phase::InLoop);
  int32_t acc = b.addAccum(AccumKind::sum, m, -1, 0);
  int32_t rms = b.addAccum(AccumKind::rms_last, xt, -1, 0);
  ASSERT_GE(acc, 0) << b.error;
  ASSERT_GE(rms, 0) << b.error;
  EXPECT_EQ(b.value(acc).phase, Phase::AfterLoop);
  EXPECT_EQ(b.value(rms).shape, Shape({4, 1}));

  int32_t d = b.addThreadGraph({acc, rms}, divBody());
  ASSERT_GE(d, 0) << b.error;
  EXPECT_EQ(b.value(d).shape, Shape({4, 8}));
  EXPECT_EQ(b.value(d).phase, Phase::AfterLoop);

  int32_t s = b.addOutputSaver(d, {1, -1, -1});
  ASSERT_GE(s, 0) << b.error;
  EXPECT_EQ(b.value(s).shape, Shape({4, 32}));
  EXPECT_EQ(b.value(s).phase, Phase::Saved);
  b.markOutput(s);
  EXPECT_EQ(verifyUGraphOutputs(b), "");
  EXPECT_TRUE(b.error.empty()) << b.error;

  // The block graph becomes a custom kernel of a kernel graph.
  UGraph k;
  int32_t x = k.addInput({4, 64}, ElemType::F32);
  int32_t w = k.addInput({64, 32}, ElemType::F32);
  int32_t o = k.addCustom({x, w}, std::move(b));
  ASSERT_GE(o, 0) << k.error;
  EXPECT_EQ(k.value(o).shape, Shape({4, 32}));
  EXPECT_EQ(k.ops.back().kind, OpKind::Custom);
}

TEST(UGraph, InLoopThreadGraphStaysInLoop) {
  BlockFixture f;
  int32_t xt = f.xTile();
  int32_t t = f.b.addThreadGraph({xt, xt}, divBody());
  ASSERT_GE(t, 0) << f.b.error;
  EXPECT_EQ(f.b.value(t).phase, Phase::InLoop);
  EXPECT_GE(f.b.addAccum(AccumKind::max, t, -1, 0), 0) << f.b.error;
}

//===----------------------------------------------------------------------===//
// Phase rules, one violation each
//===----------------------------------------------------------------------===//

TEST(UGraph, IteratorReadsOnlyGraphInputs) {
  BlockFixture f;
  int32_t xt = f.xTile();
  EXPECT_REFUSED(f.b, f.b.addInputIterator(xt, {-1, -1, -1}, -1),
                 "operand must be an input of the enclosing custom kernel");
}

TEST(UGraph, OperatorMayNotReadDeviceTensor) {
  BlockFixture f;
  EXPECT_REFUSED(f.b, f.b.addUnary(UnaryKind::exp, f.X),
                 "operand must be loaded through an input iterator, not read "
                 "from device memory");
}

TEST(UGraph, OperatorMayNotMixPhases) {
  BlockFixture f;
  int32_t xt = f.xTile();
  int32_t acc = f.b.addAccum(AccumKind::sum, xt, -1, 0);
  EXPECT_REFUSED(f.b, f.b.addBinary(BinaryKind::add, xt, acc),
                 "mixes an in-loop value with an after-loop value; in-loop "
                 "values reach after-loop code only through an accumulator");
}

// AfterLoopInvariants.md: a tile that is the same in every iteration (an
// fmap -1 iterator's, or a stateless operator's over such tiles) may be
// read after the loop; the result is an after-loop value. The schedule runs
// exactly those values once, before the loop.
TEST(UGraph, AfterLoopCodeMayReadLoopInvariantTiles) {
  BlockFixture f;
  UGraph &b = f.b;
  int32_t xt = f.xTile(), wt = f.wTile();
  int32_t bias = b.addInputIterator(f.W, {1, -1, -1}, -1); // [64, 8]
  ASSERT_GE(bias, 0) << b.error;
  int32_t scaled = b.addUnary(UnaryKind::mul_scalar, bias, 0.5);
  int32_t prod = b.addMatmul(xt, wt);
  ASSERT_GE(scaled, 0) << b.error;
  ASSERT_GE(prod, 0) << b.error;
  EXPECT_TRUE(b.value(bias).loopInvariant);
  EXPECT_TRUE(b.value(scaled).loopInvariant);
  EXPECT_FALSE(b.value(xt).loopInvariant);
  EXPECT_FALSE(b.value(prod).loopInvariant);
  int32_t acc = b.addAccum(AccumKind::sum, prod, -1, 0); // [4, 8]
  ASSERT_GE(acc, 0) << b.error;
  EXPECT_FALSE(b.value(acc).loopInvariant);
  // The invariant side folded to [4, 8] (a strided row sum).
  int32_t rows = b.addReduce(ReduceKind::sum, scaled, 0, 4);
  ASSERT_GE(rows, 0) << b.error;
  EXPECT_TRUE(b.value(rows).loopInvariant);
  int32_t sum = b.addBinary(BinaryKind::add, acc, rows);
  ASSERT_GE(sum, 0) << b.error;
  EXPECT_EQ(b.value(sum).phase, Phase::AfterLoop);
  EXPECT_FALSE(b.value(sum).loopInvariant);
  EXPECT_EQ(combinedPhase(b, {rows, acc}), Phase::AfterLoop);
  EXPECT_EQ(combinedPhase(b, {rows, rows}), Phase::InLoop);
  EXPECT_FALSE(combinedPhase(b, {prod, acc}).has_value());
  EXPECT_FALSE(combinedPhase(b, {f.X}).has_value());
  ASSERT_GE(b.addOutputSaver(sum, {1, -1, -1}), 0) << b.error;
  // A tile that changes every iteration still may not.
  EXPECT_REFUSED(b, b.addBinary(BinaryKind::add, acc, prod),
                 "mixes an after-loop value with an in-loop value");
}

TEST(UGraph, ThreadGraphMayNotMixPhases) {
  BlockFixture f;
  int32_t xt = f.xTile();
  int32_t acc = f.b.addAccum(AccumKind::sum, xt, -1, 0);
  EXPECT_REFUSED(f.b, f.b.addThreadGraph({acc, xt}, divBody()),
                 "mixes an after-loop value with an in-loop value");
  // A refused thread graph leaves no body behind.
  EXPECT_TRUE(f.b.bodies.empty());
}

TEST(UGraph, AccumulatorTakesInLoopValue) {
  BlockFixture f;
  int32_t xt = f.xTile();
  int32_t acc = f.b.addAccum(AccumKind::sum, xt, -1, 0);
  EXPECT_REFUSED(f.b, f.b.addAccum(AccumKind::sum, acc, -1, 0),
                 "operand must be an in-loop value, not an after-loop value; "
                 "every path crosses exactly one accumulator");
  EXPECT_REFUSED(f.b, f.b.addAccum(AccumKind::sum, f.X, -1, 0),
                 "operand must be an in-loop value, not a device tensor");
}

TEST(UGraph, RescaleIsInLoopToo) {
  BlockFixture f;
  int32_t xt = f.xTile();
  int32_t mx = f.b.addAccum(AccumKind::max, xt, -1, 0);
  EXPECT_REFUSED(f.b, f.b.addAccum(AccumKind::sum, xt, mx, 0),
                 "operand must be an in-loop value, not an after-loop value");
}

TEST(UGraph, SaverTakesAfterLoopValue) {
  BlockFixture f;
  int32_t xt = f.xTile();
  EXPECT_REFUSED(f.b, f.b.addOutputSaver(xt, {-1, -1, -1}),
                 "operand must be an after-loop value, not an in-loop value: "
                 "every path to an output crosses an accumulator");
}

TEST(UGraph, SavedOutputIsOnlyAnOutput) {
  BlockFixture f;
  int32_t acc = f.b.addAccum(AccumKind::sum, f.xTile(), -1, 0);
  int32_t s = f.b.addOutputSaver(acc, {0, -1, -1});
  ASSERT_GE(s, 0) << f.b.error;
  EXPECT_REFUSED(f.b, f.b.addUnary(UnaryKind::exp, s),
                 "operand is a saved output, which only the block graph's "
                 "outputs may use");
  EXPECT_REFUSED(f.b, f.b.addOutputSaver(s, {0, -1, -1}),
                 "operand must be an after-loop value, not a saved output");
}

TEST(UGraph, SaverNeedsDisjointWrites) {
  BlockFixture f;
  int32_t acc = f.b.addAccum(AccumKind::sum, f.xTile(), -1, 0);
  EXPECT_REFUSED(f.b, f.b.addOutputSaver(acc, {-1, -1, -1}),
                 "omap replicates grid axis x of extent 4: blocks would write "
                 "overlapping regions");
}

TEST(UGraph, BlockOperatorsOnlyInBlockGraphs) {
  UGraph k;
  int32_t x = k.addInput({4, 64}, ElemType::F32);
  EXPECT_REFUSED(k, k.addInputIterator(x, {-1, -1, -1}, -1),
                 "input iterators exist only in block graphs");
  EXPECT_REFUSED(k, k.addAccum(AccumKind::sum, x, -1, 0),
                 "accumulators exist only in block graphs");
  EXPECT_REFUSED(k, k.addOutputSaver(x, {-1, -1, -1}),
                 "output savers exist only in block graphs");
  EXPECT_REFUSED(k, k.addThreadGraph({x}, divBody()),
                 "thread graphs exist only in block graphs");
  UGraph t(Level::Thread);
  int32_t p = t.addInput({}, ElemType::F32);
  EXPECT_REFUSED(t, t.addMatmul(p, p), "matmul is not a thread-level operator");
  EXPECT_REFUSED(t, t.addReduce(ReduceKind::sum, p, 0),
                 "reduce is not a thread-level operator");
}

TEST(UGraph, ThreadGraphArity) {
  BlockFixture f;
  int32_t xt = f.xTile();
  EXPECT_REFUSED(f.b, f.b.addThreadGraph({xt}, divBody()),
                 "thread graph body takes 2 inputs for 1 operands");
}

TEST(UGraph, InvalidOperandIdIsRefused) {
  BlockFixture f;
  EXPECT_REFUSED(f.b, f.b.addUnary(UnaryKind::exp, 99), "invalid operand");
  EXPECT_REFUSED(f.b, f.b.addMatmul(-1, 0), "invalid operand");
}

//===----------------------------------------------------------------------===//
// verifyUGraphOutputs
//===----------------------------------------------------------------------===//

TEST(UGraph, OutputMustBeSaver) {
  BlockFixture f;
  int32_t acc = f.b.addAccum(AccumKind::sum, f.xTile(), -1, 0);
  f.b.markOutput(acc);
  EXPECT_EQ(verifyUGraphOutputs(f.b),
            "block graph output must be an output_saver result, not an "
            "after-loop value");
}

TEST(UGraph, SaverOutputExactlyOnce) {
  BlockFixture f;
  int32_t acc = f.b.addAccum(AccumKind::sum, f.xTile(), -1, 0);
  int32_t s = f.b.addOutputSaver(acc, {0, -1, -1});
  f.b.markOutput(s);
  f.b.markOutput(s);
  EXPECT_EQ(verifyUGraphOutputs(f.b), "block graph outputs the same saver twice");
}

TEST(UGraph, EverySaverIsAnOutput) {
  BlockFixture f;
  int32_t acc = f.b.addAccum(AccumKind::sum, f.xTile(), -1, 0);
  int32_t s = f.b.addOutputSaver(acc, {0, -1, -1});
  ASSERT_GE(f.b.addOutputSaver(acc, {0, -1, -1}), 0) << f.b.error;
  f.b.markOutput(s);
  EXPECT_EQ(verifyUGraphOutputs(f.b),
            "output saver result must be a block graph output");
}

TEST(UGraph, OutputsCheckTheGrid) {
  BlockFixture f;
  f.b.grid = {1024, 1024, 2};
  EXPECT_EQ(verifyUGraphOutputs(f.b),
            "grid [1024, 1024, 2] has more than the maximum 1048576 blocks");
  f.b.grid = {1, 65536, 1};
  EXPECT_EQ(verifyUGraphOutputs(f.b),
            "grid [1, 65536, 1] has an axis of more than 65535 blocks");
  f.b.grid = {1, 1, 1};
  f.b.forloopRange = 0;
  EXPECT_EQ(verifyUGraphOutputs(f.b), "for-loop range must be positive, got 0");
}

TEST(UGraph, OutputIdMustExist) {
  UGraph k;
  k.markOutput(3);
  EXPECT_EQ(verifyUGraphOutputs(k), "invalid output value");
}

TEST(UGraph, CustomChecksItsBody) {
  BlockFixture f;
  int32_t acc = f.b.addAccum(AccumKind::sum, f.xTile(), -1, 0);
  f.b.markOutput(acc); // not a saver
  UGraph k;
  int32_t x = k.addInput({4, 64}, ElemType::F32);
  int32_t w = k.addInput({64, 32}, ElemType::F32);
  EXPECT_REFUSED(k, k.addCustom({x, w}, f.b),
                 "block graph output must be an output_saver result");
  EXPECT_REFUSED(k, k.addCustom({x}, f.b),
                 "block graph takes 2 inputs for 1 operands");
  EXPECT_REFUSED(k, k.addCustom({w, x}, f.b),
                 "operand #0 does not match the block graph's input shape");
  int32_t h = k.addInput({4, 64}, ElemType::F16);
  EXPECT_REFUSED(k, k.addCustom({h, w}, f.b),
                 "operand #0 does not match the block graph's input element "
                 "type");
  EXPECT_TRUE(k.bodies.empty());
}

//===----------------------------------------------------------------------===//
// sharedMemoryBytes
//===----------------------------------------------------------------------===//

TEST(UGraph, SharedMemoryCountsTilesOperatorsAndAccumulators) {
  BlockFixture f;
  UGraph &b = f.b;
  EXPECT_EQ(sharedMemoryBytes(b), 0); // device inputs live in device memory
  int32_t xt = f.xTile();             // [4, 16] f32: 256 B
  int32_t wt = f.wTile();             // [16, 8] f32: 512 B
  EXPECT_EQ(sharedMemoryBytes(b), 256 + 512);
  int32_t m = b.addMatmul(xt, wt);    // [4, 8]: 128 B
  int32_t acc = b.addAccum(AccumKind::sum, m, -1, 0);     // [4, 8]: 128 B
  int32_t rms = b.addAccum(AccumKind::rms_last, xt, -1, 0); // [4, 1]: 16 B
  EXPECT_EQ(sharedMemoryBytes(b), 256 + 512 + 128 + 128 + 16);
  // A thread graph's result is a tile; its body's scalars are registers.
  int32_t d = b.addThreadGraph({acc, rms}, divBody()); // [4, 8]: 128 B
  ASSERT_GE(d, 0) << b.error;
  EXPECT_EQ(sharedMemoryBytes(b), 256 + 512 + 128 + 128 + 16 + 128);
  // Savers write device memory directly.
  b.markOutput(b.addOutputSaver(d, {1, -1, -1}));
  EXPECT_EQ(sharedMemoryBytes(b), 256 + 512 + 128 + 128 + 16 + 128);
}

TEST(UGraph, SharedMemoryUsesElementSize) {
  UGraph b(Level::Block);
  int32_t h = b.addInput({8, 64}, ElemType::F16);
  int32_t d = b.addInput({8, 64}, ElemType::F64);
  b.addInputIterator(h, {-1, -1, -1}, -1);
  EXPECT_EQ(sharedMemoryBytes(b), 8 * 64 * 2);
  b.addInputIterator(d, {-1, -1, -1}, -1);
  EXPECT_EQ(sharedMemoryBytes(b), 8 * 64 * 2 + 8 * 64 * 8);
}

TEST(UGraph, TensorsOverTheSizeLimitAreRefused) {
  // 2^31 × 2^31 × 4 elements of 4 bytes overflowed int64 in the shared
  // memory count; such a tensor is refused where it enters the graph
  // (kMaxTensorElements), so no count over a graph can overflow.
  UGraph b(Level::Block);
  int64_t big = int64_t(1) << 31;
  EXPECT_LT(b.addInput({big, big, 4}, ElemType::F32), 0);
  EXPECT_NE(b.error.find("has more than 2^40 elements"), std::string::npos)
      << b.error;
  UGraph k(Level::Kernel);
  int64_t side = int64_t(1) << 20;
  int32_t x = k.addInput({side, side}, ElemType::F32); // exactly the limit
  EXPECT_GE(x, 0) << k.error;
}

TEST(UGraph, CustomBodiesReadTheirOperandsAsTheyAreStored) {
  // OperandLayouts.md: a kernel input stored transposed gives its layout
  // to the body input it binds, and that input's iterator tiles.
  UGraph g;
  int32_t x = g.addInput({4, 64}, ElemType::F16);
  int32_t w = g.addInput({64, 32}, ElemType::F16, /*transposed=*/true);
  UGraph b(Level::Block);
  b.grid = {2, 1, 1};
  b.forloopRange = 1;
  int32_t bx = b.addInput({4, 64}, ElemType::F16);
  int32_t bw = b.addInput({64, 32}, ElemType::F16);
  int32_t xt = b.addInputIterator(bx, {-1, -1, -1}, -1);
  int32_t wt = b.addInputIterator(bw, {1, -1, -1}, -1);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  b.markOutput(b.addOutputSaver(acc, {1, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  int32_t o = g.addCustom({x, w}, std::move(b));
  ASSERT_GE(o, 0) << g.error;
  const UGraph &body = g.bodies[0];
  EXPECT_FALSE(storedTransposed(body, body.inputs[0]));
  EXPECT_TRUE(storedTransposed(body, body.inputs[1]));
  EXPECT_TRUE(storedTransposed(body, wt));
  EXPECT_FALSE(storedTransposed(body, xt));
  EXPECT_EQ(storedShape(body, body.inputs[1]), (Shape{32, 64}));
  EXPECT_EQ(storedShape(body, wt), (Shape{16, 64}));
  EXPECT_EQ(body.values[wt].shape, (Shape{64, 16}));
  // A copy of the input keeps its layout.
  UGraph h;
  EXPECT_TRUE(h.values[h.addInputLike(g.values[w])].transposed);
}

TEST(UGraph, SeededInputsAreDrawnInStoredOrder) {
  // Element i of the buffer mirage-run fills is seededValue(seed, t, i);
  // the evaluator reads the transpose of a transposed input's buffer.
  UGraph g;
  int32_t w = g.addInput({3, 5}, ElemType::F32, /*transposed=*/true);
  std::vector<Tensor<double>> ins = seededInputs(g, 42);
  ASSERT_EQ(ins[0].shape, (Shape{3, 5}));
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 5; ++c)
      EXPECT_EQ(ins[0].data[r * 5 + c], seededValue(42, 0, c * 3 + r));
  Tensor<double> stored = storedOrder(g, w, ins[0]);
  ASSERT_EQ(stored.shape, (Shape{5, 3}));
  for (int64_t i = 0; i < stored.size(); ++i)
    EXPECT_EQ(stored.data[i], seededValue(42, 0, i));
}

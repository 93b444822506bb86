//===- OpKindsTest.cpp - The facts table against the code it describes ----===//
//
// Each fact is checked against what the builders and the float64 evaluator
// actually do, both ways: a kind the table calls element-wise evaluates
// element-wise and one it does not call so does not, a commutative binary
// op commutes and a non-commutative one does not, and so on.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/OpKinds.h"
#include "Mirage/Semantics/RandomInputs.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace mirage;

namespace {

/// Every OpKind, found through the table (a value with a row is a kind), so
/// a kind added to the enum is covered here without editing this test.
std::vector<OpKind> allOpKinds() {
  std::vector<OpKind> kinds;
  for (unsigned v = 0; v < 256; ++v)
    if (opKindFacts(static_cast<OpKind>(v)).name)
      kinds.push_back(static_cast<OpKind>(v));
  return kinds;
}

template <typename E> std::vector<E> allOf(unsigned maxEnumVal) {
  std::vector<E> out;
  for (unsigned v = 0; v <= maxEnumVal; ++v)
    out.push_back(static_cast<E>(v));
  return out;
}
std::vector<UnaryKind> allUnary() {
  return allOf<UnaryKind>(getMaxEnumValForUnaryKind());
}
std::vector<BinaryKind> allBinary() {
  return allOf<BinaryKind>(getMaxEnumValForBinaryKind());
}

Evaluator<Float64Semantics> makeEval() {
  static Float64Semantics sem;
  return Evaluator<Float64Semantics>(sem);
}

/// A kernel graph with one op of kind `k` over inputs of shape [2, 3]
/// (matmul: [2, 3]·[3, 2]), or std::nullopt for kinds that do not exist at
/// kernel level or need a nested graph. `unary`/`binary` pick the sub-kind.
std::optional<UGraph> kernelGraphOf(OpKind k, UnaryKind unary = UnaryKind::exp,
                                    BinaryKind binary = BinaryKind::add,
                                    ReduceKind reduce = ReduceKind::sum) {
  UGraph g(Level::Kernel);
  int32_t x = g.addInput({2, 3}, ElemType::F64);
  int32_t out = -1;
  switch (k) {
  case OpKind::Matmul:
    out = g.addMatmul(x, g.addInput({3, 2}, ElemType::F64));
    break;
  case OpKind::Unary:
    out = g.addUnary(unary, x, 1.5);
    break;
  case OpKind::Binary:
    out = g.addBinary(binary, x, g.addInput({2, 3}, ElemType::F64));
    break;
  case OpKind::Reduce:
    out = g.addReduce(reduce, x, 1, 1);
    break;
  case OpKind::RmsNorm:
    out = g.addRmsNorm(x, -1, 1e-3);
    break;
  case OpKind::Concat:
    out = g.addConcat(x, g.addInput({2, 3}, ElemType::F64), 0);
    break;
  case OpKind::Custom:
  case OpKind::InputIterator:
  case OpKind::Accum:
  case OpKind::OutputSaver:
  case OpKind::ThreadGraph:
  case OpKind::RunningMax:
    return std::nullopt;
  }
  EXPECT_GE(out, 0) << opKindName(k).str() << ": " << g.error;
  g.markOutput(out);
  return g;
}

/// How the single output of `g` depends on its inputs' elements: for every
/// input element (perturbed by +10, inside every kind's domain for inputs in
/// [0.5, 2)), which output elements change.
struct Dependence {
  bool sameShapes = true;
  /// Every changed output element sits at the perturbed element's index.
  bool onlySameIndex = true;
  /// Some output element changes for two elements of one input.
  bool combinesElements = false;
};
Dependence dependenceOf(const UGraph &g) {
  auto eval = makeEval();
  auto ins = randomInputs(g, 7, 0.5, 2.0);
  Tensor<double> base = eval.run(g, ins)[0];
  Dependence d;
  for (size_t t = 0; t < ins.size(); ++t) {
    if (ins[t].shape != base.shape)
      d.sameShapes = false;
    std::vector<int> hits(base.data.size(), 0);
    for (int64_t j = 0; j < ins[t].size(); ++j) {
      auto p = ins;
      p[t].data[j] += 10.0;
      Tensor<double> r = eval.run(g, p)[0];
      for (size_t i = 0; i < r.data.size(); ++i) {
        if (r.data[i] == base.data[i])
          continue;
        if ((int64_t)i != j || ins[t].shape != base.shape)
          d.onlySameIndex = false;
        if (++hits[i] > 1)
          d.combinesElements = true;
      }
    }
  }
  return d;
}

UOp prototypeOf(const UGraph &g) { return g.ops.back(); }

} // namespace

TEST(OpKinds, EveryKindHasOneNameAndTheKindsAreDense) {
  std::vector<OpKind> kinds = allOpKinds();
  ASSERT_GE(kinds.size(), 11u);
  std::set<std::string> names;
  for (size_t i = 0; i < kinds.size(); ++i) {
    // No holes: iterating up to the first value without a row sees them all.
    EXPECT_EQ(static_cast<unsigned>(kinds[i]), i);
    std::string name = opKindFacts(kinds[i]).name;
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(opKindName(kinds[i]).str(), name);
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
  }
  EXPECT_EQ(opKindName(static_cast<OpKind>(200)), "?");
}

TEST(OpKinds, SubKindNamesRoundTrip) {
  UOp op;
  op.kind = OpKind::Unary;
  for (UnaryKind k : allUnary()) {
    op.sub = static_cast<int32_t>(k);
    EXPECT_EQ(symbolizeUnaryKind(subKindName(op)), k);
  }
  op.kind = OpKind::Binary;
  for (BinaryKind k : allBinary()) {
    op.sub = static_cast<int32_t>(k);
    EXPECT_EQ(symbolizeBinaryKind(subKindName(op)), k);
  }
  op.kind = OpKind::Reduce;
  for (ReduceKind k : allOf<ReduceKind>(getMaxEnumValForReduceKind())) {
    op.sub = static_cast<int32_t>(k);
    EXPECT_EQ(symbolizeReduceKind(subKindName(op)), k);
  }
  op.kind = OpKind::Accum;
  for (AccumKind k : allOf<AccumKind>(getMaxEnumValForAccumKind())) {
    op.sub = static_cast<int32_t>(k);
    EXPECT_EQ(symbolizeAccumKind(subKindName(op)), k);
  }
  op.kind = OpKind::Matmul;
  EXPECT_EQ(subKindName(op), "");
}

TEST(OpKinds, ElementwiseAndReducesMatchTheEvaluator) {
  int checked = 0;
  for (OpKind k : allOpKinds()) {
    OpKindFacts f = opKindFacts(k);
    std::vector<UnaryKind> unaries =
        k == OpKind::Unary ? allUnary() : std::vector<UnaryKind>{UnaryKind::exp};
    std::vector<BinaryKind> binaries = k == OpKind::Binary
                                           ? allBinary()
                                           : std::vector<BinaryKind>{BinaryKind::add};
    for (UnaryKind u : unaries)
      for (BinaryKind b : binaries)
        for (ReduceKind r : {ReduceKind::sum, ReduceKind::max}) {
          std::optional<UGraph> g = kernelGraphOf(k, u, b, r);
          if (!g)
            continue;
          std::string what = opKindName(k).str() + " " +
                             subKindName(prototypeOf(*g)).str();
          Dependence d = dependenceOf(*g);
          EXPECT_EQ(f.isElementwise(), d.sameShapes && d.onlySameIndex)
              << what;
          EXPECT_EQ(f.isReduction(), d.combinesElements) << what;
          ++checked;
        }
  }
  EXPECT_GT(checked, 20);
}

TEST(OpKinds, CommutativeBinaryOpsCommuteAndTheOthersDoNot) {
  auto eval = makeEval();
  for (BinaryKind k : allBinary()) {
    UGraph g(Level::Kernel);
    int32_t a = g.addInput({4, 8}, ElemType::F64);
    int32_t b = g.addInput({4, 8}, ElemType::F64);
    g.markOutput(g.addBinary(k, a, b));
    g.markOutput(g.addBinary(k, b, a));
    auto out = eval.run(g, randomInputs(g, 3, 0.5, 2.0));
    bool commuted = out[0].data == out[1].data;
    EXPECT_EQ(binaryFacts(k).isCommutative(), commuted)
        << stringifyBinaryKind(k).str();
  }
}

TEST(OpKinds, PartialKindsAreUndefinedSomewhereAndTotalOnesNowhere) {
  const double probes[] = {-2, -1, -0.5, -0.0, 0.0, 0.5, 1, 2};
  auto undefinedSomewhere = [&](auto f) {
    for (double x : probes)
      for (double y : probes)
        if (!std::isfinite(f(x, y)))
          return true;
    return false;
  };
  Float64Semantics sem;
  for (UnaryKind k : allUnary())
    EXPECT_EQ(unaryFacts(k).isPartial(),
              undefinedSomewhere([&](double x, double) {
                return applyUnaryF64(k, x, 1.5);
              }))
        << stringifyUnaryKind(k).str();
  for (BinaryKind k : allBinary())
    EXPECT_EQ(binaryFacts(k).isPartial(),
              undefinedSomewhere([&](double x, double y) {
                return applyBinary(sem, k, x, y);
              }))
        << stringifyBinaryKind(k).str();
}

TEST(OpKinds, ExactlyTheScalarKindsReadTheScalar) {
  for (UnaryKind k : allUnary()) {
    bool reads = applyUnaryF64(k, 0.75, 1.5) != applyUnaryF64(k, 0.75, -3.0);
    UOp op;
    op.kind = OpKind::Unary;
    op.sub = static_cast<int32_t>(k);
    EXPECT_EQ(unaryFacts(k).usesScalar(), reads)
        << stringifyUnaryKind(k).str();
    EXPECT_EQ(usesScalar(op), reads) << stringifyUnaryKind(k).str();
  }
  // The accumulator's eps: the builder refuses it where the table says the
  // kind does not read it.
  for (AccumKind k : allOf<AccumKind>(getMaxEnumValForAccumKind())) {
    UGraph b(Level::Block);
    b.forloopRange = 2;
    int32_t x = b.addInput({4, 8}, ElemType::F32);
    int32_t xt = b.addInputIterator(x, {-1, -1, -1}, 1);
    bool accepted = b.addAccum(k, xt, -1, 0, 1e-5) >= 0;
    EXPECT_EQ(accumFacts(k).usesScalar(), accepted)
        << stringifyAccumKind(k).str() << ": " << b.error;
  }
}

TEST(OpKinds, LevelsArityAndFieldsMatchTheBuilders) {
  for (OpKind k : allOpKinds()) {
    OpKindFacts f = opKindFacts(k);
    // Thread level: every kind the table excludes is refused; unary and
    // binary ops over scalars are built.
    {
      UGraph t(Level::Thread);
      int32_t x = t.addInput({}, ElemType::F32);
      int32_t y = t.addInput({}, ElemType::F32);
      UOp proto;
      proto.kind = k;
      int32_t r = t.addLike(proto, {x, y});
      if (!allows(f.levels, Level::Thread)) {
        EXPECT_LT(r, 0) << f.name << " built at thread level";
      } else {
        EXPECT_GE(r, 0) << f.name << ": " << t.error;
      }
    }
    // Kernel level: refused where excluded; where built, the arity is the
    // table's and exactly the fields the table names survive a replay.
    std::optional<UGraph> g = kernelGraphOf(k);
    if (!g) {
      UGraph kg(Level::Kernel);
      int32_t x = kg.addInput({2, 3}, ElemType::F32);
      UOp proto;
      proto.kind = k;
      if (!allows(f.levels, Level::Kernel)) {
        EXPECT_LT(kg.addLike(proto, {x}), 0)
            << f.name << " built at kernel level";
      }
      continue;
    }
    EXPECT_TRUE(allows(f.levels, Level::Kernel)) << f.name;
    UOp proto = prototypeOf(*g);
    EXPECT_TRUE(f.arity.accepts(proto.operands.size())) << f.name;
    // Junk in every field, then a replay through the kind's builder.
    UOp junk = proto;
    junk.dim = proto.dim == 0 ? 1 : 0;
    junk.size = proto.size + 1;
    junk.scalar = proto.scalar + 0.25;
    junk.map = {1, 0, 1};
    junk.fmap = 1;
    junk.body = 3;
    UGraph replay(Level::Kernel);
    llvm::SmallVector<int32_t, 2> ins;
    for (int32_t in : g->inputs)
      ins.push_back(replay.addInput(g->values[in].shape, ElemType::F64));
    if (replay.addLike(junk, ins) < 0) {
      // The junk made the op invalid (a dim or size out of range), so the
      // field is read; it must be one the table names.
      EXPECT_TRUE(f.fields.has(FieldDim) || f.fields.has(FieldSize))
          << f.name << ": " << replay.error;
      continue;
    }
    const UOp &built = replay.ops.back();
    UOp none;
    EXPECT_EQ(built.dim, f.fields.has(FieldDim) ? junk.dim : none.dim) << f.name;
    EXPECT_EQ(built.size, f.fields.has(FieldSize) ? junk.size : none.size)
        << f.name;
    EXPECT_EQ(built.scalar,
              f.fields.has(FieldScalar) ? junk.scalar : none.scalar)
        << f.name;
    EXPECT_EQ(built.map, none.map) << f.name; // kernel kinds have no maps
    EXPECT_EQ(built.fmap, none.fmap) << f.name;
    EXPECT_EQ(built.body, none.body) << f.name;
  }
}

TEST(OpKinds, AccumRulesFollowTheFacts) {
  for (AccumKind k : allOf<AccumKind>(getMaxEnumValForAccumKind())) {
    AccumFacts f = accumFacts(k);
    for (bool rescaled : {false, true}) {
      UOp op;
      op.kind = OpKind::Accum;
      op.sub = static_cast<int32_t>(k);
      op.operands = rescaled ? llvm::SmallVector<int32_t, 4>{0, 1}
                             : llvm::SmallVector<int32_t, 4>{0};
      op.scalar = 1e-5;
      AccumRule r = accumRule(op);
      EXPECT_EQ(r.reducesLastDim, f.reducesLastDim());
      EXPECT_EQ(r.combine == AccumCombine::Max, f.fold == Fold::Max);
      EXPECT_EQ(r.combine == AccumCombine::RescaledAdd,
                rescaled && f.fold == Fold::Add);
      EXPECT_EQ(r.addsEps, f.usesScalar());
    }
  }
}

namespace {
/// Every kind in `g` and its nested graphs.
void collectKinds(const UGraph &g, std::set<OpKind> &out) {
  for (const UOp &op : g.ops)
    out.insert(op.kind);
  for (const UGraph &b : g.bodies)
    collectKinds(b, out);
}

/// `a` and `b` hold the same ops with the same attributes, recursively.
void expectSameOps(const UGraph &a, const UGraph &b, const std::string &at) {
  ASSERT_EQ(a.ops.size(), b.ops.size()) << at;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const UOp &x = a.ops[i], &y = b.ops[i];
    std::string where = at + " op #" + std::to_string(i) + " (" +
                        opKindName(x.kind).str() + ")";
    EXPECT_EQ(x.kind, y.kind) << where;
    EXPECT_EQ(x.sub, y.sub) << where;
    EXPECT_EQ(x.operands, y.operands) << where;
    EXPECT_EQ(x.results, y.results) << where;
    EXPECT_EQ(x.dim, y.dim) << where;
    EXPECT_EQ(x.size, y.size) << where;
    EXPECT_EQ(x.scalar, y.scalar) << where;
    EXPECT_EQ(x.map, y.map) << where;
    EXPECT_EQ(x.fmap, y.fmap) << where;
    if (x.body >= 0 && y.body >= 0)
      expectSameOps(a.bodies[x.body], b.bodies[y.body], where);
  }
}
} // namespace

// Every kind survives export to MLIR, printing, parsing and import. The
// graph must hold every kind: a new kind fails here until it is added to the
// graph, exported and imported.
TEST(OpKinds, EveryKindRoundTripsThroughMLIR) {
  UGraph g(Level::Kernel);
  int32_t x = g.addInput({16, 64}, ElemType::F16);
  int32_t w = g.addInput({64, 16}, ElemType::F16);
  int32_t m = g.addMatmul(x, w);
  int32_t u = g.addUnary(UnaryKind::mul_scalar, m, 0.5);
  int32_t b = g.addBinary(BinaryKind::add, u, m);
  g.addReduce(ReduceKind::max, b, 1, 2);
  int32_t n = g.addRmsNorm(b, -1, 1e-5);

  UGraph t(Level::Thread);
  int32_t s = t.addInput({}, ElemType::F16);
  t.markOutput(t.addBinary(BinaryKind::mul, t.addUnary(UnaryKind::exp, s), s));
  UGraph blk(Level::Block);
  blk.forloopRange = 4;
  int32_t bx = blk.addInput({16, 64}, ElemType::F16);
  int32_t xt = blk.addInputIterator(bx, {-1, -1, -1}, 1);
  int32_t tg = blk.addThreadGraph({xt}, std::move(t));
  int32_t acc = blk.addAccum(AccumKind::rms_last, tg, -1, 1, 1e-5);
  blk.markOutput(blk.addOutputSaver(acc, {-1, -1, -1}));
  int32_t prev = blk.addRunningMax(xt, 1);
  ASSERT_GE(prev, 0) << blk.error;
  int32_t shift = blk.addBinary(BinaryKind::sub, prev, prev + 1);
  int32_t mx = blk.addAccum(AccumKind::max, shift, -1, 0);
  blk.markOutput(blk.addOutputSaver(mx, {-1, -1, -1}));
  ASSERT_GE(blk.outputs.back(), 0) << blk.error;
  ASSERT_GE(g.addCustom({x}, std::move(blk)), 0) << g.error;
  int32_t c = g.addConcat(n, b, 0);
  ASSERT_GE(c, 0) << g.error;
  g.markOutput(c);

  std::set<OpKind> present;
  collectKinds(g, present);
  for (OpKind k : allOpKinds())
    EXPECT_TRUE(present.count(k)) << opKindName(k).str() << " not in the graph";

  auto ctx = test::makeMirageContext();
  std::string text = test::printAsFunc(*ctx, g, "f");
  UGraph imported;
  ASSERT_TRUE(test::importGraphFromText(text, *ctx, imported));
  expectSameOps(g, imported, "graph");
}

//===- CanonicalHashTest.cpp - Stability and sensitivity of the hash ------===//
#include "Mirage/Search/CanonicalHash.h"
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

#include <set>

using namespace mirage;

namespace {
/// RMSNorm+MatMul's fused kernel at small shapes (the shape of the paper's
/// Fig. 3b), parameterised by the pieces the sensitivity tests change.
struct FusedSpec {
  GridDims grid{4, 1, 1};
  int64_t forloop = 2;
  AxisMap wImap{1, -1, -1};
  int64_t xFmap = 1;
  ElemType type = ElemType::F16;
  AxisMap omap{1, -1, -1};
  bool swapDiv = false;
  double eps = 0; // rms_last's eps
  std::string name = "fused";
  bool wTransposed = false; // W stored N x K (OperandLayouts.md)
};

UGraph fused(const FusedSpec &s = FusedSpec()) {
  UGraph k;
  k.name = s.name;
  int32_t x = k.addInput({4, 8}, s.type);
  int32_t w = k.addInput({8, 16}, s.type, s.wTransposed);
  UGraph b(Level::Block);
  b.grid = s.grid;
  b.forloopRange = s.forloop;
  int32_t bx = b.addInput({4, 8}, s.type);
  int32_t bw = b.addInput({8, 16}, s.type);
  int32_t xt = b.addInputIterator(bx, {-1, -1, -1}, s.xFmap);
  int32_t wt = b.addInputIterator(bw, s.wImap, 0);
  int32_t mm = b.addMatmul(xt, wt);
  int32_t acc = b.addAccum(AccumKind::sum, mm, -1, 0);
  int32_t rms = b.addAccum(AccumKind::rms_last, xt, -1, 0, s.eps);
  int32_t d = s.swapDiv ? b.addBinary(BinaryKind::mul, acc, rms)
                        : b.addBinary(BinaryKind::div, acc, rms);
  b.markOutput(b.addOutputSaver(d, s.omap));
  EXPECT_TRUE(b.error.empty()) << b.error;
  int32_t o = k.addCustom({x, w}, std::move(b));
  EXPECT_GE(o, 0) << k.error;
  k.markOutput(o);
  return k;
}

/// exp(x) + relu(y), with the two independent ops in either order.
UGraph twoBranches(bool expFirst, bool swapAdd = false) {
  UGraph g;
  int32_t x = g.addInput({4, 8}, ElemType::F32);
  int32_t y = g.addInput({4, 8}, ElemType::F32);
  int32_t a, b;
  if (expFirst) {
    a = g.addUnary(UnaryKind::exp, x);
    b = g.addUnary(UnaryKind::relu, y);
  } else {
    b = g.addUnary(UnaryKind::relu, y);
    a = g.addUnary(UnaryKind::exp, x);
  }
  g.markOutput(swapAdd ? g.addBinary(BinaryKind::add, b, a)
                       : g.addBinary(BinaryKind::add, a, b));
  return g;
}
} // namespace

TEST(CanonicalHash, SameGraphBuiltTwice) {
  EXPECT_EQ(canonicalHash(fused()), canonicalHash(fused()));
  EXPECT_EQ(canonicalHash(twoBranches(true)), canonicalHash(twoBranches(true)));
}

TEST(CanonicalHash, IndependentOfValueNumberingAndOpOrder) {
  UGraph a = twoBranches(true), b = twoBranches(false);
  ASSERT_NE(a.ops[0].sub, b.ops[0].sub); // really a different op order
  EXPECT_EQ(canonicalHash(a), canonicalHash(b));
  // Operand order of a non-commutative position is structure.
  EXPECT_NE(canonicalHash(a), canonicalHash(twoBranches(true, true)));
}

TEST(CanonicalHash, LabelsAreNotStructure) {
  FusedSpec s;
  s.name = "another name";
  UGraph g = fused(s);
  g.reference = "some_ref";
  EXPECT_EQ(canonicalHash(g), canonicalHash(fused()));
  // Empty target and the default target are the same.
  UGraph t = fused();
  t.bodies[0].target = "h100";
  EXPECT_EQ(canonicalHash(t), canonicalHash(fused()));
  t.bodies[0].target = "a100";
  EXPECT_NE(canonicalHash(t), canonicalHash(fused()));
}

TEST(CanonicalHash, SensitiveToStructure) {
  std::set<std::string> seen;
  auto add = [&](const UGraph &g, const char *what) {
    EXPECT_TRUE(seen.insert(canonicalHash(g).toHex()).second)
        << what << " collides";
  };
  add(fused(), "base");
  {
    // Where W's bytes lie changes the kernels (and their cost), so a
    // cached winner for one layout must not answer the other.
    FusedSpec t;
    t.wTransposed = true;
    add(fused(t), "W stored transposed");
  }
  FusedSpec s;
  s.wImap = {-1, 1, -1}; // different imap
  s.grid = {1, 4, 1};
  s.omap = {-1, 1, -1};
  add(fused(s), "imap on y");
  s = FusedSpec();
  s.grid = {2, 1, 1};
  add(fused(s), "grid");
  s = FusedSpec();
  s.forloop = 4;
  add(fused(s), "forloop");
  s = FusedSpec();
  s.forloop = 1;
  add(fused(s), "forloop 1");
  s.xFmap = -1; // same tiles with one iteration, but another fmap
  add(fused(s), "fmap");
  s = FusedSpec();
  s.type = ElemType::BF16;
  add(fused(s), "dtype");
  s = FusedSpec();
  s.swapDiv = true;
  add(fused(s), "binary kind");
  s = FusedSpec();
  s.eps = 1e-5;
  add(fused(s), "rms_last eps 1e-5");
  s.eps = 1e-6;
  add(fused(s), "rms_last eps 1e-6");
  // A different unary scalar.
  UGraph u1, u2;
  for (auto [g, c] : {std::pair<UGraph *, double>{&u1, 2.0}, {&u2, 3.0}}) {
    int32_t x = g->addInput({4, 8}, ElemType::F32);
    g->markOutput(g->addUnary(UnaryKind::mul_scalar, x, c));
  }
  add(u1, "scalar 2");
  add(u2, "scalar 3");
  // A different shape.
  UGraph sh;
  sh.markOutput(sh.addUnary(UnaryKind::mul_scalar,
                            sh.addInput({8, 4}, ElemType::F32), 2.0));
  add(sh, "shape");
  // A duplicated subcomputation is not the same as a shared one.
  UGraph shared, dup;
  {
    int32_t x = shared.addInput({4, 8}, ElemType::F32);
    int32_t e = shared.addUnary(UnaryKind::exp, x);
    shared.markOutput(shared.addBinary(BinaryKind::add, e, e));
    int32_t y = dup.addInput({4, 8}, ElemType::F32);
    int32_t e1 = dup.addUnary(UnaryKind::exp, y);
    int32_t e2 = dup.addUnary(UnaryKind::exp, y);
    dup.markOutput(dup.addBinary(BinaryKind::add, e1, e2));
  }
  add(shared, "shared exp");
  add(dup, "duplicated exp");
}

TEST(CanonicalHash, IrrelevantFieldsIgnored) {
  UGraph a = twoBranches(true), b = twoBranches(true);
  b.ops[2].scalar = 7; // a binary op has no scalar
  b.ops[0].dim = 3;    // a unary op has no dim
  EXPECT_EQ(canonicalHash(a), canonicalHash(b));
}

TEST(CanonicalHash, StableAcrossRunsAndPlatforms) {
  // Golden values: they change only when the encoding does, and then
  // kCanonicalHashVersion must be bumped (old cache entries never match).
  EXPECT_EQ(canonicalHash(twoBranches(true)).toHex(),
            "555fd3064f94e1142d7d70a7e692dc78");
  EXPECT_EQ(canonicalHash(fused()).toHex(), "f9a3125d32ca4638dcea7565d1114733");
}

TEST(CanonicalHash, HexRoundTrip) {
  Hash128 h = canonicalHash(fused()), back;
  ASSERT_TRUE(Hash128::fromHex(h.toHex(), back));
  EXPECT_EQ(h, back);
  EXPECT_FALSE(Hash128::fromHex("xyz", back));
  EXPECT_FALSE(Hash128::fromHex(std::string(32, 'g'), back));
}

TEST(CanonicalHash, CacheKey) {
  UGraph g = fused();
  std::string k = cacheKey(g, "h100", "max_block_ops=11");
  EXPECT_EQ(k.size(), 32u);
  EXPECT_EQ(k, cacheKey(fused(), "h100", "max_block_ops=11"));
  EXPECT_EQ(k, cacheKey(g, "", "max_block_ops=11")); // default target
  EXPECT_NE(k, cacheKey(g, "a100", "max_block_ops=11"));
  EXPECT_NE(k, cacheKey(g, "h100", "max_block_ops=10"));
  EXPECT_NE(k, canonicalHash(g).toHex());
  // Length-prefixed: moving a character between fields changes the key.
  EXPECT_NE(cacheKeyHash(canonicalHash(g), "h100", "x"),
            cacheKeyHash(canonicalHash(g), "h100x", ""));
}

// The paper workloads' graphs (bench/workloads): every graph hashes
// differently, and parsing and importing a file again gives the same hashes.
TEST(CanonicalHash, WorkloadGraphs) {
  auto ctx = test::makeMirageContext();
  auto hashes = [&](const std::string &path) {
    std::vector<std::string> out;
    auto module = test::parseMlirFile(path, *ctx);
    EXPECT_TRUE(module) << path;
    if (module)
      module->walk([&](kernel::GraphOp op) {
        auto g = kernel::importKernelGraph(op);
        EXPECT_TRUE(succeeded(g));
        if (succeeded(g))
          out.push_back(canonicalHash(*g).toHex());
      });
    return out;
  };
  std::set<std::string> all;
  size_t n = 0;
  for (const char *name : {"rmsnorm_matmul", "gated_mlp", "lora", "gqa",
                           "qknorm", "ntrans"}) {
    std::string path = test::sourceFile("bench/workloads", name);
    std::vector<std::string> a = hashes(path), b = hashes(path);
    EXPECT_EQ(a, b) << name;
    all.insert(a.begin(), a.end());
    n += a.size();
  }
  EXPECT_EQ(n, 13u);
  EXPECT_EQ(all.size(), n);
}

// rms_last's eps survives export to MLIR, printing, parsing and import.
TEST(CanonicalHash, RmsLastEpsRoundTripsThroughMLIR) {
  auto ctx = test::makeMirageContext();
  FusedSpec s;
  s.eps = 1e-5;
  UGraph g = fused(s);
  std::string text = test::printAsFunc(*ctx, g, "f");
  EXPECT_NE(text.find("rms_last"), std::string::npos) << text;
  EXPECT_NE(text.find("eps(1.000000e-05)"), std::string::npos) << text;
  UGraph imported;
  ASSERT_TRUE(test::importGraphFromText(text, *ctx, imported));
  EXPECT_EQ(canonicalHash(imported), canonicalHash(g));
  EXPECT_NE(canonicalHash(imported), canonicalHash(fused()));
}

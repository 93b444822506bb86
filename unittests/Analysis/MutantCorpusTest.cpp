//===- MutantCorpusTest.cpp - The verifier against a mutant corpus --------===//
//
// Every workload's best μGraph (test/Workloads/*.mlir: graphs with a
// `reference`; examples/rmsnorm_matmul.mlir always) and a few built-in
// graphs are mutated by one change each. A float64 evaluation classifies
// each mutant independently of the verifier: mutants that differ from the
// reference must be rejected, mutants that agree (an equivalent change, such
// as another for-loop range of a plain sum) must be accepted, and the
// unmutated graphs must be accepted.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/Mutation.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mirage;

namespace {
using Pair = test::GraphPair;

void loadPairs(const std::string &path, std::vector<Pair> &out) {
  auto ctx = test::makeMirageContext(/*quiet=*/true);
  auto module = test::parseMlirFile(path, *ctx);
  if (!module) { // e.g. a verifier test's deliberately invalid IR
    std::printf("skipped (does not parse): %s\n", path.c_str());
    return;
  }
  std::vector<Pair> pairs;
  ::testing::AssertionResult imported =
      test::importReferencePairs(*module, pairs);
  for (Pair &p : pairs) {
    p.name = llvm::sys::path::filename(path).str() + ":" + p.name;
    out.push_back(std::move(p));
  }
  ASSERT_TRUE(imported) << path;
}

/// Gated MLP: silu(X·W1) ⊙ (X·W3), fused into one custom kernel.
Pair gatedMlp() {
  UGraph ref;
  int32_t x = ref.addInput({4, 32}, ElemType::F32);
  int32_t w1 = ref.addInput({32, 16}, ElemType::F32);
  int32_t w3 = ref.addInput({32, 16}, ElemType::F32);
  ref.markOutput(ref.addBinary(
      BinaryKind::mul, ref.addUnary(UnaryKind::silu, ref.addMatmul(x, w1)),
      ref.addMatmul(x, w3)));
  UGraph b(Level::Block);
  b.grid = {2, 1, 1};
  b.forloopRange = 4;
  int32_t X = b.addInput({4, 32}, ElemType::F32);
  int32_t W1 = b.addInput({32, 16}, ElemType::F32);
  int32_t W3 = b.addInput({32, 16}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t a1 = b.addAccum(AccumKind::sum,
                          b.addMatmul(xt, b.addInputIterator(W1, {1, -1, -1}, 0)),
                          -1, 0);
  int32_t a3 = b.addAccum(AccumKind::sum,
                          b.addMatmul(xt, b.addInputIterator(W3, {1, -1, -1}, 0)),
                          -1, 0);
  UGraph t(Level::Thread);
  int32_t p = t.addInput({}, ElemType::F32), q = t.addInput({}, ElemType::F32);
  t.markOutput(t.addBinary(BinaryKind::mul, t.addUnary(UnaryKind::silu, p), q));
  b.markOutput(b.addOutputSaver(b.addThreadGraph({a1, a3}, std::move(t)),
                                {1, -1, -1}));
  UGraph cand;
  x = cand.addInput({4, 32}, ElemType::F32);
  w1 = cand.addInput({32, 16}, ElemType::F32);
  w3 = cand.addInput({32, 16}, ElemType::F32);
  cand.markOutput(cand.addCustom({x, w1, w3}, std::move(b)));
  EXPECT_TRUE(cand.error.empty()) << cand.error;
  return {"builtin:gated_mlp", std::move(cand), std::move(ref)};
}

/// Attention-like: softmax(Q·Kᵀ)·V without max subtraction, fused with the
/// exp-sum as a second accumulator (exp in the loop, division after it).
Pair expAttention() {
  UGraph ref;
  int32_t q = ref.addInput({4, 8}, ElemType::F32);
  int32_t kt = ref.addInput({8, 16}, ElemType::F32);
  int32_t v = ref.addInput({16, 8}, ElemType::F32);
  int32_t e = ref.addUnary(UnaryKind::exp, ref.addMatmul(q, kt));
  ref.markOutput(ref.addBinary(BinaryKind::div, ref.addMatmul(e, v),
                               ref.addReduce(ReduceKind::sum, e, 1)));
  UGraph b(Level::Block);
  b.grid = {1, 1, 1};
  b.forloopRange = 4;
  int32_t Q = b.addInput({4, 8}, ElemType::F32);
  int32_t K = b.addInput({8, 16}, ElemType::F32);
  int32_t V = b.addInput({16, 8}, ElemType::F32);
  int32_t qt = b.addInputIterator(Q, {-1, -1, -1}, -1);
  int32_t kt2 = b.addInputIterator(K, {-1, -1, -1}, 1);
  int32_t vt = b.addInputIterator(V, {-1, -1, -1}, 0);
  int32_t et = b.addUnary(UnaryKind::exp, b.addMatmul(qt, kt2));
  int32_t num = b.addAccum(AccumKind::sum, b.addMatmul(et, vt), -1, 0);
  int32_t den = b.addAccum(AccumKind::sum_last, et, -1, 0);
  b.markOutput(b.addOutputSaver(b.addBinary(BinaryKind::div, num, den),
                                {-1, -1, -1}));
  UGraph cand;
  q = cand.addInput({4, 8}, ElemType::F32);
  kt = cand.addInput({8, 16}, ElemType::F32);
  v = cand.addInput({16, 8}, ElemType::F32);
  cand.markOutput(cand.addCustom({q, kt, v}, std::move(b)));
  EXPECT_TRUE(cand.error.empty()) << cand.error;
  return {"builtin:exp_attention", std::move(cand), std::move(ref)};
}

/// True when `a` and `b` differ in float64 on random inputs.
bool floatDiffers(const UGraph &a, const UGraph &b) {
  Float64Semantics sem;
  Evaluator<Float64Semantics> eval(sem);
  for (uint64_t s : {11u, 12u}) {
    auto ins = randomInputs(b, s);
    auto x = eval.run(a, ins), y = eval.run(b, ins);
    for (size_t i = 0; i < x.size(); ++i) {
      double scale = 1e-300;
      for (double v : y[i].data)
        scale = std::max(scale, std::fabs(v));
      // Written so that a NaN on either side counts as a difference.
      for (int64_t e = 0; e < x[i].size(); ++e)
        if (!(std::fabs(x[i].data[e] - y[i].data[e]) <= 1e-9 * scale))
          return true;
    }
  }
  return false;
}
} // namespace

namespace {
void runCorpus(LaneFieldUse lanes) {
  std::vector<Pair> pairs;
  std::string src = MIRAGE_SOURCE_DIR;
  loadPairs(src + "/examples/rmsnorm_matmul.mlir", pairs);
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(src + "/test/Workloads", ec), end;
       !ec && it != end; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".mlir"))
      loadPairs(it->path(), pairs);
  pairs.push_back(gatedMlp());
  pairs.push_back(expAttention());

  VerifyOptions opts;
  opts.laneFields = lanes;
  size_t generated = 0, wrong = 0, rejected = 0, equivalentMutants = 0,
         equivalentAccepted = 0;
  for (const Pair &p : pairs) {
    VerificationResult base = verifyEquivalence(p.cand, p.ref, opts);
    EXPECT_EQ(base.status, VerifyStatus::Equivalent)
        << p.name << ": " << base.message;
    std::vector<Mutant> ms = generateMutants(p.cand, 400);
    size_t w = 0, rj = 0;
    for (const Mutant &m : ms) {
      bool differs = floatDiffers(m.graph, p.ref);
      VerificationResult r = verifyEquivalence(m.graph, p.ref, opts);
      if (differs) {
        ++w;
        bool rej = r.status != VerifyStatus::Equivalent;
        rj += rej;
        EXPECT_TRUE(rej) << p.name << ": wrong mutant accepted: "
                         << m.description;
      } else {
        ++equivalentMutants;
        equivalentAccepted += r.status == VerifyStatus::Equivalent;
        // Completeness is not guaranteed outside the field operations (an
        // uninterpreted sqrt knows no sqrt(4x) = 2·sqrt(x)); report it.
        if (r.status != VerifyStatus::Equivalent)
          std::printf("  incomplete: %s: %s: %s\n", p.name.c_str(),
                      m.description.c_str(), r.message.c_str());
      }
    }
    generated += ms.size();
    wrong += w;
    rejected += rj;
    std::printf("%-40s mutants %4zu  wrong %4zu  rejected %4zu\n",
                p.name.c_str(), ms.size(), w, rj);
  }
  std::printf("total: %zu mutants generated, %zu wrong, %zu rejected; "
              "%zu equivalent mutants, %zu accepted\n",
              generated, wrong, rejected, equivalentMutants,
              equivalentAccepted);
  EXPECT_GE(wrong, 50u);
  EXPECT_EQ(wrong, rejected);
  EXPECT_GE(equivalentAccepted * 10, equivalentMutants * 9);
}
} // namespace

TEST(MutantCorpus, WrongMutantsRejectedCorrectGraphsAccepted) {
  runCorpus(LaneFieldUse::Auto);
}

// The same corpus with every mode-U check in four 28-bit fields
// (Verification.md §4.2c), as a check at model scale runs.
TEST(MutantCorpus, WrongMutantsRejectedInFourLanes) {
  runCorpus(LaneFieldUse::Always);
}

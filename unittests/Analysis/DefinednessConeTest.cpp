//===- DefinednessConeTest.cpp - The definedness check on its cone --------===//
//
// docs/Rationale/Verification.md §4.6, "Cost". The expression check
// evaluates only the operators that divide, take a sqrt or call pow, and
// what they read (DefinednessCone.h). These tests show that the cone drops
// what it should (attention's P·V) and keeps what it must (a mean_last
// count, the divisor of a division whose quotient is dropped), and that it
// accepts and rejects exactly what the whole graphs do, with the same
// message: the NaN-domain mutants, flash-attention candidates (correct, and
// dividing by a value that may be zero), and a drawn corpus of divisors.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/Definedness.h"
#include "Mirage/Analysis/DefinednessCone.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace mirage;

namespace {

const uint64_t kSeeds[] = {1, 7, 42, 123456789, 0xdeadbeefcafeULL};

int count(const UGraph &g, OpKind k) {
  int n = 0;
  for (const UOp &op : g.ops) {
    n += op.kind == k;
    if (op.body >= 0)
      n += count(g.bodies[op.body], k);
  }
  return n;
}

/// Both scopes give the same status and message.
void expectSameVerdict(const UGraph &cand, const UGraph &ref,
                       const char *what) {
  ASSERT_TRUE(cand.error.empty()) << cand.error;
  ASSERT_TRUE(ref.error.empty()) << ref.error;
  for (uint64_t seed : kSeeds) {
    DefinednessResult c = checkDefinedness(cand, ref, seed, 0, 1,
                                           DefinednessScope::Cone);
    DefinednessResult w = checkDefinedness(cand, ref, seed, 0, 1,
                                           DefinednessScope::WholeGraphs);
    EXPECT_EQ(c.status, w.status) << what << ", seed " << seed << ": "
                                  << c.message << " / " << w.message;
    EXPECT_EQ(c.message, w.message) << what << ", seed " << seed;
  }
}

// Attention: Q [8, 16], K [16, 64], V [64, 16]; the flash kernel walks the
// keys in 4 tiles of 16 with a running max (as OnlineSoftmaxTest.cpp).
constexpr int64_t kRows = 8, kDim = 16, kKeys = 64, kTile = 16, kOut = 16;

UGraph attention() {
  UGraph g;
  int32_t q = g.addInput({kRows, kDim}, ElemType::F32);
  int32_t k = g.addInput({kDim, kKeys}, ElemType::F32);
  int32_t v = g.addInput({kKeys, kOut}, ElemType::F32);
  int32_t s = g.addMatmul(q, k);
  int32_t m = g.addReduce(ReduceKind::max, s, 1);
  int32_t e = g.addUnary(UnaryKind::exp, g.addBinary(BinaryKind::sub, s, m));
  int32_t l = g.addReduce(ReduceKind::sum, e, 1);
  g.markOutput(g.addMatmul(g.addBinary(BinaryKind::div, e, l), v));
  return g;
}

enum class Divisor {
  Sum,         // o / l: l a rescaled sum of exps, positive
  ReluOfSum,   // o / relu(l − 1): may be zero where the reference is defined
  SqrtOfRatio, // sqrt(o / l) / l: the quotient read by a sqrt, so kept
};

UGraph flash(Divisor d) {
  UGraph b(Level::Block);
  b.grid = {2, 1, 1};
  b.forloopRange = kKeys / kTile;
  int32_t Q = b.addInput({kRows, kDim}, ElemType::F32);
  int32_t K = b.addInput({kDim, kKeys}, ElemType::F32);
  int32_t V = b.addInput({kKeys, kOut}, ElemType::F32);
  int32_t qt = b.addInputIterator(Q, {0, -1, -1}, -1);
  int32_t kt = b.addInputIterator(K, {-1, -1, -1}, 1);
  int32_t vt = b.addInputIterator(V, {-1, -1, -1}, 0);
  int32_t s = b.addMatmul(qt, kt);
  int32_t prev = b.addRunningMax(s, 1);
  int32_t cur = prev + 1;
  int32_t e =
      b.addUnary(UnaryKind::exp, b.addBinary(BinaryKind::sub, s, cur));
  int32_t r =
      b.addUnary(UnaryKind::exp, b.addBinary(BinaryKind::sub, prev, cur));
  int32_t l = b.addAccum(AccumKind::sum_last, e, r, 0);
  int32_t o = b.addAccum(AccumKind::sum, b.addMatmul(e, vt), r, 0);
  int32_t out = -1;
  switch (d) {
  case Divisor::Sum:
    out = b.addBinary(BinaryKind::div, o, l);
    break;
  case Divisor::ReluOfSum: {
    int32_t z = b.addUnary(
        UnaryKind::relu, b.addUnary(UnaryKind::add_scalar, l, -1.0));
    out = b.addBinary(BinaryKind::div, o, z);
    break;
  }
  case Divisor::SqrtOfRatio:
    out = b.addBinary(
        BinaryKind::div,
        b.addUnary(UnaryKind::sqrt, b.addBinary(BinaryKind::div, o, l)), l);
    break;
  }
  b.markOutput(b.addOutputSaver(out, {0, -1, -1}));
  EXPECT_TRUE(b.error.empty()) << b.error;
  UGraph g;
  llvm::SmallVector<int32_t> ins;
  for (int32_t in : b.inputs)
    ins.push_back(g.addInput(b.values[in].shape, b.values[in].type));
  g.markOutput(g.addCustom(ins, std::move(b)));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}

} // namespace

/// The reference's cone is Q·K, its max, exp and row sum, and the reciprocal
/// of the sum: the division's quotient, and so P·V, feed no partial call.
TEST(DefinednessCone, AttentionDropsPV) {
  UGraph ref = attention();
  std::optional<UGraph> c = definednessCone(ref);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->inputs.size(), 3u);
  EXPECT_TRUE(c->outputs.empty());
  EXPECT_EQ(count(*c, OpKind::Matmul), 1);
  EXPECT_EQ(count(*c, OpKind::Binary), 1); // s − m; the div became 1/l
  ASSERT_FALSE(c->ops.empty());
  EXPECT_EQ(c->ops.back().kind, OpKind::Unary);
  EXPECT_EQ(c->ops.back().unaryKind(), UnaryKind::reciprocal);

  // The flash kernel: in the body, Q·K but not P·V, no saver (its tile,
  // o / l, is read by nothing partial) and no input V.
  std::optional<UGraph> f = definednessCone(flash(Divisor::Sum));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(count(*f, OpKind::Matmul), 1);
  EXPECT_EQ(count(*f, OpKind::OutputSaver), 0);
  ASSERT_EQ(f->bodies.size(), 1u);
  EXPECT_EQ(f->bodies[0].inputs.size(), 2u);
  EXPECT_EQ(f->inputs.size(), 3u);

  // A quotient read by a sqrt stays, and with it P·V.
  std::optional<UGraph> q = definednessCone(flash(Divisor::SqrtOfRatio));
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(count(*q, OpKind::Matmul), 2);
}

/// A mean_last accumulator divides by its count, a positive constant: not
/// partial, but the reference's divisors are recorded whatever they are, so
/// the cone keeps it. A graph without any division keeps nothing.
TEST(DefinednessCone, KeepsCountDivisionsDropsTotalGraphs) {
  UGraph b(Level::Block);
  b.grid = {2, 1, 1};
  b.forloopRange = 2;
  int32_t X = b.addInput({4, 8}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {0, -1, -1}, 1);
  int32_t m = b.addAccum(AccumKind::mean_last, xt, -1, 0);
  b.markOutput(b.addOutputSaver(m, {0, -1, -1}));
  ASSERT_TRUE(b.error.empty()) << b.error;
  UGraph g;
  int32_t x = g.addInput({4, 8}, ElemType::F32);
  g.markOutput(g.addCustom({x}, std::move(b)));
  ASSERT_TRUE(g.error.empty()) << g.error;
  EXPECT_FALSE(hasPartialOps(g));
  std::optional<UGraph> c = definednessCone(g);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(count(*c, OpKind::Accum), 1);

  UGraph t;
  int32_t a = t.addInput({4, 8}, ElemType::F32);
  int32_t w = t.addInput({8, 4}, ElemType::F32);
  t.markOutput(t.addUnary(UnaryKind::exp, t.addMatmul(a, w)));
  std::optional<UGraph> ct = definednessCone(t);
  ASSERT_TRUE(ct.has_value());
  EXPECT_TRUE(ct->ops.empty());
  EXPECT_EQ(ct->inputs.size(), 2u);
}

/// A scalar that is not finite is reported by the field wherever it is
/// evaluated, so nothing may be dropped: no cone.
TEST(DefinednessCone, NoConeWithANonFiniteScalar) {
  UGraph g;
  int32_t x = g.addInput({4, 8}, ElemType::F32);
  g.addUnary(UnaryKind::mul_scalar, x, INFINITY);
  g.markOutput(g.addUnary(UnaryKind::reciprocal, x));
  EXPECT_FALSE(definednessCone(g).has_value());
}

/// Flash attention against the reference: accepted when it divides by its
/// rescaled sum of exps, rejected when it divides by a value that may be
/// zero (relu(l − 1)), by the cone exactly as by the whole graphs.
TEST(DefinednessCone, FlashAttentionSameVerdicts) {
  UGraph ref = attention();
  for (Divisor d :
       {Divisor::Sum, Divisor::ReluOfSum, Divisor::SqrtOfRatio}) {
    UGraph cand = flash(d);
    expectSameVerdict(cand, ref, "flash attention");
    DefinednessResult r = checkDefinedness(cand, ref, 5);
    if (d == Divisor::ReluOfSum) {
      EXPECT_EQ(r.status, DefinednessResult::Status::NotShown);
      EXPECT_NE(r.message.find("divides by a relu output"),
                std::string::npos)
          << r.message;
    } else if (d == Divisor::Sum) {
      EXPECT_TRUE(r.ok()) << r.message;
    }
  }
}

/// The mutants of NanDomainTest.cpp and pairs with the reference's own
/// divisors: the same verdicts and messages.
TEST(DefinednessCone, NanDomainMutantsSameVerdicts) {
  // cand: x·2·(r/r), r = relu(x + 1 + 2^-16); ref: x·2.
  {
    UGraph ref, cand;
    int32_t x = ref.addInput({4, 8}, ElemType::F32);
    ref.markOutput(ref.addUnary(UnaryKind::mul_scalar, x, 2.0));
    x = cand.addInput({4, 8}, ElemType::F32);
    int32_t s = cand.addUnary(UnaryKind::mul_scalar, x, 2.0);
    int32_t r = cand.addUnary(
        UnaryKind::relu,
        cand.addUnary(UnaryKind::add_scalar, x, 1.0 + std::ldexp(1.0, -16)));
    cand.markOutput(cand.addBinary(BinaryKind::mul, s,
                                   cand.addBinary(BinaryKind::div, r, r)));
    expectSameVerdict(cand, ref, "relu ratio");
    EXPECT_EQ(checkDefinedness(cand, ref, 1).status,
              DefinednessResult::Status::NotShown);
  }
  // cand: x·sqrt(1 − x)·rsqrt(1 − x); ref: x.
  {
    UGraph ref, cand;
    int32_t x = ref.addInput({4, 8}, ElemType::F32);
    ref.markOutput(ref.addUnary(UnaryKind::mul_scalar, x, 1.0));
    x = cand.addInput({4, 8}, ElemType::F32);
    int32_t u = cand.addUnary(UnaryKind::add_scalar,
                              cand.addUnary(UnaryKind::mul_scalar, x, -1.0),
                              1.0);
    int32_t p = cand.addBinary(BinaryKind::mul, x,
                               cand.addUnary(UnaryKind::sqrt, u));
    cand.markOutput(cand.addBinary(BinaryKind::mul, p,
                                   cand.addUnary(UnaryKind::rsqrt, u)));
    expectSameVerdict(cand, ref, "sqrt times rsqrt");
    EXPECT_EQ(checkDefinedness(cand, ref, 1).status,
              DefinednessResult::Status::NotShown);
  }
  // rms_norm written out against rms_norm (eps 0 and eps > 0): accepted.
  for (double eps : {0.0, 1e-6}) {
    UGraph ref, cand;
    int32_t x = ref.addInput({4, 16}, ElemType::F32);
    int32_t w = ref.addInput({16, 8}, ElemType::F32);
    ref.markOutput(ref.addMatmul(ref.addRmsNorm(x, -1, eps), w));
    x = cand.addInput({4, 16}, ElemType::F32);
    w = cand.addInput({16, 8}, ElemType::F32);
    int32_t m = cand.addUnary(
        UnaryKind::mul_scalar,
        cand.addReduce(ReduceKind::sum, cand.addUnary(UnaryKind::square, x),
                       1),
        1.0 / 16);
    if (eps != 0)
      m = cand.addUnary(UnaryKind::add_scalar, m, eps);
    int32_t q = cand.addUnary(UnaryKind::sqrt, m);
    cand.markOutput(
        cand.addMatmul(cand.addBinary(BinaryKind::div, x, q), w));
    expectSameVerdict(cand, ref, "rms_norm");
    EXPECT_TRUE(checkDefinedness(cand, ref, 1).ok());
  }
}

/// Drawn divisors (NanDomainTest.cpp's property corpus, smaller): a chain of
/// ops over x, or a sum, difference or product of two, divided by (or taken
/// sqrt and rsqrt of), the quotient sometimes read by a further sqrt; the
/// reference divides by x·x + 1 or by nothing. Cone and whole graphs agree
/// on every pair and seed.
TEST(DefinednessCone, DrawnDivisorsSameVerdicts) {
  std::mt19937_64 rng(2027);
  const UnaryKind pool[] = {UnaryKind::exp,        UnaryKind::relu,
                            UnaryKind::sigmoid,    UnaryKind::tanh,
                            UnaryKind::square,     UnaryKind::gelu,
                            UnaryKind::add_scalar, UnaryKind::mul_scalar,
                            UnaryKind::sqrt,       UnaryKind::reciprocal};
  unsigned refused = 0, shown = 0;
  for (unsigned trial = 0; trial < 300; ++trial) {
    bool refDivides = trial % 2;
    UGraph ref, cand;
    int32_t x = ref.addInput({4, 8}, ElemType::F32);
    if (refDivides) {
      int32_t d = ref.addUnary(UnaryKind::add_scalar,
                               ref.addUnary(UnaryKind::square, x), 1.0);
      ref.markOutput(ref.addBinary(BinaryKind::div, x, d));
    } else {
      ref.markOutput(ref.addUnary(UnaryKind::mul_scalar, x, 3.0));
    }
    x = cand.addInput({4, 8}, ElemType::F32);
    auto chain = [&]() {
      int32_t v = x;
      unsigned len = 1 + rng() % 3;
      for (unsigned i = 0; i < len; ++i) {
        UnaryKind k = pool[rng() % (sizeof(pool) / sizeof(pool[0]))];
        double c = (int)(rng() % 5) - 2 + 0.5; // nonzero
        v = cand.addUnary(k, v, c);
      }
      return v;
    };
    int32_t d = chain();
    switch (rng() % 4) {
    case 0:
      d = cand.addBinary(BinaryKind::sub, d, chain());
      break;
    case 1:
      d = cand.addBinary(BinaryKind::mul, d, chain());
      break;
    case 2:
      d = cand.addBinary(BinaryKind::add, d, chain());
      break;
    default:
      break;
    }
    int32_t y = refDivides
                    ? cand.addBinary(
                          BinaryKind::div, x,
                          cand.addUnary(UnaryKind::add_scalar,
                                        cand.addUnary(UnaryKind::square, x),
                                        1.0))
                    : cand.addUnary(UnaryKind::mul_scalar, x, 3.0);
    int32_t out;
    switch (rng() % 3) {
    case 0:
      out = cand.addBinary(
          BinaryKind::mul,
          cand.addBinary(BinaryKind::mul, y, cand.addUnary(UnaryKind::sqrt, d)),
          cand.addUnary(UnaryKind::rsqrt, d));
      break;
    case 1: // the quotient read by a sqrt: kept whole
      out = cand.addUnary(
          UnaryKind::sqrt,
          cand.addBinary(BinaryKind::div, cand.addBinary(BinaryKind::mul, y, d),
                         d));
      break;
    default:
      out = cand.addBinary(BinaryKind::div,
                           cand.addBinary(BinaryKind::mul, y, d), d);
      break;
    }
    cand.markOutput(out);
    ASSERT_TRUE(cand.error.empty()) << cand.error;
    uint64_t seed = 500 + trial;
    DefinednessResult c = checkDefinedness(cand, ref, seed, 0, 1,
                                           DefinednessScope::Cone);
    DefinednessResult w = checkDefinedness(cand, ref, seed, 0, 1,
                                           DefinednessScope::WholeGraphs);
    EXPECT_EQ(c.status, w.status) << "trial " << trial << ": " << c.message
                                  << " / " << w.message;
    EXPECT_EQ(c.message, w.message) << "trial " << trial;
    (c.ok() ? shown : refused) += 1;
  }
  // Both verdicts occur in the corpus.
  EXPECT_GT(shown, 20u);
  EXPECT_GT(refused, 50u);
}

namespace {
/// rms_norm(x)·W as one kernel whose division is in a thread graph (as
/// rmsnorm_matmul's hand-written best graph): x [4, 64], W [64, 32], two
/// blocks of 16 columns, four iterations of 16 along k. `mutant`: divides
/// by relu(rms − 1), which may be zero where the reference is defined.
UGraph rmsMatmulThreadDiv(bool mutant) {
  UGraph t(Level::Thread);
  int32_t a = t.addInput({}, ElemType::F32);
  int32_t r = t.addInput({}, ElemType::F32);
  if (mutant)
    r = t.addUnary(UnaryKind::relu,
                   t.addUnary(UnaryKind::add_scalar, r, -1.0));
  t.markOutput(t.addBinary(BinaryKind::div, a, r));
  UGraph b(Level::Block);
  b.grid = {2, 1, 1};
  b.forloopRange = 4;
  int32_t X = b.addInput({4, 64}, ElemType::F32);
  int32_t W = b.addInput({64, 32}, ElemType::F32);
  int32_t xt = b.addInputIterator(X, {-1, -1, -1}, 1);
  int32_t wt = b.addInputIterator(W, {1, -1, -1}, 0);
  int32_t acc = b.addAccum(AccumKind::sum, b.addMatmul(xt, wt), -1, 0);
  int32_t rms = b.addAccum(AccumKind::rms_last, xt, -1, 0);
  int32_t q = b.addThreadGraph({acc, rms}, std::move(t));
  b.markOutput(b.addOutputSaver(q, {1, -1, -1}));
  EXPECT_TRUE(b.error.empty()) << b.error;
  UGraph g;
  int32_t x = g.addInput({4, 64}, ElemType::F32);
  int32_t w = g.addInput({64, 32}, ElemType::F32);
  g.markOutput(g.addCustom({x, w}, std::move(b)));
  EXPECT_TRUE(g.error.empty()) << g.error;
  return g;
}
} // namespace

/// A thread graph kept only for its division keeps only its divisor's
/// operand: the matmul that computes its dividend, and the weight, go.
/// Verdicts as on the whole graphs: accepted (the reference divides by the
/// same rms), and the relu(rms − 1) mutant rejected.
TEST(DefinednessCone, ThreadGraphDivisionKeepsOnlyItsDivisor) {
  UGraph ref;
  int32_t x = ref.addInput({4, 64}, ElemType::F32);
  int32_t w = ref.addInput({64, 32}, ElemType::F32);
  ref.markOutput(ref.addMatmul(ref.addRmsNorm(x, -1, 0.0), w));
  for (bool mutant : {false, true}) {
    UGraph cand = rmsMatmulThreadDiv(mutant);
    std::optional<UGraph> c = definednessCone(cand);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(count(*c, OpKind::Matmul), 0);
    EXPECT_EQ(count(*c, OpKind::ThreadGraph), 1);
    ASSERT_EQ(c->bodies.size(), 1u);
    EXPECT_EQ(c->bodies[0].inputs.size(), 1u); // x only
    expectSameVerdict(cand, ref, mutant ? "relu(rms - 1)" : "rms");
    DefinednessResult r = checkDefinedness(cand, ref, 3);
    if (mutant)
      EXPECT_EQ(r.status, DefinednessResult::Status::NotShown) << r.message;
    else
      EXPECT_TRUE(r.ok()) << r.message;
  }
}

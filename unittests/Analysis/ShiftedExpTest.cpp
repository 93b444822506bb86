//===- ShiftedExpTest.cpp - Mode S: split softmax with local maxima -------===//
//
// docs/Rationale/Verification.md §2a. The reference is decode attention as
// a frontend writes it (scores over two key chunks, softmax with the row
// max subtracted, times V); the candidate is flash-decoding's split: each
// chunk shifted by its own row max, its sum and its P·V, then the combine
// rescales each chunk by exp(m_b − M). Mode U sees different exp arguments
// and cannot accept it; mode S reads exp(a − b) as exp(a)/exp(b), the
// shifts cancel, and it is accepted. Every mutant of the rescale (a
// missing factor, a factor of the wrong chunk, a missing combine term) is
// not; a different but consistent global shift is.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/ShiftedExp.h"
#include "Mirage/Analysis/Verifier.h"

#include <gtest/gtest.h>

using namespace mirage;

namespace {

constexpr int64_t kRows = 4, kDim = 16, kChunk = 32, kOut = 16;

UGraph reference() {
  UGraph g;
  int32_t q = g.addInput({kRows, kDim}, ElemType::F32);
  int32_t k1 = g.addInput({kDim, kChunk}, ElemType::F32);
  int32_t k2 = g.addInput({kDim, kChunk}, ElemType::F32);
  int32_t v1 = g.addInput({kChunk, kOut}, ElemType::F32);
  int32_t v2 = g.addInput({kChunk, kOut}, ElemType::F32);
  int32_t s = g.addConcat(g.addMatmul(q, k1), g.addMatmul(q, k2), 1);
  int32_t m = g.addReduce(ReduceKind::max, s, 1);
  int32_t e = g.addUnary(UnaryKind::exp, g.addBinary(BinaryKind::sub, s, m));
  int32_t l = g.addReduce(ReduceKind::sum, e, 1);
  int32_t p = g.addBinary(BinaryKind::div, e, l);
  g.markOutput(g.addMatmul(p, g.addConcat(v1, v2, 0)));
  return g;
}

/// What a mutant changes in the split candidate.
enum class Mutation {
  None,
  MissingRescale,    // chunk 2's P·V is not rescaled
  WrongChunkFactor,  // chunk 2 is rescaled by chunk 1's factor
  MissingCombine,    // the denominator lacks chunk 2's sum
  GlobalShiftIsM1,   // correct: the global shift is chunk 1's max
};

UGraph splitCandidate(Mutation mut) {
  UGraph g;
  int32_t q = g.addInput({kRows, kDim}, ElemType::F32);
  int32_t k[2], v[2];
  k[0] = g.addInput({kDim, kChunk}, ElemType::F32);
  k[1] = g.addInput({kDim, kChunk}, ElemType::F32);
  v[0] = g.addInput({kChunk, kOut}, ElemType::F32);
  v[1] = g.addInput({kChunk, kOut}, ElemType::F32);
  int32_t m[2], l[2], o[2];
  for (int c = 0; c < 2; ++c) {
    int32_t s = g.addMatmul(q, k[c]);
    m[c] = g.addReduce(ReduceKind::max, s, 1);
    int32_t p =
        g.addUnary(UnaryKind::exp, g.addBinary(BinaryKind::sub, s, m[c]));
    l[c] = g.addReduce(ReduceKind::sum, p, 1);
    o[c] = g.addMatmul(p, v[c]);
  }
  int32_t big = mut == Mutation::GlobalShiftIsM1
                    ? m[0]
                    : g.addReduce(ReduceKind::max,
                                  g.addConcat(m[0], m[1], 1), 1);
  int32_t w[2];
  for (int c = 0; c < 2; ++c)
    w[c] = g.addUnary(UnaryKind::exp,
                      g.addBinary(BinaryKind::sub, m[c], big));
  if (mut == Mutation::WrongChunkFactor)
    w[1] = w[0];
  int32_t o2 = mut == Mutation::MissingRescale
                   ? o[1]
                   : g.addBinary(BinaryKind::mul, w[1], o[1]);
  int32_t num =
      g.addBinary(BinaryKind::add, g.addBinary(BinaryKind::mul, w[0], o[0]), o2);
  int32_t den = g.addBinary(BinaryKind::mul, w[0], l[0]);
  if (mut != Mutation::MissingCombine)
    den = g.addBinary(BinaryKind::add, den,
                      g.addBinary(BinaryKind::mul, w[1], l[1]));
  g.markOutput(g.addBinary(BinaryKind::div, num, den));
  return g;
}

VerificationResult verify(const UGraph &cand, uint64_t seed) {
  VerifyOptions o;
  o.seed = seed;
  return verifyEquivalence(cand, reference(), o);
}

} // namespace

TEST(ShiftedExp, RewriteIsAQuotientOfExps) {
  UGraph ref = reference();
  ASSERT_TRUE(ref.error.empty()) << ref.error;
  EXPECT_TRUE(hasShiftedExp(ref));
  std::optional<UGraph> r = expandShiftedExps(ref);
  ASSERT_TRUE(r);
  EXPECT_FALSE(hasShiftedExp(*r));
  unsigned exps = 0, divs = 0;
  for (const UOp &op : r->ops) {
    exps += op.kind == OpKind::Unary && op.unaryKind() == UnaryKind::exp;
    divs += op.kind == OpKind::Binary && op.binaryKind() == BinaryKind::div;
  }
  EXPECT_EQ(exps, 2u); // exp(s), exp(m)
  EXPECT_EQ(divs, 2u); // the quotient and the softmax's own
  EXPECT_EQ(r->values[r->outputs[0]].shape,
            ref.values[ref.outputs[0]].shape);
}

TEST(ShiftedExp, SplitSoftmaxWithLocalMaximaVerifies) {
  for (Mutation mut : {Mutation::None, Mutation::GlobalShiftIsM1}) {
    UGraph cand = splitCandidate(mut);
    ASSERT_TRUE(cand.error.empty()) << cand.error;
    for (uint64_t seed : {1u, 7u, 42u}) {
      VerificationResult r = verify(cand, seed);
      EXPECT_EQ(r.status, VerifyStatus::Equivalent) << r.message;
      EXPECT_NE(r.message.find("mode S"), std::string::npos) << r.message;
      EXPECT_LT(r.log2Bound, -60) << r.message;
    }
  }
}

TEST(ShiftedExp, WrongRescalesAreRejected) {
  for (Mutation mut : {Mutation::MissingRescale, Mutation::WrongChunkFactor,
                       Mutation::MissingCombine}) {
    UGraph cand = splitCandidate(mut);
    ASSERT_TRUE(cand.error.empty()) << cand.error;
    for (uint64_t seed : {1u, 7u, 42u}) {
      VerificationResult r = verify(cand, seed);
      EXPECT_FALSE(r.status == VerifyStatus::Equivalent ||
                   r.status == VerifyStatus::EquivalentUpToPermutation)
          << static_cast<int>(mut) << ": " << r.message;
    }
  }
}

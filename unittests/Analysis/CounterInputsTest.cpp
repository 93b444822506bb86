//===- CounterInputsTest.cpp - Counter-based inputs and generated sources -===//
//
// The verifier's inputs are a pure function of (key, tensor, index): the
// same for a seed however they are read (whole, in pieces, by any thread),
// and an evaluator that generates a large input where it reads it computes
// exactly what it computes on the stored input. Verdicts do not depend on
// the number of threads.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Analysis/SymmetricUnitDraw.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/CounterInputs.h"
#include "Mirage/Semantics/Evaluator.h"

#include "SameTensors.h"
#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace mirage;
using ff::FieldValue;
using Sem = FiniteFieldSemantics;
using T = Tensor<FieldValue>;

namespace {
/// One test's domain (its moduli are drawn from the key) and its draw step.
const Sem kSem(1, Sem::ExpMode::Uninterpreted);
auto draw = [](CounterWords &w) { return kSem.random(w); };

using test::sameTensors;

/// Every source of `srcs` read whole into storage.
std::vector<T> stored(const std::vector<TensorSource<FieldValue>> &srcs) {
  std::vector<T> out;
  for (const auto &s : srcs) {
    out.emplace_back(s.shape, FieldValue{});
    s.read(0, out.back().size(), out.back().data.data());
  }
  return out;
}
} // namespace

TEST(CounterInputs, ReproducibleForASeedAndIndependentOfHowTheyAreRead) {
  std::vector<FieldValue> whole(1000), again(1000), pieces(1000), other(1000);
  fillCounterElements(42, 3, 0, 1000, whole.data(), draw);
  fillCounterElements(42, 3, 0, 1000, again.data(), draw);
  // The same elements in uneven pieces, last piece first.
  fillCounterElements(42, 3, 700, 300, pieces.data() + 700, draw);
  fillCounterElements(42, 3, 0, 1, pieces.data(), draw);
  fillCounterElements(42, 3, 1, 699, pieces.data() + 1, draw);
  fillCounterElements(43, 3, 0, 1000, other.data(), draw);
  int differ = 0, otherTensor = 0;
  std::vector<FieldValue> t4(1000);
  fillCounterElements(42, 4, 0, 1000, t4.data(), draw);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_TRUE(test::sameValue(whole[i], again[i])) << i;
    EXPECT_TRUE(test::sameValue(whole[i], pieces[i])) << i;
    EXPECT_LT(whole[i].p, kSem.moduli().p.m);
    EXPECT_LT(whole[i].q, kSem.moduli().q.m);
    EXPECT_FALSE(whole[i].qUndef());
    differ += !test::sameValue(whole[i], other[i]);
    otherTensor += !test::sameValue(whole[i], t4[i]);
  }
  // Another seed or another tensor gives other values (a collision of a
  // 63-bit residue has probability 2^-63 per element).
  EXPECT_EQ(differ, 1000);
  EXPECT_EQ(otherTensor, 1000);
}

TEST(CounterInputs, LargeInputsAreGeneratedSmallOnesStored) {
  UGraph g = test::rmsMatmulReference(4, 1024, 1280);
  std::vector<T> storage;
  auto srcs = counterInputs<FieldValue>(g, 7, 1 << 20, storage, draw);
  ASSERT_EQ(srcs.size(), 2u);
  EXPECT_FALSE(srcs[0].isGenerated()); // X: 4 × 1024
  EXPECT_TRUE(srcs[1].isGenerated());  // W: 1024 × 1280 > 2^20
  // Whether stored or generated, element i of input t is the same.
  std::vector<T> allStored;
  auto again = counterInputs<FieldValue>(g, 7, 1 << 30, allStored, draw);
  EXPECT_FALSE(again[1].isGenerated());
  EXPECT_TRUE(sameTensors(stored(srcs), allStored));
}

TEST(CounterInputs, EvaluatorOnGeneratedInputsEqualsStored) {
  // A kernel-level matmul whose weight is generated (streamed) and the fused
  // kernel whose iterators read tiles of it, for several thread counts.
  UGraph ref = test::rmsMatmulReference(4, 1024, 1280);
  UGraph fused = test::rmsMatmulFused(4, 1024, 1280, 8, 16);
  const Sem &sem = kSem; // the moduli the inputs were drawn below
  std::vector<T> storage;
  auto srcs = counterInputs<FieldValue>(ref, 11, 1 << 20, storage, draw);
  ASSERT_TRUE(srcs[1].isGenerated());
  std::vector<T> whole = stored(srcs);
  for (const UGraph *g : {&ref, &fused}) {
    std::vector<T> expect = Evaluator<Sem>(sem, 1).run(*g, whole);
    for (unsigned threads : {1u, 2u, 3u})
      EXPECT_TRUE(sameTensors(Evaluator<Sem>(sem, threads).run(*g, srcs),
                              expect))
          << threads;
  }
}

TEST(CounterInputs, VerdictIndependentOfThreadCount) {
  // W has 1024 × 1280 elements: generated where read.
  UGraph ref = test::rmsMatmulReference(4, 1024, 1280);
  UGraph good = test::rmsMatmulFused(4, 1024, 1280, 8, 16);
  UGraph bad = test::rmsMatmulFused(4, 1024, 1280, 8, 16, AccumKind::mean_last);
  for (const UGraph *cand : {&good, &bad}) {
    VerifyOptions o;
    o.seed = 5; // the same draws for every thread count
    o.threads = 1;
    VerificationResult serial = verifyEquivalence(*cand, ref, o);
    EXPECT_EQ(serial.status, cand == &good ? VerifyStatus::Equivalent
                                           : VerifyStatus::NotEquivalent);
    for (unsigned threads : {2u, 3u, 0u}) {
      o.threads = threads;
      VerificationResult r = verifyEquivalence(*cand, ref, o);
      EXPECT_EQ(r.status, serial.status) << threads;
      EXPECT_EQ(r.tests, serial.tests) << threads;
      EXPECT_EQ(r.differingOutput, serial.differingOutput) << threads;
      EXPECT_EQ(r.differingTest, serial.differingTest) << threads;
      EXPECT_EQ(r.message, serial.message) << threads;
    }
  }
}

TEST(CounterInputs, OverTheMemoryLimitIsInconclusiveWithAReason) {
  // eps > 0: the candidate's definedness probe shows its calls defined, so
  // nothing beyond verificationBytes is ever held.
  UGraph ref = test::rmsEpsMatmulReference(4, 64, 32, 1e-5);
  UGraph fused = test::rmsEpsMatmulFused(4, 64, 32, 4, 4, 1e-5);
  VerifyOptions o;
  o.memoryLimitBytes = verificationBytes(fused, ref) - 1;
  VerificationResult r = verifyEquivalence(fused, ref, o);
  EXPECT_EQ(r.status, VerifyStatus::Inconclusive);
  EXPECT_NE(r.message.find("over the limit"), std::string::npos) << r.message;
  o.memoryLimitBytes = verificationBytes(fused, ref);
  EXPECT_EQ(verifyEquivalence(fused, ref, o).status, VerifyStatus::Equivalent);

  // eps = 0: the probe cannot show rms > 0, and the definedness check's
  // full run (both cones, 120-byte records) holds more than
  // verificationBytes; it is refused then, by name, and only then
  // (Verification.md §4.6, "Less of it").
  UGraph ref0 = test::rmsMatmulReference(4, 64, 32);
  UGraph fused0 = test::rmsMatmulFused(4, 64, 32, 4, 4);
  o.memoryLimitBytes = verificationBytes(fused0, ref0);
  r = verifyEquivalence(fused0, ref0, o);
  EXPECT_EQ(r.status, VerifyStatus::Inconclusive);
  EXPECT_NE(r.message.find("the definedness check"), std::string::npos)
      << r.message;
  o.memoryLimitBytes = 0; // the default budget
  EXPECT_EQ(verifyEquivalence(fused0, ref0, o).status,
            VerifyStatus::Equivalent);
}

TEST(CounterInputs, MultiplyAddsCountsBothLevels) {
  // rms_norm squares m·k, the matmul m·k·n; the fused form the same matmul
  // products over its grid and loop (its rms_last accumulator squares are
  // not counted: an accumulator is not a matmul or rms_norm).
  UGraph ref = test::rmsMatmulReference(4, 64, 32);
  UGraph fused = test::rmsMatmulFused(4, 64, 32, 4, 4);
  EXPECT_EQ(multiplyAdds(ref), 4.0 * 64 + 4.0 * 64 * 32);
  EXPECT_EQ(multiplyAdds(fused), 4.0 * 64 * 32);
}

// A draw step's range fill (compiled for wide vectors) gives exactly the
// values of its element-by-element step, in every mode and for ranges that
// start anywhere and end in a partial vector.
TEST(CounterInputs, RangeFillsEqualTheElementByElementStep) {
  Sem modeU(5, Sem::ExpMode::Uninterpreted), modeI(5, Sem::ExpMode::Interpreted);
  for (const Sem *sem : {&modeU, &modeI}) {
    auto draw = sem->counterDraw();
    auto one = [&](CounterWords &w) { return sem->random(w); };
    for (auto [begin, count] : {std::pair<int64_t, int64_t>{0, 1},
                                {3, 17}, {1000, 64}, {12345, 131}}) {
      std::vector<FieldValue> fast(count), slow(count);
      fillCounterElements(99, 2, begin, count, fast.data(), draw);
      fillCounterElements(99, 2, begin, count, slow.data(), one);
      for (int64_t i = 0; i < count; ++i)
        ASSERT_TRUE(test::sameValue(fast[i], slow[i])) << begin + i;
    }
  }
  SymmetricUnitDraw unit;
  auto oneUnit = [&](CounterWords &w) { return unit(w); };
  std::vector<double> fast(333), slow(333);
  fillCounterElements(7, 1, 11, 333, fast.data(), unit);
  fillCounterElements(7, 1, 11, 333, slow.data(), oneUnit);
  for (int i = 0; i < 333; ++i) {
    ASSERT_EQ(fast[i], slow[i]) << i;
    ASSERT_GE(fast[i], -1.0);
    ASSERT_LT(fast[i], 1.0);
  }
}


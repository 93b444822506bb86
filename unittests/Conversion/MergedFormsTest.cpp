//===- MergedFormsTest.cpp - Row-major forms of the importer ---------------===//
//
// The importer holds a program value in any row-major reshape of it (its
// kernel form; docs/Rationale/Import.md, "Merged forms"). Two rules decide
// what an op may do in such a form: `formDim` (where a reduced dim is in
// the form) and `broadcastInForm` (the shape, in the form, of a broadcast
// operand). Both are checked here against index arithmetic over every
// element, on seeded random shapes and reshapes: the op computed in the
// form must read and write the same elements, in row-major order, as the
// op computed in the program's shape.
//
//===----------------------------------------------------------------------===//
#include "ImportCommon.h"

#include <gtest/gtest.h>

#include <random>

using namespace mirage::import;

namespace {

using Shape = llvm::SmallVector<int64_t>;

int64_t numel(llvm::ArrayRef<int64_t> s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// The multi-index of flat index `i` in `s`, row-major.
Shape unflatten(int64_t i, llvm::ArrayRef<int64_t> s) {
  Shape idx(s.size());
  for (int64_t d = (int64_t)s.size() - 1; d >= 0; --d) {
    idx[d] = i % s[d];
    i /= s[d];
  }
  return idx;
}

int64_t flatten(llvm::ArrayRef<int64_t> idx, llvm::ArrayRef<int64_t> s) {
  int64_t i = 0;
  for (size_t d = 0; d < s.size(); ++d)
    i = i * s[d] + idx[d];
  return i;
}

/// The flat index, in an operand of shape `o` broadcast to `s`, of the
/// element that element `i` of `s` reads.
int64_t broadcastSource(int64_t i, llvm::ArrayRef<int64_t> o,
                        llvm::ArrayRef<int64_t> s) {
  Shape idx = unflatten(i, s);
  for (size_t d = 0; d < o.size(); ++d)
    if (o[d] == 1)
      idx[d] = 0;
  return flatten(idx, o);
}

/// A random factorisation of `n` into 1 to 4 dims (unit dims included).
Shape randomShape(std::mt19937 &rng, int64_t n) {
  int rank = std::uniform_int_distribution<int>(1, 4)(rng);
  Shape s;
  for (int k = 0; k < rank - 1; ++k) {
    Shape divs;
    for (int64_t d = 1; d <= n; ++d)
      if (n % d == 0)
        divs.push_back(d);
    int64_t d = divs[std::uniform_int_distribution<size_t>(0, divs.size() - 1)(rng)];
    s.push_back(d);
    n /= d;
  }
  s.push_back(n);
  return s;
}

constexpr int64_t kSizes[] = {6, 8, 12, 16, 24, 30, 36};

TEST(MergedForms, BroadcastInFormReadsTheSameElements) {
  std::mt19937 rng(22);
  int checked = 0, refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    int64_t n = kSizes[trial % std::size(kSizes)];
    Shape space = randomShape(rng, n), form = randomShape(rng, n);
    // A broadcast operand: some dims of the space replaced by 1.
    Shape op(space);
    for (int64_t &d : op)
      if (std::uniform_int_distribution<int>(0, 2)(rng) == 0)
        d = 1;
    auto inForm = broadcastInForm(op, space, form);
    if (!inForm) {
      ++refused;
      continue;
    }
    ++checked;
    ASSERT_EQ(inForm->size(), form.size());
    ASSERT_EQ(numel(*inForm), numel(op)) << "not a reshape of the operand";
    // Element i of the result reads the same operand element either way
    // (the operand in the form is the operand's data, row-major).
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(broadcastSource(i, *inForm, form), broadcastSource(i, op, space))
          << "element " << i;
  }
  // Both outcomes occur, so the check above is not vacuous.
  EXPECT_GT(checked, 1000);
  EXPECT_GT(refused, 100);
}

TEST(MergedForms, FormDimReducesTheSameElements) {
  std::mt19937 rng(23);
  int checked = 0, refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    int64_t n = kSizes[trial % std::size(kSizes)];
    Shape space = randomShape(rng, n), form = randomShape(rng, n);
    int64_t d = std::uniform_int_distribution<int64_t>(0, space.size() - 1)(rng);
    std::optional<int64_t> t = formDim(space, d, form);
    if (!t) {
      ++refused;
      continue;
    }
    ++checked;
    ASSERT_EQ(form[*t], space[d]);
    // Reducing `space` along d and `form` along t sends every element to
    // the same output element (outputs compared flat, row-major).
    Shape rs(space), rf(form);
    rs[d] = 1;
    rf[*t] = 1;
    for (int64_t i = 0; i < n; ++i) {
      Shape is = unflatten(i, space), in = unflatten(i, form);
      is[d] = 0;
      in[*t] = 0;
      ASSERT_EQ(flatten(in, rf), flatten(is, rs)) << "element " << i;
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(refused, 100);
}

TEST(MergedForms, EqualShapesKeepTheirDim) {
  // A unit dim may sit anywhere after as many elements; the form equal to
  // the shape must keep the dim itself (a reduction of a unit dim in place).
  EXPECT_EQ(formDim({2, 1, 1, 16}, 2, {2, 1, 1, 16}), 2);
  EXPECT_EQ(formDim({2, 16, 64}, 2, {32, 64}), 1);
  EXPECT_EQ(formDim({2, 16, 64}, 1, {32, 64}), std::nullopt);
  auto b = broadcastInForm({1, 1, 64}, {2, 16, 64}, {32, 64});
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, Shape({1, 64}));
  // BERT's padding mask: broadcast over heads, not batches.
  EXPECT_FALSE(broadcastInForm({2, 1, 1, 16}, {2, 4, 16, 16}, {8, 16, 16}));
}

} // namespace

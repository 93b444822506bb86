//===- ScalarFormulasTest.cpp - The element-wise formulas, stated once ----===//
//
// The emitter and the float64 evaluator instantiate the same templates
// (ScalarFormulas.h), so checking the templates' expression trees checks
// both: a recording domain spells each formula, and the float64 domain is
// compared with the documented real functions.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/ScalarFormulas.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

using namespace mirage;

namespace {

/// Values are the expression trees, spelled; sigmoid and gelu are the real
/// definitions, as in the float64 evaluator and the emitter.
struct Spelling {
  using Value = std::string;
  static std::string call(const char *f, const Value &a) {
    return std::string(f) + "(" + a + ")";
  }
  static std::string call(const char *f, const Value &a, const Value &b) {
    return std::string(f) + "(" + a + ", " + b + ")";
  }
  Value fromInt(int64_t v) const { return std::to_string(v); }
  Value fromDouble(double v) const {
    std::ostringstream os;
    os << v;
    return os.str();
  }
  Value add(const Value &a, const Value &b) const { return call("add", a, b); }
  Value sub(const Value &a, const Value &b) const { return call("sub", a, b); }
  Value mul(const Value &a, const Value &b) const { return call("mul", a, b); }
  Value div(const Value &a, const Value &b) const { return call("div", a, b); }
  Value pow(const Value &a, const Value &b) const { return call("pow", a, b); }
  Value neg(const Value &x) const { return call("neg", x); }
  Value exp(const Value &x) const { return call("exp", x); }
  Value sqrt(const Value &x) const { return call("sqrt", x); }
  Value tanh(const Value &x) const { return call("tanh", x); }
  Value erf(const Value &x) const { return call("erf", x); }
  Value relu(const Value &x) const { return call("relu", x); }
  Value sigmoid(const Value &x) const { return realSigmoid(*this, x); }
  Value gelu(const Value &x) const { return realGelu(*this, x); }
};

std::string spell(UnaryKind k, double scalar = 0.5) {
  return applyUnary(Spelling(), k, std::string("x"), scalar);
}

} // namespace

TEST(ScalarFormulas, CompositesAreSpelledThroughTheirDefinitions) {
  EXPECT_EQ(spell(UnaryKind::square), "mul(x, x)");
  EXPECT_EQ(spell(UnaryKind::rsqrt), "div(1, sqrt(x))");
  EXPECT_EQ(spell(UnaryKind::reciprocal), "div(1, x)");
  EXPECT_EQ(spell(UnaryKind::sigmoid), "div(1, add(1, exp(neg(x))))");
  // silu is x·sigmoid(x) in every domain (issue 21: the evaluator had
  // x/(1+exp(-x)), the emitter x·sigmoid(x)).
  EXPECT_EQ(spell(UnaryKind::silu), "mul(x, div(1, add(1, exp(neg(x)))))");
  EXPECT_EQ(spell(UnaryKind::gelu),
            "mul(mul(0.5, x), add(1, tanh(mul(0.797885, add(x, "
            "mul(mul(mul(0.044715, x), x), x))))))");
  EXPECT_EQ(spell(UnaryKind::mul_scalar, 2), "mul(x, 2)");
  EXPECT_EQ(spell(UnaryKind::add_scalar, 2), "add(x, 2)");
  EXPECT_EQ(spell(UnaryKind::relu), "relu(x)");
  EXPECT_EQ(spell(UnaryKind::exp), "exp(x)");
  EXPECT_EQ(spell(UnaryKind::sqrt), "sqrt(x)");
  EXPECT_EQ(spell(UnaryKind::tanh), "tanh(x)");
  EXPECT_EQ(spell(UnaryKind::erf), "erf(x)");
  Spelling d;
  EXPECT_EQ(applyBinary(d, BinaryKind::sub, std::string("a"), std::string("b")),
            "sub(a, b)");
  EXPECT_EQ(applyBinary(d, BinaryKind::pow, std::string("a"), std::string("b")),
            "pow(a, b)");
}

TEST(ScalarFormulas, Float64MatchesTheDocumentedFunctions) {
  auto close = [](double a, double b) {
    return std::fabs(a - b) <= 4 * 0x1.0p-52 * std::max(1.0, std::fabs(b));
  };
  const double c = std::sqrt(2.0 / M_PI);
  for (double x = -6; x <= 6; x += 0.125) {
    double sig = 1.0 / (1.0 + std::exp(-x));
    EXPECT_EQ(applyUnaryF64(UnaryKind::sigmoid, x, 0), sig) << x;
    EXPECT_EQ(applyUnaryF64(UnaryKind::silu, x, 0), x * sig) << x;
    EXPECT_TRUE(close(applyUnaryF64(UnaryKind::silu, x, 0),
                      x / (1.0 + std::exp(-x))))
        << x;
    EXPECT_TRUE(close(applyUnaryF64(UnaryKind::gelu, x, 0),
                      0.5 * x * (1 + std::tanh(c * (x + 0.044715 * x * x * x)))))
        << x;
    EXPECT_EQ(applyUnaryF64(UnaryKind::relu, x, 0), x > 0 ? x : 0.0) << x;
    EXPECT_EQ(applyUnaryF64(UnaryKind::tanh, x, 0), std::tanh(x)) << x;
    EXPECT_EQ(applyUnaryF64(UnaryKind::erf, x, 0), std::erf(x)) << x;
    EXPECT_EQ(applyUnaryF64(UnaryKind::mul_scalar, x, 3), 3 * x) << x;
    EXPECT_EQ(applyUnaryF64(UnaryKind::add_scalar, x, 3), x + 3) << x;
    if (x > 0) {
      EXPECT_EQ(applyUnaryF64(UnaryKind::rsqrt, x, 0), 1 / std::sqrt(x)) << x;
      EXPECT_EQ(applyUnaryF64(UnaryKind::reciprocal, x, 0), 1 / x) << x;
    }
  }
  // relu maps NaN to 0, as the emitter's compare-and-select does.
  EXPECT_EQ(applyUnaryF64(UnaryKind::relu, std::nan(""), 0), 0.0);
}

TEST(ScalarFormulas, Float64MaxPropagatesNaNInEitherOrder) {
  // The emitted max (arith.maximumf, PTX max.NaN) is NaN when either
  // operand is; a reduction's result must not depend on where its NaN sits.
  Float64Semantics f;
  double nan = std::nan("");
  EXPECT_TRUE(std::isnan(f.max(nan, 1.0)));
  EXPECT_TRUE(std::isnan(f.max(1.0, nan)));
  EXPECT_TRUE(std::isnan(f.max(-INFINITY, nan)));
  EXPECT_EQ(f.max(-1.0, 2.0), 2.0);
  EXPECT_EQ(f.max(2.0, -INFINITY), 2.0);
}

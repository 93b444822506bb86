//===- FormalCheck.cpp - Z3 proof of equivalence at small shapes ----------===//
//
// The one source of the project compiled with exceptions (z3++ reports errors
// by throwing); every entry point catches them, so none escapes.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/FormalCheck.h"
#include "Mirage/Semantics/Evaluator.h"

#include <z3++.h>

#include <chrono>
#include <cmath>
#include <string>
#include <unordered_map>

using namespace mirage;

namespace {

/// Decimal string of |v|·2^e (e ≥ 0) or of 2^e, by repeated doubling.
std::string doubledDecimal(uint64_t v, unsigned e) {
  std::string d = std::to_string(v); // most significant digit first
  for (unsigned i = 0; i < e; ++i) {
    int carry = 0;
    for (int k = (int)d.size() - 1; k >= 0; --k) {
      int x = (d[k] - '0') * 2 + carry;
      d[k] = char('0' + x % 10);
      carry = x / 10;
    }
    if (carry)
      d.insert(d.begin(), char('0' + carry));
  }
  return d;
}

//===----------------------------------------------------------------------===//
// Z3Semantics: the scalar domain
//===----------------------------------------------------------------------===//

/// Values are Z3 terms of sort Real. Not parallel-safe (a Z3 context is
/// single-threaded), so the evaluator runs it serially.
class Z3Semantics {
public:
  using Value = z3::expr;

  explicit Z3Semantics(z3::context &c)
      : c(c), R(c.real_sort()), fExp(c.function("exp", R, R)),
        fSqrt(c.function("sqrt", R, R)),
        fSigmoid(c.function("sigmoid", R, R)),
        fTanh(c.function("tanh", R, R)), fErf(c.function("erf", R, R)),
        fGelu(c.function("gelu", R, R)),
        fRelu(c.function("relu", R, R)), fPow(c.function("pow", R, R, R)),
        fMax(c.function("max", R, R, R)), divisors_(c) {}

  Value zero() const { return c.real_val(0); }
  Value fromInt(int64_t v) const { return c.real_val(v); }
  /// Every finite double is m·2^e exactly.
  Value fromDouble(double v) const {
    if (!std::isfinite(v)) {
      badConstant_ = true;
      return zero();
    }
    if (v == 0)
      return zero();
    int e = 0;
    double m = std::frexp(v, &e);
    int64_t mant = (int64_t)std::ldexp(m, 53);
    e -= 53;
    while (mant % 2 == 0) { // smaller numerals
      mant /= 2;
      ++e;
    }
    uint64_t am = mant < 0 ? (uint64_t)(-mant) : (uint64_t)mant;
    std::string s = mant < 0 ? "-" : "";
    if (e >= 0)
      s += doubledDecimal(am, e);
    else
      s += std::to_string(am) + "/" + doubledDecimal(1, -e);
    return c.real_val(s.c_str());
  }
  Value add(const Value &a, const Value &b) const { return a + b; }
  Value sub(const Value &a, const Value &b) const { return a - b; }
  Value mul(const Value &a, const Value &b) const { return a * b; }
  Value div(const Value &a, const Value &b) const {
    divisors_.push_back(b);
    return a / b;
  }
  Value pow(const Value &a, const Value &b) const { return fPow(a, b); }
  /// Commutative: the normal form orders the arguments (see Normalizer).
  Value max(const Value &a, const Value &b) const { return fMax(a, b); }
  Value unary(UnaryKind k, const Value &x, double scalar) const {
    return applyUnary(*this, k, x, scalar);
  }
  // The primitives of ScalarFormulas.h: one uninterpreted symbol each.
  Value exp(const Value &x) const { return fExp(x); }
  Value sqrt(const Value &x) const { return fSqrt(x); }
  Value tanh(const Value &x) const { return fTanh(x); }
  Value erf(const Value &x) const { return fErf(x); }
  Value sigmoid(const Value &x) const { return fSigmoid(x); }
  Value gelu(const Value &x) const { return fGelu(x); }
  Value relu(const Value &x) const { return fRelu(x); }

  /// Every divisor the evaluation used (the side conditions).
  const z3::expr_vector &divisors() const { return divisors_; }
  bool badConstant() const { return badConstant_; }
  bool isMax(const z3::func_decl &d) const { return z3::eq(d, fMax); }

private:
  z3::context &c;
  z3::sort R;
  z3::func_decl fExp, fSqrt, fSigmoid, fTanh, fErf, fGelu, fRelu, fPow, fMax;
  mutable z3::expr_vector divisors_;
  mutable bool badConstant_ = false;
};

//===----------------------------------------------------------------------===//
// Rational normal form
//===----------------------------------------------------------------------===//

/// Rewrites a term into num/den, num and den expanded polynomials (Z3's
/// sum-of-monomials simplifier) over the inputs and function applications,
/// whose arguments are normalized first. Denominators that are numerals are
/// folded into the numerator; equal denominators are not multiplied. Exact
/// under the side condition that every divisor is nonzero.
class Normalizer {
public:
  Normalizer(z3::context &c, const Z3Semantics &sem)
      : c(c), sem(sem), params(c), one(c.real_val(1)) {
    params.set("som", true);
    params.set("arith_lhs", false);
  }

  struct Frac {
    z3::expr num, den;
  };

  Frac norm(const z3::expr &e) {
    unsigned id = Z3_get_ast_id(c, e);
    auto it = memo.find(id);
    if (it != memo.end())
      return it->second;
    Frac f = compute(e);
    memo.emplace(id, f);
    return f;
  }

  /// One canonical term for a fraction (function arguments, divisors).
  z3::expr canonical(const Frac &f) {
    return isOne(f.den) ? f.num : simp(f.num / f.den);
  }
  z3::expr simp(const z3::expr &e) { return e.simplify(params); }
  static bool isNumeral(const z3::expr &e, const char *v) {
    return e.is_numeral() && e.get_decimal_string(0) == v;
  }
  bool isOne(const z3::expr &e) { return z3::eq(e, one) || isNumeral(e, "1"); }

private:
  Frac make(const z3::expr &num, const z3::expr &den) {
    z3::expr n = simp(num), d = simp(den);
    if (d.is_numeral() && !isNumeral(d, "0")) { // fold a constant denominator
      n = simp(n / d);
      d = one;
    }
    if (isNumeral(n, "0"))
      d = one;
    return {n, d};
  }
  Frac add(const Frac &a, const Frac &b, bool subtract) {
    z3::expr bn = subtract ? -b.num : b.num;
    if (z3::eq(a.den, b.den))
      return make(a.num + bn, a.den);
    return make(a.num * b.den + bn * a.den, a.den * b.den);
  }
  Frac mul(const Frac &a, const Frac &b) {
    return make(a.num * b.num, a.den * b.den);
  }
  Frac div(const Frac &a, const Frac &b) {
    return make(a.num * b.den, a.den * b.num);
  }

  Frac compute(const z3::expr &e) {
    if (e.is_numeral() || e.is_const())
      return {e, one};
    if (!e.is_app())
      return {e, one};
    z3::func_decl d = e.decl();
    unsigned n = e.num_args();
    switch (d.decl_kind()) {
    case Z3_OP_ADD: {
      Frac f = norm(e.arg(0));
      for (unsigned i = 1; i < n; ++i)
        f = add(f, norm(e.arg(i)), false);
      return f;
    }
    case Z3_OP_SUB: {
      Frac f = norm(e.arg(0));
      for (unsigned i = 1; i < n; ++i)
        f = add(f, norm(e.arg(i)), true);
      return f;
    }
    case Z3_OP_UMINUS: {
      Frac f = norm(e.arg(0));
      return make(-f.num, f.den);
    }
    case Z3_OP_MUL: {
      Frac f = norm(e.arg(0));
      for (unsigned i = 1; i < n; ++i)
        f = mul(f, norm(e.arg(i)));
      return f;
    }
    case Z3_OP_DIV:
      return div(norm(e.arg(0)), norm(e.arg(1)));
    case Z3_OP_UNINTERPRETED: {
      z3::expr_vector args(c);
      for (unsigned i = 0; i < n; ++i)
        args.push_back(canonical(norm(e.arg(i))));
      if (sem.isMax(d) && n == 2) {
        if (z3::eq(args[0], args[1]))
          return norm(e.arg(0)); // max(x, x) = x
        if (Z3_get_ast_id(c, args[0]) > Z3_get_ast_id(c, args[1])) {
          z3::expr_vector sw(c); // commutative: order the arguments
          sw.push_back(args[1]);
          sw.push_back(args[0]);
          args = sw;
        }
      }
      return {d(args), one};
    }
    default:
      return {e, one};
    }
  }

  z3::context &c;
  const Z3Semantics &sem;
  z3::params params;
  z3::expr one;
  std::unordered_map<unsigned, Frac> memo;
};

std::string decimal(const z3::expr &v) {
  if (v.is_numeral()) {
    std::string s = v.get_decimal_string(8);
    return s;
  }
  return v.to_string();
}

FormalResult check(const UGraph &cand, const UGraph &ref,
                   const FormalOptions &opts) {
  FormalResult res;
  bool sigOk = cand.inputs.size() == ref.inputs.size() &&
               cand.outputs.size() == ref.outputs.size();
  for (size_t i = 0; sigOk && i < ref.inputs.size(); ++i)
    sigOk = cand.values[cand.inputs[i]].shape == ref.values[ref.inputs[i]].shape;
  for (size_t i = 0; sigOk && i < ref.outputs.size(); ++i)
    sigOk = cand.values[cand.outputs[i]].shape ==
            ref.values[ref.outputs[i]].shape;
  if (!sigOk) {
    res.status = FormalStatus::NotEquivalent;
    res.message = "the signatures differ";
    return res;
  }
  int64_t inElems = 0, outElems = 0;
  for (int32_t v : ref.inputs)
    inElems += numElements(ref.values[v].shape);
  for (int32_t v : ref.outputs)
    outElems += numElements(ref.values[v].shape);
  if (inElems > opts.maxElements || outElems > opts.maxElements) {
    res.status = FormalStatus::TooLarge;
    res.message = std::to_string(inElems) + " input and " +
                  std::to_string(outElems) +
                  " output elements exceed the limit of " +
                  std::to_string(opts.maxElements);
    return res;
  }

  z3::context c;
  Z3Semantics sem(c);
  using T = Tensor<z3::expr>;
  std::vector<T> ins;
  std::vector<std::pair<std::string, z3::expr>> symbols;
  for (size_t i = 0; i < ref.inputs.size(); ++i) {
    const Shape &s = ref.values[ref.inputs[i]].shape;
    T x(s, sem.zero());
    for (int64_t e = 0; e < x.size(); ++e) {
      std::string name = "in" + std::to_string(i) + "[" + std::to_string(e) + "]";
      x.data[e] = c.real_const(name.c_str());
      symbols.push_back({name, x.data[e]});
    }
    ins.push_back(std::move(x));
  }
  Evaluator<Z3Semantics> eval(sem, /*threads=*/1);
  std::vector<T> a = eval.run(cand, ins);
  std::vector<T> b = eval.run(ref, ins);
  if (sem.badConstant()) {
    res.message = "a constant is not finite";
    return res;
  }

  Normalizer nz(c, sem);
  z3::solver solver(c);
  z3::params sp(c);
  sp.set("timeout", opts.timeoutMs);
  solver.set(sp);
  // Side conditions: every divisor of either graph is nonzero.
  for (unsigned i = 0; i < sem.divisors().size(); ++i) {
    Normalizer::Frac f = nz.norm(sem.divisors()[i]);
    if (Normalizer::isNumeral(f.num, "0")) {
      res.message = "a divisor is identically zero";
      return res;
    }
    if (!f.num.is_numeral())
      solver.add(f.num != 0);
  }
  struct Residual {
    int out;
    int64_t elem;
    z3::expr diff;
    Normalizer::Frac x, y;
  };
  std::vector<Residual> residuals;
  z3::expr_vector differs(c);
  for (size_t o = 0; o < a.size(); ++o)
    for (int64_t e = 0; e < a[o].size(); ++e) {
      Normalizer::Frac x = nz.norm(a[o].data[e]), y = nz.norm(b[o].data[e]);
      z3::expr diff = nz.simp(x.num * y.den - y.num * x.den);
      if (Normalizer::isNumeral(diff, "0"))
        continue;
      residuals.push_back({(int)o, e, diff, x, y});
      differs.push_back(diff != 0);
    }
  res.residualElements = residuals.size();
  if (residuals.empty()) {
    // Every difference normalized to 0: the query is `false`, unsat.
    res.status = FormalStatus::Equivalent;
    res.message = "unsat: every output element normalizes to the reference's";
    return res;
  }
  solver.add(z3::mk_or(differs));
  z3::check_result r = solver.check();
  if (r == z3::unsat) {
    res.status = FormalStatus::Equivalent;
    res.message = "unsat (" + std::to_string(residuals.size()) +
                  " element(s) needed the solver)";
    return res;
  }
  if (r == z3::unknown) {
    res.message = "Z3 returned unknown (" + solver.reason_unknown() + ") on " +
                  std::to_string(residuals.size()) + " element(s)";
    return res;
  }
  z3::model m = solver.get_model();
  res.status = FormalStatus::NotEquivalent;
  for (const Residual &rd : residuals) {
    z3::expr v = m.eval(rd.diff, true);
    if (Normalizer::isNumeral(v, "0"))
      continue;
    res.differingOutput = rd.out;
    res.differingElement = rd.elem;
    res.candidateValue = decimal(m.eval(rd.x.num / rd.x.den, true));
    res.referenceValue = decimal(m.eval(rd.y.num / rd.y.den, true));
    break;
  }
  for (auto &[name, sym] : symbols)
    res.counterexample.push_back({name, decimal(m.eval(sym, true))});
  std::string msg = "sat: output #" + std::to_string(res.differingOutput) +
                    " element " + std::to_string(res.differingElement) +
                    " is " + res.candidateValue + " instead of " +
                    res.referenceValue + " at ";
  size_t shown = std::min<size_t>(res.counterexample.size(), 6);
  for (size_t i = 0; i < shown; ++i)
    msg += (i ? ", " : "") + res.counterexample[i].first + " = " +
           res.counterexample[i].second;
  if (shown < res.counterexample.size())
    msg += ", ...";
  res.message = msg;
  return res;
}
} // namespace

FormalResult mirage::checkEquivalenceFormally(const UGraph &cand,
                                              const UGraph &ref,
                                              const FormalOptions &opts) {
  auto t0 = std::chrono::steady_clock::now();
  FormalResult res;
  try {
    res = check(cand, ref, opts);
  } catch (const z3::exception &e) {
    res = FormalResult();
    res.message = std::string("Z3 error: ") + e.msg();
  } catch (...) {
    res = FormalResult();
    res.message = "unexpected exception in the formal check";
  }
  res.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  return res;
}

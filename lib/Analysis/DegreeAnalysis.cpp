//===- DegreeAnalysis.cpp - Degree bounds and the error bound -------------===//
//
// A tensor-level abstract interpretation of a μGraph: every value is bounded
// by one DegreeInfo (the worst element), every uninterpreted-function
// evaluation and every field inverse is counted with how often it runs. The
// rules are conservative: a sum of c fractions is given the common
// denominator of degree c·den even when the denominators coincide, which
// only costs a few bits of the per-test bound. See
// docs/Rationale/Verification.md for the argument.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Analysis/Verifier.h"

#include <algorithm>
#include <cmath>

using namespace mirage;

namespace {
constexpr double kSat = 1e300;
double sat(double x) { return std::isfinite(x) ? std::min(x, kSat) : kSat; }

struct Analyzer {
  bool expI;
  GraphDegrees &out;

  DegreeInfo constant() const {
    DegreeInfo d;
    d.num = 0;
    return d;
  }
  DegreeInfo add(const DegreeInfo &a, const DegreeInfo &b) const {
    DegreeInfo r;
    r.num = sat(std::max(a.num + b.den, b.num + a.den));
    r.den = sat(a.den + b.den);
    r.hasExp = a.hasExp || b.hasExp;
    r.kNum = r.hasExp ? sat(a.kNum * b.kDen + b.kNum * a.kDen) : 1;
    r.kDen = r.hasExp ? sat(a.kDen * b.kDen) : 1;
    return r;
  }
  DegreeInfo mul(const DegreeInfo &a, const DegreeInfo &b) const {
    DegreeInfo r;
    r.num = sat(a.num + b.num);
    r.den = sat(a.den + b.den);
    r.hasExp = a.hasExp || b.hasExp;
    r.kNum = sat(a.kNum * b.kNum);
    r.kDen = sat(a.kDen * b.kDen);
    return r;
  }
  DegreeInfo inverse(const DegreeInfo &a, double execs) {
    out.divisions = sat(out.divisions + execs);
    out.divisorDegree = std::max(out.divisorDegree, a.num);
    DegreeInfo r = a;
    std::swap(r.num, r.den);
    std::swap(r.kNum, r.kDen);
    return r;
  }
  DegreeInfo div(const DegreeInfo &a, const DegreeInfo &b, double execs) {
    return mul(a, inverse(b, execs));
  }
  /// Sum of c values bounded by x.
  DegreeInfo sum(const DegreeInfo &x, double c) const {
    if (c <= 1)
      return x;
    DegreeInfo r = x;
    r.num = sat(x.num + (c - 1) * x.den);
    r.den = sat(c * x.den);
    if (x.hasExp) {
      r.kNum = sat(c * x.kNum * std::pow(x.kDen, c - 1));
      r.kDen = sat(std::pow(x.kDen, c));
    }
    return r;
  }
  /// An uninterpreted function: a fresh variable per distinct argument.
  DegreeInfo oracle(const DegreeInfo &x, const DegreeInfo *y, double execs) {
    out.oracleCalls = sat(out.oracleCalls + execs);
    out.oracleArgNum = std::max({out.oracleArgNum, x.num, y ? y->num : 0.0});
    out.oracleArgDen = std::max({out.oracleArgDen, x.den, y ? y->den : 0.0});
    return DegreeInfo();
  }
  DegreeInfo unary(UnaryKind k, const DegreeInfo &x, double execs) {
    switch (k) {
    case UnaryKind::exp: {
      out.hasExp = true;
      if (!expI)
        return oracle(x, nullptr, execs);
      out.expCalls = sat(out.expCalls + execs);
      out.expArgDegree = std::max({out.expArgDegree, x.num, x.den});
      DegreeInfo r; // one term ω^{g/h}: degree 0 in the inputs
      r.num = 0;
      r.hasExp = true;
      return r;
    }
    case UnaryKind::square:
      return mul(x, x);
    case UnaryKind::rsqrt:
      return inverse(oracle(x, nullptr, execs), execs);
    case UnaryKind::reciprocal:
      return inverse(x, execs);
    case UnaryKind::silu:
      return mul(x, oracle(x, nullptr, execs));
    case UnaryKind::sqrt:
    case UnaryKind::gelu:
    case UnaryKind::relu:
    case UnaryKind::sigmoid:
    case UnaryKind::tanh:
      return oracle(x, nullptr, execs);
    case UnaryKind::mul_scalar:
      return x;
    case UnaryKind::add_scalar:
      return add(x, constant());
    }
    return x;
  }
  DegreeInfo binary(BinaryKind k, const DegreeInfo &a, const DegreeInfo &b,
                    double execs) {
    switch (k) {
    case BinaryKind::add:
    case BinaryKind::sub:
      return add(a, b);
    case BinaryKind::mul:
      return mul(a, b);
    case BinaryKind::div:
      return div(a, b, execs);
    case BinaryKind::pow:
      return oracle(a, &b, execs);
    }
    return a;
  }

  static DegreeInfo join(const DegreeInfo &a, const DegreeInfo &b) {
    DegreeInfo r;
    r.num = std::max(a.num, b.num);
    r.den = std::max(a.den, b.den);
    r.kNum = std::max(a.kNum, b.kNum);
    r.kDen = std::max(a.kDen, b.kDen);
    r.hasExp = a.hasExp || b.hasExp;
    return r;
  }

  /// A tensor operator (kernel or block level); `mult` is how often the op
  /// runs (blocks × iterations).
  void tensorOp(const UGraph &g, const UOp &op, std::vector<DegreeInfo> &v,
                double mult) {
    auto in = [&](unsigned i) { return v[op.operands[i]]; };
    auto shapeOf = [&](int32_t id) -> const Shape & {
      return g.values[id].shape;
    };
    double n = (double)numElements(shapeOf(op.results[0])) * mult;
    DegreeInfo &r = v[op.results[0]];
    switch (op.kind) {
    case OpKind::Matmul:
      r = sum(mul(in(0), in(1)), (double)shapeOf(op.operands[0]).back());
      return;
    case OpKind::Unary:
      r = unary(op.unaryKind(), in(0), n);
      return;
    case OpKind::Binary:
      r = binary(op.binaryKind(), in(0), in(1), n);
      return;
    case OpKind::Reduce: {
      double chunks =
          (double)(shapeOf(op.operands[0])[op.dim] / std::max<int64_t>(1, op.size));
      if (op.reduceKind() == ReduceKind::sum)
        r = sum(in(0), chunks);
      else
        r = chunks > 1 ? oracle(in(0), nullptr, n * (chunks - 1)) : in(0);
      return;
    }
    case OpKind::RmsNorm: {
      const Shape &xs = shapeOf(op.operands[0]);
      double len = (double)xs.back();
      double rows = (double)numElements(xs) / len * mult;
      DegreeInfo mean = sum(mul(in(0), in(0)), len);
      if (op.scalar != 0)
        mean = add(mean, constant());
      DegreeInfo rms = oracle(mean, nullptr, rows);
      r = div(in(0), rms, (double)numElements(xs) * mult);
      if (op.operands.size() > 1)
        r = mul(r, in(1));
      return;
    }
    case OpKind::Concat:
      r = join(in(0), in(1));
      return;
    case OpKind::ThreadGraph: {
      std::vector<DegreeInfo> ins;
      for (int32_t o : op.operands)
        ins.push_back(v[o]);
      std::vector<DegreeInfo> res = thread(g.bodies[op.body], ins, n);
      for (size_t i = 0; i < res.size(); ++i)
        v[op.results[i]] = res[i];
      return;
    }
    default:
      return;
    }
  }

  std::vector<DegreeInfo> thread(const UGraph &t,
                                 const std::vector<DegreeInfo> &ins,
                                 double execs) {
    std::vector<DegreeInfo> v(t.values.size());
    for (size_t i = 0; i < ins.size() && i < t.inputs.size(); ++i)
      v[t.inputs[i]] = ins[i];
    for (const UOp &op : t.ops) {
      if (op.kind == OpKind::Unary)
        v[op.results[0]] = unary(op.unaryKind(), v[op.operands[0]], execs);
      else if (op.kind == OpKind::Binary)
        v[op.results[0]] = binary(op.binaryKind(), v[op.operands[0]],
                                  v[op.operands[1]], execs);
    }
    std::vector<DegreeInfo> res;
    for (int32_t o : t.outputs)
      res.push_back(v[o]);
    return res;
  }

  std::vector<DegreeInfo> block(const UGraph &b,
                                const std::vector<DegreeInfo> &ins) {
    double blocks = (double)(b.grid[0] * b.grid[1] * b.grid[2]);
    double F = (double)b.forloopRange;
    std::vector<DegreeInfo> v(b.values.size());
    for (size_t i = 0; i < ins.size() && i < b.inputs.size(); ++i)
      v[b.inputs[i]] = ins[i];
    for (const UOp &op : b.ops) {
      switch (op.kind) {
      case OpKind::InputIterator:
      case OpKind::OutputSaver:
        v[op.results[0]] = v[op.operands[0]];
        break;
      case OpKind::Accum: {
        const DegreeInfo &x = v[op.operands[0]];
        const Shape &xs = b.values[op.operands[0]].shape;
        double n = (double)numElements(b.values[op.results[0]].shape) * blocks;
        double perIter =
            (double)(xs.back() / std::max<int64_t>(1, op.size ? op.size : 1));
        DegreeInfo c = x;
        AccumKind k = op.accumKind();
        if (k == AccumKind::sum_last || k == AccumKind::mean_last)
          c = sum(x, perIter);
        else if (k == AccumKind::rms_last)
          c = sum(mul(x, x), perIter);
        DegreeInfo acc;
        if (k == AccumKind::max) {
          acc = F > 1 ? oracle(c, nullptr, n * (F - 1)) : c;
        } else if (op.operands.size() > 1) {
          const DegreeInfo &rs = v[op.operands[1]];
          acc = c;
          for (int64_t i = 1; i < b.forloopRange; ++i)
            acc = add(mul(acc, rs), c);
        } else {
          acc = sum(c, F);
        }
        if (k == AccumKind::rms_last) {
          // sqrt(acc / count + eps), as rms_norm: the eps is a constant.
          if (op.scalar != 0)
            acc = add(acc, constant());
          acc = oracle(acc, nullptr, n);
        }
        v[op.results[0]] = acc;
        break;
      }
      default: {
        double mult = b.values[op.results[0]].phase == Phase::InLoop
                          ? blocks * F
                          : blocks;
        tensorOp(b, op, v, mult);
        break;
      }
      }
    }
    std::vector<DegreeInfo> res;
    for (int32_t o : b.outputs)
      res.push_back(v[o]);
    return res;
  }

  std::vector<DegreeInfo> kernel(const UGraph &g) {
    std::vector<DegreeInfo> v(g.values.size());
    for (const UOp &op : g.ops) {
      if (op.kind == OpKind::Custom) {
        std::vector<DegreeInfo> ins;
        for (int32_t o : op.operands)
          ins.push_back(v[o]);
        std::vector<DegreeInfo> res = block(g.bodies[op.body], ins);
        for (size_t i = 0; i < res.size(); ++i)
          v[op.results[i]] = res[i];
        continue;
      }
      tensorOp(g, op, v, 1);
    }
    std::vector<DegreeInfo> res;
    for (int32_t o : g.outputs)
      res.push_back(v[o]);
    return res;
  }
};
} // namespace

GraphDegrees mirage::analyzeDegrees(const UGraph &g, bool expInterpreted) {
  GraphDegrees out;
  Analyzer a{expInterpreted, out};
  if (g.level == Level::Block)
    out.outputs = a.block(g, std::vector<DegreeInfo>(g.inputs.size()));
  else
    out.outputs = a.kernel(g);
  return out;
}

/// log2(2^a + 2^b).
static double log2Sum(double a, double b) {
  double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log2(1 + std::exp2(lo - hi));
}

double mirage::theorem2Log2(double d, double k) {
  double lq = std::log2((double)ff::kQ);
  double t1 = 3 + std::log2(std::max(d, 1.0)) + 4 * std::log2(k) - lq;
  double t2 = -lq / (k * k);
  return log2Sum(t1, t2);
}

ErrorBound mirage::computeErrorBound(const UGraph &cand, const UGraph &ref,
                                     bool expInterpreted,
                                     unsigned targetBits) {
  GraphDegrees c = analyzeDegrees(cand, expInterpreted);
  GraphDegrees r = analyzeDegrees(ref, expInterpreted);
  ErrorBound b;
  b.expInterpreted = expInterpreted;
  const double lp = std::log2((double)ff::kP), lq = std::log2((double)ff::kQ);
  // Δ and k over every pairing of outputs (a permutation may be used).
  double delta = 0, k = 0;
  for (const DegreeInfo &x : c.outputs)
    for (const DegreeInfo &y : r.outputs) {
      delta = std::max({delta, x.num + y.den, y.num + x.den, 1.0});
      if (expInterpreted && (x.hasExp || y.hasExp))
        k = std::max(k, sat(x.kNum * y.kDen + y.kNum * x.kDen));
    }
  b.szDegree = delta;
  double M = c.oracleCalls + r.oracleCalls;
  b.collisionPairs = sat(M * (M - 1) / 2);
  double argDeg = std::max(1.0, std::max(c.oracleArgNum, r.oracleArgNum) +
                                    std::max(c.oracleArgDen, r.oracleArgDen));
  // Schwartz–Zippel on the cleared difference, plus oracle-argument
  // collisions (union bound over pairs of calls).
  double l2 = std::log2(delta) - lp;
  if (M >= 2)
    l2 = log2Sum(l2, std::log2(b.collisionPairs) + std::log2(argDeg) - lp);
  if (k > 0) {
    b.expTerms = k;
    b.expDegree = std::max({delta, c.expArgDegree, r.expArgDegree, 1.0});
    l2 = log2Sum(l2, theorem2Log2(b.expDegree, k));
  }
  // Conditioning on "no zero divisor" (a test that hits one is redrawn).
  double divs = c.divisions + r.divisions;
  double divDeg = std::max({c.divisorDegree, r.divisorDegree, 1.0});
  double lz = divs > 0 ? std::log2(divs) + std::log2(divDeg) - lq : -1e9;
  b.zeroDivisor = std::exp2(lz);
  if (lz >= -1) {
    b.log2PerTest = std::max(0.0, l2 + 1);
  } else {
    b.log2PerTest = l2 - std::log2(1 - b.zeroDivisor);
  }
  if (b.vacuous() || !std::isfinite(b.log2PerTest)) {
    b.log2PerTest = std::max(0.0, b.log2PerTest);
    b.tests = 0;
    b.log2Total = 0;
    return b;
  }
  b.tests = std::max<unsigned>(
      1, (unsigned)std::ceil((double)targetBits / -b.log2PerTest));
  b.log2Total = b.tests * b.log2PerTest;
  return b;
}

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
#include "Mirage/Analysis/LaneField.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/AccumRules.h"
#include "Mirage/Semantics/UOpVisitor.h"

#include <algorithm>
#include <cmath>

using namespace mirage;

namespace {
constexpr double kSat = 1e300;
double sat(double x) { return std::isfinite(x) ? std::min(x, kSat) : kSat; }

/// log2(2^a + 2^b).
double log2Sum(double a, double b) {
  double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log2(1 + std::exp2(lo - hi));
}

/// The dims along which a tensor's elements share one denominator polynomial
/// (bit d: elements that differ only in their index along d have the same
/// denominator in the analysis). A sum along such a dim keeps that
/// denominator instead of multiplying c of them (sumShared).
using DenDims = uint8_t;
constexpr DenDims kAllDims = 0xff;
constexpr DenDims bit(size_t d) { return DenDims(1u << d); }
bool hasDim(DenDims m, size_t d) { return (m >> d) & 1u; }

/// The dims of a result of rank `rank` along which an operand of shape `s`
/// (aligned to the right, as broadcasting aligns it) has extent 1 or no dim:
/// one element serves the whole dim, so everything about it is shared.
DenDims broadcastDims(const Shape &s, size_t rank) {
  DenDims m = 0;
  size_t off = rank - std::min(rank, s.size());
  for (size_t d = 0; d < rank; ++d)
    if (d < off || s[d - off] == 1)
      m |= bit(d);
  return m;
}

/// The shared dims of a unary op's result from its operand's (`x`, with its
/// broadcast dims) and the operand's broadcast dims alone (`ext1`).
DenDims unaryDims(UnaryKind k, DenDims x, DenDims ext1) {
  switch (k) {
  case UnaryKind::exp: // an oracle or an exp term: denominator 1
  case UnaryKind::sqrt:
  case UnaryKind::gelu:
  case UnaryKind::relu:
  case UnaryKind::sigmoid:
  case UnaryKind::tanh:
  case UnaryKind::erf:
    return kAllDims;
  case UnaryKind::square:
  case UnaryKind::silu:
  case UnaryKind::mul_scalar:
  case UnaryKind::add_scalar:
    return x;
  case UnaryKind::rsqrt: // inverses: the operand becomes the denominator
  case UnaryKind::reciprocal:
    return ext1;
  }
  return 0;
}

struct Analyzer {
  bool expI;
  GraphDegrees &out;

  /// The constant c = m·2^e (m odd): L1 norm |c|, dyadic denominator 2^-e.
  DegreeInfo constant(double c) const {
    DegreeInfo d;
    d.num = 0;
    if (!std::isfinite(c) || c == 0)
      return d; // a non-finite constant is rejected by the verifier
    int e = 0;
    double m = std::frexp(std::fabs(c), &e);
    uint64_t mant = (uint64_t)std::ldexp(m, 53);
    e -= 53;
    e += __builtin_ctzll(mant);
    d.hNum = std::max(0.0, std::log2(std::fabs(c)));
    d.sNum = e < 0 ? -e : 0;
    return d;
  }
  /// x / n for an integer count n: the denominator gains the factor n (no
  /// field inverse is counted: 0 < n < 2^60 is never a zero divisor).
  DegreeInfo byCount(const DegreeInfo &x, double n) const {
    DegreeInfo c;
    c.num = 0;
    c.hDen = std::log2(std::max(n, 1.0));
    return mul(x, c);
  }
  DegreeInfo add(const DegreeInfo &a, const DegreeInfo &b) const {
    DegreeInfo r;
    r.num = sat(std::max(a.num + b.den, b.num + a.den));
    r.den = sat(a.den + b.den);
    // num = Na·Db + Nb·Da, den = Da·Db (L1 norms, §4.2).
    r.hNum = sat(log2Sum(a.hNum + b.hDen, b.hNum + a.hDen));
    r.sNum = sat(std::max(a.sNum + b.sDen, b.sNum + a.sDen));
    r.hDen = sat(a.hDen + b.hDen);
    r.sDen = sat(a.sDen + b.sDen);
    r.hasExp = a.hasExp || b.hasExp;
    r.kNum = r.hasExp ? sat(a.kNum * b.kDen + b.kNum * a.kDen) : 1;
    r.kDen = r.hasExp ? sat(a.kDen * b.kDen) : 1;
    return r;
  }
  DegreeInfo mul(const DegreeInfo &a, const DegreeInfo &b) const {
    DegreeInfo r;
    r.num = sat(a.num + b.num);
    r.den = sat(a.den + b.den);
    r.hNum = sat(a.hNum + b.hNum);
    r.sNum = sat(a.sNum + b.sNum);
    r.hDen = sat(a.hDen + b.hDen);
    r.sDen = sat(a.sDen + b.sDen);
    r.hasExp = a.hasExp || b.hasExp;
    r.kNum = sat(a.kNum * b.kNum);
    r.kDen = sat(a.kDen * b.kDen);
    return r;
  }
  DegreeInfo inverse(const DegreeInfo &a, double execs) {
    out.divisions = sat(out.divisions + execs);
    out.divisorDegree = std::max(out.divisorDegree, a.num);
    out.divisorHeight = std::max(out.divisorHeight, sat(a.hNum + a.sNum));
    DegreeInfo r = a;
    std::swap(r.num, r.den);
    std::swap(r.kNum, r.kDen);
    std::swap(r.hNum, r.hDen);
    std::swap(r.sNum, r.sDen);
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
    // Σ_i N_i·Π_{j≠i} D_j over Π_j D_j.
    r.hNum = sat(std::log2(c) + x.hNum + (c - 1) * x.hDen);
    r.sNum = sat(x.sNum + (c - 1) * x.sDen);
    r.hDen = sat(c * x.hDen);
    r.sDen = sat(c * x.sDen);
    if (x.hasExp) {
      r.kNum = sat(c * x.kNum * std::pow(x.kDen, c - 1));
      r.kDen = sat(std::pow(x.kDen, c));
    }
    return r;
  }
  /// Sum of c values bounded by x whose denominators are one polynomial
  /// (the summed index does not reach them: softmax's p = e / Σe summed
  /// against V): Σ N_i / D, so the denominator and its height stay.
  DegreeInfo sumShared(const DegreeInfo &x, double c) const {
    if (c <= 1)
      return x;
    DegreeInfo r = x;
    r.hNum = sat(std::log2(c) + x.hNum);
    if (x.hasExp)
      r.kNum = sat(c * x.kNum);
    return r;
  }
  /// Records an argument's cleared heights (oracle or interpreted exp).
  void argHeight(CallKind kind, const DegreeInfo &x) {
    CallsOfKind &c = out.byKind[size_t(kind)];
    c.hNum = std::max(c.hNum, sat(x.hNum + x.sNum));
    c.hDen = std::max(c.hDen, sat(x.hDen + x.sDen));
  }
  void countCalls(CallKind kind, double execs) {
    CallsOfKind &c = out.byKind[size_t(kind)];
    c.calls = sat(c.calls + execs);
  }
  /// An uninterpreted function: a fresh variable per distinct argument.
  DegreeInfo oracle(CallKind kind, const DegreeInfo &x, const DegreeInfo *y,
                    double execs) {
    out.oracleCalls = sat(out.oracleCalls + execs);
    countCalls(kind, execs);
    argHeight(kind, x);
    if (y)
      argHeight(kind, *y);
    out.oracleArgNum = std::max({out.oracleArgNum, x.num, y ? y->num : 0.0});
    out.oracleArgDen = std::max({out.oracleArgDen, x.den, y ? y->den : 0.0});
    return DegreeInfo();
  }
  /// max(x, y): an oracle output, or x itself when the arguments are equal
  /// (max(x, x) = x): both are possible, so the join of the two.
  DegreeInfo maxOf(const DegreeInfo &x, const DegreeInfo *y, double execs) {
    DegreeInfo r = join(x, oracle(CallKind::Max, x, y, execs));
    return y ? join(r, *y) : r;
  }
  DegreeInfo unary(UnaryKind k, const DegreeInfo &x, double execs,
                   double scalar) {
    switch (k) {
    case UnaryKind::exp: {
      out.hasExp = true;
      if (!expI)
        return oracle(CallKind::Exp, x, nullptr, execs);
      out.expArgDegree = std::max({out.expArgDegree, x.num, x.den});
      countCalls(CallKind::InterpretedExp, execs);
      argHeight(CallKind::InterpretedExp, x);
      DegreeInfo r; // one term ω^{g/h}: degree 0 in the inputs
      r.num = 0;
      r.hasExp = true;
      return r;
    }
    case UnaryKind::square:
      return mul(x, x);
    case UnaryKind::rsqrt:
      return inverse(oracle(CallKind::Sqrt, x, nullptr, execs), execs);
    case UnaryKind::reciprocal:
      return inverse(x, execs);
    case UnaryKind::silu:
      return mul(x, oracle(CallKind::Sigmoid, x, nullptr, execs));
    case UnaryKind::sqrt:
      return oracle(CallKind::Sqrt, x, nullptr, execs);
    case UnaryKind::gelu:
      return oracle(CallKind::Gelu, x, nullptr, execs);
    case UnaryKind::relu:
      return oracle(CallKind::Relu, x, nullptr, execs);
    case UnaryKind::sigmoid:
      return oracle(CallKind::Sigmoid, x, nullptr, execs);
    case UnaryKind::tanh:
      return oracle(CallKind::Tanh, x, nullptr, execs);
    case UnaryKind::erf:
      return oracle(CallKind::Erf, x, nullptr, execs);
    case UnaryKind::mul_scalar:
      return mul(x, constant(scalar));
    case UnaryKind::add_scalar:
      return add(x, constant(scalar));
    }
    return x;
  }
  /// x − x: the zero polynomial, whatever x is (the field computes exactly
  /// 0 in every domain). A split softmax keeps its last running max in a
  /// sum rescaled by prev − prev (localizeSplitMax); read as a generic
  /// difference, that factor added the scores' height to the saved maximum
  /// once per iteration, 150 bits over eight (Verification.md §4.2b).
  static bool isSelfDifference(const UOp &op) {
    return op.kind == OpKind::Binary &&
           op.binaryKind() == BinaryKind::sub && op.operands.size() == 2 &&
           op.operands[0] == op.operands[1];
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
      return oracle(CallKind::Pow, a, &b, execs);
    }
    return a;
  }

  static DegreeInfo join(const DegreeInfo &a, const DegreeInfo &b) {
    DegreeInfo r;
    r.num = std::max(a.num, b.num);
    r.den = std::max(a.den, b.den);
    r.kNum = std::max(a.kNum, b.kNum);
    r.kDen = std::max(a.kDen, b.kDen);
    r.hNum = std::max(a.hNum, b.hNum);
    r.sNum = std::max(a.sNum, b.sNum);
    r.hDen = std::max(a.hDen, b.hDen);
    r.sDen = std::max(a.sDen, b.sDen);
    r.hasExp = a.hasExp || b.hasExp;
    return r;
  }

  /// A tensor operator (kernel or block level); `mult` is how often the op
  /// runs (blocks × iterations). `m` holds every value's shared-denominator
  /// dims (see DenDims).
  void tensorOp(const UGraph &g, const UOp &op, std::vector<DegreeInfo> &v,
                std::vector<DenDims> &m, double mult) {
    auto in = [&](unsigned i) { return v[op.operands[i]]; };
    auto shapeOf = [&](int32_t id) -> const Shape & {
      return g.values[id].shape;
    };
    const Shape &rs = shapeOf(op.results[0]);
    const size_t rank = rs.size();
    // An operand's shared dims as seen from the result: its own, plus the
    // dims along which it is broadcast (one element for the whole dim).
    auto eff = [&](unsigned i) {
      return m[op.operands[i]] | broadcastDims(shapeOf(op.operands[i]), rank);
    };
    auto ext1 = [&](unsigned i) {
      return broadcastDims(shapeOf(op.operands[i]), rank);
    };
    double n = (double)numElements(rs) * mult;
    DegreeInfo &r = v[op.results[0]];
    DenDims &rm = m[op.results[0]];
    switch (op.kind) {
    case OpKind::Matmul: {
      // C[i,j] = Σ_k A[i,k]·B[k,j]: one denominator for every k when A's
      // does not vary along its last dim nor B's along its row dim.
      const Shape &as = shapeOf(op.operands[0]), &bs = shapeOf(op.operands[1]);
      DenDims a = eff(0), b = eff(1);
      bool shared = hasDim(m[op.operands[0]] | broadcastDims(as, as.size()),
                           as.size() - 1) &&
                    hasDim(m[op.operands[1]] | broadcastDims(bs, bs.size()),
                           bs.size() - 2);
      DegreeInfo t = mul(in(0), in(1));
      r = shared ? sumShared(t, (double)as.back()) : sum(t, (double)as.back());
      // Batch dims from both; the row dim from A, the column dim from B
      // (their own ranks: A's row is its dim rank-2, B's column its last).
      rm = a & b & ~(bit(rank - 2) | bit(rank - 1));
      DenDims aa = m[op.operands[0]] | broadcastDims(as, as.size());
      if (hasDim(aa, as.size() - 2))
        rm |= bit(rank - 2);
      if (hasDim(m[op.operands[1]] | broadcastDims(bs, bs.size()),
                 bs.size() - 1))
        rm |= bit(rank - 1);
      return;
    }
    case OpKind::Unary:
      r = unary(op.unaryKind(), in(0), n, op.scalar);
      rm = unaryDims(op.unaryKind(), eff(0), ext1(0));
      return;
    case OpKind::Binary:
      if (isSelfDifference(op)) {
        r = constant(0);
        rm = kAllDims;
        return;
      }
      r = binary(op.binaryKind(), in(0), in(1), n);
      switch (op.binaryKind()) {
      case BinaryKind::add:
      case BinaryKind::sub:
      case BinaryKind::mul:
        rm = eff(0) & eff(1);
        break;
      case BinaryKind::div: // the divisor's numerator becomes a denominator
        rm = eff(0) & ext1(1);
        break;
      case BinaryKind::pow: // an oracle: a fresh variable
        rm = kAllDims;
        break;
      }
      return;
    case OpKind::Reduce: {
      double chunks =
          (double)(shapeOf(op.operands[0])[op.dim] / std::max<int64_t>(1, op.size));
      DenDims xm = m[op.operands[0]] |
                   broadcastDims(shapeOf(op.operands[0]), rank);
      if (op.reduceKind() == ReduceKind::sum)
        r = hasDim(xm, op.dim) ? sumShared(in(0), chunks) : sum(in(0), chunks);
      else
        r = chunks > 1 ? maxOf(in(0), nullptr, n * (chunks - 1)) : in(0);
      rm = m[op.operands[0]];
      return;
    }
    case OpKind::RmsNorm: {
      const Shape &xs = shapeOf(op.operands[0]);
      double len = (double)xs.back();
      double rows = (double)numElements(xs) / len * mult;
      DegreeInfo mean = sum(mul(in(0), in(0)), len);
      // mean = Σx² / len (+ eps).
      mean = byCount(mean, len);
      if (op.scalar != 0)
        mean = add(mean, constant(op.scalar));
      DegreeInfo rms = oracle(CallKind::Sqrt, mean, nullptr, rows);
      r = div(in(0), rms, (double)numElements(xs) * mult);
      // The divisor is one oracle value per row: shared along the last dim.
      rm = eff(0) & bit(rank - 1);
      if (op.operands.size() > 1) {
        r = mul(r, in(1));
        rm &= eff(1);
      }
      return;
    }
    case OpKind::Concat:
      r = join(in(0), in(1));
      rm = 0;
      return;
    case OpKind::ThreadGraph: {
      std::vector<DegreeInfo> ins;
      DenDims all = kAllDims;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        ins.push_back(v[op.operands[i]]);
        all &= ext1(i); // a body may divide by any operand
      }
      std::vector<DegreeInfo> res = thread(g.bodies[op.body], ins, n);
      for (size_t i = 0; i < res.size(); ++i) {
        v[op.results[i]] = res[i];
        m[op.results[i]] = all;
      }
      return;
    }
    case OpKind::Custom: // kernel() runs its block graph
    case OpKind::InputIterator: // block() handles the loop's edges
    case OpKind::Accum:
    case OpKind::OutputSaver:
    case OpKind::RunningMax:
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
      const DegreeInfo &x = v[op.operands[0]];
      if (isSelfDifference(op)) {
        v[op.results[0]] = constant(0);
        continue;
      }
      v[op.results[0]] = visitThreadOp(
          op,
          [&](UnaryKind k) { return unary(k, x, execs, op.scalar); },
          [&](BinaryKind k) {
            return binary(k, x, v[op.operands[1]], execs);
          });
    }
    std::vector<DegreeInfo> res;
    for (int32_t o : t.outputs)
      res.push_back(v[o]);
    return res;
  }

  std::vector<DegreeInfo> block(const UGraph &b,
                                const std::vector<DegreeInfo> &ins,
                                const std::vector<DenDims> &insDims,
                                std::vector<DenDims> &outDims) {
    double blocks = (double)(b.grid[0] * b.grid[1] * b.grid[2]);
    double F = (double)b.forloopRange;
    std::vector<DegreeInfo> v(b.values.size());
    // Accumulators (sums over iterations) and anything unlisted share no
    // denominator.
    std::vector<DenDims> m(b.values.size(), 0);
    for (size_t i = 0; i < ins.size() && i < b.inputs.size(); ++i) {
      v[b.inputs[i]] = ins[i];
      m[b.inputs[i]] = i < insDims.size() ? insDims[i] : 0;
    }
    for (const UOp &op : b.ops) {
      switch (op.kind) {
      case OpKind::InputIterator: // a tile of the device tensor
        v[op.results[0]] = v[op.operands[0]];
        m[op.results[0]] = m[op.operands[0]];
        break;
      case OpKind::OutputSaver: {
        // Elements of different blocks come from different tiles.
        v[op.results[0]] = v[op.operands[0]];
        DenDims d = m[op.operands[0]];
        for (int a = 0; a < 3; ++a)
          if (op.map[a] >= 0 && b.grid[a] > 1)
            d &= ~bit(op.map[a]);
        m[op.results[0]] = d;
        break;
      }
      case OpKind::Accum: {
        const DegreeInfo &x = v[op.operands[0]];
        const Shape &xs = b.values[op.operands[0]].shape;
        double n = (double)numElements(b.values[op.results[0]].shape) * blocks;
        double perIter =
            (double)(xs.back() / std::max<int64_t>(1, op.size ? op.size : 1));
        DegreeInfo c = x;
        AccumKind k = op.accumKind();
        switch (k) {
        case AccumKind::sum:
        case AccumKind::max:
          break;
        case AccumKind::sum_last:
        case AccumKind::mean_last:
          c = sum(x, perIter);
          break;
        case AccumKind::rms_last:
          c = sum(mul(x, x), perIter);
          break;
        }
        DegreeInfo acc;
        if (k == AccumKind::max) {
          acc = F > 1 ? maxOf(c, nullptr, n * (F - 1)) : c;
        } else if (op.operands.size() > 1) {
          const DegreeInfo &rs = v[op.operands[1]];
          acc = c;
          for (int64_t i = 1; i < b.forloopRange; ++i)
            acc = add(mul(acc, rs), c);
        } else {
          acc = sum(c, F);
        }
        AccumRule rule = accumRule(op);
        if (rule.dividesByCount)
          acc = byCount(acc, (double)accumCount(b, op));
        if (k == AccumKind::rms_last) {
          // sqrt(acc / count + eps), as rms_norm: the eps is a constant.
          if (op.scalar != 0)
            acc = add(acc, constant(op.scalar));
          acc = oracle(CallKind::Sqrt, acc, nullptr, n);
        }
        v[op.results[0]] = acc;
        break;
      }
      case OpKind::RunningMax: {
        // cur (and prev, an earlier cur) is a max oracle output, a fresh
        // variable: per output and iteration, the row's chunks − 1 maxes and
        // one with prev (OnlineSoftmax.md).
        double n = (double)numElements(b.values[op.results[0]].shape) * blocks;
        double chunks = (double)b.values[op.operands[0]].shape[op.dim];
        DegreeInfo cur = maxOf(v[op.operands[0]], nullptr, n * F * chunks);
        for (int32_t r : op.results) {
          v[r] = cur;
          m[r] = m[op.operands[0]];
        }
        break;
      }
      case OpKind::Matmul:
      case OpKind::Unary:
      case OpKind::Binary:
      case OpKind::Reduce:
      case OpKind::RmsNorm:
      case OpKind::Concat:
      case OpKind::ThreadGraph:
      case OpKind::Custom: { // not in block graphs; tensorOp ignores it
        double mult = b.values[op.results[0]].phase == Phase::InLoop
                          ? blocks * F
                          : blocks;
        tensorOp(b, op, v, m, mult);
        break;
      }
      }
    }
    std::vector<DegreeInfo> res;
    outDims.clear();
    for (int32_t o : b.outputs) {
      res.push_back(v[o]);
      outDims.push_back(m[o]);
    }
    return res;
  }

  std::vector<DegreeInfo> kernel(const UGraph &g) {
    std::vector<DegreeInfo> v(g.values.size());
    // Graph inputs are variables: denominator 1 everywhere.
    std::vector<DenDims> m(g.values.size(), 0);
    for (int32_t in : g.inputs)
      m[in] = kAllDims;
    for (const UOp &op : g.ops) {
      if (op.kind == OpKind::Custom) {
        std::vector<DegreeInfo> ins;
        std::vector<DenDims> insDims, outDims;
        for (int32_t o : op.operands) {
          ins.push_back(v[o]);
          insDims.push_back(m[o]);
        }
        std::vector<DegreeInfo> res =
            block(g.bodies[op.body], ins, insDims, outDims);
        for (size_t i = 0; i < res.size(); ++i) {
          v[op.results[i]] = res[i];
          m[op.results[i]] = outDims[i];
        }
        continue;
      }
      tensorOp(g, op, v, m, 1);
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
  if (g.level == Level::Block) {
    std::vector<DenDims> outDims;
    out.outputs =
        a.block(g, std::vector<DegreeInfo>(g.inputs.size()),
                std::vector<DenDims>(g.inputs.size(), kAllDims), outDims);
  }
  else
    out.outputs = a.kernel(g);
  return out;
}

double mirage::theorem2Log2(double d, double k) {
  double lq = ff::FieldModuli::kLog2MinModulus; // q > 2^60 in every test
  double t1 = 3 + std::log2(std::max(d, 1.0)) + 4 * std::log2(k) - lq;
  double t2 = -lq / (k * k);
  return log2Sum(t1, t2);
}

namespace {
/// log2 of (β(h) + d/2^27)^4: one nonzero polynomial of degree ≤ d and
/// cleared height ≤ h vanishing in all four lanes, each lane failing by a
/// bad prime (one of the ⌊h/27⌋ that may divide its content, among the
/// 2^22.7 primes of the family) or a root of S^n (Verification.md §4.2c).
double log2FourLanes(double h, double d) {
  const double ls = ff::LaneModuli::kLog2InputSet;
  double bad = std::floor(h / ls);
  double beta = bad >= 1 ? std::exp2(std::log2(bad) -
                                     ff::LaneModuli::kLog2FamilySize)
                         : 0;
  double perLane = beta + std::exp2(std::log2(std::max(d, 1.0)) - ls);
  return ff::kLanes * std::log2(std::min(perLane, 1.0));
}

/// ε_L's terms (Verification.md §4.2c): the outputs' difference, and per
/// kind of call C(M_f, 2) pairs of arguments; zero divisors in any lane.
void lanesBound(ErrorBound &b, const GraphDegrees &c, const GraphDegrees &r,
                double delta, double height, double argDeg, double &l2,
                double &lz) {
  l2 = log2FourLanes(height, delta);
  for (size_t kind = 0; kind < kNumCallKinds; ++kind) {
    const CallsOfKind &x = c.byKind[kind], &y = r.byKind[kind];
    double calls = x.calls + y.calls;
    if (calls < 2)
      continue;
    double h = sat(std::max(x.hNum, y.hNum) + std::max(x.hDen, y.hDen) + 1);
    l2 = log2Sum(l2, std::log2(sat(calls * (calls - 1) / 2)) +
                         log2FourLanes(h, argDeg));
  }
  double bad = std::floor(b.heightBits / ff::LaneModuli::kLog2InputSet);
  b.log2BadPrime = bad >= 1 ? ff::kLanes * (std::log2(bad) -
                                            ff::LaneModuli::kLog2FamilySize)
                            : -INFINITY;
  double divs = c.divisions + r.divisions;
  if (divs > 0) {
    const double ls = ff::LaneModuli::kLog2InputSet;
    double divDeg = std::max({c.divisorDegree, r.divisorDegree, 1.0});
    double hDiv = std::max(c.divisorHeight, r.divisorHeight);
    double badDiv = std::floor(hDiv / ls);
    double perDivisor =
        std::exp2(std::log2(divDeg) - ls) +
        (badDiv >= 1
             ? std::exp2(std::log2(badDiv) - ff::LaneModuli::kLog2FamilySize)
             : 0);
    lz = std::log2(divs) + std::log2((double)ff::kLanes) +
         std::log2(perDivisor);
  }
}
} // namespace

ErrorBound mirage::computeErrorBound(const UGraph &cand, const UGraph &ref,
                                     bool expInterpreted, unsigned targetBits,
                                     unsigned maxTests, FieldFamily family) {
  if (expInterpreted)
    family = FieldFamily::SafePrimePair; // the lanes have no exponent field
  GraphDegrees c = analyzeDegrees(cand, expInterpreted);
  GraphDegrees r = analyzeDegrees(ref, expInterpreted);
  ErrorBound b;
  b.expInterpreted = expInterpreted;
  // Every modulus of every test exceeds 2^60 (Verification.md §4).
  const double lm = ff::FieldModuli::kLog2MinModulus;
  // Δ, k and the difference's cleared height over every pairing of outputs
  // (a permutation may be used).
  double delta = 0, k = 0, height = 0;
  for (const DegreeInfo &x : c.outputs)
    for (const DegreeInfo &y : r.outputs) {
      delta = std::max({delta, x.num + y.den, y.num + x.den, 1.0});
      if (expInterpreted && (x.hasExp || y.hasExp))
        k = std::max(k, sat(x.kNum * y.kDen + y.kNum * x.kDen));
      // N_x·D_y − N_y·D_x.
      double h = log2Sum(x.hNum + y.hDen, y.hNum + x.hDen);
      double sh = std::max(x.sNum + y.sDen, y.sNum + x.sDen);
      height = std::max(height, sat(h + sh));
    }
  b.szDegree = delta;
  double M = c.oracleCalls + r.oracleCalls;
  b.collisionPairs = sat(M * (M - 1) / 2);
  double argDeg = std::max(1.0, std::max(c.oracleArgNum, r.oracleArgNum) +
                                    std::max(c.oracleArgDen, r.oracleArgDen));
  // Two oracle (or exp) arguments: a difference of height ≤ hN + hD + 1.
  // Over every kind (the reported H); the bad primes below go per kind.
  double argNum = 0, argDen = 0;
  for (size_t kind = 0; kind < kNumCallKinds; ++kind)
    for (const GraphDegrees *g : {&c, &r}) {
      argNum = std::max(argNum, g->byKind[kind].hNum);
      argDen = std::max(argDen, g->byKind[kind].hDen);
    }
  double argHeight = sat(argNum + argDen + 1);
  b.heightBits = std::max(height, argHeight);
  b.family = family;
  double lz = -1e9; // log2 of the probability of a zero divisor
  double l2 = 0;    // log2 ε before conditioning on no zero divisor
  if (family == FieldFamily::FourLanes) {
    lanesBound(b, c, r, delta, height, argDeg, l2, lz);
  } else {
    // Schwartz–Zippel on the cleared difference, plus oracle-argument
    // collisions (union bound over pairs of calls). In mode U every value has
    // both components, and an acceptance (or a collision) needs agreement in
    // Z_p and in Z_q, two independent worlds: each term is squared (§4.2a).
    // Mode I argues in one field (an exp's result has no q part).
    const double fields = expInterpreted ? 1 : 2;
    l2 = fields * (std::log2(delta) - lm);
    if (M >= 2)
      l2 = log2Sum(l2, std::log2(b.collisionPairs) +
                           fields * (std::log2(argDeg) - lm));
    // A bad prime (§4.2): one of the at most ⌊H/60⌋ primes above 2^60 that
    // divide a nonzero coefficient (|c| ≤ 2^H) of the outputs' difference
    // (height `height`) or of one of the C(calls, 2) argument differences,
    // exp's included (height `argHeight` each), for either of the two primes
    // of the test. Each polynomial is charged its own height: a wide sum
    // (softmax @ rms_norm(V) over 4096 keys) makes the outputs' difference
    // tall, not the arguments' (§4.2b). Below 60 bits of height there is none.
    double badPrimes = std::floor(height / lm);
    for (size_t kind = 0; kind < kNumCallKinds; ++kind) {
      const CallsOfKind &x = c.byKind[kind], &y = r.byKind[kind];
      double calls = x.calls + y.calls;
      double h = sat(std::max(x.hNum, y.hNum) + std::max(x.hDen, y.hDen) + 1);
      badPrimes += sat(calls * (calls - 1) / 2) * std::floor(h / lm);
    }
    b.log2BadPrime = badPrimes >= 1 ? 1 + std::log2(badPrimes) -
                                          ff::FieldModuli::kLog2FamilySize
                                    : -INFINITY;
    if (badPrimes >= 1)
      l2 = log2Sum(l2, b.log2BadPrime);
    if (k > 0) {
      b.expTerms = k;
      b.expDegree = std::max({delta, c.expArgDegree, r.expArgDegree, 1.0});
      l2 = log2Sum(l2, theorem2Log2(b.expDegree, k));
    }
    // Conditioning on "no zero divisor" in either field (a test that hits
    // one is redrawn): W divisors of degree ≤ B, each vanishing with
    // probability ≤ B/2^60 per field, whether the inputs are uniform in
    // S = [0, 2^60) (mode U) or in the whole field, above 2^60 (mode I):
    // ≤ 2·W·B/2^60 (FiniteFieldSemantics::random).
    double divs = c.divisions + r.divisions;
    double divDeg = std::max({c.divisorDegree, r.divisorDegree, 1.0});
    if (divs > 0)
      lz = std::log2(divs) + std::log2(divDeg) + 1 - lm;
  }
  b.zeroDivisor = std::exp2(lz);
  // The draws are uniform within a factor 1 ± 2^-66 each (FiniteField.h,
  // scaleToModulus): any event of a test is at most 1 + 2^-24 times as
  // likely as under exactly uniform draws.
  b.log2PerTest = lz >= -1 ? 0
                           : l2 - std::log2(1 - b.zeroDivisor) +
                                 ff::kLog2DrawSkew;
  // No meaningful bound: ε ≥ 1 (or not a number), or more tests than the
  // budget allows. The verdict is then "not verified" (§4.3).
  double need = std::isfinite(b.log2PerTest) && b.log2PerTest < 0
                    ? std::ceil((double)targetBits / -b.log2PerTest)
                    : INFINITY;
  if (!(need <= (double)maxTests)) {
    b.log2PerTest = std::isfinite(b.log2PerTest)
                        ? std::min(0.0, b.log2PerTest)
                        : 0.0;
    b.tests = 0;
    b.log2Total = 0;
    return b;
  }
  b.tests = std::max<unsigned>(1, (unsigned)need);
  b.log2Total = b.tests * b.log2PerTest;
  return b;
}

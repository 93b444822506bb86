//===- SubexprOracle.cpp - subexpr(E, E_O) under A_eq ∪ A_sub -------------===//
//
// Compiled with -fexceptions (z3++ throws); no exception leaves this file.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Search/SubexprOracle.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <z3++.h>

#include <array>
#include <chrono>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#define DEBUG_TYPE "mirage-subexpr-oracle"

using namespace mirage;
using namespace mirage::search;

const char *mirage::search::subexprAnswerName(SubexprAnswer a) {
  switch (a) {
  case SubexprAnswer::Yes:
    return "yes";
  case SubexprAnswer::No:
    return "no";
  case SubexprAnswer::Unknown:
    return "unknown";
  }
  return "?";
}

namespace {

//===----------------------------------------------------------------------===//
// Stage 2: a model of A_eq ∪ A_sub (docs/Rationale/SearchSpace.md)
//===----------------------------------------------------------------------===//

constexpr int kVarCoords = 32;
constexpr int64_t kPrimes[] = {2, 3, 5, 7, 11, 13};
constexpr int kNumPrimes = 6;
constexpr int kPrimeBase = kVarCoords;
constexpr int kOtherPrime = kPrimeBase + kNumPrimes; // other prime factors
constexpr int kExpCoord = kOtherPrime + 1;
constexpr int kSqrtCoord = kExpCoord + 1;
constexpr int kFn1Base = kSqrtCoord + 1;
constexpr int kFn2Base = kFn1Base + kNumFn1;
/// The exp nesting depth, a model of its own (docs/Rationale/
/// SearchSpace.md, "The exp-depth model"): every operator is the maximum of
/// its operands' depths, exp adds one.
constexpr int kExpDepth = kFn2Base + kNumFn2;
constexpr int kCoords = kExpDepth + 1;
constexpr int32_t kInf = 1 << 29;

using Val = std::array<int32_t, kCoords>;

int32_t satAdd(int32_t a, int32_t b) {
  int64_t s = int64_t(a) + b;
  return s >= kInf ? kInf : int32_t(s);
}

/// Exponents of `d` per coordinate prime (the rest counted together: the
/// number of other prime factors, with multiplicity, is also additive).
void degreeExponents(int64_t d, std::array<int32_t, kNumPrimes + 1> &e) {
  e.fill(0);
  for (int i = 0; i < kNumPrimes; ++i)
    while (d % kPrimes[i] == 0) {
      d /= kPrimes[i];
      ++e[i];
    }
  for (int64_t p = 17; p * p <= d; p += 2)
    while (d % p == 0) {
      d /= p;
      ++e[kNumPrimes];
    }
  if (d > 1)
    ++e[kNumPrimes];
}

//===----------------------------------------------------------------------===//
// Stage 1: structural derivations modulo the canonical forms
//===----------------------------------------------------------------------===//

bool subMultiset(llvm::ArrayRef<ExprId> small, llvm::ArrayRef<ExprId> big) {
  // Both sorted.
  size_t j = 0;
  for (ExprId x : small) {
    while (j < big.size() && big[j] < x)
      ++j;
    if (j == big.size() || big[j] != x)
      return false;
    ++j;
  }
  return true;
}

struct Structural {
  const ExprArena &A;
  ExprId c;
  std::unordered_set<ExprId> failed;

  /// t = L[c] for a linear context L made of add(·, r), mul(·, r),
  /// sum(m, ·) and div(·, r) (the latter through x·(1/r) and the unit).
  bool partOf(ExprId p, ExprId t) const {
    if (p == t)
      return true;
    const ExprNode &np = A.node(p);
    const ExprNode &nt = A.node(t);
    switch (nt.kind) {
    case ExprKind::Add:
    case ExprKind::Mul:
      if (np.kind == nt.kind && subMultiset(np.ops, nt.ops))
        return true;
      for (ExprId o : nt.ops)
        if (partOf(p, o))
          return true;
      return false;
    case ExprKind::Sum:
      if (partOf(p, nt.ops[0]))
        return true;
      // sum(b, L[y]) = sum(b/a, L'[sum(a, y)]) when a | b.
      if (np.kind == ExprKind::Sum && nt.value % np.value == 0 &&
          partOf(np.ops[0], nt.ops[0]))
        return true;
      return false;
    case ExprKind::Div:
      return partOf(p, nt.ops[0]);
    case ExprKind::Var:
    case ExprKind::One:
    case ExprKind::Exp:
    case ExprKind::Sqrt:
    case ExprKind::Fn1:
    case ExprKind::Fn2:
    case ExprKind::Cat:
    case ExprKind::Unknown:
      return false; // not a linear context
    }
    return false;
  }

  /// d = f·r (so x/d = (x/f)/r).
  bool denFactor(ExprId f, ExprId d) const {
    if (f == d)
      return true;
    const ExprNode &nf = A.node(f);
    const ExprNode &nd = A.node(d);
    switch (nd.kind) {
    case ExprKind::Mul:
      if (nf.kind == ExprKind::Mul)
        return subMultiset(nf.ops, nd.ops);
      return std::binary_search(nd.ops.begin(), nd.ops.end(), f);
    case ExprKind::Sum:
      // sum(b, f·r) = f·sum(b, r); sum(b, y·r) = sum(a, y)·sum(b/a, r).
      if (denFactor(f, nd.ops[0]))
        return true;
      if (nf.kind == ExprKind::Sum && nd.value % nf.value == 0 &&
          denFactor(nf.ops[0], nd.ops[0]))
        return true;
      return false;
    case ExprKind::Var:
    case ExprKind::One:
    case ExprKind::Add:
    case ExprKind::Div:
    case ExprKind::Exp:
    case ExprKind::Sqrt:
    case ExprKind::Fn1:
    case ExprKind::Fn2:
    case ExprKind::Cat:
    case ExprKind::Unknown:
      return false;
    }
    return false;
  }

  bool below(ExprId t) {
    if (c == t)
      return true;
    if (failed.count(t))
      return false;
    const ExprNode &nc = A.node(c);
    const ExprNode &nt = A.node(t);
    if (partOf(c, t))
      return true;
    if (nt.kind == ExprKind::Div) {
      if (denFactor(c, nt.ops[1]))
        return true;
      if (nc.kind == ExprKind::Div && partOf(nc.ops[0], nt.ops[0]) &&
          denFactor(nc.ops[1], nt.ops[1]))
        return true;
    }
    for (ExprId o : nt.ops)
      if (below(o))
        return true;
    failed.insert(t);
    return false;
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Oracle state
//===----------------------------------------------------------------------===//

struct SubexprOracle::Impl {
  std::mutex cacheMutex;
  std::unordered_map<uint64_t, SubexprAnswer> cache;
  std::mutex valMutex;
  std::unordered_map<ExprId, Val> vals;
  std::mutex statsMutex;
  SubexprOracleStats stats;

  bool useExpDepth = true;

  Val valuation(const ExprArena &A, ExprId id) {
    {
      std::lock_guard<std::mutex> lock(valMutex);
      auto it = vals.find(id);
      if (it != vals.end())
        return it->second;
    }
    const ExprNode &n = A.node(id);
    Val v;
    v.fill(0);
    auto sumOf = [&](bool withAll) {
      for (ExprId o : n.ops) {
        Val w = valuation(A, o);
        for (int k = 0; k < kCoords; ++k)
          v[k] = withAll ? satAdd(v[k], w[k]) : std::max(v[k], w[k]);
      }
    };
    switch (n.kind) {
    case ExprKind::Var:
      v[n.value % kVarCoords] = 1;
      break;
    case ExprKind::One:
    case ExprKind::Unknown:
      break;
    case ExprKind::Add:
    case ExprKind::Cat:
      sumOf(false); // max
      break;
    case ExprKind::Mul:
    case ExprKind::Div:
      sumOf(true);
      break;
    case ExprKind::Sum: {
      v = valuation(A, n.ops[0]);
      std::array<int32_t, kNumPrimes + 1> e;
      degreeExponents(n.value, e);
      for (int i = 0; i <= kNumPrimes; ++i)
        v[kPrimeBase + i] = satAdd(v[kPrimeBase + i], e[i]);
      break;
    }
    case ExprKind::Exp: {
      // f(a)+f(b) = f(max(a,b)) and f(a) >= a force f ∈ {0 if a = 0, ∞}.
      Val w = valuation(A, n.ops[0]);
      for (int k = 0; k < kCoords; ++k)
        v[k] = w[k] > 0 ? kInf : 0;
      v[kExpCoord] = kInf;
      break;
    }
    case ExprKind::Sqrt:
      // g(a)+g(b) = g(a+b) and g(a) >= a: the identity; the marker is ∞.
      v = valuation(A, n.ops[0]);
      v[kSqrtCoord] = kInf;
      break;
    case ExprKind::Fn1:
      // No equations: any inflationary map; count the nesting depth.
      v = valuation(A, n.ops[0]);
      v[kFn1Base + n.sym] = satAdd(v[kFn1Base + n.sym], 1);
      break;
    case ExprKind::Fn2:
      sumOf(false);
      v[kFn2Base + n.sym] = satAdd(v[kFn2Base + n.sym], 1);
      break;
    }
    // The exp-depth coordinate: the maximum over the operands (mul and div
    // included, whose other coordinates add), plus one under exp.
    int32_t depth = 0;
    if (useExpDepth) {
      for (ExprId o : n.ops)
        depth = std::max(depth, valuation(A, o)[kExpDepth]);
      if (n.kind == ExprKind::Exp)
        depth = satAdd(depth, 1);
    }
    v[kExpDepth] = depth;
    std::lock_guard<std::mutex> lock(valMutex);
    vals.emplace(id, v);
    return v;
  }
};

SubexprOracle::SubexprOracle(const ExprArena &arena, SubexprOracleOptions opts)
    : arena(arena), opts(opts), impl(new Impl) {
  impl->useExpDepth = opts.useExpDepth;
}
SubexprOracle::~SubexprOracle() = default;

SubexprOracleStats SubexprOracle::stats() const {
  std::lock_guard<std::mutex> lock(impl->statsMutex);
  return impl->stats;
}

bool SubexprOracle::structurallyBelow(ExprId e, ExprId target) const {
  Structural s{arena, e, {}};
  return s.below(target);
}

bool SubexprOracle::modelRefutes(ExprId e, ExprId target) {
  Val ve = impl->valuation(arena, e);
  Val vt = impl->valuation(arena, target);
  for (int k = 0; k < kCoords; ++k)
    if (ve[k] > vt[k])
      return true;
  return false;
}

//===----------------------------------------------------------------------===//
// Stage 3: Z3 on the quantified axioms
//===----------------------------------------------------------------------===//

namespace {
struct Z3Encoder {
  z3::context &ctx;
  const ExprArena &A;
  z3::sort P;
  z3::func_decl add, mul, div, exp, sqrt, sum, sub, fn2[kNumFn2];
  std::vector<z3::func_decl> fn1;
  z3::expr one;
  std::unordered_map<ExprId, z3::expr> memo;
  std::vector<z3::expr> vars;

  Z3Encoder(z3::context &ctx, const ExprArena &A)
      : ctx(ctx), A(A), P(ctx.uninterpreted_sort("P")),
        add(ctx.function("add", P, P, P)), mul(ctx.function("mul", P, P, P)),
        div(ctx.function("div", P, P, P)), exp(ctx.function("fexp", P, P)),
        sqrt(ctx.function("fsqrt", P, P)),
        sum(ctx.function("sum", ctx.int_sort(), P, P)),
        sub(ctx.function("sub", P, P, ctx.bool_sort())),
        fn2{ctx.function("pow", P, P, P), ctx.function("max", P, P, P)},
        one(ctx.constant("one", P)) {
    const char *names[kNumFn1] = {"sigmoid", "tanh", "gelu",
                                  "relu",    "rmax", "erf"};
    for (int i = 0; i < kNumFn1; ++i)
      fn1.push_back(ctx.function(names[i], P, P));
  }

  z3::expr enc(ExprId id) {
    auto it = memo.find(id);
    if (it != memo.end())
      return it->second;
    const ExprNode &n = A.node(id);
    z3::expr r(ctx);
    auto fold = [&](z3::func_decl &f) {
      z3::expr acc = enc(n.ops[0]);
      for (size_t i = 1; i < n.ops.size(); ++i)
        acc = f(acc, enc(n.ops[i]));
      return acc;
    };
    switch (n.kind) {
    case ExprKind::Var: {
      std::string name = "v" + std::to_string(n.value);
      r = ctx.constant(name.c_str(), P);
      vars.push_back(r);
      break;
    }
    case ExprKind::One:
      r = one;
      break;
    case ExprKind::Add:
      r = fold(add);
      break;
    case ExprKind::Mul:
      r = fold(mul);
      break;
    case ExprKind::Div:
      r = div(enc(n.ops[0]), enc(n.ops[1]));
      break;
    case ExprKind::Exp:
      r = exp(enc(n.ops[0]));
      break;
    case ExprKind::Sqrt:
      r = sqrt(enc(n.ops[0]));
      break;
    case ExprKind::Sum:
      r = sum(ctx.int_val(n.value), enc(n.ops[0]));
      break;
    case ExprKind::Fn1:
      r = fn1[n.sym](enc(n.ops[0]));
      break;
    case ExprKind::Fn2:
      r = fn2[n.sym](enc(n.ops[0]), enc(n.ops[1]));
      break;
    case ExprKind::Cat:
    case ExprKind::Unknown:
      r = ctx.constant(("opaque" + std::to_string(id)).c_str(), P);
      break;
    }
    memo.emplace(id, r);
    return r;
  }

  void axioms(z3::solver &s) {
    z3::expr x = ctx.constant("x", P), y = ctx.constant("y", P),
             z = ctx.constant("z", P);
    z3::expr i = ctx.int_const("i"), j = ctx.int_const("j");
    auto V = [&](std::initializer_list<z3::expr> l) {
      z3::expr_vector v(ctx);
      for (const z3::expr &e : l)
        v.push_back(e);
      return v;
    };
    auto fa = [&](z3::expr_vector vs, z3::expr body,
                  std::initializer_list<z3::expr> trig) {
      z3::expr_vector t(ctx);
      for (const z3::expr &e : trig)
        t.push_back(e);
      // One multi-trigger per listed term (each alone suffices).
      std::vector<Z3_pattern> pats;
      for (unsigned k = 0; k < t.size(); ++k) {
        Z3_ast a = t[k];
        pats.push_back(Z3_mk_pattern(ctx, 1, &a));
      }
      std::vector<Z3_app> bound;
      for (unsigned k = 0; k < vs.size(); ++k)
        bound.push_back((Z3_app)(Z3_ast)vs[k]);
      Z3_ast q = Z3_mk_forall_const(ctx, 0, bound.size(), bound.data(),
                                    pats.size(), pats.data(), body);
      if (!q || Z3_get_error_code(ctx) != Z3_OK)
        throw z3::exception("trigger rejected"); // caught: Unknown
      s.add(z3::expr(ctx, q));
    };
    // A_eq (paper Table 2).
    fa(V({x, y}), add(x, y) == add(y, x), {add(x, y)});
    fa(V({x, y}), mul(x, y) == mul(y, x), {mul(x, y)});
    fa(V({x, y, z}), add(x, add(y, z)) == add(add(x, y), z),
       {add(x, add(y, z)), add(add(x, y), z)});
    fa(V({x, y, z}), mul(x, mul(y, z)) == mul(mul(x, y), z),
       {mul(x, mul(y, z)), mul(mul(x, y), z)});
    fa(V({x, y, z}), add(mul(x, z), mul(y, z)) == mul(add(x, y), z),
       {add(mul(x, z), mul(y, z)), mul(add(x, y), z)});
    fa(V({x, y, z}), add(div(x, z), div(y, z)) == div(add(x, y), z),
       {add(div(x, z), div(y, z)), div(add(x, y), z)});
    fa(V({x, y, z}), mul(x, div(y, z)) == div(mul(x, y), z),
       {mul(x, div(y, z)), div(mul(x, y), z)});
    fa(V({x, y, z}), div(div(x, y), z) == div(x, mul(y, z)),
       {div(div(x, y), z), div(x, mul(y, z))});
    fa(V({x}), sum(ctx.int_val(1), x) == x, {sum(ctx.int_val(1), x)});
    fa(V({i, j, x}),
       z3::implies(i >= 1 && j >= 1, sum(i, sum(j, x)) == sum(i * j, x)),
       {sum(i, sum(j, x))});
    fa(V({i, x, y}), sum(i, add(x, y)) == add(sum(i, x), sum(i, y)),
       {sum(i, add(x, y)), add(sum(i, x), sum(i, y))});
    fa(V({i, x, y}), sum(i, mul(x, y)) == mul(sum(i, x), y),
       {sum(i, mul(x, y)), mul(sum(i, x), y)});
    fa(V({i, x, y}), sum(i, div(x, y)) == div(sum(i, x), y),
       {sum(i, div(x, y)), div(sum(i, x), y)});
    // Axioms 14-15 (exp/sqrt distributivity) are not given to Z3: Z3 4.8
    // rejects their triggers, as Mirage's own Z3 encoding omits them; the
    // structural stage and the model (where they hold) cover them.
    fa(V({x}), mul(x, one) == x, {mul(x, one)});
    // A_sub.
    fa(V({x}), sub(x, x), {sub(x, x)});
    {
      z3::expr body = z3::implies(sub(x, y) && sub(y, z), sub(x, z));
      Z3_ast terms[2] = {sub(x, y), sub(y, z)};
      Z3_pattern pat = Z3_mk_pattern(ctx, 2, terms);
      Z3_app bound[3] = {(Z3_app)(Z3_ast)x, (Z3_app)(Z3_ast)y,
                         (Z3_app)(Z3_ast)z};
      s.add(z3::expr(ctx, Z3_mk_forall_const(ctx, 0, 3, bound, 1, &pat, body)));
    }
    fa(V({x, y}), sub(x, add(x, y)), {add(x, y)});
    fa(V({x, y}), sub(x, mul(x, y)), {mul(x, y)});
    fa(V({x, y}), sub(x, div(x, y)) && sub(y, div(x, y)), {div(x, y)});
    fa(V({x}), sub(x, exp(x)), {exp(x)});
    fa(V({x}), sub(x, sqrt(x)), {sqrt(x)});
    for (int k = 0; k < kNumFn1; ++k)
      fa(V({x}), sub(x, fn1[k](x)), {fn1[k](x)});
    for (int k = 0; k < kNumFn2; ++k)
      fa(V({x, y}), sub(x, fn2[k](x, y)) && sub(y, fn2[k](x, y)),
         {fn2[k](x, y)});
    fa(V({i, x}), z3::implies(i >= 1, sub(x, sum(i, x))), {sum(i, x)});
    // Degrees: sum(i, x) ⊑ sum(j, x) when i | j (sum(j,x) = sum(j/i, sum(i,x))).
    {
      z3::expr body = z3::implies(i >= 1 && j >= 1 && z3::mod(j, i) == 0,
                                  sub(sum(i, x), sum(j, x)));
      Z3_ast terms[2] = {sum(i, x), sum(j, x)};
      Z3_pattern pat = Z3_mk_pattern(ctx, 2, terms);
      Z3_app bound[3] = {(Z3_app)(Z3_ast)i, (Z3_app)(Z3_ast)j,
                         (Z3_app)(Z3_ast)x};
      s.add(z3::expr(ctx, Z3_mk_forall_const(ctx, 0, 3, bound, 1, &pat, body)));
    }
  }
};
} // namespace

SubexprAnswer SubexprOracle::z3Query(ExprId e, ExprId target) {
  auto t0 = std::chrono::steady_clock::now();
  SubexprAnswer ans = SubexprAnswer::Unknown;
  try {
    z3::context ctx;
    z3::solver s(ctx);
    z3::params p(ctx);
    p.set("rlimit", opts.z3ResourceLimit);
    p.set("timeout", opts.z3TimeoutMs);
    s.set(p);
    Z3Encoder enc(ctx, arena);
    enc.axioms(s);
    z3::expr ze = enc.enc(e), zt = enc.enc(target);
    // Distinct inputs are unequal and not subexpressions of each other.
    for (size_t a = 0; a < enc.vars.size(); ++a)
      for (size_t b = 0; b < enc.vars.size(); ++b)
        if (a != b) {
          s.add(enc.vars[a] != enc.vars[b]);
          s.add(!enc.sub(enc.vars[a], enc.vars[b]));
        }
    s.add(!enc.sub(ze, zt));
    switch (s.check()) {
    case z3::unsat:
      ans = SubexprAnswer::Yes;
      break;
    case z3::sat:
      ans = SubexprAnswer::No;
      break;
    default:
      ans = SubexprAnswer::Unknown;
      LLVM_DEBUG(llvm::dbgs() << "z3 unknown: " << s.reason_unknown() << "\n");
      break;
    }
  } catch (const z3::exception &ex) {
    LLVM_DEBUG(llvm::dbgs() << "z3 exception: " << ex.msg() << "\n");
    ans = SubexprAnswer::Unknown;
  } catch (...) {
    ans = SubexprAnswer::Unknown;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              t0)
                    .count();
  std::lock_guard<std::mutex> lock(impl->statsMutex);
  impl->stats.z3Seconds += secs;
  if (ans == SubexprAnswer::Yes)
    ++impl->stats.z3Yes;
  else if (ans == SubexprAnswer::No)
    ++impl->stats.z3No;
  else
    ++impl->stats.z3Unknown;
  return ans;
}

SubexprAnswer SubexprOracle::decide(ExprId e, ExprId target) {
  const ExprNode &n = arena.node(e);
  if (n.kind == ExprKind::Cat) {
    ExprId a = n.ops[0], b = n.ops[1];
    SubexprAnswer ra = query(a, target);
    if (ra == SubexprAnswer::No)
      return ra;
    SubexprAnswer rb = query(b, target);
    if (rb == SubexprAnswer::No)
      return rb;
    return ra == SubexprAnswer::Yes && rb == SubexprAnswer::Yes
               ? SubexprAnswer::Yes
               : SubexprAnswer::Unknown;
  }
  if (arena.containsUnknown(e) || arena.containsUnknown(target)) {
    std::lock_guard<std::mutex> lock(impl->statsMutex);
    ++impl->stats.unknownExpr;
    return SubexprAnswer::Unknown;
  }
  if (opts.useStructural && structurallyBelow(e, target)) {
    std::lock_guard<std::mutex> lock(impl->statsMutex);
    ++impl->stats.structuralYes;
    return SubexprAnswer::Yes;
  }
  if (opts.useModels && modelRefutes(e, target)) {
    std::lock_guard<std::mutex> lock(impl->statsMutex);
    ++impl->stats.modelNo;
    return SubexprAnswer::No;
  }
  if (!opts.useZ3)
    return SubexprAnswer::Unknown;
  return z3Query(e, target);
}

SubexprAnswer SubexprOracle::query(ExprId e, ExprId target) {
  auto t0 = std::chrono::steady_clock::now();
  uint64_t key = (uint64_t(uint32_t(e)) << 32) | uint32_t(target);
  {
    std::lock_guard<std::mutex> lock(impl->cacheMutex);
    auto it = impl->cache.find(key);
    if (it != impl->cache.end()) {
      std::lock_guard<std::mutex> slock(impl->statsMutex);
      ++impl->stats.queries;
      ++impl->stats.cacheHits;
      return it->second;
    }
  }
  SubexprAnswer a = decide(e, target);
  {
    std::lock_guard<std::mutex> lock(impl->cacheMutex);
    impl->cache.emplace(key, a);
  }
  std::lock_guard<std::mutex> slock(impl->statsMutex);
  ++impl->stats.queries;
  impl->stats.totalSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  return a;
}

bool SubexprOracle::keep(ExprId e, llvm::ArrayRef<ExprId> targets) {
  if (targets.empty())
    return true;
  for (ExprId t : targets)
    if (query(e, t) != SubexprAnswer::No)
      return true;
  return false;
}

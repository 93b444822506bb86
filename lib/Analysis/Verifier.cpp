//===- Verifier.cpp - Probabilistic equivalence of μGraphs ----------------===//
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Semantics/Evaluator.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <functional>

using namespace mirage;
using ff::FieldValue;

namespace {
uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

bool containsExp(const UGraph &g) {
  for (const UOp &op : g.ops)
    if (op.kind == OpKind::Unary && op.unaryKind() == UnaryKind::exp)
      return true;
  for (const UGraph &b : g.bodies)
    if (containsExp(b))
      return true;
  return false;
}

/// Kuhn's augmenting paths: a perfect matching cand output -> ref output
/// within `ok`, or an empty vector.
std::vector<int> perfectMatching(const std::vector<std::vector<char>> &ok) {
  size_t n = ok.size();
  std::vector<int> refOwner(n, -1);
  std::function<bool(size_t, std::vector<char> &)> augment =
      [&](size_t i, std::vector<char> &seen) {
        for (size_t j = 0; j < n; ++j) {
          if (!ok[i][j] || seen[j])
            continue;
          seen[j] = 1;
          if (refOwner[j] < 0 || augment(refOwner[j], seen)) {
            refOwner[j] = i;
            return true;
          }
        }
        return false;
      };
  for (size_t i = 0; i < n; ++i) {
    std::vector<char> seen(n, 0);
    if (!augment(i, seen))
      return {};
  }
  std::vector<int> perm(n);
  for (size_t j = 0; j < n; ++j)
    perm[refOwner[j]] = j;
  return perm;
}

struct ModeOutcome {
  bool identity = true;
  std::vector<int> permutation;
  int diffOut = -1;
  unsigned diffTest = 0;
  unsigned tests = 0;
  bool nestedExp = false;
  bool inconclusive = false;
};

ModeOutcome runMode(const UGraph &cand, const UGraph &ref, bool expI,
                    unsigned nTests, const VerifyOptions &opts) {
  using Sem = FiniteFieldSemantics;
  using T = Tensor<FieldValue>;
  size_t nOut = ref.outputs.size();
  std::vector<std::vector<char>> ok(nOut, std::vector<char>(nOut, 0));
  for (size_t i = 0; i < nOut; ++i)
    for (size_t j = 0; j < nOut; ++j)
      ok[i][j] = cand.values[cand.outputs[i]].shape ==
                 ref.values[ref.outputs[j]].shape;
  ModeOutcome out;
  for (size_t i = 0; i < nOut; ++i)
    if (!ok[i][i] && out.identity) {
      out.identity = false;
      out.diffOut = i;
    }
  for (unsigned t = 0; t < nTests; ++t) {
    bool done = false;
    for (unsigned r = 0; r <= opts.maxRedraws && !done; ++r) {
      uint64_t key = mix(mix(mix(opts.seed) ^ (expI ? 0x5eed : 0x1dea)) ^
                         ((uint64_t)t << 8 | r));
      Sem sem(key, expI ? Sem::ExpMode::Interpreted
                        : Sem::ExpMode::Uninterpreted);
      std::mt19937_64 rng(mix(key ^ 0x1234567));
      std::vector<T> ins;
      for (int32_t v : ref.inputs) {
        T x(ref.values[v].shape, FieldValue{});
        for (FieldValue &e : x.data)
          e = Sem::random(rng);
        ins.push_back(std::move(x));
      }
      Evaluator<Sem> eval(sem, opts.threads);
      std::vector<T> a = eval.run(cand, ins);
      std::vector<T> b = eval.run(ref, ins);
      if (sem.nestedExp()) {
        out.nestedExp = true;
        return out;
      }
      if (!sem.conclusive())
        continue; // zero divisor: redraw
      done = true;
      for (size_t i = 0; i < nOut; ++i)
        for (size_t j = 0; j < nOut; ++j) {
          if (!ok[i][j])
            continue;
          for (int64_t e = 0; e < a[i].size(); ++e)
            if (!a[i].data[e].sameAs(b[j].data[e])) {
              ok[i][j] = 0;
              break;
            }
        }
    }
    if (!done) {
      out.inconclusive = true;
      return out;
    }
    out.tests = t + 1;
    if (out.identity)
      for (size_t i = 0; i < nOut; ++i)
        if (!ok[i][i]) {
          out.identity = false;
          out.diffOut = i;
          out.diffTest = t;
          break;
        }
    if (!out.identity &&
        (!opts.allowPermutation || perfectMatching(ok).empty()))
      return out; // decided: not equivalent
  }
  if (!out.identity && opts.allowPermutation)
    out.permutation = perfectMatching(ok);
  return out;
}

std::string boundText(const ErrorBound &b) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (b.vacuous())
    os << "no useful false-acceptance bound";
  else
    os << "false-acceptance bound 2^" << (long)std::floor(b.log2Total);
  return s;
}
} // namespace

VerificationResult mirage::verifyEquivalence(const UGraph &cand,
                                             const UGraph &ref,
                                             const VerifyOptions &opts) {
  VerificationResult res;
  bool sigOk = cand.inputs.size() == ref.inputs.size() &&
               cand.outputs.size() == ref.outputs.size();
  for (size_t i = 0; sigOk && i < ref.inputs.size(); ++i)
    sigOk = cand.values[cand.inputs[i]].shape == ref.values[ref.inputs[i]].shape;
  if (!sigOk) {
    res.status = VerifyStatus::NotEquivalent;
    res.message = "the signatures differ";
    return res;
  }

  auto accept = [&](const ModeOutcome &o, const ErrorBound &b) {
    res.tests = o.tests;
    res.bound = b;
    res.expInterpreted = b.expInterpreted;
    res.boundVacuous = b.vacuous();
    res.log2Bound = b.vacuous() ? 0 : b.log2Total;
    std::string s;
    llvm::raw_string_ostream os(s);
    if (o.identity) {
      res.status = VerifyStatus::Equivalent;
      os << o.tests << " tests, " << boundText(b);
    } else {
      res.status = VerifyStatus::EquivalentUpToPermutation;
      res.permutation = o.permutation;
      os << "its outputs match the reference's only when permuted as [";
      for (size_t i = 0; i < o.permutation.size(); ++i)
        os << (i ? ", " : "") << o.permutation[i];
      os << "] (" << o.tests << " tests)";
    }
    if (b.expInterpreted)
      os << " (exp interpreted as ω^x, Theorem 2"
         << (b.vacuous() ? " is vacuous for k = " : " with k = ")
         << llvm::format("%.3g", b.expTerms) << ")";
    res.message = s;
    return res;
  };
  auto reject = [&](const ModeOutcome &o, const ErrorBound &b) {
    res.status = VerifyStatus::NotEquivalent;
    res.tests = o.tests;
    res.bound = b;
    res.expInterpreted = b.expInterpreted;
    res.differingOutput = o.diffOut;
    res.differingTest = o.diffTest;
    res.message = "output #" + std::to_string(o.diffOut) + " differs in test " +
                  std::to_string(o.diffTest);
    if (o.tests == 0)
      res.message = "output #" + std::to_string(o.diffOut) +
                    " has a different shape";
    return res;
  };
  auto inconclusive = [&](std::string why) {
    res.status = VerifyStatus::Inconclusive;
    res.message = std::move(why);
    return res;
  };

  // 1. Every function but the field operations uninterpreted, exp included:
  //    the strong Schwartz–Zippel bound.
  ErrorBound bu = computeErrorBound(cand, ref, false, opts.targetBits);
  ModeOutcome u = runMode(cand, ref, false,
                          bu.vacuous() ? opts.vacuousTests : bu.tests, opts);
  if (u.inconclusive)
    return inconclusive("every redraw of a test hit a zero divisor");
  if (u.identity || !u.permutation.empty())
    return accept(u, bu);
  if (!containsExp(cand) && !containsExp(ref))
    return reject(u, bu);

  // 2. exp interpreted as ω^{x_q} (the paper's LAX semantics): complete for
  //    LAX graphs (equivalent graphs always pass), bound by Theorem 2.
  ErrorBound bi = computeErrorBound(cand, ref, true, opts.targetBits);
  ModeOutcome in = runMode(cand, ref, true,
                           bi.vacuous() ? opts.vacuousTests : bi.tests, opts);
  if (in.nestedExp)
    return inconclusive("the graphs differ with exp uninterpreted, and nested "
                        "exponentiation is outside the LAX fragment");
  if (in.inconclusive)
    return inconclusive("every redraw of a test hit a zero divisor");
  if (in.identity || !in.permutation.empty())
    return accept(in, bi);
  return reject(in, bi);
}

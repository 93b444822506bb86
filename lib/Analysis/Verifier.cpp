//===- Verifier.cpp - Probabilistic equivalence of μGraphs ----------------===//
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Analysis/Definedness.h"
#include "Mirage/Analysis/ShiftedExp.h"
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Analysis/LaneField.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/MemoryLimit.h"
#include "Mirage/Support/SeededValues.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include "Mirage/Semantics/CounterInputs.h"

#include <chrono>
#include <unistd.h>
#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <type_traits>

using namespace mirage;
using ff::FieldValue;

namespace {

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
  bool badConstant = false; // a NaN or infinite scalar
};

/// Progress lines on stderr for a long verification.
struct Progress {
  const VerifyOptions &opts;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last = start;
  void test(bool expI, unsigned t, unsigned n) {
    if (opts.progressSeconds <= 0)
      return;
    auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last).count() < opts.progressSeconds)
      return;
    last = now;
    llvm::errs() << "mirage: verifying at full shapes"
                 << (expI ? " (exp interpreted)" : "") << ": test " << t + 1
                 << " of " << n << ", "
                 << llvm::format("%.1f",
                                 std::chrono::duration<double>(now - start)
                                     .count())
                 << " s\n";
  }
};

/// The domain of one test under `key`: the 61-bit pair in mode U or I, or
/// mode U's four lanes (§4.2c).
FiniteFieldSemantics makeDomain(FiniteFieldSemantics *, uint64_t key,
                                bool expI) {
  return FiniteFieldSemantics(key, expI
                                       ? FiniteFieldSemantics::ExpMode::Interpreted
                                       : FiniteFieldSemantics::ExpMode::Uninterpreted);
}
LaneFieldSemantics makeDomain(LaneFieldSemantics *, uint64_t key, bool) {
  return LaneFieldSemantics(key);
}

template <class Sem>
ModeOutcome runMode(const UGraph &cand, const UGraph &ref, bool expI,
                    unsigned nTests, uint64_t seed,
                    const VerifyOptions &opts, Progress &progress) {
  using V = typename Sem::Value;
  using T = Tensor<V>;
  const uint64_t family =
      std::is_same_v<Sem, LaneFieldSemantics> ? 0x1a4e : (expI ? 0x5eed : 0x1dea);
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
    progress.test(expI, t, nTests);
    bool done = false;
    for (unsigned r = 0; r <= opts.maxRedraws && !done; ++r) {
      uint64_t key = mix64(mix64(mix64(seed) ^ family) ^ ((uint64_t)t << 8 | r));
      Sem sem = makeDomain(static_cast<Sem *>(nullptr), key, expI);
      // The domain's draw step (this test's moduli) from the element's
      // words, or a whole range at once.
      auto draw = sem.counterDraw();
      // Small inputs are drawn once per test and shared by both graphs;
      // large ones are generated where the evaluator reads them.
      std::vector<T> stored;
      std::vector<TensorSource<V>> ins =
          counterInputs<V>(ref, mix64(key ^ 0x1234567),
                                    kStoredInputElements, stored, draw);
      Evaluator<Sem> eval(sem, opts.threads);
      std::vector<T> a = eval.run(cand, ins);
      std::vector<T> b = eval.run(ref, ins);
      if (sem.badConstant()) {
        out.badConstant = true; // no redraw can fix a NaN or inf scalar
        return out;
      }
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
  // Rounded up: the stated bound is never below the computed one.
  os << "false-acceptance bound 2^" << (long)std::ceil(b.log2Total);
  return s;
}

/// Why a bound is vacuous, for the "not verified" message.
std::string vacuousText(const ErrorBound &b, unsigned maxTests) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "no meaningful false-acceptance bound (per-test bound 2^"
     << llvm::format("%.3g", b.log2PerTest) << ", degree "
     << llvm::format("%.3g", b.szDegree) << ", height "
     << llvm::format("%.3g", b.heightBits) << " bits";
  if (b.expTerms > 0)
    os << ", Theorem 2 with k = " << llvm::format("%.3g", b.expTerms);
  os << "; more than " << maxTests << " tests would be needed)";
  return s;
}
} // namespace

uint64_t mirage::drawRandomSeed() {
  std::random_device rd;
  return ((uint64_t)rd() << 32) ^ rd();
}

namespace {
} // namespace

double mirage::multiplyAdds(const UGraph &g) {
  double n = 0;
  double mult = g.level == Level::Block
                    ? (double)g.grid[0] * g.grid[1] * g.grid[2] *
                          std::max<int64_t>(g.forloopRange, 1)
                    : 1.0;
  for (const UOp &op : g.ops) {
    if (op.kind == OpKind::Matmul)
      n += mult * (double)numElements(g.values[op.results[0]].shape) *
           (double)g.values[op.operands[0]].shape.back();
    else if (op.kind == OpKind::RmsNorm)
      n += mult * (double)numElements(g.values[op.operands[0]].shape);
    else if (op.kind == OpKind::Custom)
      n += multiplyAdds(g.bodies[op.body]);
  }
  return n;
}

namespace {
/// Whether `g` (nested graphs included) has a running max.
bool hasRunningMax(const UGraph &g) {
  for (const UOp &op : g.ops)
    if (op.kind == OpKind::RunningMax ||
        (op.body >= 0 && hasRunningMax(g.bodies[op.body])))
      return true;
  return false;
}

llvm::SmallVector<bool, 8> generatedInputs(const UGraph &ref) {
  llvm::SmallVector<bool, 8> gen;
  for (int32_t v : ref.inputs)
    gen.push_back(numElements(ref.values[v].shape) > kStoredInputElements);
  return gen;
}
} // namespace

static VerificationResult verifyTimed(const UGraph &cand, const UGraph &ref,
                                      const VerifyOptions &opts);

uint64_t mirage::verificationBytes(const UGraph &cand, const UGraph &ref) {
  using E = Evaluator<FiniteFieldSemantics>;
  llvm::SmallVector<bool, 8> gen = generatedInputs(ref);
  // The candidate runs first and its outputs are kept while the reference
  // runs (runMode).
  int64_t n = E::storedElementsOfRuns({&cand, &ref}, gen);
  for (size_t i = 0; i < ref.inputs.size(); ++i)
    if (!gen[i])
      n += numElements(ref.values[ref.inputs[i]].shape);
  // The definedness check (§4.6) runs after the field tests, over the same
  // values with larger records: the peak is the larger of the two.
  return std::max((uint64_t)n * sizeof(FieldValue),
                  definednessBytes(cand, ref));
}

VerificationResult mirage::verifyEquivalence(const UGraph &cand,
                                             const UGraph &ref,
                                             const VerifyOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  VerificationResult res = verifyTimed(cand, ref, opts);
  res.seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  return res;
}

static VerificationResult verifyTimed(const UGraph &cand, const UGraph &ref,
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
  if (std::string over = memoryOverLimit(verificationBytes(cand, ref),
                                         "field values", opts.memoryLimitBytes);
      !over.empty()) {
    res.status = VerifyStatus::Inconclusive;
    res.message = "verification at full shapes " + over;
    return res;
  }
  Progress progress{opts};

  uint64_t seed = opts.seed ? *opts.seed : drawRandomSeed();
  res.seed = seed;
  std::string seedText = " (seed " + std::to_string(seed) + ")";

  // What every verdict after the tests records: their count and the bound.
  auto recordTests = [&](const ModeOutcome &o, const ErrorBound &b) {
    res.tests = o.tests;
    res.bound = b;
    res.expInterpreted = b.expInterpreted;
    res.boundVacuous = b.vacuous();
  };
  auto accept = [&](const ModeOutcome &o, const ErrorBound &b) {
    recordTests(o, b);
    res.log2Bound = b.vacuous() ? 0 : b.log2Total;
    std::string s;
    llvm::raw_string_ostream os(s);
    if (o.identity) {
      res.status = VerifyStatus::Equivalent;
      os << o.tests << testsNoun(o.tests) << ", " << boundText(b);
      if (b.family == FieldFamily::FourLanes)
        os << " in four 28-bit fields";
    } else {
      res.status = VerifyStatus::EquivalentUpToPermutation;
      res.permutation = o.permutation;
      os << "its outputs match the reference's only when permuted as [";
      for (size_t i = 0; i < o.permutation.size(); ++i)
        os << (i ? ", " : "") << o.permutation[i];
      os << "] (" << o.tests << testsNoun(o.tests) << ")";
    }
    if (b.expInterpreted)
      os << " (exp interpreted as ω^x, Theorem 2 with k = "
         << llvm::format("%.3g", b.expTerms) << ")";
    res.message = s + seedText;
    if (o.identity && opts.float64Tolerance >= 0) {
      // An accepted pair must also agree in float64 (Verification.md §4.5).
      res.float64Error = float64Disagreement(cand, ref, seed, 1, opts.threads);
      if (!(res.float64Error <= opts.float64Tolerance)) {
        res.status = VerifyStatus::NotEquivalent;
        std::string m;
        llvm::raw_string_ostream ms(m);
        ms << "accepted in the finite field, but the float64 outputs differ "
              "by "
           << llvm::format("%.3g", res.float64Error)
           << " (relative; tolerance "
           << llvm::format("%.3g", opts.float64Tolerance)
           << "): an assumption of the field argument failed" << seedText;
        res.message = m;
      }
    }
    // Refinement (Verification.md §4.6): the field check compares formal
    // expressions, in which r/r = 1 for any r; the candidate must also be
    // defined wherever the reference is. Only a candidate with a partial
    // operation (a division, sqrt, rsqrt, pow) can fail it.
    if (res.status == VerifyStatus::Equivalent && hasPartialOps(cand)) {
      DefinednessResult d =
          checkDefinedness(cand, ref, seed, opts.memoryLimitBytes,
                           opts.threads);
      if (d.ok() && opts.float64Tolerance >= 0)
        d = wideFloat64Refinement(cand, ref, seed, opts.threads);
      switch (d.status) {
      case DefinednessResult::Status::Refines:
        break;
      case DefinednessResult::Status::NotShown:
        res.status = VerifyStatus::NotVerified;
        res.log2Bound = 0;
        res.message = d.message + " (Verification.md §4.6)" + seedText;
        break;
      case DefinednessResult::Status::Counterexample:
        res.status = VerifyStatus::NotEquivalent;
        res.log2Bound = 0;
        res.message = "accepted in the finite field, but " + d.message +
                      " (Verification.md §4.6)" + seedText;
        break;
      case DefinednessResult::Status::Inconclusive:
        res.status = VerifyStatus::Inconclusive;
        res.log2Bound = 0;
        res.message = d.message + seedText;
        break;
      }
    }
    return res;
  };
  auto notVerified = [&](const ModeOutcome &o, const ErrorBound &b) {
    recordTests(o, b);
    res.status = VerifyStatus::NotVerified;
    res.boundVacuous = true;
    res.message = vacuousText(b, opts.maxTests) + seedText;
    return res;
  };
  auto reject = [&](const ModeOutcome &o, const ErrorBound &b) {
    recordTests(o, b);
    res.status = VerifyStatus::NotEquivalent;
    res.differingOutput = o.diffOut;
    res.differingTest = o.diffTest;
    res.message = "output #" + std::to_string(o.diffOut) + " differs in test " +
                  std::to_string(o.diffTest);
    if (o.tests == 0)
      res.message = "output #" + std::to_string(o.diffOut) +
                    " has a different shape";
    res.message += seedText;
    return res;
  };
  auto inconclusive = [&](std::string why) {
    res.status = VerifyStatus::Inconclusive;
    res.message = std::move(why) + seedText;
    return res;
  };
  auto modeFailure = [&](const ModeOutcome &o) -> std::optional<std::string> {
    if (o.badConstant)
      return std::string("a scalar constant is not finite (NaN or inf)");
    if (o.nestedExp)
      return std::string("the graphs differ with exp uninterpreted, and "
                         "nested exponentiation is outside the LAX fragment");
    if (o.inconclusive)
      return std::string("every redraw of a test hit a zero divisor");
    return std::nullopt;
  };

  // 1. Every function but the field operations uninterpreted, exp included:
  //    the strong Schwartz–Zippel bound. A vacuous bound still runs a few
  //    tests: a difference found is a real "not equivalent".
  constexpr unsigned kProbeTests = 8;
  const unsigned probeTests = opts.probeWhenVacuous ? kProbeTests : 0;
  // Mode U on a pair: the bound, then the tests.
  auto modeU = [&](const UGraph &c,
                   const UGraph &r) -> std::pair<ModeOutcome, ErrorBound> {
    ErrorBound b =
        computeErrorBound(c, r, false, opts.targetBits, opts.maxTests);
    //  At model scale, in four 28-bit fields when they need no more tests
    //  (§4.2c): a multiply-add is one vector product for all four.
    bool lanes = opts.laneFields == LaneFieldUse::Always ||
                 (opts.laneFields == LaneFieldUse::Auto &&
                  multiplyAdds(c) + multiplyAdds(r) >=
                      kLaneFieldMinMultiplyAdds);
    if (lanes) {
      ErrorBound bl = computeErrorBound(c, r, false, opts.targetBits,
                                        opts.maxTests, FieldFamily::FourLanes);
      lanes = !bl.vacuous() &&
              (opts.laneFields == LaneFieldUse::Always || b.vacuous() ||
               bl.tests <= b.tests);
      if (lanes)
        b = bl;
    }
    unsigned tests = b.vacuous() ? probeTests : b.tests;
    ModeOutcome o =
        lanes ? runMode<LaneFieldSemantics>(c, r, false, tests, seed, opts,
                                            progress)
              : runMode<FiniteFieldSemantics>(c, r, false, tests, seed, opts,
                                              progress);
    return {std::move(o), b};
  };
  // 1b. Mode S (§2a): still mode U, with every exp of a difference read as a
  //     quotient of exps (a true identity), so the shifts of an online or
  //     split softmax cancel whatever its maxima are. A difference here is
  //     not a real one (the identity is used only where exp reads a sub),
  //     so mode I still decides.
  bool hasExp = containsExp(cand) || containsExp(ref);
  bool sApplies =
      hasExp && (hasShiftedExp(cand) || hasShiftedExp(ref));
  auto modeS = [&]() -> std::optional<VerificationResult> {
    std::optional<UGraph> cs = expandShiftedExps(cand);
    std::optional<UGraph> rs = expandShiftedExps(ref);
    if (!cs || !rs ||
        !memoryOverLimit(verificationBytes(*cs, *rs), "field values",
                         opts.memoryLimitBytes)
             .empty())
      return std::nullopt;
    auto [sm, bs] = modeU(*cs, *rs);
    bool sAgrees =
        !modeFailure(sm) && (sm.identity || !sm.permutation.empty());
    if (!sAgrees || bs.vacuous())
      return std::nullopt;
    VerificationResult r = accept(sm, bs);
    r.message += " (mode S: exp of a difference read as a quotient of "
                 "exps, Verification.md §2a)";
    return r;
  };
  // A candidate with a running max (OnlineSoftmax.md) folds its maxima in
  // another order than the reference's reduce_max, so mode U, where max is
  // a free symbol, differs on it and only mode S can accept: tried first,
  // it spares a full mode-U test of both graphs. The verdict is the same
  // in either order (accepted when mode U or mode S accepts); only a pair
  // that both accept reports mode S's bound instead of mode U's.
  bool sFirst =
      opts.shiftedFirstForRunningMax && sApplies && hasRunningMax(cand);
  if (sFirst)
    if (std::optional<VerificationResult> r = modeS())
      return *r;

  auto [u, bu] = modeU(cand, ref);
  if (auto why = modeFailure(u))
    return inconclusive(*why);
  bool uAgrees = u.identity || !u.permutation.empty();
  if (uAgrees && !bu.vacuous())
    return accept(u, bu);
  if (!uAgrees && !hasExp)
    return reject(u, bu);

  // Tried only when mode U did not accept (unless tried first above).
  if (sApplies && !sFirst)
    if (std::optional<VerificationResult> r = modeS())
      return *r;

  // 2. exp interpreted as ω^{x_q} (the paper's LAX semantics): complete for
  //    LAX graphs (equivalent graphs always pass), bound by Theorem 2.
  if (hasExp) {
    ErrorBound bi =
        computeErrorBound(cand, ref, true, opts.targetBits, opts.maxTests);
    ModeOutcome in = runMode<FiniteFieldSemantics>(cand, ref, true,
                             bi.vacuous() ? probeTests : bi.tests, seed, opts,
                             progress);
    if (auto why = modeFailure(in))
      return uAgrees ? notVerified(u, bu) : inconclusive(*why);
    bool iAgrees = in.identity || !in.permutation.empty();
    if (iAgrees && !bi.vacuous())
      return accept(in, bi);
    if (!iAgrees) // mode I is complete for LAX graphs: a real difference
      return reject(in, bi);
    return notVerified(in, bi);
  }
  return notVerified(u, bu);
}

//===- Definedness.cpp - The candidate is defined where the reference is --===//
//
// See Definedness.h and docs/Rationale/Verification.md §4.6.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/Definedness.h"
#include "Mirage/Analysis/DefinednessCone.h"
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Analysis/SymmetricUnitDraw.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/CounterInputs.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/MemoryLimit.h"
#include "Mirage/Semantics/OpKinds.h"

#include "Mirage/Support/SeededValues.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cmath>
#include <mutex>
#include <unordered_set>

#define DEBUG_TYPE "mirage-definedness"

using namespace mirage;
using ff::FieldValue;
using ff::Symbol;

bool mirage::hasPartialOps(const UGraph &g) {
  for (const UOp &op : g.ops) {
    if (isPartialOp(op))
      return true;
    if ((op.kind == OpKind::Custom || op.kind == OpKind::ThreadGraph) &&
        hasPartialOps(g.bodies[op.body]))
      return true;
  }
  return false;
}

namespace {

//===----------------------------------------------------------------------===//
// The definedness domain
//===----------------------------------------------------------------------===//

/// Sign facts, true over the reals wherever the value is defined.
enum : uint8_t {
  kPos = 1,     // > 0
  kNonNeg = 2,  // >= 0
  kNonZero = 4, // != 0
  kZero = 8,    // the constant 0
};

/// What an atom is, for messages.
enum class AtomKind : uint8_t {
  Input, Sum, Product, Constant, Exp, Sqrt, Sigmoid, Gelu, Relu, Tanh, Pow,
  Max, Erf
};

const char *atomName(AtomKind k) {
  switch (k) {
  case AtomKind::Input:
    return "a graph input";
  case AtomKind::Sum:
    return "a sum or difference (add, sub, a reduction or a matmul)";
  case AtomKind::Product:
    return "a product of more than four factors";
  case AtomKind::Constant:
    return "a constant expression";
  case AtomKind::Exp:
    return "an exp output";
  case AtomKind::Sqrt:
    return "a sqrt output";
  case AtomKind::Sigmoid:
    return "a sigmoid output";
  case AtomKind::Gelu:
    return "a gelu output";
  case AtomKind::Relu:
    return "a relu output";
  case AtomKind::Tanh:
    return "a tanh output";
  case AtomKind::Erf:
    return "an erf output";
  case AtomKind::Pow:
    return "a pow output";
  case AtomKind::Max:
    return "a max output";
  }
  return "a value";
}

struct Atom {
  FieldValue fp;
  int8_t e = 0;
  uint8_t flags = 0;
  AtomKind kind = AtomKind::Input;
};

constexpr int kMaxAtoms = 4;

/// fp = (sign)·|constant|·∏ atoms[i].fp^atoms[i].e (as field values; the
/// constant is folded into fp only). The default value is the constant 0.
struct DValue {
  FieldValue fp;
  uint8_t flags = kZero | kNonNeg;
  uint8_t n = 0;
  bool negative = false;
  Atom atoms[kMaxAtoms];
};

/// A float64 value and whether it is, or descends from, an overflow or
/// underflow (lossy) or a domain error (undef).
struct WValue {
  double v = 0;
  bool lossy = false;
  bool undef = false;
};

struct FieldKey {
  size_t operator()(const FieldValue &v) const {
    return mix64(v.p ^ mix64(v.q));
  }
};
struct FieldEq {
  bool operator()(const FieldValue &a, const FieldValue &b) const {
    return a.identical(b);
  }
};
using FieldSet = std::unordered_set<FieldValue, FieldKey, FieldEq>;

class DefinednessSemantics {
public:
  using Value = DValue;
  /// The evaluator's workers may share the domain: the recorded sets and the
  /// failure are guarded by a mutex, the field domain is parallel-safe.
  static constexpr bool kParallelSafe = true;
  /// Probe: the candidate alone, checked as Candidate against no recorded
  /// reference calls; only whether it fails matters, so after the first
  /// failure every operation returns zero at once (the rest of the run is
  /// discarded).
  enum class Role : uint8_t { Reference, Candidate, Probe };

  explicit DefinednessSemantics(uint64_t key)
      : f(key, FiniteFieldSemantics::ExpMode::Uninterpreted) {}

  // The evaluator's matmul path: one atom per output, with the sign facts of
  // a sum of products.
  struct DotAccumulator {
    FiniteFieldSemantics::DotAccumulator acc;
    bool any = false, allNonNeg = true, anyPos = false;
  };
  void dotMulAdd(DotAccumulator &a, const Value &x, const Value &y) const {
    f.dotMulAdd(a.acc, x.fp, y.fp);
    uint8_t pf = productFlags(x, y);
    a.any = true;
    a.allNonNeg &= (pf & kNonNeg) != 0;
    a.anyPos |= (pf & kPos) != 0;
  }
  Value dotValue(const DotAccumulator &a) const {
    if (!a.any)
      return zero();
    uint8_t fl = 0;
    if (a.allNonNeg)
      fl |= kNonNeg | (a.anyPos ? kPos | kNonZero : 0);
    return atom(f.dotValue(a.acc), fl, AtomKind::Sum);
  }
  /// The evaluator's matmul tile, with the values of the dotMulAdd chain:
  /// the field sums by the field's tile kernel (FieldDot.h) on residues
  /// copied out of the records, the sign facts folded beside it. An output
  /// stops being looked at after its first product not known non-negative
  /// (its sum then has no fact, dotValue's rule), so on inputs without
  /// facts the facts cost one pass over the first row of b.
  static constexpr size_t kDotTileBytes = FiniteFieldSemantics::kDotTileBytes;
  template <class RowOfB>
  void dotTile(const Value *pa, int64_t k, Value *pc, int64_t n, int64_t i0,
               int64_t i1, int64_t j0, int64_t j1, RowOfB &&rowOfB) const {
    enum : uint8_t { kOpen = 1, kAnyPos = 2 };
    const int64_t rows = i1 - i0, w = j1 - j0;
    if (skipping()) {
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j)
          pc[i * n + j] = zero();
      return;
    }
    thread_local std::vector<FieldValue> a, b, c;
    thread_local std::vector<uint8_t> state;
    a.resize(rows * k);
    b.resize(w);
    c.resize(rows * w);
    state.assign(rows * w, kOpen);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t kk = 0; kk < k; ++kk)
        a[i * k + kk] = pa[(i0 + i) * k + kk].fp;
    int64_t open = rows * w;
    FieldValue *bd = b.data();
    uint8_t *st = state.data();
    f.dotTile(a.data(), k, c.data(), w, 0, rows, 0, w,
              [&](int64_t kk) -> const FieldValue * {
                const Value *row = rowOfB(kk);
                for (int64_t j = 0; j < w; ++j)
                  bd[j] = row[j].fp;
                for (int64_t i = 0; open && i < rows; ++i) {
                  const Value &x = pa[(i0 + i) * k + kk];
                  for (int64_t j = 0; j < w; ++j) {
                    uint8_t &s = st[i * w + j];
                    if (!(s & kOpen))
                      continue;
                    uint8_t pf = productFlags(x, row[j]);
                    if (!(pf & kNonNeg)) {
                      s = 0;
                      --open;
                    } else if (pf & kPos) {
                      s |= kAnyPos;
                    }
                  }
                }
                return bd;
              });
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < w; ++j) {
        Value &out = pc[(i0 + i) * n + j0 + j];
        if (k == 0) {
          out = zero();
          continue;
        }
        uint8_t s = st[i * w + j], fl = 0;
        if (s & kOpen)
          fl |= kNonNeg | ((s & kAnyPos) ? kPos | kNonZero : 0);
        out = atom(c[i * w + j], fl, AtomKind::Sum);
      }
  }

  Value zero() const { return Value{}; }
  Value fromInt(int64_t v) const {
    return constant(f.fromInt(v), v > 0, v < 0);
  }
  Value fromDouble(double v) const {
    return constant(f.fromDouble(v), v > 0, v < 0);
  }
  Value input(FieldValue fp) const { return atom(fp, 0, AtomKind::Input); }

  Value add(const Value &a, const Value &b) const {
    if (skipping())
      return zero();
    if (a.flags & kZero)
      return b;
    if (b.flags & kZero)
      return a;
    uint8_t fl = 0;
    if ((a.flags & kNonNeg) && (b.flags & kNonNeg)) {
      fl |= kNonNeg;
      if ((a.flags | b.flags) & kPos)
        fl |= kPos | kNonZero;
    }
    return atom(f.add(a.fp, b.fp), fl, AtomKind::Sum);
  }
  Value sub(const Value &a, const Value &b) const {
    if (skipping())
      return zero();
    if (b.flags & kZero)
      return a;
    if (a.fp.identical(b.fp))
      return zero(); // the zero polynomial (w.h.p.)
    if (a.flags & kZero)
      return negate(b);
    return atom(f.sub(a.fp, b.fp), 0, AtomKind::Sum);
  }
  Value mul(const Value &a, const Value &b) const {
    if (skipping())
      return zero();
    if ((a.flags & kZero) || (b.flags & kZero))
      return zero();
    return merge(a, b, 1, f.mul(a.fp, b.fp), productFlags(a, b));
  }
  Value div(const Value &a, const Value &b) const {
    if (skipping())
      return zero();
    divisor(b);
    FieldValue fp = f.div(a.fp, b.fp);
    if (a.flags & kZero)
      return zero();
    uint8_t fl = 0;
    if (a.flags & kNonZero)
      fl |= kNonZero; // a/b ≠ 0 wherever defined
    if ((a.flags & kPos) && (b.flags & kPos))
      fl |= kPos;
    if ((a.flags & kNonNeg) && (b.flags & kNonNeg))
      fl |= kNonNeg;
    return merge(a, b, -1, fp, fl);
  }
  Value pow(const Value &a, const Value &b) const {
    if (skipping())
      return zero();
    FieldValue fp = f.pow(a.fp, b.fp);
    powCall(a, fp);
    return atom(fp, (a.flags & kPos) ? kPos | kNonNeg | kNonZero : 0,
                AtomKind::Pow);
  }
  Value max(const Value &a, const Value &b) const {
    if (skipping())
      return zero();
    if (a.fp.identical(b.fp))
      return a;
    uint8_t fl = 0;
    if ((a.flags | b.flags) & kPos)
      fl |= kPos | kNonZero | kNonNeg;
    if ((a.flags | b.flags) & kNonNeg)
      fl |= kNonNeg;
    return atom(f.max(a.fp, b.fp), fl, AtomKind::Max);
  }
  Value unary(UnaryKind k, const Value &x, double scalar) const {
    if (skipping())
      return zero();
    return applyUnary(*this, k, x, scalar);
  }
  // The primitives of ScalarFormulas.h: field oracles with their sign facts.
  Value exp(const Value &x) const {
    return atom(f.oracle(Symbol::Exp, x.fp), kPos | kNonNeg | kNonZero,
                AtomKind::Exp);
  }
  Value sqrt(const Value &x) const { return sqrtOf(x); }
  Value tanh(const Value &x) const {
    return atom(f.oracle(Symbol::Tanh, x.fp), 0, AtomKind::Tanh);
  }
  Value erf(const Value &x) const {
    return atom(f.oracle(Symbol::Erf, x.fp), 0, AtomKind::Erf);
  }
  Value sigmoid(const Value &x) const {
    return atom(f.oracle(Symbol::Sigmoid, x.fp), kPos | kNonNeg | kNonZero,
                AtomKind::Sigmoid);
  }
  Value gelu(const Value &x) const {
    return atom(f.oracle(Symbol::Gelu, x.fp), 0, AtomKind::Gelu);
  }
  Value relu(const Value &x) const {
    return atom(f.oracle(Symbol::Relu, x.fp), kNonNeg, AtomKind::Relu);
  }

  void setRole(Role r) { role = r; }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  bool skipping() const { return role == Role::Probe && failed(); }
  const std::string &failureMessage() const { return failure; }
  const FiniteFieldSemantics &field() const { return f; }

private:
  static Value atom(FieldValue fp, uint8_t flags, AtomKind kind) {
    Value v;
    v.fp = fp;
    v.flags = flags;
    v.n = 1;
    v.atoms[0] = Atom{fp, 1, flags, kind};
    return v;
  }
  static Value constant(FieldValue fp, bool pos, bool neg) {
    Value v;
    v.fp = fp;
    v.flags = pos ? kPos | kNonNeg | kNonZero
                  : neg ? kNonZero : kZero | kNonNeg;
    v.negative = neg;
    return v;
  }
  Value negate(const Value &b) const {
    Value v = b;
    v.fp = f.sub(f.zero(), b.fp);
    v.negative = !b.negative;
    v.flags = b.flags & kNonZero;
    return v;
  }
  static uint8_t productFlags(const Value &a, const Value &b) {
    uint8_t fl = 0;
    if ((a.flags & kNonZero) && (b.flags & kNonZero))
      fl |= kNonZero;
    if ((a.flags & kPos) && (b.flags & kPos))
      fl |= kPos | kNonNeg;
    if ((a.flags & kNonNeg) && (b.flags & kNonNeg))
      fl |= kNonNeg;
    if (a.fp.identical(b.fp)) { // x·x
      fl |= kNonNeg;
      if (a.flags & kNonZero)
        fl |= kPos;
    }
    return fl;
  }
  /// a · b^sign as factorizations.
  static Value merge(const Value &a, const Value &b, int sign, FieldValue fp,
                     uint8_t flags) {
    // At most one atom on each side (x·x of an input, a sum times a sum,
    // the squares of an rms): the merge below without its scratch array of
    // eight atoms, which cost more than the rest; the same atoms in the
    // same order.
    if (a.n <= 1 && b.n <= 1) {
      Value v;
      v.fp = fp;
      v.flags = flags;
      v.negative = a.negative != b.negative;
      v.n = 0;
      if (a.n == 1)
        v.atoms[v.n++] = a.atoms[0];
      if (b.n == 1) {
        Atom t = b.atoms[0];
        t.e = (int8_t)(sign * t.e);
        if (v.n == 1 && v.atoms[0].fp.identical(t.fp)) {
          int e = v.atoms[0].e + t.e;
          if (e > 100 || e < -100)
            return atom(fp, flags, AtomKind::Product);
          if (e == 0)
            v.n = 0;
          else
            v.atoms[0].e = (int8_t)e;
        } else {
          v.atoms[v.n++] = t;
        }
      }
      return v;
    }
    Value v;
    v.fp = fp;
    v.flags = flags;
    v.negative = a.negative != b.negative;
    v.n = 0;
    Atom tmp[2 * kMaxAtoms];
    int n = 0;
    for (int i = 0; i < a.n; ++i)
      tmp[n++] = a.atoms[i];
    for (int i = 0; i < b.n; ++i) {
      Atom t = b.atoms[i];
      t.e = (int8_t)(sign * t.e);
      bool merged = false;
      for (int j = 0; j < n && !merged; ++j)
        if (tmp[j].fp.identical(t.fp)) {
          int e = tmp[j].e + t.e;
          if (e > 100 || e < -100)
            return atom(fp, flags, AtomKind::Product);
          tmp[j].e = (int8_t)e;
          merged = true;
        }
      if (!merged)
        tmp[n++] = t;
    }
    for (int i = 0; i < n; ++i) {
      if (tmp[i].e == 0)
        continue;
      if (v.n == kMaxAtoms) {
        Value w = atom(fp, flags, AtomKind::Product);
        return w;
      }
      v.atoms[v.n++] = tmp[i];
    }
    return v;
  }

  static bool nonvanishing(uint8_t flags) {
    return (flags & (kPos | kNonZero)) != 0;
  }
  void fail(std::string msg) const {
    std::lock_guard<std::mutex> lock(mu);
    if (failure.empty())
      failure = std::move(msg);
    failed_.store(true, std::memory_order_relaxed);
  }
  bool inSet(const FieldSet &set, const FieldValue &v) const {
    std::lock_guard<std::mutex> lock(mu);
    return set.count(v) != 0;
  }
  void divisor(const Value &b) const {
    if (role == Role::Reference) {
      std::lock_guard<std::mutex> lock(mu);
      refDiv.insert(b.fp);
      for (int i = 0; i < b.n; ++i)
        refDiv.insert(b.atoms[i].fp);
      return;
    }
    if (nonvanishing(b.flags) || inSet(refDiv, b.fp))
      return;
    if (b.n == 0) {
      fail((b.flags & kZero) ? "the candidate divides by zero"
                             : "the candidate divides by a constant "
                               "expression that may be zero");
      return;
    }
    for (int i = 0; i < b.n; ++i)
      if (!nonvanishing(b.atoms[i].flags) && !inSet(refDiv, b.atoms[i].fp)) {
        fail(std::string("the candidate divides by ") +
             atomName(b.atoms[i].kind) +
             " that the reference never divides by and that may be zero, so "
             "the candidate may be undefined where the reference is defined");
        return;
      }
  }
  Value sqrtOf(const Value &x) const {
    if (role == Role::Reference) {
      std::lock_guard<std::mutex> lock(mu);
      refSqrt.insert(x.fp);
    } else if (!(x.flags & (kNonNeg | kPos)) && !inSet(refSqrt, x.fp)) {
      bool ok = !x.negative && x.n > 0;
      const Atom *bad = nullptr;
      for (int i = 0; ok && i < x.n; ++i)
        if ((x.atoms[i].e & 1) && !(x.atoms[i].flags & (kNonNeg | kPos)) &&
            !inSet(refSqrt, x.atoms[i].fp)) {
          ok = false;
          bad = &x.atoms[i];
        }
      if (!ok)
        fail(std::string("the candidate takes the sqrt (or rsqrt) of ") +
             (bad ? atomName(bad->kind)
                  : x.n == 0 ? "a constant expression"
                             : "a negated value") +
             ", which the reference never takes the sqrt of and which may "
             "be negative, so the candidate may be undefined where the "
             "reference is defined");
    }
    uint8_t fl = kNonNeg;
    if (x.flags & kPos)
      fl |= kPos | kNonZero;
    return atom(f.oracle(Symbol::Sqrt, x.fp), fl, AtomKind::Sqrt);
  }
  void powCall(const Value &base, FieldValue out) const {
    if (role == Role::Reference) {
      std::lock_guard<std::mutex> lock(mu);
      refPow.insert(out);
      return;
    }
    if (!(base.flags & kPos) && !inSet(refPow, out))
      fail("the candidate calls pow on a base that may be negative or zero, "
           "with arguments the reference never passes to pow");
  }

  FiniteFieldSemantics f;
  Role role = Role::Reference;
  // Written by the evaluator's workers under `mu`; the role is set between
  // runs only.
  mutable std::mutex mu;
  mutable FieldSet refDiv, refSqrt, refPow;
  mutable std::string failure;
  mutable std::atomic<bool> failed_{false};
};

struct DefinednessDraw {
  const DefinednessSemantics &sem;
  template <class Words> DValue operator()(Words &words) const {
    return sem.input(sem.field().random(words));
  }
};

} // namespace

namespace {
/// Elements that runs of `graphs` one after the other hold at most, each
/// run's outputs kept (Evaluator::storedElementsOfRuns), with `ref`'s stored
/// inputs (the large ones are generated where they are read).
int64_t storedElements(llvm::ArrayRef<const UGraph *> graphs,
                       const UGraph &ref) {
  llvm::SmallVector<bool, 8> gen;
  for (int32_t v : ref.inputs)
    gen.push_back(numElements(ref.values[v].shape) > kStoredInputElements);
  int64_t n =
      Evaluator<FiniteFieldSemantics>::storedElementsOfRuns(graphs, gen);
  for (size_t i = 0; i < ref.inputs.size(); ++i)
    if (!gen[i])
      n += numElements(ref.values[ref.inputs[i]].shape);
  return n;
}

/// What checkDefinedness evaluates: the cones of the partial calls, or the
/// whole graphs when a cone cannot be cut or the scope asks for them.
struct DefinednessRuns {
  std::optional<UGraph> candCone, refCone;
  const UGraph &cand, &ref;
  DefinednessRuns(const UGraph &c, const UGraph &r, DefinednessScope scope)
      : cand(c), ref(r) {
    if (scope == DefinednessScope::Cone) {
      candCone = definednessCone(c);
      refCone = definednessCone(r);
    }
  }
  bool cones() const { return candCone && refCone; }
  const UGraph &candRun() const { return cones() ? *candCone : cand; }
  const UGraph &refRun() const { return cones() ? *refCone : ref; }
  /// The full run: the reference, then the candidate.
  uint64_t fullBytes() const {
    return (uint64_t)storedElements({&refRun(), &candRun()}, ref) *
           sizeof(DValue);
  }
  /// What the check holds before it can stop: with cones the candidate's
  /// alone (a probe that often suffices), else the full run.
  uint64_t firstBytes() const {
    return cones()
               ? (uint64_t)storedElements({&candRun()}, ref) * sizeof(DValue)
               : fullBytes();
  }
};

/// What the check holds before it can stop (DefinednessRuns::firstBytes)
/// and what the wide float64 trials hold, the larger.
uint64_t firstPhaseBytes(const DefinednessRuns &runs) {
  // The wide float64 trials run the whole reference, then the candidate.
  uint64_t wide = (uint64_t)storedElements({&runs.ref, &runs.cand}, runs.ref) *
                  sizeof(WValue);
  return std::max(runs.firstBytes(), wide);
}
} // namespace

uint64_t mirage::definednessBytes(const UGraph &cand, const UGraph &ref) {
  if (!hasPartialOps(cand))
    return 0;
  return firstPhaseBytes(DefinednessRuns(cand, ref, DefinednessScope::Cone));
}

DefinednessResult mirage::checkDefinedness(const UGraph &cand,
                                           const UGraph &ref, uint64_t seed,
                                           uint64_t memoryLimitBytes,
                                           unsigned threads,
                                           DefinednessScope scope) {
  DefinednessResult res;
  using E = Evaluator<DefinednessSemantics>;
  // Only the partial calls and what they read (DefinednessCone.h): the same
  // calls with the same arguments, so the same verdict, without the
  // operators that feed no divisor, sqrt or pow (P·V in attention).
  DefinednessRuns runs(cand, ref, scope);
  if (std::string over =
          memoryOverLimit(hasPartialOps(cand) ? firstPhaseBytes(runs) : 0,
                          "definedness values", memoryLimitBytes);
      !over.empty()) {
    res.status = DefinednessResult::Status::Inconclusive;
    res.message = "the definedness check (Verification.md §4.6) " + over;
    return res;
  }
  const UGraph &candRun = runs.candRun();
  const UGraph &refRun = runs.refRun();
  LLVM_DEBUG(llvm::dbgs() << "definedness: multiply-adds evaluated "
                          << multiplyAdds(candRun) << " of "
                          << multiplyAdds(cand) << " (candidate), "
                          << multiplyAdds(refRun) << " of "
                          << multiplyAdds(ref) << " (reference)\n");
  // A zero divisor in the field makes the fingerprints of that run unusable
  // (the inverse of 0 is not the real divisor's): redraw, as the field check
  // does.
  // One draw: the domain under `key` and its inputs, which read it.
  struct Draw {
    DefinednessSemantics sem;
    std::vector<Tensor<DValue>> stored;
    std::vector<TensorSource<DValue>> ins;
    E eval;
    Draw(uint64_t key, const UGraph &ref, unsigned threads)
        : sem(key),
          ins(counterInputs<DValue>(ref, mix64(key ^ 0x1234567),
                                    kStoredInputElements, stored,
                                    DefinednessDraw{sem})),
          eval(sem, threads) {}
  };
  auto keyOf = [&](unsigned r) { return mix64(mix64(seed ^ 0xdef1ed) + r); };
  // The candidate alone first, with no reference calls recorded: if its
  // sign facts cover every partial call (a softmax's sum of exps, an rms
  // with eps > 0), the reference's calls are never consulted, and the
  // reference need not be evaluated. Its values do not depend on the
  // reference's run (the role changes only what a call checks against),
  // so they are those of the first draw below, which then passes too.
  // Only in the cone scope; the whole-graph scope is the check as it was.
  if (runs.cones()) {
    Draw d(keyOf(0), ref, threads);
    d.sem.setRole(DefinednessSemantics::Role::Probe);
    (void)d.eval.run(candRun, d.ins);
    if (!d.sem.failed() && !d.sem.field().zeroDivisor() &&
        !d.sem.field().badConstant())
      return res;
  }
  // The full run holds the reference's cone too (prefill attention's
  // scores at 120 bytes per element): refused here, only where the probe
  // above could not show the calls defined.
  if (std::string over = memoryOverLimit(runs.fullBytes(), "definedness values",
                                         memoryLimitBytes);
      !over.empty()) {
    res.status = DefinednessResult::Status::Inconclusive;
    res.message = "the definedness check (Verification.md §4.6) " + over;
    return res;
  }
  for (unsigned r = 0; r < 8; ++r) {
    Draw d(keyOf(r), ref, threads);
    DefinednessSemantics &sem = d.sem;
    sem.setRole(DefinednessSemantics::Role::Reference);
    (void)d.eval.run(refRun, d.ins);
    bool refZero = sem.field().zeroDivisor();
    sem.setRole(DefinednessSemantics::Role::Candidate);
    (void)d.eval.run(candRun, d.ins);
    if (sem.failed()) {
      res.status = DefinednessResult::Status::NotShown;
      res.message = sem.failureMessage();
      return res;
    }
    if (sem.field().badConstant())
      break;
    if (!refZero && !sem.field().zeroDivisor())
      return res;
  }
  res.status = DefinednessResult::Status::Inconclusive;
  res.message = "the definedness check (Verification.md §4.6) hit a zero "
                "divisor in every redraw";
  return res;
}

//===----------------------------------------------------------------------===//
// Wide-range float64 trials
//===----------------------------------------------------------------------===//

namespace {

class WideFloatSemantics {
public:
  using Value = WValue;
  static constexpr bool kParallelSafe = true;

  struct DotAccumulator {
    double s = 0;
    bool lossy = false, undef = false;
  };
  void dotMulAdd(DotAccumulator &a, const Value &x, const Value &y) const {
    double p = x.v * y.v;
    a.lossy |= x.lossy | y.lossy | underOrOverflow(p, x.v, y.v);
    a.undef |= x.undef | y.undef;
    a.s += p;
  }
  Value dotValue(const DotAccumulator &a) const {
    // A sum of finite values is non-finite only by overflow.
    return Value{a.s, a.lossy || (!a.undef && !std::isfinite(a.s)), a.undef};
  }
  /// The evaluator's matmul tile, with the values and flags of the
  /// dotMulAdd chain: the sums by the float64 kernel (float64DotBlock, the
  /// same left folds), the flags of a block of 64 products from each row's
  /// and column's flags and magnitudes. Rounding is monotone, so when the
  /// largest finite magnitudes of a row and a column multiply to a finite
  /// number and their smallest nonzero ones to a nonzero one, no product of
  /// the two overflows or underflows to zero; otherwise that output's block
  /// is checked product by product.
  static constexpr size_t kDotTileBytes = sizeof(double) + 2;
  template <class RowOfB>
  void dotTile(const Value *pa, int64_t k, Value *pc, int64_t n, int64_t i0,
               int64_t i1, int64_t j0, int64_t j1, RowOfB &&rowOfB) const {
    constexpr int64_t kBlock = 64;
    const int64_t rows = i1 - i0, w = j1 - j0;
    struct Stats {
      double max = 0, minNonZero = INFINITY;
      bool lossy = false, undef = false;
      void add(const Value &x) {
        lossy |= x.lossy;
        undef |= x.undef;
        double m = std::fabs(x.v);
        if (std::isfinite(m) && m != 0) {
          max = std::max(max, m);
          minNonZero = std::min(minNonZero, m);
        }
      }
    };
    thread_local std::vector<double> av, bt, acc;
    thread_local std::vector<Stats> rowStats, colStats;
    thread_local std::vector<uint8_t> lossy, undef;
    av.resize(rows * k);
    bt.resize(kBlock * w);
    acc.assign(rows * w, 0.0);
    lossy.assign(rows * w, 0);
    undef.assign(rows * w, 0);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t kk = 0; kk < k; ++kk)
        av[i * k + kk] = pa[(i0 + i) * k + kk].v;
    for (int64_t k0 = 0; k0 < k; k0 += kBlock) {
      const int64_t kn = std::min(kBlock, k - k0);
      colStats.assign(w, Stats{});
      rowStats.assign(rows, Stats{});
      for (int64_t t = 0; t < kn; ++t) {
        const Value *row = rowOfB(k0 + t);
        for (int64_t j = 0; j < w; ++j) {
          bt[t * w + j] = row[j].v;
          colStats[j].add(row[j]);
        }
      }
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t t = 0; t < kn; ++t)
          rowStats[i].add(pa[(i0 + i) * k + k0 + t]);
      float64DotBlock(av.data() + k0, k, bt.data(), rows, w, kn, acc.data());
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < w; ++j) {
          const Stats &r = rowStats[i], &c = colStats[j];
          undef[i * w + j] |= r.undef | c.undef;
          uint8_t &l = lossy[i * w + j];
          l |= r.lossy | c.lossy;
          if (l || (std::isfinite(r.max * c.max) &&
                    r.minNonZero * c.minNonZero != 0))
            continue;
          for (int64_t t = 0; t < kn && !l; ++t) {
            double x = av[i * k + k0 + t], y = bt[t * w + j];
            l |= underOrOverflow(x * y, x, y);
          }
        }
    }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < w; ++j) {
        DotAccumulator d;
        d.s = acc[i * w + j];
        d.lossy = lossy[i * w + j];
        d.undef = undef[i * w + j];
        pc[(i0 + i) * n + j0 + j] = dotValue(d);
      }
  }

  Value zero() const { return Value{}; }
  Value fromInt(int64_t v) const { return Value{(double)v}; }
  Value fromDouble(double v) const { return Value{v}; }
  Value add(const Value &a, const Value &b) const {
    return additive(a.v + b.v, a, b);
  }
  Value sub(const Value &a, const Value &b) const {
    return additive(a.v - b.v, a, b);
  }
  Value mul(const Value &a, const Value &b) const {
    double r = a.v * b.v;
    return Value{r, a.lossy || b.lossy || underOrOverflow(r, a.v, b.v),
                 a.undef || b.undef};
  }
  Value div(const Value &a, const Value &b) const {
    double r = a.v / b.v;
    Value out{r, a.lossy || b.lossy, a.undef || b.undef};
    if (clean(a) && clean(b)) {
      if (b.v == 0)
        return domainError(r, "a division by an exact zero");
      out.lossy |= (std::isinf(r) && !std::isinf(a.v)) ||
                   (r == 0 && a.v != 0 && std::isfinite(b.v));
    }
    return out;
  }
  Value pow(const Value &a, const Value &b) const {
    double r = std::pow(a.v, b.v);
    Value out{r, a.lossy || b.lossy, a.undef || b.undef};
    if (clean(a) && clean(b)) {
      if (std::isnan(r) || (a.v == 0 && b.v < 0))
        return domainError(r, "a pow outside its domain");
      out.lossy |= !std::isfinite(r) || (r == 0 && a.v != 0);
    }
    return out;
  }
  Value max(const Value &a, const Value &b) const {
    return Value{std::max(a.v, b.v), a.lossy || b.lossy, a.undef || b.undef};
  }
  Value unary(UnaryKind k, const Value &x, double scalar) const {
    double r = applyUnaryF64(k, x.v, scalar);
    Value out{r, x.lossy, x.undef};
    if (!clean(x))
      return out;
    switch (k) {
    case UnaryKind::sqrt:
      if (x.v < 0)
        return domainError(r, "a sqrt of a negative number");
      break;
    case UnaryKind::rsqrt:
      if (x.v <= 0)
        return domainError(r, "an rsqrt of a number that is not positive");
      break;
    case UnaryKind::reciprocal:
      if (x.v == 0)
        return domainError(r, "a reciprocal of an exact zero");
      break;
    case UnaryKind::exp:
    case UnaryKind::square:
    case UnaryKind::silu:
    case UnaryKind::gelu:
    case UnaryKind::relu:
    case UnaryKind::sigmoid:
    case UnaryKind::tanh:
    case UnaryKind::erf:
    case UnaryKind::mul_scalar:
    case UnaryKind::add_scalar:
      break;
    }
    // Everything else is total over the reals: a non-finite result, or a
    // zero from a nonzero argument where the op cannot reach zero exactly,
    // is an overflow or underflow.
    bool reachesZero = k == UnaryKind::relu || k == UnaryKind::add_scalar ||
                       (k == UnaryKind::mul_scalar && scalar == 0);
    out.lossy |= !std::isfinite(r) || (r == 0 && x.v != 0 && !reachesZero);
    return out;
  }

  bool isUndefined() const { return undefined.load(); }
  const char *firstWhat() const { return what.load(); }
  void reset() {
    undefined.store(false);
    what.store(nullptr);
  }

private:
  static bool clean(const Value &x) {
    return !x.lossy && !x.undef && std::isfinite(x.v);
  }
  static bool underOrOverflow(double r, double a, double b) {
    return (!std::isfinite(r) && std::isfinite(a) && std::isfinite(b)) ||
           (r == 0 && a != 0 && b != 0);
  }
  static Value additive(double r, const Value &a, const Value &b) {
    return Value{r,
                 a.lossy || b.lossy ||
                     (!std::isfinite(r) && std::isfinite(a.v) &&
                      std::isfinite(b.v)),
                 a.undef || b.undef};
  }
  Value domainError(double r, const char *w) const {
    const char *none = nullptr;
    what.compare_exchange_strong(none, w);
    undefined.store(true);
    return Value{r, false, true};
  }
  mutable std::atomic<bool> undefined{false};
  mutable std::atomic<const char *> what{nullptr};
};

struct WideDraw {
  unsigned trial;
  template <class Words> WValue operator()(Words &words) const {
    double u = symmetricUnitOf(words.tensorKey(), words.index());
    double x;
    switch (trial) {
    case 0: // ±2^10, one element in eight an exact zero
      x = (((int64_t)(u * 32768.0)) & 7) == 0 ? 0.0 : u * 1024.0;
      break;
    case 1:
      x = -std::fabs(u) * 1024.0;
      break;
    default:
      x = std::fabs(u) * 1024.0;
      break;
    }
    return WValue{x};
  }
};

} // namespace

const char *mirage::wideTrialDescription(unsigned trial) {
  switch (trial) {
  case 0:
    return "inputs in [-1024, 1024) with one in eight an exact zero";
  case 1:
    return "inputs in (-1024, 0]";
  default:
    return "inputs in [0, 1024]";
  }
}

DefinednessResult mirage::wideFloat64Refinement(const UGraph &cand,
                                                const UGraph &ref,
                                                uint64_t seed,
                                                unsigned threads) {
  DefinednessResult res;
  // At model scale only the first trial (both signs, zeros): each trial is
  // an evaluation of both graphs through the generic evaluator, and the
  // expression check has already passed (Verification.md §4.6, "Cost").
  unsigned trials = multiplyAdds(cand) + multiplyAdds(ref) >=
                            kLaneFieldMinMultiplyAdds
                        ? 1
                        : kWideFloat64Trials;
  for (unsigned t = 0; t < trials; ++t) {
    WideFloatSemantics sem;
    Evaluator<WideFloatSemantics> eval(sem, threads);
    std::vector<Tensor<WValue>> stored;
    auto ins = counterInputs<WValue>(ref, mix64(seed ^ (0x31de + t)),
                                     kStoredInputElements, stored,
                                     WideDraw{t});
    std::vector<Tensor<WValue>> b = eval.run(ref, ins);
    if (sem.isUndefined())
      continue; // the reference is undefined here: anything goes
    std::vector<Tensor<WValue>> a = eval.run(cand, ins);
    std::string where;
    if (sem.isUndefined()) {
      where = std::string("the candidate evaluates ") + sem.firstWhat() +
              " where the reference is defined";
    } else {
      for (size_t i = 0; i < a.size() && i < b.size() && where.empty(); ++i)
        for (int64_t e = 0; e < a[i].size() && e < b[i].size(); ++e) {
          const WValue &x = a[i].data[e], &y = b[i].data[e];
          if (std::isfinite(y.v) && !std::isfinite(x.v) && !x.lossy) {
            where = llvm::formatv("candidate output #{0} element {1} is {2} "
                                  "where the reference's is {3}",
                                  i, e, x.v, y.v)
                        .str();
            break;
          }
        }
    }
    if (!where.empty()) {
      res.status = DefinednessResult::Status::Counterexample;
      res.message = "in a wide-range float64 trial (" +
                    std::string(wideTrialDescription(t)) + "), " + where;
      return res;
    }
  }
  return res;
}

bool mirage::float64DomainError(const UGraph &g,
                                const std::vector<Tensor<double>> &inputs,
                                std::string *what) {
  std::vector<Tensor<WValue>> ins;
  ins.reserve(inputs.size());
  for (const Tensor<double> &t : inputs) {
    Tensor<WValue> w(t.shape, WValue{});
    for (int64_t e = 0; e < t.size(); ++e)
      w.data[e].v = t.data[e];
    ins.push_back(std::move(w));
  }
  std::vector<TensorSource<WValue>> src;
  for (const Tensor<WValue> &t : ins)
    src.emplace_back(t);
  WideFloatSemantics sem;
  Evaluator<WideFloatSemantics> eval(sem, 1);
  (void)eval.run(g, src);
  if (sem.isUndefined() && what)
    *what = sem.firstWhat();
  return sem.isUndefined();
}

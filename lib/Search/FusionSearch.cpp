//===- FusionSearch.cpp - Search for fused graph-defined kernels ----------===//
#include "Mirage/Search/FusionSearch.h"
#include "Mirage/Analysis/FiniteField.h"
#include "Mirage/Analysis/Verifier.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Search/IndexAlignment.h"
#include "Mirage/Semantics/Replay.h"
#include "Mirage/Semantics/Target.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <random>
#include <thread>

using namespace mirage;
using namespace mirage::search;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int64_t smallestFactor(int64_t n) {
  for (int64_t f = 2; f * f <= n; ++f)
    if (n % f == 0)
      return f;
  return n;
}

//===----------------------------------------------------------------------===//
// Probe shapes
//===----------------------------------------------------------------------===//

/// The reference scaled down: every index class gets a small extent, distinct
/// for distinct large classes so that unrelated dims do not line up by
/// accident.
struct Probe {
  IndexClasses classes;
  std::vector<int64_t> extent; // per class, at probe size
  UGraph ref{Level::Kernel};
  bool ok = false;
};

/// Replays the kernel graph `src` at new input shapes (reduction sizes > 1
/// follow their result's class through `sizeOf`).
template <typename SizeFn>
bool replayKernel(const UGraph &src, llvm::ArrayRef<Shape> inputShapes,
                  UGraph &dst, SizeFn sizeOf) {
  std::vector<int32_t> map(src.values.size(), -1);
  for (size_t i = 0; i < src.inputs.size(); ++i)
    map[src.inputs[i]] =
        dst.addInput(inputShapes[i], src.values[src.inputs[i]].type);
  for (const UOp &op : src.ops) {
    if (op.kind == OpKind::Custom || op.kind == OpKind::ThreadGraph)
      return false; // references are unfused
    UOp copy = op;
    if (op.kind == OpKind::Reduce && op.size > 1)
      copy.size = sizeOf(op.results[0], op.dim);
    if (!replayOp(dst, copy, map))
      return false;
  }
  for (int32_t o : src.outputs)
    dst.markOutput(map[o]);
  return true;
}

Probe makeProbe(const UGraph &ref) {
  Probe p;
  p.classes = alignIndices(ref);
  int big = 0;
  for (int64_t e : p.classes.extent)
    p.extent.push_back(e < 8 ? e : 4 * (2 + big++));
  std::vector<Shape> shapes;
  for (int32_t in : ref.inputs) {
    Shape s;
    for (int c : p.classes.classOf[in])
      s.push_back(c < 0 ? 1 : p.extent[c]);
    shapes.push_back(s);
  }
  p.ok = replayKernel(ref, shapes, p.ref, [&](int32_t v, int64_t d) {
    int c = p.classes.classOf[v][d];
    return c < 0 ? int64_t(1) : p.extent[c];
  });
  return p;
}

//===----------------------------------------------------------------------===//
// Launch patterns and the operator menu
//===----------------------------------------------------------------------===//

struct Pattern {
  std::vector<int> gridClasses; // one per active grid axis (x, y, z)
  int loopClass = -1;
};

std::vector<Pattern> launchPatterns(const IndexClasses &ic) {
  std::vector<int> par, red;
  for (int c = 0; c < ic.numClasses(); ++c)
    (ic.parallel[c] ? par : red).push_back(c);
  std::vector<std::vector<int>> grids = {{}};
  for (size_t i = 0; i < par.size(); ++i) {
    grids.push_back({par[i]});
    for (size_t j = i + 1; j < par.size(); ++j) {
      grids.push_back({par[i], par[j]});
      for (size_t k = j + 1; k < par.size(); ++k)
        grids.push_back({par[i], par[j], par[k]});
    }
  }
  std::vector<Pattern> out;
  for (const auto &g : grids) {
    out.push_back({g, -1});
    for (int r : red)
      out.push_back({g, r});
  }
  return out;
}

/// One kind of block operator the enumeration may add.
struct MenuItem {
  OpKind kind;
  int32_t sub = 0;
  double scalar = 0;
  int64_t dim = 0;
  unsigned arity = 1;
  bool commutative = false;
  bool inLoopOnly = false; // accumulators
};

/// Block operators that can appear in a fused form of `ref`: its own
/// operators, plus the pieces of the ones it fuses across the loop (an
/// rms_norm with eps e becomes an `rms_last` accumulator with eps e and a
/// division).
std::vector<MenuItem> operatorMenu(const UGraph &ref) {
  std::vector<MenuItem> menu;
  auto addUnique = [&](MenuItem m) {
    for (const MenuItem &x : menu)
      if (x.kind == m.kind && x.sub == m.sub && x.scalar == m.scalar &&
          x.dim == m.dim && x.arity == m.arity)
        return;
    menu.push_back(m);
  };
  auto binary = [&](BinaryKind k) {
    MenuItem m{OpKind::Binary, (int32_t)k};
    m.arity = 2;
    m.commutative = k == BinaryKind::add || k == BinaryKind::mul;
    addUnique(m);
  };
  auto accum = [&](AccumKind k, double eps = 0) {
    MenuItem m{OpKind::Accum, (int32_t)k, eps};
    m.inLoopOnly = true;
    addUnique(m);
  };
  accum(AccumKind::sum);
  for (const UOp &op : ref.ops) {
    switch (op.kind) {
    case OpKind::Matmul: {
      MenuItem m{OpKind::Matmul};
      m.arity = 2;
      addUnique(m);
      break;
    }
    case OpKind::Unary: {
      MenuItem m{OpKind::Unary, op.sub, op.scalar};
      addUnique(m);
      break;
    }
    case OpKind::Binary:
      binary(op.binaryKind());
      break;
    case OpKind::Reduce: {
      if (op.size != 1)
        break;
      MenuItem m{OpKind::Reduce, op.sub};
      m.dim = op.dim;
      addUnique(m);
      if (op.dim + 1 == (int64_t)ref.values[op.operands[0]].shape.size())
        accum(op.reduceKind() == ReduceKind::sum ? AccumKind::sum_last
                                                 : AccumKind::max);
      break;
    }
    case OpKind::RmsNorm: {
      MenuItem m{OpKind::RmsNorm, 0, op.scalar};
      m.arity = op.operands.size();
      addUnique(m);
      // sqrt(mean(x²) + eps) accumulated across the loop, with the
      // reference's own eps.
      accum(AccumKind::rms_last, op.scalar);
      binary(BinaryKind::div);
      if (op.operands.size() > 1)
        binary(BinaryKind::mul);
      break;
    }
    default:
      break;
    }
  }
  return menu;
}

//===----------------------------------------------------------------------===//
// Block-graph enumeration at probe shapes
//===----------------------------------------------------------------------===//

struct Found {
  UGraph block; // probe-shaped block graph with savers and outputs
  size_t pattern;
};

/// A one-test inequivalence witness, run before the verifier on every
/// candidate: the probe reference's outputs on one fixed random input in each
/// finite-field mode of the verifier (exp uninterpreted, exp interpreted),
/// computed once per search. The verifier accepts a candidate only when all
/// its tests agree in one mode; a candidate whose outputs differ from the
/// reference's on a conclusive test in *both* modes computes a different
/// function in both, so it can only be accepted by a false acceptance.
/// Rejecting it without the verifier saves the two reference evaluations
/// and a second candidate evaluation per mode; anything else (agreement in
/// a mode, a zero divisor, nested exp) goes to the verifier as before.
struct ProbeWitness {
  using Sem = ff::FiniteFieldSemantics;
  using T = Tensor<ff::FieldValue>;
  struct Mode {
    uint64_t key = 0;
    Sem::ExpMode mode = Sem::ExpMode::Uninterpreted;
    std::vector<T> ins, outs;
    bool usable = false;
  };
  Mode modes[2];

  void init(const UGraph &ref, uint64_t seed) {
    for (int i = 0; i < 2; ++i) {
      Mode &m = modes[i];
      m.key = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (0x7e57ull + i);
      m.mode = i == 0 ? Sem::ExpMode::Uninterpreted : Sem::ExpMode::Interpreted;
      Sem sem(m.key, m.mode);
      std::mt19937_64 rng(m.key ^ 0x1234567);
      for (int32_t v : ref.inputs) {
        T x(ref.values[v].shape, ff::FieldValue{});
        for (ff::FieldValue &e : x.data)
          e = Sem::random(rng);
        m.ins.push_back(std::move(x));
      }
      Evaluator<Sem> eval(sem, 1);
      m.outs = eval.run(ref, m.ins);
      m.usable = sem.conclusive() && m.outs.size() == ref.outputs.size();
    }
  }

  /// False only when `cand` provably differs from the reference in both
  /// modes.
  bool mayBeEquivalent(const UGraph &cand) const {
    for (const Mode &m : modes) {
      if (!m.usable)
        return true;
      Sem sem(m.key, m.mode);
      Evaluator<Sem> eval(sem, 1);
      std::vector<T> a = eval.run(cand, m.ins);
      if (!sem.conclusive())
        return true;
      bool same = a.size() == m.outs.size();
      for (size_t o = 0; same && o < a.size(); ++o) {
        same = a[o].size() == m.outs[o].size();
        for (int64_t e = 0; same && e < a[o].size(); ++e)
          same = a[o].data[e].sameAs(m.outs[o].data[e]);
      }
      if (same)
        return true;
    }
    return false;
  }
};

struct Shared {
  const FusionSearchOptions &opts;
  Clock::time_point start;
  std::atomic<uint64_t> states{0}, pruned{0}, candidates{0}, verified{0};
  std::atomic<bool> timedOut{false};
  const ProbeWitness *witness = nullptr;
  bool expired() {
    if (timedOut.load(std::memory_order_relaxed))
      return true;
    if (secondsSince(start) > opts.timeBudgetSeconds) {
      timedOut = true;
      return true;
    }
    return false;
  }
};

class BlockEnumerator {
public:
  BlockEnumerator(Shared &shared, const Probe &probe, const Pattern &pattern,
                  size_t patternIndex, const std::vector<MenuItem> &menu,
                  const PruneFn &prune, std::vector<Found> &found)
      : shared(shared), probe(probe), pattern(pattern),
        patternIndex(patternIndex), menu(menu), prune(prune), found(found) {}

  /// Enumerates the block graphs of exactly `ops` operators (iterative
  /// deepening: every size gets its turn before larger ones, so a large
  /// space cannot starve the small graphs of other patterns). With
  /// `ops` == 0, tries the reference's own operators as one block graph.
  void run(unsigned ops) {
    limit = ops;
    if (!setup(b))
      return;
    if (ops == 0) {
      seedFromReference(b);
      flushCounters();
      return;
    }
    protos.clear();
    for (const MenuItem &item : menu) {
      UOp proto;
      proto.kind = item.kind;
      proto.sub = item.sub;
      proto.scalar = item.scalar;
      proto.dim = item.dim;
      proto.size = item.kind == OpKind::Reduce ? 1 : 0;
      protos.push_back(proto);
    }
    if (prune) {
      session = prune();
      if (session)
        session->begin(b);
    }
    consumers.assign(b.values.size(), 0);
    dfs(Key());
    flushCounters();
  }

private:
  /// The pattern's iterators and omaps; false if the pattern is invalid.
  bool setup(UGraph &b) {
    b.target = shared.opts.target;
    for (size_t a = 0; a < pattern.gridClasses.size(); ++a)
      b.grid[a] = smallestFactor(probe.extent[pattern.gridClasses[a]]);
    if (pattern.loopClass >= 0)
      b.forloopRange = smallestFactor(probe.extent[pattern.loopClass]);
    // Iterators: one per input, maps from the classes.
    const UGraph &ref = probe.ref;
    for (int32_t in : ref.inputs)
      b.addInput(ref.values[in].shape, ref.values[in].type);
    for (size_t i = 0; i < ref.inputs.size(); ++i) {
      AxisMap imap{-1, -1, -1};
      for (size_t a = 0; a < pattern.gridClasses.size(); ++a)
        imap[a] = probe.classes.dimIn(ref.inputs[i], pattern.gridClasses[a]);
      int64_t fmap = pattern.loopClass >= 0
                         ? probe.classes.dimIn(ref.inputs[i], pattern.loopClass)
                         : -1;
      if (b.addInputIterator(b.inputs[i], imap, fmap) < 0)
        return false;
    }
    // Every active grid axis must split some input, or blocks would
    // duplicate each other's work.
    for (size_t a = 0; a < pattern.gridClasses.size(); ++a) {
      bool used = false;
      for (const UOp &op : b.ops)
        used |= op.map[a] >= 0;
      if (!used)
        return false;
    }
    // Each output's omap: its dim in each split class.
    for (int32_t o : ref.outputs) {
      AxisMap omap{-1, -1, -1};
      for (size_t a = 0; a < pattern.gridClasses.size(); ++a) {
        omap[a] = probe.classes.dimIn(o, pattern.gridClasses[a]);
        if (omap[a] < 0)
          return false;
      }
      omaps.push_back(omap);
    }
    return true;
  }

  /// The plain fusion: the reference's operators on the tiles, one `sum`
  /// accumulator per output. Valid whenever no operator reduces across a
  /// split; the verifier decides.
  void seedFromReference(UGraph b) {
    const UGraph &ref = probe.ref;
    std::vector<int32_t> map(ref.values.size(), -1);
    for (size_t i = 0; i < ref.inputs.size(); ++i)
      map[ref.inputs[i]] = b.ops[i].results[0]; // the iterators, in order
    for (const UOp &op : ref.ops) {
      llvm::SmallVector<int32_t, 4> in;
      for (int32_t o : op.operands)
        in.push_back(map[o]);
      int32_t r = b.addLike(op, in);
      if (r < 0)
        return;
      map[op.results[0]] = r;
    }
    llvm::SmallVector<int32_t, 4> outs;
    for (int32_t o : ref.outputs) {
      int32_t a = b.addAccum(AccumKind::sum, map[o], -1, 0);
      if (a < 0)
        return;
      outs.push_back(a);
    }
    ++localStates;
    closeWith(b, outs);
  }

  /// An operator's canonical key: its operands in descending order, then
  /// 1000 + its menu position (fixed size, no allocation).
  struct Key {
    int32_t k[3] = {0, 0, 0};
    uint8_t n = 0;
    bool empty() const { return n == 0; }
  };
  Shared &shared;
  const Probe &probe;
  const Pattern &pattern;
  size_t patternIndex;
  const std::vector<MenuItem> &menu;
  const PruneFn &prune;
  std::vector<Found> &found;
  std::vector<AxisMap> omaps;
  std::vector<unsigned> consumers;
  unsigned depth = 0;
  unsigned limit = 0;
  /// The block graph being grown in place (append an operator, recurse,
  /// pop it): no copy per state.
  UGraph b{Level::Block};
  std::vector<UOp> protos; // per menu item
  std::unique_ptr<PruneSession> session;
  // Thread-local counters, added to the shared ones in batches (the shared
  // atomics would otherwise bounce between cores on every state).
  uint64_t localStates = 0, localPruned = 0;
  unsigned expiryTick = 0;
  bool stopped = false;

  void flushCounters() {
    shared.states += localStates;
    shared.pruned += localPruned;
    localStates = localPruned = 0;
  }
  bool expired() {
    if (stopped)
      return true;
    if ((++expiryTick & 255) != 0)
      return false;
    flushCounters();
    stopped = shared.expired();
    return stopped;
  }

  /// Tile values (not device inputs) with no consumer yet.
  void sinks(const UGraph &b, llvm::SmallVectorImpl<int32_t> &out,
             unsigned &inLoop) {
    inLoop = 0;
    for (size_t v = 0; v < b.values.size(); ++v) {
      if (b.values[v].def < 0 || consumers[v] != 0)
        continue;
      out.push_back(v);
      inLoop += b.values[v].phase == Phase::InLoop;
    }
  }

  void closeWith(const UGraph &b, llvm::ArrayRef<int32_t> sinkValues) {
    const UGraph &ref = probe.ref;
    size_t n = ref.outputs.size();
    if (sinkValues.size() != n)
      return;
    // Match sinks to outputs by shape, trying every order.
    std::vector<int> perm(n);
    for (size_t i = 0; i < n; ++i)
      perm[i] = i;
    do {
      UGraph c = b;
      bool ok = true;
      llvm::SmallVector<int32_t, 4> saved(n);
      for (size_t o = 0; o < n && ok; ++o) {
        int32_t s = c.addOutputSaver(sinkValues[perm[o]], omaps[o]);
        ok = s >= 0 && c.values[s].shape == ref.values[ref.outputs[o]].shape;
        saved[o] = s;
      }
      if (!ok)
        continue;
      for (int32_t s : saved)
        c.markOutput(s);
      UGraph k(Level::Kernel);
      llvm::SmallVector<int32_t, 4> ins;
      for (int32_t in : ref.inputs)
        ins.push_back(k.addInput(ref.values[in].shape, ref.values[in].type));
      Found f{c, patternIndex};
      int32_t r = k.addCustom(ins, std::move(c));
      if (r < 0)
        continue;
      for (size_t o = 0; o < n; ++o)
        k.markOutput(r + o);
      ++shared.candidates;
      if (shared.witness && !shared.witness->mayBeEquivalent(k))
        continue;
      VerifyOptions vo;
      vo.targetBits = shared.opts.probeVerifyBits;
      vo.seed = shared.opts.seed;
      vo.allowPermutation = false;
      vo.threads = 1; // the search runs many verifications at once
      if (verifyEquivalence(k, ref, vo).equivalent()) {
        ++shared.verified;
        found.push_back(std::move(f));
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }

  static bool keyGreater(const Key &a, const Key &b) {
    return std::lexicographical_compare(b.k, b.k + b.n, a.k, a.k + a.n);
  }

  void dfs(const Key &last) {
    if (expired())
      return;
    llvm::SmallVector<int32_t, 8> sinkValues;
    unsigned inLoop;
    sinks(b, sinkValues, inLoop);
    if (depth == limit) {
      if (inLoop == 0)
        closeWith(b, sinkValues);
      return;
    }
    // Each further op lowers the sink count by at most one, and in-loop
    // sinks need an accumulator.
    unsigned outputs = probe.ref.outputs.size();
    unsigned need = (sinkValues.size() > outputs ? sinkValues.size() - outputs
                                                 : 0) +
                    (inLoop > 0 ? 1 : 0);
    unsigned left = limit - depth;
    if (need > left || left == 0)
      return;

    // A key's first element is its largest operand, so an operator whose
    // operands are all below last's first element has a smaller key and is
    // skipped without being built (extend() still checks the full key).
    int32_t lo = last.empty() ? 0 : last.k[0];
    int32_t numValues = b.values.size();
    for (size_t m = 0; m < menu.size(); ++m) {
      const MenuItem &item = menu[m];
      for (int32_t x = 0; x < numValues; ++x) {
        if (b.values[x].def < 0)
          continue;
        Phase px = b.values[x].phase;
        if (item.inLoopOnly && px != Phase::InLoop)
          continue;
        if (item.arity == 1) {
          if (x >= lo)
            extend(last, m, x, -1);
          continue;
        }
        int32_t y0 = item.commutative ? x : 0;
        if (x < lo)
          y0 = std::max(y0, lo);
        for (int32_t y = y0; y < numValues; ++y) {
          // The builders reject operands of different phases (in-loop with
          // after-loop); skip them without building.
          if (b.values[y].def >= 0 && b.values[y].phase == px)
            extend(last, m, x, y);
        }
      }
    }
  }

  void extend(const Key &last, size_t m, int32_t x, int32_t y) {
    // Canonical order: the key is the operands in descending order, then the
    // menu position; keys strictly increase along the graph. Any block graph
    // is reached: build it greedily, always adding the available op with the
    // smallest key; every op made available by a new value has that value,
    // the largest index so far, as its first key element, so keys never
    // decrease (equal keys would be the same op twice).
    Key key;
    if (y < 0) {
      key.k[0] = x;
      key.k[1] = 1000 + m;
      key.n = 2;
    } else {
      key.k[0] = std::max(x, y);
      key.k[1] = std::min(x, y);
      key.k[2] = 1000 + m;
      key.n = 3;
    }
    if (!last.empty() && !keyGreater(key, last))
      return;
    int32_t ops[2] = {x, y};
    llvm::ArrayRef<int32_t> operands(ops, y < 0 ? 1 : 2);
    size_t numValues = b.values.size();
    int32_t v = b.addLike(protos[m], operands);
    if (v < 0)
      return;
    ++localStates;
    if (session && !session->keep(b, v)) {
      ++localPruned;
      b.ops.pop_back();
      b.values.resize(numValues);
      return;
    }
    consumers.resize(b.values.size(), 0);
    for (int32_t o : operands)
      ++consumers[o];
    ++depth;
    dfs(key);
    --depth;
    for (int32_t o : operands)
      --consumers[o];
    consumers.resize(numValues);
    b.ops.pop_back();
    b.values.resize(numValues);
  }
};

//===----------------------------------------------------------------------===//
// Instantiation at real shapes
//===----------------------------------------------------------------------===//

/// Rebuilds a probe-shaped block graph at the reference's real input shapes
/// with the given launch configuration, as a kernel graph.
bool instantiate(const UGraph &probeBlock, const UGraph &ref,
                 const GridDims &grid, int64_t forloop, UGraph &out) {
  UGraph b(Level::Block);
  b.grid = grid;
  b.forloopRange = forloop;
  b.target = probeBlock.target;
  std::vector<int32_t> map(probeBlock.values.size(), -1);
  for (size_t i = 0; i < probeBlock.inputs.size(); ++i)
    map[probeBlock.inputs[i]] = b.addInput(ref.values[ref.inputs[i]].shape,
                                           ref.values[ref.inputs[i]].type);
  for (const UOp &op : probeBlock.ops) {
    if (!replayOp(b, op, map,
                  op.body >= 0 ? probeBlock.bodies[op.body] : UGraph()))
      return false;
  }
  for (int32_t o : probeBlock.outputs)
    b.markOutput(map[o]);
  for (size_t o = 0; o < b.outputs.size(); ++o)
    if (b.values[b.outputs[o]].shape != ref.values[ref.outputs[o]].shape)
      return false;
  std::optional<TargetInfo> info = lookupTarget(b.target);
  if (!info || sharedMemoryBytes(b) > info->smemBytesPerBlock)
    return false;
  UGraph k(Level::Kernel);
  llvm::SmallVector<int32_t, 4> ins;
  for (int32_t in : ref.inputs)
    ins.push_back(k.addInput(ref.values[in].shape, ref.values[in].type));
  int32_t r = k.addCustom(ins, std::move(b));
  if (r < 0)
    return false;
  for (size_t o = 0; o < ref.outputs.size(); ++o)
    k.markOutput(r + o);
  out = std::move(k);
  return true;
}

/// Powers of two from 2 up to n that divide n.
std::vector<int64_t> splitCandidates(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t f = 2; f <= n && n % f == 0; f *= 2)
    out.push_back(f);
  if (out.empty() && n > 1)
    out.push_back(smallestFactor(n));
  return out;
}

struct Instance {
  UGraph graph;
  double seconds;
  size_t found;
};

} // namespace

FusionSearchResult mirage::search::searchFusedKernel(
    const UGraph &reference, const FusionSearchOptions &opts,
    const CostFn &cost, const PruneFactory &pruneFactory) {
  FusionSearchResult result;
  Shared shared{opts, Clock::now()};
  result.referenceSeconds = cost(reference);

  Probe probe = makeProbe(reference);
  if (!probe.ok) {
    result.message = "the reference could not be scaled to probe shapes";
    return result;
  }
  std::vector<Pattern> patterns = launchPatterns(probe.classes);
  std::vector<MenuItem> menu = operatorMenu(reference);
  PruneFn prune = pruneFactory ? pruneFactory(probe.ref) : PruneFn();
  ProbeWitness witness;
  witness.init(probe.ref, opts.seed);
  shared.witness = &witness;

  // Stage 1 and 2: block graphs per launch pattern, in parallel; results are
  // merged in pattern order so the outcome does not depend on scheduling.
  std::vector<std::vector<Found>> perPattern(patterns.size());
  std::atomic<size_t> next{0};
  unsigned threads = opts.threads ? opts.threads
                                  : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<bool> done{false};
  std::atomic<unsigned> round{0};
  std::thread progress;
  if (opts.progressSeconds > 0)
    progress = std::thread([&] {
      auto last = Clock::now();
      while (!done) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (secondsSince(last) < opts.progressSeconds)
          continue;
        last = Clock::now();
        llvm::errs() << llvm::format(
            "[mirage-search] %.1fs ops %u patterns %zu/%zu states %llu pruned "
            "%llu candidates %llu verified %llu\n",
            secondsSince(shared.start), round.load(),
            std::min(next.load(), patterns.size()), patterns.size(), (unsigned long long)shared.states.load(),
            (unsigned long long)shared.pruned.load(),
            (unsigned long long)shared.candidates.load(),
            (unsigned long long)shared.verified.load());
      }
    });
  // Round 0 tries the plain fusion of every pattern; round k enumerates
  // the block graphs of k operators of every pattern.
  std::mutex foundMutex;
  for (round = 0; round <= opts.maxBlockOps && !shared.expired(); ++round) {
    next = 0;
    auto worker = [&] {
      for (size_t i; (i = next++) < patterns.size();) {
        if (shared.expired())
          break;
        std::vector<Found> local;
        BlockEnumerator(shared, probe, patterns[i], i, menu, prune, local)
            .run(round);
        std::lock_guard<std::mutex> lock(foundMutex);
        for (Found &f : local)
          perPattern[i].push_back(std::move(f));
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(worker);
    for (std::thread &t : pool)
      t.join();
  }
  done = true;
  if (progress.joinable())
    progress.join();

  // Stage 3: every verified block graph at every real launch configuration.
  std::vector<Instance> instances;
  size_t foundIndex = 0;
  for (size_t p = 0; p < patterns.size(); ++p) {
    for (const Found &f : perPattern[p]) {
      const Pattern &pat = patterns[f.pattern];
      std::vector<std::vector<int64_t>> axisChoices;
      for (int c : pat.gridClasses)
        axisChoices.push_back(splitCandidates(probe.classes.extent[c]));
      std::vector<int64_t> loopChoices =
          pat.loopClass >= 0 ? splitCandidates(probe.classes.extent[pat.loopClass])
                             : std::vector<int64_t>{1};
      std::vector<size_t> idx(axisChoices.size(), 0);
      bool more = true;
      Instance best{UGraph(), std::numeric_limits<double>::infinity(),
                    foundIndex};
      while (more) {
        GridDims grid{1, 1, 1};
        int64_t blocks = 1;
        for (size_t a = 0; a < idx.size(); ++a) {
          grid[a] = axisChoices[a][idx[a]];
          blocks *= grid[a];
        }
        if (blocks <= kMaxBlocks)
          for (int64_t loop : loopChoices) {
            UGraph g;
            if (!instantiate(f.block, reference, grid, loop, g))
              continue;
            ++result.stats.instances;
            double s = cost(g);
            if (s < best.seconds) {
              best.graph = std::move(g);
              best.seconds = s;
            }
          }
        more = false;
        for (size_t a = 0; a < idx.size(); ++a) {
          if (++idx[a] < axisChoices[a].size()) {
            more = true;
            break;
          }
          idx[a] = 0;
        }
      }
      if (std::isfinite(best.seconds))
        instances.push_back(std::move(best));
      ++foundIndex;
    }
  }
  std::stable_sort(instances.begin(), instances.end(),
                   [](const Instance &a, const Instance &b) {
                     return a.seconds < b.seconds;
                   });

  // The answer is verified at the real shapes.
  std::string lastVerifyMessage;
  for (Instance &inst : instances) {
    VerifyOptions vo;
    vo.targetBits = opts.finalVerifyBits;
    vo.seed = opts.seed;
    vo.allowPermutation = false;
    vo.progressSeconds = opts.progressSeconds;
    ++result.stats.finalVerified;
    VerificationResult vr = verifyEquivalence(inst.graph, reference, vo);
    result.stats.verifySeconds += vr.seconds;
    if (!vr.equivalent()) {
      if (vr.status == VerifyStatus::Inconclusive)
        lastVerifyMessage = vr.message;
      continue;
    }
    result.found = true;
    result.best = std::move(inst.graph);
    result.bestSeconds = inst.seconds;
    result.log2Bound = vr.log2Bound;
    result.verificationTests = vr.tests;
    break;
  }
  if (!result.found)
    result.message = instances.empty()
                         ? "no fused kernel found in the search space"
                         : "no candidate passed verification at real shapes" +
                               (lastVerifyMessage.empty()
                                    ? std::string()
                                    : " (" + lastVerifyMessage + ")");

  result.stats.patterns = patterns.size();
  result.stats.states = shared.states;
  result.stats.pruned = shared.pruned;
  result.stats.candidates = shared.candidates;
  result.stats.probeVerified = shared.verified;
  result.stats.timedOut = shared.timedOut;
  result.stats.seconds = secondsSince(shared.start);
  return result;
}

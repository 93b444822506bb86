//===- Enumerate.cpp - Canonical depth-first block-graph enumeration ------===//
//
// One launch pattern, one round: every block graph of exactly k operators
// from the menu, each generated once (canonical keys), grown in place,
// pruned by the caller's test and by sink counting
// (docs/Rationale/FusionSearch.md, stage 2). Several workers may share one
// enumeration, branch by branch (SharedEnumeration).
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include <algorithm>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

namespace {

class BlockEnumerator {
public:
  BlockEnumerator(SearchContext &ctx, const Probe &probe,
                  const Pattern &pattern, size_t patternIndex,
                  const std::vector<MenuItem> &menu, const PruneFn &prune,
                  SharedEnumeration &shared, unsigned worker)
      : ctx(ctx), probe(probe), pattern(pattern), patternIndex(patternIndex),
        menu(menu), prune(prune), worker(worker),
        sharing(shared.workers.size() > 1 ? &shared : nullptr),
        found(shared.workers[worker].found) {}

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
      seedEpilogue(b);
      flushCounters();
      return;
    }
    // Prologues join the tiles before the first operator; the plain fusion
    // above replays the reference's own rms_norms instead.
    if (ctx.opts.fusePrologues)
      prologues = addPrologues(b, pattern, probe.classes, probe.ref);
    prologues.hidden.resize(b.values.size(), 0);
    std::vector<MenuItem> rest = operatorMenu(probe.ref, [&](size_t i) {
      return i >= prologues.fused.size() || !prologues.fused[i];
    });
    chainTile.assign(b.values.size(), 0);
    numChains = 0;
    for (const MenuItem &item : menu) {
      itemNeeded.push_back(llvm::is_contained(rest, item));
      if (itemNeeded.back() && !item.chain.empty()) {
        ++numChains;
        for (const InputStep &step : item.chain)
          chainTile[b.ops[step.input].results[0]] = numChains;
      }
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
    for (const UOp &op : b.ops) // the prologues read their raw tiles
      for (int32_t o : op.operands)
        ++consumers[o];
    if (sharing)
      claimed = sharing->nextBranch.fetch_add(1);
    dfs(Key());
    flushCounters();
  }

private:
  /// The pattern's iterators and omaps; false if the pattern is invalid.
  bool setup(UGraph &b) {
    return probeBlock(probe, pattern, ctx.opts.target, b, omaps);
  }

  /// The plain fusion: the reference's operators on the tiles, one `sum`
  /// accumulator per output. Valid whenever no operator reduces across a
  /// split; the verifier decides.
  void seedFromReference(UGraph b) { seedReplay(std::move(b), false); }

  /// The epilogue fusion (AfterLoopInvariants.md): the same, with each
  /// product of tiles that change every iteration summed by an accumulator
  /// right away, so that what the reference computes from it runs after the
  /// loop, reading loop-invariant tiles (a bias) as they are. A matmul, a
  /// bias add and GELU's eight operators are beyond the enumeration's
  /// depth; this is one candidate. Tried where the loop has iterations to
  /// sum and some operator reads a product (otherwise it is the plain
  /// fusion).
  void seedEpilogue(UGraph b) {
    const UGraph &ref = probe.ref;
    auto readsProduct = [&](const UOp &op) {
      return llvm::any_of(op.operands, [&](int32_t v) {
        int32_t d = ref.values[v].def;
        return d >= 0 && ref.ops[d].kind == OpKind::Matmul;
      });
    };
    if (b.forloopRange > 1 && llvm::any_of(ref.ops, readsProduct))
      seedReplay(std::move(b), true);
  }

  /// The reference's operators replayed on the pattern's tiles, products
  /// accumulated at once where `sumProducts`, the outputs still in the loop
  /// accumulated at the end; the result checked as a candidate.
  void seedReplay(UGraph b, bool sumProducts) {
    const UGraph &ref = probe.ref;
    std::vector<int32_t> map(ref.values.size(), -1);
    for (size_t i = 0; i < ref.inputs.size(); ++i)
      map[ref.inputs[i]] = b.ops[i].results[0]; // the iterators, in order
    for (const UOp &op : ref.ops) {
      llvm::SmallVector<int32_t, 4> in;
      for (int32_t o : op.operands)
        in.push_back(map[o]);
      int32_t r = b.addLike(op, in);
      if (r >= 0 && sumProducts && op.kind == OpKind::Matmul &&
          b.values[r].phase == Phase::InLoop && !b.values[r].loopInvariant)
        r = b.addAccum(AccumKind::sum, r, -1, 0);
      if (r < 0)
        return;
      map[op.results[0]] = r;
    }
    llvm::SmallVector<int32_t, 4> outs;
    for (int32_t o : ref.outputs) {
      int32_t v = map[o];
      if (b.values[v].phase == Phase::InLoop)
        v = b.addAccum(AccumKind::sum, v, -1, 0);
      if (v < 0)
        return;
      outs.push_back(v);
    }
    ++localStates;
    checkCandidates(ctx, probe.ref, b, outs, omaps, patternIndex, nullptr,
                    found);
  }

  /// An operator's canonical key: its operands in descending order, then
  /// 1000 + its menu position (fixed size, no allocation).
  struct Key {
    int32_t k[3] = {0, 0, 0};
    uint8_t n = 0;
    bool empty() const { return n == 0; }
  };
  SearchContext &ctx;
  const Probe &probe;
  const Pattern &pattern;
  size_t patternIndex;
  const std::vector<MenuItem> &menu;
  const PruneFn &prune;
  unsigned worker;
  /// The enumeration this worker shares, or null when it runs alone.
  SharedEnumeration *sharing;
  std::vector<Found> &found;
  /// Branches (prefixes of kShareDepth operators) walked so far, and the
  /// one this worker enumerates next.
  uint64_t branchesSeen = 0, claimed = 0;
  std::vector<AxisMap> omaps;
  std::vector<unsigned> consumers;
  unsigned depth = 0;
  unsigned limit = 0;
  /// Set by dfs() for the last operator of the round: its sinks.
  bool closing = false;
  llvm::SmallVector<int32_t, 8> lastSinks;
  unsigned lastInLoop = 0;
  /// The block graph being grown in place (append an operator, recurse,
  /// pop it): no copy per state.
  UGraph b{Level::Block};
  std::vector<UOp> protos; // per menu item
  Prologues prologues;
  std::vector<bool> itemNeeded; // per menu item, after the prologues
  /// Per value: for the tile of an input an input chain reads, that
  /// chain's number (from 1, in menu order); 0 for any other value.
  std::vector<unsigned> chainTile;
  unsigned numChains = 0;
  /// Per value: 1 for a chain's intermediate (only the chain reads it).
  std::vector<char> chainHidden;
  std::unique_ptr<PruneSession> session;
  // Thread-local counters, added to the shared ones in batches (the shared
  // atomics would otherwise bounce between cores on every state).
  uint64_t localStates = 0, localPruned = 0;
  unsigned expiryTick = 0;
  bool stopped = false;

  void flushCounters() {
    ctx.states += localStates;
    ctx.pruned += localPruned;
    localStates = localPruned = 0;
  }
  /// Checked every 256 states: the budget, and a progress line if one is
  /// due.
  bool expired() {
    if (stopped)
      return true;
    if ((++expiryTick & 255) != 0)
      return false;
    flushCounters();
    if (ctx.progress)
      ctx.progress->tick();
    stopped = ctx.expired();
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

  static bool keyGreater(const Key &a, const Key &b) {
    return std::lexicographical_compare(b.k, b.k + b.n, a.k, a.k + a.n);
  }

  /// A value the enumeration may take as an operand.
  bool usable(int32_t v) const {
    return b.values[v].def >= 0 &&
           !((size_t)v < prologues.hidden.size() && prologues.hidden[v]) &&
           !((size_t)v < chainHidden.size() && chainHidden[v]);
  }
  void dfs(const Key &last) {
    if (expired())
      return;
    llvm::SmallVector<int32_t, 8> sinkValues;
    unsigned inLoop;
    sinks(b, sinkValues, inLoop);
    if (depth == limit) {
      if (inLoop == 0)
        checkCandidates(ctx, probe.ref, b, sinkValues, omaps, patternIndex,
                        ctx.opts.pruneOutputs ? session.get() : nullptr,
                        found);
      return;
    }
    // Each further op lowers the sink count by at most one, and in-loop
    // sinks need an accumulator. An input chain, one step of the round,
    // consumes its operand and each of its tiles and leaves one result: k
    // of its tiles that are sinks lower the count by up to k, k - 1 more
    // than a plain operator. A tile belongs to one chain (nothing else
    // reads its input), and a chain's tiles stop being sinks once applied.
    unsigned outputs = probe.ref.outputs.size();
    unsigned need = (sinkValues.size() > outputs ? sinkValues.size() - outputs
                                                 : 0) +
                    (inLoop > 0 ? 1 : 0);
    unsigned left = limit - depth;
    unsigned chainSinks = 0;
    if (numChains > 0) {
      llvm::SmallVector<unsigned, 4> tilesPerChain(numChains, 0);
      for (int32_t v : sinkValues)
        if ((size_t)v < chainTile.size() && chainTile[v])
          ++tilesPerChain[chainTile[v] - 1];
      for (unsigned tiles : tilesPerChain)
        chainSinks += tiles > 0 ? tiles - 1 : 0;
    }
    if (need > left + chainSinks || left == 0)
      return;
    // The last operator must close the graph: leave exactly one sink per
    // output, none in the loop. extend() skips, before building, the
    // operators that cannot (closes() below).
    closing = left == 1;
    if (closing) {
      lastSinks.assign(sinkValues.begin(), sinkValues.end());
      lastInLoop = inLoop;
    }

    // A key's first element is its largest operand, so an operator whose
    // operands are all below last's first element has a smaller key and is
    // skipped without being built (extend() still checks the full key).
    int32_t lo = last.empty() ? 0 : last.k[0];
    int32_t numValues = b.values.size();
    for (size_t m = 0; m < menu.size(); ++m) {
      const MenuItem &item = menu[m];
      if (!itemNeeded[m])
        continue;
      // A chain's input tiles are read through the chain only, as the
      // reference reads them (prologues hide raw tiles the same way).
      const bool plain = item.chain.empty();
      auto chainOnly = [&](int32_t v) {
        return plain && (size_t)v < chainTile.size() && chainTile[v];
      };
      for (int32_t x = 0; x < numValues; ++x) {
        if (!usable(x) || chainOnly(x))
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
          // after-loop, unless the in-loop one is loop-invariant:
          // AfterLoopInvariants.md); skip them without building.
          if (usable(y) && !chainOnly(y) &&
              (b.values[y].phase == px || combinedPhase(b, {x, y})))
            extend(last, m, x, y);
        }
      }
    }
  }

  /// At the last operator (`closing`): whether `menu[m]` on (x, y) leaves
  /// exactly one after-loop sink per output. The result is a new sink; each
  /// distinct operand that is a sink stops being one; an in-loop sink left
  /// unconsumed, or an in-loop result, keeps the graph open. Exactly the
  /// graphs that the check at depth == limit would reject, so the set of
  /// candidates does not change; they are just not built.
  bool closes(size_t m, int32_t x, int32_t y) const {
    auto isSink = [&](int32_t v) {
      return std::find(lastSinks.begin(), lastSinks.end(), v) !=
             lastSinks.end();
    };
    unsigned consumed = isSink(x) + (y >= 0 && y != x && isSink(y));
    unsigned inLoopConsumed = (isSink(x) && b.values[x].phase == Phase::InLoop) +
                              (y >= 0 && y != x && isSink(y) &&
                               b.values[y].phase == Phase::InLoop);
    int32_t operands[2] = {x, y};
    std::optional<Phase> phase =
        combinedPhase(b, llvm::ArrayRef<int32_t>(operands, y < 0 ? 1 : 2));
    bool resultInLoop =
        menu[m].kind != OpKind::Accum && (!phase || *phase == Phase::InLoop);
    return lastSinks.size() - consumed + 1 == probe.ref.outputs.size() &&
           inLoopConsumed == lastInLoop && !resultInLoop;
  }

  void extend(const Key &last, size_t m, int32_t x, int32_t y) {
    if (!menu[m].chain.empty())
      return extendChain(last, m, x);
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
    if (closing && !closes(m, x, y))
      return;
    int32_t ops[2] = {x, y};
    llvm::ArrayRef<int32_t> operands(ops, y < 0 ? 1 : 2);
    size_t numValues = b.values.size(), numOps = b.ops.size();
    int32_t v = b.addLike(protos[m], operands);
    if (v < 0)
      return;
    if (!kept(v, numValues, numOps))
      return;
    descend(key, operands, numValues, numOps);
  }

  /// Every sharing worker builds the prefixes; worker 0 counts them.
  bool counted() const {
    return !sharing || depth >= SharedEnumeration::kShareDepth || worker == 0;
  }
  /// Drops the operators appended since (numValues, numOps).
  void undo(size_t numValues, size_t numOps) {
    b.ops.erase(b.ops.begin() + numOps, b.ops.end());
    b.values.resize(numValues);
  }
  /// Counts the state of the new value `v` and asks the pruning test; a
  /// pruned state is undone.
  bool kept(int32_t v, size_t numValues, size_t numOps) {
    localStates += counted();
    if (session && !session->keep(b, v)) {
      localPruned += counted();
      undo(numValues, numOps);
      return false;
    }
    return true;
  }

  /// An input chain on x: its steps appended as ordinary operators, the
  /// intermediates hidden from the rest of the enumeration, one step of
  /// the round. The key is a unary operator's. The plain items never read
  /// a chain's tiles, so its operators are reached through it alone.
  void extendChain(const Key &last, size_t m, int32_t x) {
    Key key;
    key.k[0] = x;
    key.k[1] = 1000 + m;
    key.n = 2;
    if (!last.empty() && !keyGreater(key, last))
      return;
    size_t numValues = b.values.size(), numOps = b.ops.size();
    llvm::SmallVector<int32_t, 6> operands;
    int32_t v = x;
    for (const InputStep &step : menu[m].chain) {
      int32_t tile = b.ops[step.input].results[0];
      if (!usable(tile) || llvm::is_contained(operands, tile)) {
        undo(numValues, numOps);
        return;
      }
      UOp proto;
      proto.kind = OpKind::Binary;
      proto.sub = (int32_t)step.kind;
      int32_t pair[2] = {step.inputFirst ? tile : v, step.inputFirst ? v : tile};
      int32_t r = b.addLike(proto, pair);
      if (r < 0) {
        undo(numValues, numOps);
        return;
      }
      if (!kept(r, numValues, numOps))
        return;
      operands.append({pair[0], pair[1]});
      v = r;
    }
    chainHidden.resize(b.values.size(), 0);
    for (size_t c = numValues; c + 1 < b.values.size(); ++c)
      chainHidden[c] = 1;
    descend(key, operands, numValues, numOps);
    chainHidden.resize(numValues);
  }

  /// Recurses on the prefix just extended (operators from numOps on,
  /// reading `operands`), then undoes it.
  void descend(const Key &key, llvm::ArrayRef<int32_t> operands,
               size_t numValues, size_t numOps) {
    // A complete prefix is a branch: enumerated only by its claimant.
    const bool branch =
        sharing && depth + 1 == SharedEnumeration::kShareDepth;
    if (branch && branchesSeen++ != claimed) {
      undo(numValues, numOps);
      return;
    }
    if (branch)
      sharing->workers[worker].starts.push_back({claimed, found.size()});
    consumers.resize(b.values.size(), 0);
    for (int32_t o : operands)
      ++consumers[o];
    ++depth;
    dfs(key);
    --depth;
    // Claimed after the branch, not before: a worker that is still busy
    // must not hold the next branch while another one is free.
    if (branch)
      claimed = sharing->nextBranch.fetch_add(1);
    closing = limit - depth == 1; // the child's round may have changed it
    for (int32_t o : operands)
      --consumers[o];
    consumers.resize(numValues);
    undo(numValues, numOps);
  }
};

} // namespace

std::vector<Found> SharedEnumeration::merged() {
  if (workers.size() == 1)
    return std::move(workers[0].found);
  // Each worker's found graphs, cut into its branches' runs, reassembled
  // in branch order (the branches are numbered in canonical order).
  struct Run {
    uint64_t branch;
    Worker *worker;
    size_t begin, end;
  };
  std::vector<Run> runs;
  for (Worker &w : workers)
    for (size_t r = 0; r < w.starts.size(); ++r)
      runs.push_back({w.starts[r].first, &w, w.starts[r].second,
                      r + 1 < w.starts.size() ? w.starts[r + 1].second
                                              : w.found.size()});
  llvm::sort(runs, [](const Run &a, const Run &b) { return a.branch < b.branch; });
  std::vector<Found> all;
  for (Run &r : runs)
    for (size_t f = r.begin; f < r.end; ++f)
      all.push_back(std::move(r.worker->found[f]));
  return all;
}

void fusion::enumerateBlockGraphs(SearchContext &ctx, const Probe &probe,
                                  const Pattern &pattern, size_t patternIndex,
                                  const std::vector<MenuItem> &menu,
                                  const PruneFn &prune, unsigned ops,
                                  SharedEnumeration &shared, unsigned worker) {
  BlockEnumerator(ctx, probe, pattern, patternIndex, menu, prune, shared,
                  worker)
      .run(ops);
}

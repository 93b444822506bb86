//===- Evaluator.h - Executable semantics of μGraphs ------------*- C++ -*-===//
//
// One evaluator for kernel, block and thread graphs, generic over a scalar
// domain `Sem` (Float64Semantics, the finite-field domain of the verifier, a
// rounding domain for dtype checks). The domain supplies:
//
//   Value; zero(); fromInt(int64_t); fromDouble(double);
//   add, sub, mul, div, pow, max (Value, Value) -> Value;
//   unary(UnaryKind, Value, double scalar) -> Value.
//
// Everything structural lives here once: broadcasting, matmul, strided
// reductions, rms_norm, concat, the block-graph loop (grid, iterators with
// imap/fmap, accumulators, savers with omap) and thread graphs. A block
// graph runs literally block by block and iteration by iteration, so the
// evaluator checks the tiling semantics, not just the algebra. The one
// exception is work that is the same in every block by the graph's own
// rules (BlockSchedule::sameInEveryBlock: tiles every block reads alike and
// what is computed from them alone): block 0 computes it and the other
// blocks read its results (docs/Rationale/GridInvariantOps.md).
//
// Threads. The blocks of a block graph, and the rows of a kernel-level
// matmul, run on up to `threads` workers (default: hardware_concurrency; 1 =
// serial). Every output element is computed by exactly one worker, with the
// same operations in the same order as the serial loop, so results are
// bit-identical for every thread count. Only domains that declare
// `static constexpr bool kParallelSafe = true` (their const operations may be
// called concurrently) are run in parallel; others always run serially. The
// evaluator keeps no state besides the domain reference and the thread
// count, so it is reentrant; a caller that is itself one of many threads (the
// search) passes threads = 1.
//
// Optional fast path. A domain may provide
//   struct DotAccumulator; void dotMulAdd(DotAccumulator &, V, V) const;
//   V dotValue(const DotAccumulator &) const;
// for exact domains whose Σ a_k·b_k can be computed with delayed reduction;
// the result must equal the left fold add(…add(add(zero, a_0·b_0), …)).
// Such a domain may also provide a whole matmul tile,
//   template <class RowOfB> void dotTile(pa, k, pc, n, i0, i1, j0, j1,
//                                        RowOfB) const;
//   static constexpr size_t kDotTileBytes; // accumulator bytes per output
// with the same result (the finite field's, FieldDot.h).
//
// Exact partial sums. A domain whose sums are exact in any order (the finite
// field) may also keep a matmul's sums across calls:
//   struct DotPartials { void reset(size_t elements); };
//   template <class RowOfB> void dotTileAccumulate(pa, k, DotPartials &,
//                                                  base, n, i0, i1, j0, j1,
//                                                  RowOfB) const;
//   V dotPartialValue(const DotPartials &, int64_t element) const;
// In a block graph, an in-loop matmul read only by a plain `sum`
// accumulator then adds every iteration's products into one exact sum per
// element, reduced once after the loop: the value the accumulator would
// hold (Σ over iterations of each tile's reduced sum) without a reduction
// and an addition per element and iteration. Domains that round (float64)
// do not offer it and run the loop literally.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_SEMANTICS_EVALUATOR_H
#define MIRAGE_SEMANTICS_EVALUATOR_H

#include "Mirage/Semantics/AccumRules.h"
#include "Mirage/Semantics/BlockSchedule.h"
#include "Mirage/Semantics/RunningMaxRule.h"
#include "Mirage/Semantics/ScalarFormulas.h"
#include "Mirage/Semantics/Tensor.h"
#include "Mirage/Semantics/UGraph.h"
#include "Mirage/Semantics/UOpVisitor.h"

#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>

namespace mirage {

struct Float64Semantics;

/// The default worker count of the evaluator.
inline unsigned defaultEvaluatorThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

namespace detail {
template <class S, class = void> struct ParallelSafe : std::false_type {};
template <class S>
struct ParallelSafe<S, std::void_t<decltype(S::kParallelSafe)>>
    : std::bool_constant<S::kParallelSafe> {};
/// float64 is stateless (FloatSemantics.h is shared; declared here).
template <> struct ParallelSafe<Float64Semantics> : std::true_type {};

template <class S, class = void> struct HasDotAccumulator : std::false_type {};
template <class S>
struct HasDotAccumulator<S, std::void_t<typename S::DotAccumulator>>
    : std::true_type {};
/// A domain with its own exact matmul tile kernel (`dotTile`, sized by
/// `kDotTileBytes`), such as the finite field's (FieldDot.h).
template <class S, class = void> struct HasDotTile : std::false_type {};
template <class S>
struct HasDotTile<S, std::void_t<decltype(S::kDotTileBytes)>>
    : std::true_type {};

/// A domain whose div(a, b) is by definition mul(a, inverse(b)) (the
/// finite field), with inverseAll(in, n, out): a divisor tensor is inverted
/// in one batch, each element once however far it is broadcast. Float
/// domains divide directly (a/b is not a·(1/b) in floating point) and do
/// not declare it.
template <class S, class = void> struct DividesByInverse : std::false_type {};
template <class S>
struct DividesByInverse<S, std::void_t<decltype(S::kDivIsMulInverse)>>
    : std::bool_constant<S::kDivIsMulInverse> {};

/// A domain with exact partial sums kept across matmul tiles.
template <class S, class = void> struct HasDotPartials : std::false_type {};
template <class S>
struct HasDotPartials<S, std::void_t<typename S::DotPartials>>
    : std::true_type {};
struct NoDotPartials {
  void reset(size_t) {}
};
template <class S, bool = HasDotPartials<S>::value> struct DotPartialsOf {
  using type = NoDotPartials;
};
template <class S> struct DotPartialsOf<S, true> {
  using type = typename S::DotPartials;
};

/// Below this many scalar operations a parallel loop is not worth the
/// thread start-up (tens of microseconds).
constexpr int64_t kMinParallelWork = 1 << 16;

/// The most bytes of results of grid-invariant ops one block graph's run
/// keeps to share between its blocks (GridInvariantOps.md); above it every
/// block computes its own.
constexpr int64_t kMaxGridInvariantBytes = int64_t(64) << 20;
} // namespace detail

template <class Sem> class Evaluator {
public:
  using V = typename Sem::Value;
  using T = Tensor<V>;
  using Source = TensorSource<V>;

  /// `threads`: workers for block loops and kernel-level matmuls; 0 means
  /// defaultEvaluatorThreads(), 1 serial. Domains that are not declared
  /// parallel-safe always run serially.
  explicit Evaluator(const Sem &sem, unsigned threads = 0)
      : sem(sem), threads(detail::ParallelSafe<Sem>::value
                              ? (threads == 0 ? defaultEvaluatorThreads()
                                              : threads)
                              : 1) {
    if (this->threads > 1)
      pool = std::make_shared<llvm::StdThreadPool>(
          llvm::hardware_concurrency(this->threads - 1));
  }

  unsigned numThreads() const { return threads; }

  /// Evaluates `g` (kernel or block level) on `inputs`, in graph-input order;
  /// returns the outputs in order.
  std::vector<T> run(const UGraph &g, llvm::ArrayRef<T> inputs) const {
    return run(g, sourcesOf(inputs));
  }

  /// The same on inputs that are read in place or generated where they are
  /// consumed (TensorSource): no input is copied. A generated input feeding
  /// a kernel-level matmul as its right operand or a custom kernel (whose
  /// iterators read tiles) is never stored; one read whole by any other
  /// operator is stored for as long as it is needed. A value is released
  /// after its last reader, so the memory held is that of the live values.
  std::vector<T> run(const UGraph &g, llvm::ArrayRef<Source> inputs) const {
    assert(inputs.size() == g.inputs.size() && "wrong number of inputs");
    std::vector<T> vals(g.values.size());
    std::vector<const T *> at(g.values.size());
    std::vector<const Source *> src(g.values.size(), nullptr);
    for (size_t v = 0; v < vals.size(); ++v)
      at[v] = &vals[v];
    for (size_t i = 0; i < inputs.size(); ++i) {
      src[g.inputs[i]] = &inputs[i];
      if (!inputs[i].isGenerated())
        at[g.inputs[i]] = inputs[i].stored;
    }
    auto generated = [&](int32_t v) { return src[v] && src[v]->isGenerated(); };
    auto store = [&](int32_t v) { // a generated input read whole
      if (!generated(v))
        return;
      vals[v] = T(src[v]->shape, sem.zero());
      src[v]->read(0, vals[v].size(), vals[v].data.data());
      src[v] = nullptr;
    };
    std::vector<size_t> lastUse = lastReaders(g);
    for (size_t oi = 0; oi < g.ops.size(); ++oi) {
      const UOp &op = g.ops[oi];
      const bool streams = streamsGenerated(op, generated);
      if (op.kind == OpKind::Custom) {
        std::vector<Source> ins;
        for (int32_t v : op.operands)
          ins.push_back(src[v] ? *src[v] : Source(*at[v]));
        std::vector<T> outs = runBlockGraph(g.bodies[op.body], ins);
        for (size_t i = 0; i < outs.size(); ++i)
          vals[op.results[i]] = std::move(outs[i]);
      } else if (streams) { // a matmul whose generated B is read by rows
        vals[op.results[0]] =
            matmul(*at[op.operands[0]], *src[op.operands[1]],
                   g.values[op.results[0]].shape, /*parallel=*/true);
      } else {
        for (int32_t v : op.operands)
          store(v);
        runTensorOp(g, op, at, vals, /*mayParallelize=*/true);
      }
      for (int32_t v : op.operands)
        if (lastUse[v] == oi)
          vals[v] = T();
    }
    std::vector<T> outs;
    for (int32_t o : g.outputs) {
      store(o);
      outs.push_back(*at[o]);
    }
    return outs;
  }

  /// Runs a block graph over the whole grid; `inputs` are device tensors.
  std::vector<T> runBlockGraph(const UGraph &b, llvm::ArrayRef<T> inputs) const {
    return runBlockGraph(b, sourcesOf(inputs));
  }
  std::vector<T> runBlockGraph(const UGraph &b,
                               llvm::ArrayRef<Source> inputs) const {
    std::vector<T> outputs;
    for (int32_t o : b.outputs)
      outputs.emplace_back(b.values[o].shape, sem.zero());
    // Map saver result value -> output position.
    std::vector<int> outputIndex(b.values.size(), -1);
    for (size_t i = 0; i < b.outputs.size(); ++i)
      outputIndex[b.outputs[i]] = i;

    // Blocks in x-fastest order. Workers take whole blocks; no locks are
    // needed: each block writes only the output boxes its savers select with
    // omap, and the omap rule (every grid dimension maps to a distinct
    // output dimension, or the grid dimension is 1) makes the boxes of
    // distinct blocks disjoint. Inputs and the domain are only read. Each
    // element is therefore written by one block, computed exactly as in the
    // serial loop.
    int64_t numBlocks = b.grid[0] * b.grid[1] * b.grid[2];
    // The stages come from the one phase rule (BlockSchedule.h), the same
    // for every block; ops before the loop run in the first iteration only.
    BlockSchedule sched = scheduleBlock(b);
    // Matmuls summed straight into their accumulator's exact partial sums.
    std::vector<int> fusedInto = fusedMatmulAccums(b, sched);
    // The results of ops that are the same in every block are computed by
    // block 0 and read by the others (GridInvariantOps.md).
    std::optional<GridInvariantValues> same;
    const int64_t sameBytes = numBlocks > 1 ? gridInvariantBytes(b, sched) : 0;
    if (sameBytes > 0 && sameBytes <= detail::kMaxGridInvariantBytes) {
      same.emplace();
      same->perIteration.resize(b.values.size());
      same->once.resize(b.values.size());
    }
    auto blockAt = [&](int64_t i) {
      GridDims idx{i % b.grid[0], (i / b.grid[0]) % b.grid[1],
                   i / (b.grid[0] * b.grid[1])};
      runBlock(b, sched, fusedInto, inputs, idx, outputIndex, outputs,
               same && i == 0 ? &*same : nullptr,
               same && i > 0 ? &*same : nullptr);
    };
    int64_t work = numBlocks * blockWork(b);
    if (!saversDisjoint(b))
      work = 0; // not a valid block graph; stay serial (and deterministic)
    if (same) {
      blockAt(0);
      parallelFor(numBlocks - 1, work, [&](int64_t i) { blockAt(i + 1); });
    } else {
      parallelFor(numBlocks, work, blockAt);
    }
    return outputs;
  }

  /// The elements of type T one run of `g` holds: at its peak, and as its
  /// outputs once it returns (what a caller keeps while it runs another
  /// graph). Counted by replaying run()'s allocations: every kernel-level
  /// result, each generated input read whole (stored at its first such
  /// reader), each released after its last reader (lastReaders), the
  /// outputs copied at the end. `generatedInputs[i]`: input i is generated.
  /// The per-block tiles of custom kernels are not counted (a block's
  /// working set, and at most kMaxGridInvariantBytes of shared results).
  struct StoredElements {
    int64_t peak = 0;
    int64_t outputs = 0;
  };
  static StoredElements storedElements(const UGraph &g,
                                       llvm::ArrayRef<bool> generatedInputs) {
    std::vector<char> gen(g.values.size(), 0), held(g.values.size(), 0);
    for (size_t i = 0; i < g.inputs.size(); ++i)
      gen[g.inputs[i]] = i < generatedInputs.size() && generatedInputs[i];
    auto generated = [&](int32_t v) { return gen[v] && !held[v]; };
    int64_t live = 0;
    StoredElements s;
    auto hold = [&](int32_t v) {
      if (!held[v]) {
        held[v] = 1;
        live += numElements(g.values[v].shape);
      }
    };
    std::vector<size_t> lastUse = lastReaders(g);
    for (size_t oi = 0; oi < g.ops.size(); ++oi) {
      const UOp &op = g.ops[oi];
      if (!streamsGenerated(op, generated))
        for (int32_t v : op.operands)
          if (generated(v))
            hold(v);
      for (int32_t r : op.results)
        hold(r);
      s.peak = std::max(s.peak, live);
      for (int32_t v : op.operands)
        if (lastUse[v] == oi && held[v] == 1) {
          held[v] = 2; // released: vals[v] = T()
          live -= numElements(g.values[v].shape);
        }
    }
    for (int32_t o : g.outputs) {
      if (generated(o))
        hold(o);
      s.outputs += numElements(g.values[o].shape);
    }
    s.peak = std::max(s.peak, live + s.outputs);
    return s;
  }

  /// The elements held at once by runs of `graphs` one after the other,
  /// each run's outputs kept until all have run (a comparison).
  static int64_t storedElementsOfRuns(llvm::ArrayRef<const UGraph *> graphs,
                                      llvm::ArrayRef<bool> generatedInputs) {
    int64_t kept = 0, peak = 0;
    for (const UGraph *g : graphs) {
      StoredElements s = storedElements(*g, generatedInputs);
      peak = std::max(peak, kept + s.peak);
      kept += s.outputs;
    }
    return peak;
  }

private:
  const Sem &sem;
  unsigned threads = 1;
  /// threads - 1 workers (the caller is the last); none when serial. Shared
  /// so that the evaluator stays copyable; tasks are waited for per loop.
  std::shared_ptr<llvm::StdThreadPool> pool;

  static std::vector<Source> sourcesOf(llvm::ArrayRef<T> ts) {
    return std::vector<Source>(ts.begin(), ts.end());
  }

  /// Whether `op` reads its generated inputs where it needs them instead
  /// of storing them whole: a custom kernel (its iterators read tiles), a
  /// matmul whose B is generated and A is not (B read by rows).
  template <class IsGenerated>
  static bool streamsGenerated(const UOp &op, IsGenerated generated) {
    return op.kind == OpKind::Custom ||
           (op.kind == OpKind::Matmul && generated(op.operands[1]) &&
            !generated(op.operands[0]));
  }

  /// For each value, the index of the last operator that reads it; outputs
  /// (read by the caller) get ops.size().
  static std::vector<size_t> lastReaders(const UGraph &g) {
    std::vector<size_t> last(g.values.size(), 0);
    for (size_t i = 0; i < g.ops.size(); ++i)
      for (int32_t v : g.ops[i].operands)
        last[v] = i;
    for (int32_t o : g.outputs)
      last[o] = g.ops.size();
    return last;
  }

  /// Runs f(0..n-1), each index on exactly one worker; serial when there is
  /// one thread, one item or little `work`. The workers are the calling
  /// thread and threads - 1 tasks of the evaluator's LLVM thread pool.
  template <class F> void parallelFor(int64_t n, int64_t work, F &&f) const {
    unsigned nt = (unsigned)std::min<int64_t>(threads, n);
    if (nt <= 1 || !pool || work < detail::kMinParallelWork) {
      for (int64_t i = 0; i < n; ++i)
        f(i);
      return;
    }
    std::atomic<int64_t> next{0};
    auto worker = [&] {
      for (int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;)
        f(i);
    };
    llvm::ThreadPoolTaskGroup group(*pool);
    for (unsigned t = 1; t < nt; ++t)
      group.async(worker);
    worker();
    group.wait();
  }

  /// The omap rule, rechecked: no saver replicates a grid axis of extent > 1.
  static bool saversDisjoint(const UGraph &b) {
    for (const UOp &op : b.ops)
      if (op.kind == OpKind::OutputSaver)
        for (int a = 0; a < 3; ++a)
          if (b.grid[a] > 1 && op.map[a] < 0)
            return false;
    return true;
  }

  /// A rough count of scalar operations of one block (for the threshold).
  static int64_t blockWork(const UGraph &b) {
    int64_t w = 0;
    for (const UOp &op : b.ops) {
      if (op.results.empty())
        continue;
      int64_t e = numElements(b.values[op.results[0]].shape);
      if (op.kind == OpKind::Matmul) {
        const Shape &as = b.values[op.operands[0]].shape;
        e *= as.empty() ? 1 : as.back();
      }
      w += e;
    }
    return w * std::max<int64_t>(b.forloopRange, 1);
  }

  V binary(BinaryKind k, V a, V b) const { return applyBinary(sem, k, a, b); }

  /// The results of a block graph's ops that are the same in every block
  /// (BlockSchedule::sameInEveryBlock), as block 0 computed them: per value,
  /// one tile per iteration for in-loop results (one, the first, for those
  /// before the loop), and one for accumulators and after-loop results.
  struct GridInvariantValues {
    std::vector<std::vector<T>> perIteration;
    std::vector<T> once;
  };

  /// Whether an op of stage `s` has a result per iteration (iterators and
  /// in-loop operators; accumulators have theirs after the loop).
  static bool resultPerIteration(BlockStage s) {
    return s == BlockStage::Iterator || s == BlockStage::InLoop;
  }

  /// The bytes GridInvariantValues would hold for `b` (0: no op is the
  /// same in every block).
  static int64_t gridInvariantBytes(const UGraph &b,
                                    const BlockSchedule &sched) {
    int64_t elements = 0;
    for (size_t i = 0; i < b.ops.size(); ++i) {
      if (!sched.sameInEveryBlock[i])
        continue;
      int64_t copies =
          resultPerIteration(sched.stage[i]) && !sched.beforeLoop[i]
              ? std::max<int64_t>(b.forloopRange, 1)
              : 1;
      for (int32_t r : b.ops[i].results)
        elements += copies * numElements(b.values[r].shape);
    }
    return elements * static_cast<int64_t>(sizeof(V));
  }

  /// For each op of block graph `b`: the accumulator op an in-loop matmul's
  /// products go straight into (exact partial sums, see the file comment),
  /// or -1. Only where the domain keeps exact partial sums, the matmul's
  /// result has no other reader, and the accumulator is a plain sum (adds
  /// its operand as is and finishes nothing).
  std::vector<int> fusedMatmulAccums(const UGraph &b,
                                     const BlockSchedule &sched) const {
    llvm::ArrayRef<BlockStage> stages = sched.stage;
    std::vector<int> into(b.ops.size(), -1);
    if constexpr (detail::HasDotPartials<Sem>::value) {
      std::vector<int> readers(b.values.size(), 0);
      for (const UOp &op : b.ops)
        for (int32_t v : op.operands)
          ++readers[v];
      for (int32_t o : b.outputs)
        ++readers[o];
      std::vector<int> producer(b.values.size(), -1);
      for (size_t i = 0; i < b.ops.size(); ++i)
        for (int32_t r : b.ops[i].results)
          producer[r] = i;
      for (size_t i = 0; i < b.ops.size(); ++i) {
        const UOp &acc = b.ops[i];
        if (stages[i] != BlockStage::Accumulate || acc.operands.size() != 1)
          continue;
        AccumRule rule = accumRule(acc);
        if (rule.combine != AccumCombine::Add || rule.reducesLastDim ||
            rule.squaresOperand || rule.finishes())
          continue;
        int32_t v = acc.operands[0];
        int m = producer[v];
        // A matmul before the loop runs once (its product is added in
        // every iteration from its tile).
        if (m < 0 || readers[v] != 1 || stages[m] != BlockStage::InLoop ||
            sched.beforeLoop[m] || b.ops[m].kind != OpKind::Matmul)
          continue;
        into[m] = i;
      }
    }
    return into;
  }

  /// One block of `b`. With `record`, the results of its ops that are the
  /// same in every block are kept there; with `replay`, those ops do not
  /// run and their results are read from it.
  void runBlock(const UGraph &b, const BlockSchedule &sched,
                const std::vector<int> &fusedInto, llvm::ArrayRef<Source> inputs,
                const GridDims &blockIdx, const std::vector<int> &outputIndex,
                std::vector<T> &outputs, GridInvariantValues *record,
                const GridInvariantValues *replay) const {
    std::vector<T> vals(b.values.size());
    std::vector<const T *> at(b.values.size());
    for (size_t v = 0; v < vals.size(); ++v)
      at[v] = &vals[v];
    // Accumulator state, indexed by op; valid once the first iteration ran.
    std::vector<std::optional<T>> acc(b.ops.size());
    llvm::ArrayRef<BlockStage> stages = sched.stage;
    std::vector<char> fusedAccum(b.ops.size(), 0);
    for (int a : fusedInto)
      if (a >= 0)
        fusedAccum[a] = 1;
    using Partials = typename detail::DotPartialsOf<Sem>::type;
    std::vector<Partials> partials(b.ops.size());
    for (int64_t it = 0; it < b.forloopRange; ++it) {
      for (size_t i = 0; i < b.ops.size(); ++i) {
        const UOp &op = b.ops[i];
        if (it > 0 && sched.beforeLoop[i])
          continue;
        const bool same = sched.sameInEveryBlock[i];
        if (replay && same) {
          // An accumulator's state is taken whole after the loop.
          if (resultPerIteration(stages[i]))
            for (int32_t r : op.results)
              at[r] = &replay->perIteration[r][it];
          continue;
        }
        switch (stages[i]) {
        case BlockStage::Iterator: {
          int inputPos = 0;
          for (size_t k = 0; k < b.inputs.size(); ++k)
            if (b.inputs[k] == op.operands[0])
              inputPos = k;
          T &tile = vals[op.results[0]];
          if (tile.shape != b.values[op.results[0]].shape)
            tile = T(b.values[op.results[0]].shape, sem.zero());
          Shape off = iteratorTileOffset(tile.shape, blockIdx, it,
                                         b.forloopRange, op.map, op.fmap);
          extractTile(inputs[inputPos], off, tile);
          break;
        }
        case BlockStage::Accumulate:
          if (!fusedAccum[i])
            accumulate(op, at, acc[i]);
          break;
        case BlockStage::InLoop:
          if (fusedInto[i] >= 0) {
            Partials &p = partials[fusedInto[i]];
            if (it == 0)
              p.reset(numElements(b.values[op.results[0]].shape));
            matmulAccumulate(*at[op.operands[0]], *at[op.operands[1]], p);
          } else if (op.kind == OpKind::RunningMax) {
            runningMax(b, op, at, vals, it == 0);
          } else {
            runTensorOp(b, op, at, vals);
          }
          break;
        case BlockStage::AfterLoop:
        case BlockStage::Save:
          break;
        }
        if (record && same && resultPerIteration(stages[i]))
          for (int32_t r : op.results)
            record->perIteration[r].push_back(vals[r]);
      }
    }
    // After the loop: finish accumulators, run after-loop ops, save tiles.
    for (size_t i = 0; i < b.ops.size(); ++i) {
      const UOp &op = b.ops[i];
      const bool same = sched.sameInEveryBlock[i];
      if (replay && same && !resultPerIteration(stages[i])) {
        at[op.results[0]] = &replay->once[op.results[0]];
        continue;
      }
      switch (stages[i]) {
      case BlockStage::Accumulate:
        if (fusedAccum[i])
          acc[i] = partialValues(partials[i], b.values[op.results[0]].shape);
        vals[op.results[0]] = finishAccum(b, op, std::move(*acc[i]));
        break;
      case BlockStage::Save: {
        const T &tile = *at[op.operands[0]];
        Shape off = saverTileOffset(tile.shape, blockIdx, op.map);
        insertTile(tile, off, outputs[outputIndex[op.results[0]]]);
        break;
      }
      case BlockStage::AfterLoop:
        runTensorOp(b, op, at, vals);
        break;
      case BlockStage::Iterator:
      case BlockStage::InLoop:
        break;
      }
      if (record && same && !resultPerIteration(stages[i]))
        record->once[op.results[0]] = vals[op.results[0]];
    }
  }

  /// a·b (batched like matmul) added into exact partial sums, one per
  /// element of the product.
  template <class Partials>
  void matmulAccumulate(const T &a, const T &b, Partials &acc) const {
    if constexpr (detail::HasDotPartials<Sem>::value) {
      size_t r = a.shape.size();
      int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
      int64_t rows = std::min<int64_t>(m, 8);
      int64_t cols = tileColumns(rows);
      int64_t batch = a.size() / (m * k);
      for (int64_t bt = 0; bt < batch; ++bt) {
        const V *pa = a.data.data() + bt * m * k;
        const V *pb = b.data.data() + bt * k * n;
        for (int64_t i0 = 0; i0 < m; i0 += rows)
          for (int64_t j0 = 0; j0 < n; j0 += cols) {
            int64_t j1 = std::min(n, j0 + cols);
            sem.dotTileAccumulate(
                pa, k, acc, bt * m * n, n, i0, std::min(m, i0 + rows), j0, j1,
                [&](int64_t kk) -> const V * { return pb + kk * n + j0; });
          }
      }
    }
  }

  /// The reduced values of exact partial sums, as a tensor of `shape`.
  template <class Partials>
  T partialValues(const Partials &acc, const Shape &shape) const {
    T out(shape, sem.zero());
    if constexpr (detail::HasDotPartials<Sem>::value)
      for (int64_t e = 0; e < out.size(); ++e)
        out.data[e] = sem.dotPartialValue(acc, e);
    return out;
  }

  /// One iteration's contribution of an accumulator operand (AccumRules.h).
  T accumContribution(const UOp &op, const T &x) const {
    AccumRule rule = accumRule(op);
    if (!rule.reducesLastDim)
      return x;
    T in = x;
    if (rule.squaresOperand)
      for (V &v : in.data)
        v = sem.mul(v, v);
    return reduce(ReduceKind::sum, in, in.shape.size() - 1,
                  accumReduceSize(op));
  }

  /// Folds this iteration's contribution into the state. The first
  /// contribution becomes the state, which equals combining it with the
  /// rule's identity in every domain (also where -inf does not exist).
  void accumulate(const UOp &op, llvm::ArrayRef<const T *> at,
                  std::optional<T> &state) const {
    T c = accumContribution(op, *at[op.operands[0]]);
    if (!state) {
      state = std::move(c);
      return;
    }
    switch (accumRule(op).combine) {
    case AccumCombine::Max:
      for (int64_t i = 0; i < c.size(); ++i)
        state->data[i] = sem.max(state->data[i], c.data[i]);
      return;
    case AccumCombine::RescaledAdd: {
      // acc <- acc * r + c, with r broadcast to acc's shape.
      const T &r = *at[op.operands[1]];
      Shape rs = rowMajorStrides(r.shape);
      forEachIndex(state->shape, [&](int64_t i, llvm::ArrayRef<int64_t> idx) {
        V scale = r.data[broadcastOffset(r.shape, rs, idx)];
        state->data[i] = sem.add(sem.mul(state->data[i], scale), c.data[i]);
      });
      return;
    }
    case AccumCombine::Add:
      for (int64_t i = 0; i < c.size(); ++i)
        state->data[i] = sem.add(state->data[i], c.data[i]);
      return;
    }
  }

  /// One iteration of `prev, cur = running_max x dim d` (RunningMaxRule.h).
  /// The state is cur's tile of the previous iteration, which `vals` keeps
  /// (nothing else writes it), read before it is overwritten.
  void runningMax(const UGraph &b, const UOp &op, llvm::ArrayRef<const T *> at,
                  std::vector<T> &vals, bool first) const {
    T m = reduce(ReduceKind::max, *at[op.operands[0]], op.dim, 1);
    const bool f64Graph = llvm::any_of(
        b.values, [](const UValue &v) { return v.type == ElemType::F64; });
    const V floor = sem.fromDouble(runningMaxFloor(f64Graph));
    T &prev = vals[op.results[0]];
    T &cur = vals[op.results[1]];
    if (first)
      cur = T(m.shape, sem.zero());
    prev = T(m.shape, sem.zero());
    auto select = [](bool c, const V &a, const V &b) -> V { return c ? a : b; };
    auto max = [&](const V &a, const V &b) { return sem.max(a, b); };
    for (int64_t i = 0; i < m.size(); ++i) {
      const V row = runningMaxRow(max, m.data[i], floor);
      prev.data[i] = runningMaxPrev(select, first, row, cur.data[i]);
      cur.data[i] = runningMaxCur(max, prev.data[i], row);
    }
  }

  T finishAccum(const UGraph &b, const UOp &op, T state) const {
    AccumRule rule = accumRule(op);
    if (!rule.finishes())
      return state;
    V count = sem.fromInt(accumCount(b, op));
    // rms_last: mean + eps, then sqrt -- the same steps, on the same
    // arguments, as rmsNorm below, so that a domain's sqrt (the finite
    // field's oracle) sees identical inputs in both forms.
    V eps = rule.addsEps ? sem.fromDouble(op.scalar) : sem.zero();
    for (V &v : state.data) {
      if (rule.dividesByCount)
        v = sem.div(v, count);
      if (rule.addsEps)
        v = sem.add(v, eps);
      if (rule.takesSqrt)
        v = sem.unary(UnaryKind::sqrt, v, 0.0);
    }
    return state;
  }

  /// Strided reduction of `dim` to `size`: out[.., j, ..] combines
  /// x[.., c·size + j, ..] over c.
  T reduce(ReduceKind k, const T &x, int64_t dim, int64_t size) const {
    Shape outShape = x.shape;
    outShape[dim] = size;
    T out(outShape, sem.zero());
    Shape xs = rowMajorStrides(x.shape);
    int64_t chunks = x.shape[dim] / size;
    forEachIndex(outShape, [&](int64_t i, llvm::ArrayRef<int64_t> idx) {
      int64_t base = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        base += idx[d] * xs[d];
      V a = x.data[base];
      for (int64_t c = 1; c < chunks; ++c) {
        V v = x.data[base + c * size * xs[dim]];
        a = k == ReduceKind::sum ? sem.add(a, v) : sem.max(a, v);
      }
      out.data[i] = a;
    });
    return out;
  }

  T broadcastBinary(BinaryKind k, const T &a, const T &b,
                    const Shape &outShape) const {
    if constexpr (detail::DividesByInverse<Sem>::value) {
      // The divisor's elements inverted together (Montgomery's trick: one
      // inversion for the tensor) and each once, however far it is
      // broadcast. The same values: div is mul by the inverse; a zero
      // divisor is still seen, since every element of b is inverted.
      if (k == BinaryKind::div) {
        T inv(b.shape, sem.zero());
        sem.inverseAll(b.data.data(), b.data.size(), inv.data.data());
        return broadcastBinary(BinaryKind::mul, a, inv, outShape);
      }
    }
    T out(outShape, sem.zero());
    // No broadcast: element i of each operand (the same values as the
    // index walk below, without two offsets per element).
    if (a.shape == outShape && b.shape == outShape) {
      for (int64_t i = 0; i < out.size(); ++i)
        out.data[i] = binary(k, a.data[i], b.data[i]);
      return out;
    }
    Shape as = rowMajorStrides(a.shape), bs = rowMajorStrides(b.shape);
    // The same offsets as broadcastOffset, kept incrementally: stride 0
    // along an operand's dims of extent 1, the last dim walked by an inner
    // loop, the others by an odometer that moves both offsets. The shape
    // rules (broadcastShape) give both operands the result's rank.
    const size_t rank = outShape.size();
    assert(a.shape.size() == rank && b.shape.size() == rank &&
           "element-wise operands have the result's rank");
    for (size_t d = 0; d < rank; ++d) {
      if (a.shape[d] == 1)
        as[d] = 0;
      if (b.shape[d] == 1)
        bs[d] = 0;
    }
    const int64_t inner = rank ? outShape[rank - 1] : 1;
    if (inner == 0)
      return out;
    const int64_t ai = rank ? as[rank - 1] : 0, bi = rank ? bs[rank - 1] : 0;
    const int64_t rows = out.size() / inner;
    Shape idx(rank, 0);
    int64_t aoff = 0, boff = 0;
    for (int64_t r = 0; r < rows; ++r) {
      V *o = out.data.data() + r * inner;
      for (int64_t j = 0; j < inner; ++j)
        o[j] = binary(k, a.data[aoff + j * ai], b.data[boff + j * bi]);
      for (int64_t d = int64_t(rank) - 2; d >= 0; --d) {
        aoff += as[d];
        boff += bs[d];
        if (++idx[d] < outShape[d])
          break;
        aoff -= as[d] * outShape[d];
        boff -= bs[d] * outShape[d];
        idx[d] = 0;
      }
    }
    return out;
  }

  /// Batched matmul, in tiles of rows × tileColumns(rows) so that a slice
  /// of `b` stays in cache while it is used for several rows. At kernel level
  /// (`parallel`) the (batch, row block, column block) tiles are spread over
  /// the workers. Every output element is computed by one worker, summing
  /// its products in ascending k from zero, as the plain loop does.
  /// A generated `b` (kernel level only) is never stored: each tile produces
  /// its row segments of `b` into a small buffer used by all the tile's rows;
  /// its tiles take up to 64 rows, so for the few rows of a decoder layer
  /// every element of `b` is generated once.
  T matmul(const T &a, const Source &b, const Shape &outShape,
           bool parallel = false) const {
    size_t r = a.shape.size();
    int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
    int64_t rows = std::min<int64_t>(m, b.isGenerated() ? 64 : 8);
    int64_t cols = tileColumns(rows);
    int64_t batch = numElements(outShape) / (m * n);
    T out(outShape, sem.zero());
    int64_t rowBlocks = (m + rows - 1) / rows;
    int64_t colBlocks = (n + cols - 1) / cols;
    int64_t perBatch = rowBlocks * colBlocks;
    auto tile = [&](int64_t t) {
      int64_t bt = t / perBatch, rem = t % perBatch;
      int64_t i0 = (rem / colBlocks) * rows, j0 = (rem % colBlocks) * cols;
      int64_t j1 = std::min(n, j0 + cols);
      const V *pb = b.isGenerated() ? nullptr
                                    : b.stored->data.data() + bt * k * n;
      std::vector<V> segment(pb ? 0 : j1 - j0, sem.zero());
      matmulTile(a.data.data() + bt * m * k, out.data.data() + bt * m * n, k,
                 n, i0, std::min(m, i0 + rows), j0, j1,
                 [&](int64_t kk) -> const V * {
                   if (pb)
                     return pb + kk * n + j0;
                   b.read(bt * k * n + kk * n + j0, j1 - j0, segment.data());
                   return segment.data();
                 });
    };
    if (parallel)
      parallelFor(batch * perBatch, batch * m * k * n, tile);
    else
      for (int64_t t = 0; t < batch * perBatch; ++t)
        tile(t);
    return out;
  }

  /// Columns of a matmul tile of `rows` rows: the tile's accumulators (for
  /// the finite field, two 192-bit sums per element) stay within 32 KiB, an
  /// L1 cache, between 16 and 256 columns.
  static int64_t tileColumns(int64_t rows) {
    size_t acc = sizeof(V);
    if constexpr (detail::HasDotTile<Sem>::value)
      acc = Sem::kDotTileBytes;
    else if constexpr (detail::HasDotAccumulator<Sem>::value)
      acc = sizeof(typename Sem::DotAccumulator);
    int64_t cols = 256;
    while (cols > 16 && (int64_t)acc * rows * cols > 32768)
      cols /= 2;
    return cols;
  }

  /// pc[i·n + j] = Σ_kk pa[i·k + kk]·b[kk][j] for i ∈ [i0, i1),
  /// j ∈ [j0, j1), summed in kk order from zero; rowOfB(kk) points at
  /// b[kk][j0], valid until the next call.
  template <class RowOfB>
  void matmulTile(const V *pa, V *pc, int64_t k, int64_t n, int64_t i0,
                  int64_t i1, int64_t j0, int64_t j1, RowOfB &&rowOfB) const {
    int64_t w = j1 - j0;
    if constexpr (detail::HasDotTile<Sem>::value) {
      sem.dotTile(pa, k, pc, n, i0, i1, j0, j1, rowOfB);
    } else if constexpr (detail::HasDotAccumulator<Sem>::value) {
      using Acc = typename Sem::DotAccumulator;
      std::vector<Acc> acc((i1 - i0) * w);
      for (int64_t kk = 0; kk < k; ++kk) {
        const V *pbk = rowOfB(kk);
        for (int64_t i = i0; i < i1; ++i) {
          const V &av = pa[i * k + kk];
          Acc *row = acc.data() + (i - i0) * w;
          for (int64_t j = 0; j < w; ++j)
            sem.dotMulAdd(row[j], av, pbk[j]);
        }
      }
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = 0; j < w; ++j)
          pc[i * n + j0 + j] = sem.dotValue(acc[(i - i0) * w + j]);
    } else {
      for (int64_t kk = 0; kk < k; ++kk) {
        const V *pbk = rowOfB(kk);
        for (int64_t i = i0; i < i1; ++i) {
          V av = pa[i * k + kk];
          V *row = pc + i * n + j0;
          for (int64_t j = 0; j < w; ++j)
            row[j] = sem.add(row[j], sem.mul(av, pbk[j]));
        }
      }
    }
  }

  /// Σ v_j·v_j in j order from zero; with delayed reduction where the
  /// domain offers it (the same value, see DotAccumulator).
  V sumOfSquares(const V *v, int64_t n) const {
    if constexpr (detail::HasDotAccumulator<Sem>::value) {
      typename Sem::DotAccumulator acc;
      for (int64_t j = 0; j < n; ++j)
        sem.dotMulAdd(acc, v[j], v[j]);
      return sem.dotValue(acc);
    } else {
      V s = sem.zero();
      for (int64_t j = 0; j < n; ++j)
        s = sem.add(s, sem.mul(v[j], v[j]));
      return s;
    }
  }

  T rmsNorm(const T &x, const T *w, double eps) const {
    int64_t n = x.shape.back();
    int64_t rows = x.size() / n;
    T out(x.shape, sem.zero());
    V count = sem.fromInt(n);
    auto rmsOfRow = [&](int64_t r) {
      V s = sumOfSquares(x.data.data() + r * n, n);
      V mean = sem.div(s, count);
      if (eps != 0.0)
        mean = sem.add(mean, sem.fromDouble(eps));
      return sem.unary(UnaryKind::sqrt, mean, 0.0);
    };
    if constexpr (detail::DividesByInverse<Sem>::value) {
      // Every row's rms inverted in one batch (Montgomery's trick), then
      // each element multiplied: the same values, since div is mul by the
      // inverse, where dividing element by element inverted each row's rms
      // n times (once per lane in the lane field).
      std::vector<V> rms(rows), inv(rows);
      for (int64_t r = 0; r < rows; ++r)
        rms[r] = rmsOfRow(r);
      sem.inverseAll(rms.data(), rows, inv.data());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < n; ++j)
          out.data[r * n + j] = sem.mul(x.data[r * n + j], inv[r]);
    } else {
      for (int64_t r = 0; r < rows; ++r) {
        V rms = rmsOfRow(r);
        for (int64_t j = 0; j < n; ++j)
          out.data[r * n + j] = sem.div(x.data[r * n + j], rms);
      }
    }
    if (w)
      return broadcastBinary(BinaryKind::mul, out, *w, x.shape);
    return out;
  }

  T concat(const T &a, const T &b, int64_t dim, const Shape &outShape) const {
    T out(outShape, sem.zero());
    Shape off(outShape.size(), 0);
    insertTile(a, off, out);
    off[dim] = a.shape[dim];
    insertTile(b, off, out);
    return out;
  }

  T threadGraph(const UGraph &body, llvm::ArrayRef<const T *> ins,
                const Shape &outShape, size_t numResults,
                std::vector<T> &results) const {
    results.assign(numResults, T(outShape, sem.zero()));
    std::vector<Shape> strides;
    for (const T *t : ins)
      strides.push_back(rowMajorStrides(t->shape));
    std::vector<V> scalars(body.values.size(), sem.zero());
    forEachIndex(outShape, [&](int64_t i, llvm::ArrayRef<int64_t> idx) {
      for (size_t k = 0; k < ins.size(); ++k)
        scalars[body.inputs[k]] =
            ins[k]->data[broadcastOffset(ins[k]->shape, strides[k], idx)];
      for (const UOp &op : body.ops) {
        auto in = [&](unsigned i) -> const V & {
          return scalars[op.operands[i]];
        };
        scalars[op.results[0]] = visitThreadOp(
            op,
            [&](UnaryKind k) { return sem.unary(k, in(0), op.scalar); },
            [&](BinaryKind k) { return binary(k, in(0), in(1)); });
      }
      for (size_t r = 0; r < numResults; ++r)
        results[r].data[i] = scalars[body.outputs[r]];
    });
    return T();
  }

  /// Runs a tensor operator (kernel or block level) whose operands are in
  /// `vals`, storing its results there.
  /// `mayParallelize`: a kernel-level operator (not inside a block, whose
  /// blocks may already run on the workers).
  /// `at[v]`: where value v is read (in `vals` or a caller's input).
  void runTensorOp(const UGraph &g, const UOp &op,
                   llvm::ArrayRef<const T *> at, std::vector<T> &vals,
                   bool mayParallelize = false) const {
    auto in = [&](unsigned i) -> const T & { return *at[op.operands[i]]; };
    const Shape &outShape = g.values[op.results[0]].shape;
    T &out = vals[op.results[0]];
    switch (op.kind) {
    case OpKind::Matmul:
      out = matmul(in(0), Source(in(1)), outShape, mayParallelize);
      return;
    case OpKind::Unary: {
      T r = in(0);
      for (V &v : r.data)
        v = sem.unary(op.unaryKind(), v, op.scalar);
      out = std::move(r);
      return;
    }
    case OpKind::Binary:
      out = broadcastBinary(op.binaryKind(), in(0), in(1), outShape);
      return;
    case OpKind::Reduce:
      out = reduce(op.reduceKind(), in(0), op.dim, op.size);
      return;
    case OpKind::RmsNorm:
      out = rmsNorm(in(0), op.operands.size() > 1 ? &in(1) : nullptr,
                    op.scalar);
      return;
    case OpKind::Concat:
      out = concat(in(0), in(1), op.dim, outShape);
      return;
    case OpKind::ThreadGraph: {
      llvm::SmallVector<const T *> ins;
      for (int32_t v : op.operands)
        ins.push_back(at[v]);
      std::vector<T> results;
      threadGraph(g.bodies[op.body], ins, outShape, op.results.size(), results);
      for (size_t r = 0; r < results.size(); ++r)
        vals[op.results[r]] = std::move(results[r]);
      return;
    }
    case OpKind::Custom: // the kernel-graph loop runs its block graph
    case OpKind::InputIterator: // runBlock's stages: the loop's edges
    case OpKind::Accum:
    case OpKind::RunningMax: // runBlock: its state spans the iterations
    case OpKind::OutputSaver:
      assert(false && "not a tensor operator");
      return;
    }
  }
};

} // namespace mirage

#endif // MIRAGE_SEMANTICS_EVALUATOR_H

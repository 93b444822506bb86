//===- AbstractPrune.cpp - Abstract-expression pruning for the search -----===//
#include "Mirage/Search/AbstractPrune.h"

#include "llvm/ADT/DenseMap.h"

#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

using namespace mirage;
using namespace mirage::search;

namespace {
/// Everything applyOp reads for a one-result operator without a body:
/// kind, sub-kind and operand count; dim; size; scalar; the for-loop range;
/// each operand's expression and shape (rank ≤ 4, dims < 2^16, packed).
using OpKey = std::array<int64_t, 9>;
/// Open addressing (llvm::DenseMap) for the memo: node-based maps cost a
/// cache miss per lookup. Kinds are small, so word 0 never takes the
/// empty or tombstone value.
struct OpKeyInfo {
  static OpKey getEmptyKey() {
    OpKey k{};
    k[0] = -1;
    return k;
  }
  static OpKey getTombstoneKey() {
    OpKey k{};
    k[0] = -2;
    return k;
  }
  static unsigned getHashValue(const OpKey &k) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int64_t w : k) {
      h ^= uint64_t(w);
      h *= 0xff51afd7ed558ccdull;
      h ^= h >> 32;
    }
    return unsigned(h);
  }
  /// Word by word (std::array's == is a memcmp call: about 9% of GQA's
  /// search samples when it was used here).
  static bool isEqual(const OpKey &a, const OpKey &b) {
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i])
        return false;
    return true;
  }
};

/// What a worker thread remembers across its enumerations (every pattern
/// and round it runs): applyOp's result per OpKey, and the oracle's
/// verdicts per ExprId. All are pure functions of their keys within one
/// search (one arena, fixed targets). The enumeration builds the same
/// operator on the same operand expressions and shapes in many prefixes,
/// and the arena's interning (a locked hash lookup per canonicalising step)
/// was the largest cost per state.
constexpr size_t kMaxMemoEntries = size_t(1) << 18;
struct ThreadMemo {
  llvm::DenseMap<OpKey, ExprId, OpKeyInfo> results;
  llvm::DenseMap<ExprId, bool> verdicts;
  llvm::DenseMap<std::pair<ExprId, unsigned>, bool> outputVerdicts;
};

/// Shared by all worker threads: the arena and the oracle are thread-safe;
/// each thread has its own memo.
struct PruneState {
  ExprArena arena;
  std::unique_ptr<SubexprOracle> oracle;
  std::vector<ExprId> targets;

  ThreadMemo &memoOfThisThread() {
    std::lock_guard<std::mutex> lock(memoMutex);
    std::unique_ptr<ThreadMemo> &m = memos[std::this_thread::get_id()];
    if (!m)
      m = std::make_unique<ThreadMemo>();
    return *m;
  }

private:
  std::mutex memoMutex;
  std::unordered_map<std::thread::id, std::unique_ptr<ThreadMemo>> memos;
};

/// One enumeration's incremental test: the abstract expression of every
/// value of the current prefix is kept in `exprs` (indexed by value id), so
/// a new operator costs one `applyOp` from its operands' expressions instead
/// of re-deriving the whole block, or a memo lookup. Expressions are
/// hash-consed, so the ids are the ones `abstractExprs` over the whole
/// block would give. The oracle's verdict is a pure function of the ExprId
/// (the targets are fixed), so it is memoised too, without the oracle's
/// lock. A session is created and used on one worker thread.
class ExprPruneSession : public PruneSession {
public:
  explicit ExprPruneSession(std::shared_ptr<PruneState> state)
      : state(std::move(state)), memo(this->state->memoOfThisThread()) {}

  void begin(const UGraph &block) override {
    exprs = abstractExprs(block, state->arena);
  }

  bool keep(const UGraph &block, int32_t value) override {
    // Values at or above `value` belong to undone operators.
    if ((size_t)value > exprs.size()) // not begun: fall back to a full pass
      exprs = abstractExprs(block, state->arena);
    exprs.resize(value);
    const UOp &op = block.ops[block.values[value].def];
    std::optional<OpKey> key = keyOf(block, op);
    auto known = key ? memo.results.find(*key) : memo.results.end();
    if (known != memo.results.end()) {
      exprs.push_back(known->second);
    } else {
      llvm::SmallVector<ExprId, 2> rs =
          applyOp(state->arena, block, op, exprs);
      for (size_t i = 0; i < op.results.size(); ++i)
        exprs.push_back(i < rs.size() ? rs[i] : state->arena.unknown());
      if (key) {
        // Bounded memory (QKNorm's 33 M states grew it to hundreds of MB):
        // the entries are pure functions of their keys, so dropping them
        // changes only the time.
        if (memo.results.size() >= kMaxMemoEntries)
          memo.results.clear();
        memo.results.try_emplace(*key, exprs[value]);
      }
    }
    ExprId e = exprs[value];
    auto [it, inserted] = memo.verdicts.try_emplace(e, true);
    if (inserted)
      it->second = state->oracle->keep(e, state->targets);
    return it->second;
  }

  /// subexpr(E_O, E): a graph equivalent to the reference whose abstract
  /// expression A_eq equates with the reference's (Theorem 1's premise)
  /// has the reference output below each saved value's expression too.
  bool mayBeOutput(int32_t value, size_t output) override {
    if ((size_t)value >= exprs.size() || output >= state->targets.size())
      return true;
    ExprId e = exprs[value];
    auto [it, inserted] =
        memo.outputVerdicts.try_emplace({e, unsigned(output)}, true);
    if (inserted)
      it->second = state->oracle->query(state->targets[output], e) !=
                   SubexprAnswer::No;
    return it->second;
  }

private:
  std::optional<OpKey> keyOf(const UGraph &block, const UOp &op) const {
    if (op.results.size() != 1 || op.body >= 0 || op.operands.size() > 2)
      return std::nullopt;
    OpKey k{};
    k[0] = int64_t(op.kind) | (int64_t(uint32_t(op.sub)) << 8) |
           (int64_t(op.operands.size()) << 40);
    k[1] = op.dim;
    k[2] = op.size;
    std::memcpy(&k[3], &op.scalar, sizeof(double));
    k[4] = block.forloopRange;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Shape &s = block.values[op.operands[i]].shape;
      if (s.size() > 4)
        return std::nullopt;
      uint64_t packed = 0; // dims are ≥ 1, so the rank is implied
      for (size_t d = 0; d < s.size(); ++d) {
        if (s[d] < 1 || s[d] >= (1 << 16))
          return std::nullopt;
        packed |= uint64_t(s[d]) << (16 * d);
      }
      k[5 + 2 * i] = exprs[op.operands[i]];
      k[6 + 2 * i] = int64_t(packed);
    }
    return k;
  }

  std::shared_ptr<PruneState> state;
  ThreadMemo &memo;
  std::vector<ExprId> exprs;
};
} // namespace

PruneFactory mirage::search::abstractExprPruneFactory(SubexprOracleOptions opts) {
  return [opts](const UGraph &probeReference) -> PruneFn {
    auto state = std::make_shared<PruneState>();
    state->oracle = std::make_unique<SubexprOracle>(state->arena, opts);
    std::vector<ExprId> exprs = abstractExprs(probeReference, state->arena);
    for (int32_t o : probeReference.outputs)
      state->targets.push_back(exprs[o]);
    return [state]() -> std::unique_ptr<PruneSession> {
      return std::make_unique<ExprPruneSession>(state);
    };
  };
}

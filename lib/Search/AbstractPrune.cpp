//===- AbstractPrune.cpp - Abstract-expression pruning for the search -----===//
#include "Mirage/Search/AbstractPrune.h"

#include "llvm/ADT/DenseMap.h"

#include "llvm/ADT/Hashing.h"

#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>

using namespace mirage;
using namespace mirage::search;

namespace {
/// Shared by all worker threads: the arena and the oracle are thread-safe.
struct PruneState {
  ExprArena arena;
  std::unique_ptr<SubexprOracle> oracle;
  std::vector<ExprId> targets;
};

/// One enumeration's incremental test: the abstract expression of every
/// value of the current prefix is kept in `exprs` (indexed by value id), so
/// a new operator costs one `applyOp` from its operands' expressions instead
/// of re-deriving the whole block. Expressions are hash-consed, so the ids
/// are the ones `abstractExprs` over the whole block would give. The
/// oracle's verdict is a pure function of the ExprId (the targets are
/// fixed), so it is also cached here, without the oracle's lock.
class ExprPruneSession : public PruneSession {
public:
  explicit ExprPruneSession(std::shared_ptr<PruneState> state)
      : state(std::move(state)) {}

  void begin(const UGraph &block) override {
    exprs = abstractExprs(block, state->arena);
  }

  bool keep(const UGraph &block, int32_t value) override {
    // Values at or above `value` belong to undone operators.
    if ((size_t)value > exprs.size()) // not begun: fall back to a full pass
      exprs = abstractExprs(block, state->arena);
    exprs.resize(value);
    const UOp &op = block.ops[block.values[value].def];
    std::optional<OpKey> memoKey = keyOf(block, op);
    auto memo = memoKey ? results.find(*memoKey) : results.end();
    if (memo != results.end()) {
      exprs.push_back(memo->second);
    } else {
      llvm::SmallVector<ExprId, 2> rs =
          applyOp(state->arena, block, op, exprs);
      for (size_t i = 0; i < op.results.size(); ++i)
        exprs.push_back(i < rs.size() ? rs[i] : state->arena.unknown());
      if (memoKey)
        results.emplace(*memoKey, exprs[value]);
    }
    ExprId e = exprs[value];
    auto [it, inserted] = verdicts.try_emplace(e, true);
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
    auto [it, inserted] = outputVerdicts.try_emplace({e, output}, true);
    if (inserted)
      it->second = state->oracle->query(state->targets[output], e) !=
                   SubexprAnswer::No;
    return it->second;
  }

private:
  /// Everything applyOp reads for a one-result operator without a body:
  /// kind, sub-kind, dim, size, scalar, the for-loop range, and each
  /// operand's expression and shape (rank ≤ 4).
  using OpKey = std::array<int64_t, 18>;
  struct OpKeyHash {
    size_t operator()(const OpKey &k) const {
      return llvm::hash_combine_range(k.begin(), k.end());
    }
  };
  std::optional<OpKey> keyOf(const UGraph &block, const UOp &op) const {
    if (op.results.size() != 1 || op.body >= 0 || op.operands.size() > 2)
      return std::nullopt;
    OpKey k{};
    k[0] = (int64_t(op.kind) << 32) | uint32_t(op.sub);
    k[1] = op.dim;
    k[2] = op.size;
    std::memcpy(&k[3], &op.scalar, sizeof(double));
    k[4] = block.forloopRange;
    k[5] = int64_t(op.operands.size());
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Shape &s = block.values[op.operands[i]].shape;
      if (s.size() > 4)
        return std::nullopt;
      int64_t *slot = &k[6 + 6 * i];
      slot[0] = exprs[op.operands[i]];
      slot[1] = int64_t(s.size());
      for (size_t d = 0; d < s.size(); ++d)
        slot[2 + d] = s[d];
    }
    return k;
  }

  std::shared_ptr<PruneState> state;
  std::vector<ExprId> exprs;
  /// applyOp's result per OpKey: the enumeration builds the same operator
  /// on the same operand expressions and shapes in many prefixes, and the
  /// arena's interning (a locked hash-table lookup per canonical step) was
  /// the largest cost per state.
  std::unordered_map<OpKey, ExprId, OpKeyHash> results;
  llvm::DenseMap<ExprId, bool> verdicts;
  llvm::DenseMap<std::pair<ExprId, unsigned>, bool> outputVerdicts;
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

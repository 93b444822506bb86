//===- AbstractPrune.cpp - Abstract-expression pruning for the search -----===//
#include "Mirage/Search/AbstractPrune.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>

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
    llvm::SmallVector<ExprId, 2> rs =
        applyOp(state->arena, block, op, exprs);
    for (size_t i = 0; i < op.results.size(); ++i)
      exprs.push_back(i < rs.size() ? rs[i] : state->arena.unknown());
    ExprId e = exprs[value];
    auto [it, inserted] = verdicts.try_emplace(e, true);
    if (inserted)
      it->second = state->oracle->keep(e, state->targets);
    return it->second;
  }

private:
  std::shared_ptr<PruneState> state;
  std::vector<ExprId> exprs;
  llvm::DenseMap<ExprId, bool> verdicts;
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

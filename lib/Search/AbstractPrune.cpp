//===- AbstractPrune.cpp - Abstract-expression pruning for the search -----===//
#include "Mirage/Search/AbstractPrune.h"

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
} // namespace

PruneFactory mirage::search::abstractExprPruneFactory(SubexprOracleOptions opts) {
  return [opts](const UGraph &probeReference) -> PruneFn {
    auto state = std::make_shared<PruneState>();
    state->oracle = std::make_unique<SubexprOracle>(state->arena, opts);
    std::vector<ExprId> exprs = abstractExprs(probeReference, state->arena);
    for (int32_t o : probeReference.outputs)
      state->targets.push_back(exprs[o]);
    return [state](const UGraph &block, int32_t value) {
      // Block inputs are the reference inputs, in order: var(i) both sides.
      std::vector<ExprId> exprs = abstractExprs(block, state->arena);
      return state->oracle->keep(exprs[value], state->targets);
    };
  };
}

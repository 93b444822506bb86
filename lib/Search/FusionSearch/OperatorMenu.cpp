//===- OperatorMenu.cpp - Block operators an enumeration may add ----------===//
#include "Stages.h"

#include "Mirage/Semantics/OpKinds.h"

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

/// Block operators that can appear in a fused form of `ref`: its own
/// operators, plus the pieces of the ones it fuses across the loop (an
/// rms_norm with eps e becomes an `rms_last` accumulator with eps e and a
/// division).
bool MenuItem::operator==(const MenuItem &o) const {
  return kind == o.kind && sub == o.sub && scalar == o.scalar &&
         dim == o.dim && arity == o.arity && chain == o.chain;
}

namespace {

/// One input chain: its steps and the ops of the reference they are.
struct InputChain {
  llvm::SmallVector<InputStep, 2> steps;
  llvm::SmallVector<size_t, 2> ops;
};

/// The input chains of `ref` among the ops `includeOp` accepts: maximal
/// runs of binary ops, each reading the previous one's result (read by
/// nothing else) and a graph input read by nothing else, one or more long
/// (FusionSearch.md, "Input chains": a lone mask or bias add is a chain of
/// one step). The first op's other operand is a computed value (a chain on
/// an input alone is a prologue's business).
std::vector<InputChain>
inputChains(const UGraph &ref, llvm::function_ref<bool(size_t)> includeOp) {
  std::vector<unsigned> uses(ref.values.size(), 0);
  std::vector<int32_t> consumer(ref.values.size(), -1);
  for (size_t i = 0; i < ref.ops.size(); ++i)
    for (int32_t o : ref.ops[i].operands) {
      ++uses[o];
      consumer[o] = i;
    }
  for (int32_t o : ref.outputs)
    uses[o] += 2; // an output is read outside: never an intermediate
  auto inputIndex = [&](int32_t v) -> int32_t {
    auto it = llvm::find(ref.inputs, v);
    return it == ref.inputs.end() ? -1 : int32_t(it - ref.inputs.begin());
  };
  // Op i as a step from value `from` (any computed value when -1).
  auto step = [&](size_t i, int32_t from) -> std::optional<InputStep> {
    const UOp &op = ref.ops[i];
    if (op.kind != OpKind::Binary || op.operands.size() != 2 ||
        (includeOp && !includeOp(i)))
      return std::nullopt;
    for (unsigned s = 0; s < 2; ++s) {
      int32_t in = op.operands[s], other = op.operands[1 - s];
      int32_t idx = inputIndex(in);
      if (idx < 0 || uses[in] != 1 || inputIndex(other) >= 0 ||
          (from >= 0 && other != from))
        continue;
      return InputStep{op.binaryKind(), idx, s == 0};
    }
    return std::nullopt;
  };
  std::vector<InputChain> chains;
  for (size_t i = 0; i < ref.ops.size(); ++i) {
    std::optional<InputStep> first = step(i, -1);
    if (!first)
      continue;
    // Maximal only: not the continuation of a step before it.
    int32_t x = ref.ops[i].operands[first->inputFirst ? 1 : 0];
    int32_t xDef = ref.values[x].def;
    if (xDef >= 0 && uses[x] == 1 && step(xDef, -1))
      continue;
    InputChain chain;
    chain.steps.push_back(*first);
    chain.ops.push_back(i);
    int32_t r = ref.ops[i].results[0];
    while (uses[r] == 1 && consumer[r] >= 0) {
      std::optional<InputStep> next = step(consumer[r], r);
      if (!next)
        break;
      chain.steps.push_back(*next);
      chain.ops.push_back(consumer[r]);
      r = ref.ops[consumer[r]].results[0];
    }
    chains.push_back(std::move(chain));
  }
  return chains;
}

} // namespace

std::vector<MenuItem>
fusion::operatorMenu(const UGraph &ref,
                     llvm::function_ref<bool(size_t)> includeOp) {
  std::vector<MenuItem> menu;
  auto addUnique = [&](MenuItem m) {
    if (!llvm::is_contained(menu, m))
      menu.push_back(m);
  };
  auto binary = [&](BinaryKind k) {
    MenuItem m{OpKind::Binary, (int32_t)k};
    m.arity = 2;
    m.commutative = binaryFacts(k).isCommutative();
    addUnique(m);
  };
  auto accum = [&](AccumKind k, double eps = 0) {
    MenuItem m{OpKind::Accum, (int32_t)k, eps};
    m.inLoopOnly = true;
    addUnique(m);
  };
  // An op that is a chain's step is offered through its chain only: the
  // reference applies it to that input tile alone, which the plain items
  // never read (FusionSearch.md, "Input chains").
  std::vector<InputChain> chains = inputChains(ref, includeOp);
  std::vector<bool> chainStep(ref.ops.size(), false);
  for (const InputChain &c : chains)
    for (size_t op : c.ops)
      chainStep[op] = true;
  accum(AccumKind::sum);
  for (size_t i = 0; i < ref.ops.size(); ++i) {
    const UOp &op = ref.ops[i];
    if (includeOp && !includeOp(i))
      continue;
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
      if (!chainStep[i])
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
    // Concat (LoRA's concat-then-matmul) is not offered yet; the other
    // kinds do not occur in an unfused reference.
    case OpKind::Concat:
    case OpKind::Custom:
    case OpKind::InputIterator:
    case OpKind::Accum:
    case OpKind::OutputSaver:
    case OpKind::ThreadGraph:
    case OpKind::RunningMax: // a construction on found graphs, not a menu item
      break;
    }
  }
  for (InputChain &c : chains) {
    MenuItem m{OpKind::Binary, (int32_t)c.steps.front().kind};
    m.chain = std::move(c.steps);
    addUnique(m);
  }
  return menu;
}

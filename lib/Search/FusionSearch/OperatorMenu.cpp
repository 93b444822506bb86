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
         dim == o.dim && arity == o.arity;
}

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
  return menu;
}

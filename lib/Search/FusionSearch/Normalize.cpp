//===- Normalize.cpp - The search target's algebraic normal form ----------===//
//
// Two exact rewrites of the reference before the search, so that frontend
// spellings reach the forms the operator menu and the depth limit cover
// (docs/Rationale/StableSoftmax.md, "Frontend spellings"). The search's
// target is never emitted: the winner is verified against the reference as
// written.
//
//===----------------------------------------------------------------------===//
#include "Stages.h"

#include "Mirage/Semantics/Replay.h"

#include <algorithm>

using namespace mirage;
using namespace mirage::search;
using namespace mirage::search::fusion;

namespace {

bool isUnary(const UGraph &g, int32_t v, UnaryKind k) {
  int32_t d = g.values[v].def;
  return d >= 0 && g.ops[d].kind == OpKind::Unary && g.ops[d].unaryKind() == k;
}

} // namespace

std::vector<unsigned> fusion::readerCounts(const UGraph &g) {
  std::vector<unsigned> n(g.values.size(), 0);
  for (const UOp &op : g.ops)
    for (int32_t o : op.operands)
      ++n[o];
  for (int32_t o : g.outputs)
    ++n[o];
  return n;
}

UGraph fusion::normalizeForSearch(const UGraph &ref) {
  std::vector<unsigned> n = readerCounts(ref);
  UGraph g(Level::Kernel);
  g.name = ref.name;
  std::vector<int32_t> map(ref.values.size(), -1);
  for (int32_t in : ref.inputs)
    map[in] = g.addInputLike(ref.values[in]);
  // Ops folded into a later one are replayed there, not in order.
  std::vector<bool> deferred(ref.ops.size(), false);
  for (const UOp &op : ref.ops) {
    // x · reciprocal(y) → x / y (either operand order).
    if (op.kind == OpKind::Binary && op.binaryKind() == BinaryKind::mul)
      for (int side = 0; side < 2; ++side) {
        int32_t r = op.operands[side];
        if (isUnary(ref, r, UnaryKind::reciprocal) && n[r] == 1)
          deferred[ref.values[r].def] = true;
      }
    // (a @ b) · c → (a · c) @ b where a (or b) is read by the matmul alone
    // (a graph input, or the end of its prologue chain: Prologue.cpp).
    if (op.kind == OpKind::Unary && op.unaryKind() == UnaryKind::mul_scalar) {
      int32_t m = op.operands[0];
      int32_t d = ref.values[m].def;
      if (d >= 0 && ref.ops[d].kind == OpKind::Matmul && n[m] == 1)
        for (int32_t side : ref.ops[d].operands)
          if (n[side] == 1) {
            deferred[d] = true;
            break;
          }
    }
  }
  for (size_t i = 0; i < ref.ops.size(); ++i) {
    const UOp &op = ref.ops[i];
    if (deferred[i])
      continue;
    if (op.kind == OpKind::Binary && op.binaryKind() == BinaryKind::mul) {
      int side = -1;
      for (int s = 0; s < 2 && side < 0; ++s) {
        int32_t r = op.operands[s];
        if (ref.values[r].def >= 0 && deferred[ref.values[r].def])
          side = s;
      }
      if (side >= 0) {
        const UOp &recip = ref.ops[ref.values[op.operands[side]].def];
        int32_t x = map[op.operands[1 - side]], y = map[recip.operands[0]];
        int32_t q = x < 0 || y < 0 ? -1 : g.addBinary(BinaryKind::div, x, y);
        if (q < 0)
          return ref;
        map[op.results[0]] = q;
        continue;
      }
    }
    if (op.kind == OpKind::Unary && op.unaryKind() == UnaryKind::mul_scalar) {
      int32_t d = ref.values[op.operands[0]].def;
      if (d >= 0 && deferred[d]) {
        const UOp &mm = ref.ops[d];
        llvm::SmallVector<int32_t, 2> ins{map[mm.operands[0]],
                                          map[mm.operands[1]]};
        size_t side = n[mm.operands[0]] == 1 ? 0 : 1;
        ins[side] = g.addUnary(UnaryKind::mul_scalar, ins[side], op.scalar);
        int32_t r = ins[side] < 0 ? -1 : g.addMatmul(ins[0], ins[1]);
        if (r < 0)
          return ref;
        map[op.results[0]] = r;
        continue;
      }
    }
    if (!replayOp(g, op, map, op.body >= 0 ? ref.bodies[op.body] : UGraph()))
      return ref;
  }
  for (int32_t o : ref.outputs) {
    if (map[o] < 0)
      return ref;
    g.markOutput(map[o]);
  }
  return g;
}

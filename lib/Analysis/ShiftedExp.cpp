//===- ShiftedExp.cpp - exp of a difference as a quotient of exps ---------===//
//
// See ShiftedExp.h and docs/Rationale/Verification.md §2a.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/ShiftedExp.h"
#include "Mirage/Semantics/Replay.h"

using namespace mirage;

/// The sub op whose result exp `op` reads, if any.
static const UOp *subUnderExp(const UGraph &g, const UOp &op) {
  if (op.kind != OpKind::Unary || op.unaryKind() != UnaryKind::exp)
    return nullptr;
  int32_t def = g.values[op.operands[0]].def;
  if (def < 0)
    return nullptr;
  const UOp &d = g.ops[def];
  return d.kind == OpKind::Binary && d.binaryKind() == BinaryKind::sub ? &d
                                                                      : nullptr;
}

bool mirage::hasShiftedExp(const UGraph &g) {
  for (const UOp &op : g.ops)
    if (subUnderExp(g, op))
      return true;
  for (const UGraph &b : g.bodies)
    if (hasShiftedExp(b))
      return true;
  return false;
}

std::optional<UGraph> mirage::expandShiftedExps(const UGraph &g) {
  UGraph out(g.level);
  out.grid = g.grid;
  out.forloopRange = g.forloopRange;
  out.target = g.target;
  out.name = g.name;
  out.reference = g.reference;
  std::vector<int32_t> map(g.values.size(), -1);
  for (int32_t in : g.inputs)
    map[in] = out.addInputLike(g.values[in]);
  for (const UOp &op : g.ops) {
    if (const UOp *sub = subUnderExp(g, op)) {
      int32_t a = map[sub->operands[0]], b = map[sub->operands[1]];
      int32_t ea = a < 0 ? -1 : out.addUnary(UnaryKind::exp, a);
      int32_t eb = b < 0 ? -1 : out.addUnary(UnaryKind::exp, b);
      int32_t q = ea < 0 || eb < 0 ? -1 : out.addBinary(BinaryKind::div, ea, eb);
      // The quotient broadcasts like the difference did, so it has the
      // exp's shape; anything else is a builder refusal.
      if (q < 0 || out.values[q].shape != g.values[op.results[0]].shape)
        return std::nullopt;
      map[op.results[0]] = q;
      continue;
    }
    UGraph body;
    if (op.body >= 0) {
      std::optional<UGraph> b = expandShiftedExps(g.bodies[op.body]);
      if (!b)
        return std::nullopt;
      body = std::move(*b);
    }
    if (!replayOp(out, op, map, std::move(body)))
      return std::nullopt;
  }
  for (int32_t o : g.outputs) {
    if (map[o] < 0)
      return std::nullopt;
    out.markOutput(map[o]);
  }
  return out;
}

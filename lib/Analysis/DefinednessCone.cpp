//===- DefinednessCone.cpp - What the definedness check evaluates ---------===//
//
// See DefinednessCone.h and docs/Rationale/Verification.md §4.6, "Cost".
//
//===----------------------------------------------------------------------===//
#include "Mirage/Analysis/DefinednessCone.h"
#include "Mirage/Semantics/AccumRules.h"
#include "Mirage/Semantics/OpKinds.h"

#include <cmath>

using namespace mirage;

bool mirage::isPartialOp(const UOp &op) {
  switch (op.kind) {
  case OpKind::Binary: // whether a kind may be undefined on part of the
                       // reals (Verification.md §4.6) is in its facts
    return binaryFacts(op.binaryKind()).isPartial();
  case OpKind::Unary:
    return unaryFacts(op.unaryKind()).isPartial();
  case OpKind::RmsNorm:
    return true;
  case OpKind::Accum:
    return accumRule(op).takesSqrt;
  case OpKind::Custom:     // their bodies say
  case OpKind::ThreadGraph:
  case OpKind::Matmul:
  case OpKind::Reduce:
  case OpKind::Concat:
  case OpKind::InputIterator:
  case OpKind::OutputSaver:
  case OpKind::RunningMax: // a max is defined wherever its operand is
    return false;
  }
  return false;
}

bool mirage::callsDivSqrtOrPow(const UOp &op) {
  return isPartialOp(op) ||
         (op.kind == OpKind::Accum && accumRule(op).dividesByCount);
}

namespace {

/// Whether `g` or a nested body calls the domain's division, sqrt or pow.
bool callsAny(const UGraph &g) {
  for (const UOp &op : g.ops) {
    if (callsDivSqrtOrPow(op))
      return true;
    if ((op.kind == OpKind::Custom || op.kind == OpKind::ThreadGraph) &&
        callsAny(g.bodies[op.body]))
      return true;
  }
  return false;
}

/// Whether every scalar of `g` and its bodies is finite. The field flags a
/// constant that is not (a redraw cannot fix it), wherever it is evaluated;
/// dropping the operator that holds it would lose the flag.
bool scalarsFinite(const UGraph &g) {
  for (const UOp &op : g.ops) {
    if (!std::isfinite(op.scalar))
      return false;
    if (op.body >= 0 && !scalarsFinite(g.bodies[op.body]))
      return false;
  }
  return true;
}

/// How a kept operator is rebuilt.
enum class Keep : uint8_t {
  No,
  /// As it is.
  Whole,
  /// A division whose quotient nothing kept reads: a reciprocal of its
  /// divisor, the one operand the domain's check and record read.
  DivisorOnly,
};

/// The cone of one graph: which operators stay, and which inputs they read.
/// `needOut[j]`: output j is read by the enclosing graph.
struct Cone {
  std::vector<Keep> keep;
  std::vector<char> inputUsed;
  /// Custom ops, and thread graphs whose results nothing reads: the cone of
  /// the body, by op index.
  std::vector<std::unique_ptr<Cone>> body;
  std::vector<std::vector<char>> bodyNeedOut;
};

std::unique_ptr<Cone> coneOf(const UGraph &g, llvm::ArrayRef<char> needOut) {
  auto c = std::make_unique<Cone>();
  c->keep.assign(g.ops.size(), Keep::No);
  c->body.resize(g.ops.size());
  c->bodyNeedOut.resize(g.ops.size());
  std::vector<char> needed(g.values.size(), 0);
  for (size_t j = 0; j < g.outputs.size(); ++j)
    if (needOut[j])
      needed[g.outputs[j]] = 1;
  for (size_t i = g.ops.size(); i-- > 0;) {
    const UOp &op = g.ops[i];
    bool resultNeeded = false;
    for (int32_t r : op.results)
      resultNeeded |= needed[r] != 0;
    bool calls = callsDivSqrtOrPow(op) ||
                 ((op.kind == OpKind::Custom ||
                   op.kind == OpKind::ThreadGraph) &&
                  callsAny(g.bodies[op.body]));
    if (!resultNeeded && !calls)
      continue;
    if (op.kind == OpKind::Binary && op.binaryKind() == BinaryKind::div &&
        !resultNeeded) {
      c->keep[i] = Keep::DivisorOnly;
      needed[op.operands[1]] = 1;
      continue;
    }
    c->keep[i] = Keep::Whole;
    if (op.kind == OpKind::ThreadGraph && !resultNeeded) {
      // Kept only for its own partial calls (a quotient saved as is, with
      // its division in the thread graph): its body's cone, and only the
      // operands that cone reads. With a result read, it stays whole, so
      // that the result keeps the broadcast shape of all its operands.
      std::vector<char> bodyNeed(op.results.size(), 0);
      c->body[i] = coneOf(g.bodies[op.body], bodyNeed);
      c->bodyNeedOut[i] = std::move(bodyNeed);
      for (size_t j = 0; j < op.operands.size(); ++j)
        if (c->body[i]->inputUsed[j])
          needed[op.operands[j]] = 1;
      continue;
    }
    if (op.kind == OpKind::Custom) {
      // Only the body's outputs read here and its own partial calls; its
      // operands only as far as that cone reads them.
      std::vector<char> bodyNeed(op.results.size());
      for (size_t j = 0; j < op.results.size(); ++j)
        bodyNeed[j] = needed[op.results[j]];
      c->body[i] = coneOf(g.bodies[op.body], bodyNeed);
      c->bodyNeedOut[i] = std::move(bodyNeed);
      for (size_t j = 0; j < op.operands.size(); ++j)
        if (c->body[i]->inputUsed[j])
          needed[op.operands[j]] = 1;
      continue;
    }
    // A thread graph whose result is read is kept whole.
    for (int32_t v : op.operands)
      needed[v] = 1;
  }
  c->inputUsed.resize(g.inputs.size());
  for (size_t j = 0; j < g.inputs.size(); ++j)
    c->inputUsed[j] = needed[g.inputs[j]];
  return c;
}

/// Rebuilds `g` with the operators `c` keeps. `allInputs`: keep every input
/// (the kernel graph, whose inputs are drawn by position); a block graph
/// takes only the inputs its cone reads. Outputs: those of `needOut`, in
/// order. std::nullopt when a builder refuses (it should not).
std::optional<UGraph> rebuild(const UGraph &g, const Cone &c,
                              llvm::ArrayRef<char> needOut, bool allInputs) {
  UGraph n(g.level);
  n.grid = g.grid;
  n.forloopRange = g.forloopRange;
  n.target = g.target;
  n.name = g.name;
  n.reference = g.reference;
  std::vector<int32_t> map(g.values.size(), -1);
  for (size_t j = 0; j < g.inputs.size(); ++j)
    if (allInputs || c.inputUsed[j]) {
      const UValue &v = g.values[g.inputs[j]];
      map[g.inputs[j]] = n.addInputLike(v);
    }
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const UOp &op = g.ops[i];
    int32_t first = -1;
    switch (c.keep[i]) {
    case Keep::No:
      continue;
    case Keep::DivisorOnly:
      first = n.addUnary(UnaryKind::reciprocal, map[op.operands[1]]);
      break;
    case Keep::Whole: {
      llvm::SmallVector<int32_t, 4> in;
      if (op.kind == OpKind::Custom) {
        const Cone &bc = *c.body[i];
        for (size_t j = 0; j < op.operands.size(); ++j)
          if (bc.inputUsed[j])
            in.push_back(map[op.operands[j]]);
        std::optional<UGraph> body =
            rebuild(g.bodies[op.body], bc, c.bodyNeedOut[i], false);
        if (!body)
          return std::nullopt;
        first = n.addCustom(in, std::move(*body));
        if (first < 0)
          return std::nullopt;
        // Its results are the kept outputs of the body, in order.
        int32_t r = first;
        for (size_t j = 0; j < op.results.size(); ++j)
          if (c.bodyNeedOut[i][j])
            map[op.results[j]] = r++;
        continue;
      }
      if (op.kind == OpKind::ThreadGraph && c.body[i]) {
        // Reduced to its partial calls; nothing reads its results, but a
        // thread graph has one at least: the last kept operator's.
        const Cone &bc = *c.body[i];
        for (size_t j = 0; j < op.operands.size(); ++j)
          if (bc.inputUsed[j])
            in.push_back(map[op.operands[j]]);
        std::optional<UGraph> body =
            rebuild(g.bodies[op.body], bc, c.bodyNeedOut[i], false);
        if (!body || body->ops.empty() || in.empty())
          return std::nullopt;
        body->outputs.push_back(body->ops.back().results[0]);
        if (n.addThreadGraph(in, std::move(*body)) < 0)
          return std::nullopt;
        continue;
      }
      for (int32_t v : op.operands)
        in.push_back(map[v]);
      first = op.kind == OpKind::ThreadGraph
                  ? n.addThreadGraph(in, g.bodies[op.body])
                  : n.addLike(op, in);
      break;
    }
    }
    if (first < 0)
      return std::nullopt;
    for (size_t r = 0; r < op.results.size(); ++r)
      map[op.results[r]] = first + (int32_t)r;
  }
  for (size_t j = 0; j < g.outputs.size(); ++j)
    if (needOut[j])
      n.outputs.push_back(map[g.outputs[j]]);
  return n;
}

} // namespace

std::optional<UGraph> mirage::definednessCone(const UGraph &g) {
  if (!scalarsFinite(g))
    return std::nullopt;
  // The check reads no output: only the partial calls and their cone.
  std::vector<char> needOut(g.outputs.size(), 0);
  std::unique_ptr<Cone> c = coneOf(g, needOut);
  return rebuild(g, *c, needOut, /*allInputs=*/true);
}

//===- LaxPartition.cpp - Split kernel graphs into LAX pieces -------------===//
//
// Each op of a graph body gets a part number. An exp whose operand already
// crossed an exp in the current part starts a new part; with `strict`, each
// non-LAX op gets a part of its own and its users start the next one. Parts
// never decrease along def-use edges, so each part is convex and becomes a
// graph of its own, in order, chained through results. The same splitting
// serves the search's cuts of graphs it found no kernel for: at matmul chains
// (a matmul is counted like an exp) and before matmuls (a matmul reading a
// value computed in its part starts the next one).
//
//===----------------------------------------------------------------------===//
#include "Mirage/Dialect/Kernel/Transforms/LaxPartition.h"
#include "Mirage/Semantics/OpKinds.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mirage;
namespace mk = mirage::kernel;

bool mirage::isNonLaxKernelOp(Operation *op) {
  if (auto u = dyn_cast<mk::UnaryOp>(op))
    return !unaryFacts(u.getKind()).inLax();
  if (auto b = dyn_cast<mk::BinaryOp>(op))
    return !binaryFacts(b.getKind()).inLax();
  if (auto r = dyn_cast<mk::ReduceOp>(op))
    return !reduceFacts(r.getKind()).inLax();
  return false;
}

namespace {

bool isExp(Operation *op) {
  auto u = dyn_cast<mk::UnaryOp>(op);
  return u && u.getKind() == UnaryKind::exp;
}

/// Splits `g` into consecutive graphs by `part` (non-decreasing along
/// def-use edges). Returns the new graphs.
SmallVector<mk::GraphOp> splitGraph(mk::GraphOp g,
                                    DenseMap<Operation *, int> &part,
                                    int numParts) {
  Block &body = g.getBody().front();
  auto yield = cast<mk::YieldOp>(body.getTerminator());
  OpBuilder b(g);
  // Outer value of each inner value materialised so far.
  IRMapping outer;
  for (auto [arg, in] : llvm::zip(body.getArguments(), g.getInputs()))
    outer.map(arg, in);
  SmallVector<mk::GraphOp> made;
  for (int p = 0; p < numParts; ++p) {
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      if (part.lookup(&op) == p)
        ops.push_back(&op);
    if (ops.empty())
      continue;
    llvm::SetVector<Value> ins, outs;
    llvm::SmallPtrSet<Operation *, 16> inPart(ops.begin(), ops.end());
    for (Operation *op : ops)
      for (Value v : op->getOperands())
        if (!v.getDefiningOp() || !inPart.contains(v.getDefiningOp()))
          ins.insert(v);
    for (Operation *op : ops)
      for (Value r : op->getResults())
        for (OpOperand &use : r.getUses())
          if (!inPart.contains(use.getOwner()))
            outs.insert(r);
    if (outs.empty())
      continue;
    SmallVector<Value> outerIns;
    for (Value v : ins)
      outerIns.push_back(outer.lookup(v));
    SmallVector<Type> outTypes;
    for (Value v : outs)
      outTypes.push_back(v.getType());
    // Inputs stored transposed stay so in the part that reads them.
    SmallVector<int64_t> transposed;
    for (auto [i, v] : llvm::enumerate(ins))
      if (auto arg = dyn_cast<BlockArgument>(v);
          arg && arg.getOwner() == &body &&
          g.isTransposedInput(arg.getArgNumber()))
        transposed.push_back(static_cast<int64_t>(i));
    auto ng = mk::GraphOp::create(
        b, g.getLoc(), outTypes, outerIns, StringAttr(), StringAttr(),
        transposed.empty() ? DenseI64ArrayAttr()
                           : b.getDenseI64ArrayAttr(transposed));
    Block *nb = new Block();
    ng.getBody().push_back(nb);
    IRMapping inner;
    for (Value v : ins)
      inner.map(v, nb->addArgument(v.getType(), g.getLoc()));
    OpBuilder ib = OpBuilder::atBlockEnd(nb);
    for (Operation *op : ops)
      ib.clone(*op, inner);
    SmallVector<Value> ys;
    for (Value v : outs)
      ys.push_back(inner.lookup(v));
    mk::YieldOp::create(ib, g.getLoc(), ys);
    for (auto [v, r] : llvm::zip(outs, ng.getResults()))
      outer.map(v, r);
    made.push_back(ng);
  }
  SmallVector<Value> repl;
  for (Value v : yield.getValues())
    repl.push_back(outer.lookup(v));
  g->replaceAllUsesWith(repl);
  g->erase();
  return made;
}

/// Part assignment: a new part starts at an op that `counted` selects (exp
/// for the LAX rule, matmul for splitAtMatmulChains) whose operands already
/// crossed one in the current part; with `strict`, each non-LAX op gets its
/// own part and its users start a new one.
int assignParts(mk::GraphOp g, bool strict,
                llvm::function_ref<bool(Operation *)> counted,
                DenseMap<Operation *, int> &part) {
  DenseMap<Value, int> crossed; // counted ops crossed in the value's part
  int maxPart = 0;
  DenseMap<Operation *, bool> isolated;
  for (Operation &op : g.getBody().front().without_terminator()) {
    int p = 0;
    for (Value v : op.getOperands())
      if (Operation *d = v.getDefiningOp()) {
        int q = part.lookup(d);
        if (strict && isolated.lookup(d))
          ++q;
        p = std::max(p, q);
      }
    bool nonLax = strict && isNonLaxKernelOp(&op);
    if (nonLax) {
      // Its own part after everything it reads.
      p = maxPart + 1;
    }
    int e = 0;
    for (Value v : op.getOperands())
      if (Operation *d = v.getDefiningOp(); d && part.lookup(d) == p)
        e = std::max(e, crossed.lookup(v));
    if (counted(&op)) {
      if (e >= 1) {
        p = maxPart + 1;
        e = 0;
      }
      ++e;
    }
    part[&op] = p;
    isolated[&op] = nonLax;
    maxPart = std::max(maxPart, p);
    for (Value r : op.getResults())
      crossed[r] = e;
  }
  return maxPart + 1;
}

/// Part assignment before matmuls: every op goes to the latest part it
/// reads, and a matmul reading a value computed in that part goes to the
/// next one.
int assignProloguesParts(mk::GraphOp g, DenseMap<Operation *, int> &part) {
  int maxPart = 0;
  for (Operation &op : g.getBody().front().without_terminator()) {
    int p = 0;
    for (Value v : op.getOperands())
      if (Operation *d = v.getDefiningOp())
        p = std::max(p, part.lookup(d));
    if (isa<mk::MatmulOp>(op) && llvm::any_of(op.getOperands(), [&](Value v) {
          Operation *d = v.getDefiningOp();
          return d && part.lookup(d) == p;
        }))
      ++p;
    part[&op] = p;
    maxPart = std::max(maxPart, p);
  }
  return maxPart + 1;
}

/// Lists the non-LAX ops of `g` in `mirage.non_lax` (nothing when none).
void tagNonLax(mk::GraphOp g) {
  SmallVector<Attribute> nonLax;
  llvm::SmallSet<StringRef, 4> seen;
  g.getBody().walk([&](Operation *op) {
    if (!isNonLaxKernelOp(op))
      return;
    std::string name;
    if (auto u = dyn_cast<mk::UnaryOp>(op))
      name = stringifyUnaryKind(u.getKind()).str();
    else if (auto b = dyn_cast<mk::BinaryOp>(op))
      name = stringifyBinaryKind(b.getKind()).str();
    else
      name = "reduce_max";
    StringAttr s = StringAttr::get(op->getContext(), name);
    if (seen.insert(s.getValue()).second)
      nonLax.push_back(s);
  });
  if (!nonLax.empty())
    g->setAttr("mirage.non_lax", ArrayAttr::get(g->getContext(), nonLax));
}

/// `g` split by `part` (numbering `n` parts), every piece tagged (`g`
/// itself when whole).
SmallVector<mk::GraphOp> splitAndTag(mk::GraphOp g,
                                     DenseMap<Operation *, int> &part, int n) {
  SmallVector<mk::GraphOp> pieces{g};
  if (n > 1)
    pieces = splitGraph(g, part, n);
  for (mk::GraphOp p : pieces)
    tagNonLax(p);
  return pieces;
}

/// `g` split by assignParts.
SmallVector<mk::GraphOp>
partition(mk::GraphOp g, bool strict,
          llvm::function_ref<bool(Operation *)> counted) {
  DenseMap<Operation *, int> part;
  int n = assignParts(g, strict, counted, part);
  return splitAndTag(g, part, n);
}

} // namespace

SmallVector<mk::GraphOp> mirage::splitMatmulPrologues(mk::GraphOp g) {
  DenseMap<Operation *, int> part;
  int n = assignProloguesParts(g, part);
  return splitAndTag(g, part, n);
}

SmallVector<mk::GraphOp> mirage::splitAtMatmulChains(mk::GraphOp g) {
  return partition(g, /*strict=*/false,
                   [](Operation *op) { return isa<mk::MatmulOp>(op); });
}

SmallVector<mk::GraphOp> mirage::partitionLax(mk::GraphOp g, bool strict) {
  return partition(g, strict, isExp);
}

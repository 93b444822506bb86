//===- AccumPhases.cpp - For-loop accumulators -----------------------------===//
//
// An accumulator's state is an f32 (f64) tile that lives across the loop. It
// starts at the identity of its combine step, folds one contribution per
// iteration and is finished in place after the loop; every step is read from
// AccumRules.h, the rule the evaluator runs.
//
//===----------------------------------------------------------------------===//
#include "BlockEmitter.h"

#include "Mirage/Semantics/AccumRules.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::loops;

bool BlockEmitter::emitAccumStart(const UOp &op) {
  int32_t state = op.results[0];
  double identity = accumRule(op).identity();
  threadPhase(numElements(g.values[state].shape), [&](OpBuilder &ob, Value e) {
    store(ob, constF(ob, identity), state,
          delinearize(ob, e, g.values[state].shape));
  });
  return true;
}

bool BlockEmitter::emitAccumCombine(const UOp &op) {
  AccumRule rule = accumRule(op);
  int32_t x = op.operands[0], state = op.results[0];
  const Shape &shape = g.values[state].shape;
  int64_t size = accumReduceSize(op);
  int64_t chunks = g.values[x].shape.back() / size;
  threadPhase(numElements(shape), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, shape);
    Value c;
    if (!rule.reducesLastDim) {
      c = load(ob, x, idx);
    } else {
      // Σ over the strided chunks of the last dim (of x², for rms_last).
      auto loop = scf::ForOp::create(ob, loc, index(ob, 0), index(ob, chunks),
                                     index(ob, 1), ValueRange{constF(ob, 0.0)});
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      SmallVector<Value> xi(idx.begin(), idx.end());
      AffineExpr d0 = getAffineDimExpr(0, ctx()), d1 = getAffineDimExpr(1, ctx());
      xi.back() = apply(lb, d0 * size + d1, {loop.getInductionVar(), idx.back()});
      Value v = load(lb, x, xi);
      if (rule.squaresOperand)
        v = arith::MulFOp::create(lb, loc, v, v);
      scf::YieldOp::create(
          lb, loc,
          ValueRange{arith::AddFOp::create(lb, loc, loop.getRegionIterArg(0), v)});
      c = loop.getResult(0);
    }
    Value s = load(ob, state, idx);
    Value next;
    switch (rule.combine) {
    case AccumCombine::Add:
      next = arith::AddFOp::create(ob, loc, s, c);
      break;
    case AccumCombine::Max:
      next = arith::MaximumFOp::create(ob, loc, s, c);
      break;
    case AccumCombine::RescaledAdd:
      next = arith::AddFOp::create(
          ob, loc, arith::MulFOp::create(ob, loc, s, load(ob, op.operands[1], idx)),
          c);
      break;
    }
    store(ob, next, state, idx);
  });
  return true;
}

bool BlockEmitter::emitAccumFinish(const UOp &op) {
  AccumRule rule = accumRule(op);
  if (!rule.finishes())
    return true;
  int32_t state = op.results[0];
  const Shape &shape = g.values[state].shape;
  double count = (double)accumCount(g, op);
  threadPhase(numElements(shape), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, shape);
    Value v = load(ob, state, idx);
    if (rule.dividesByCount)
      v = arith::DivFOp::create(ob, loc, v, constF(ob, count));
    if (rule.addsEps)
      v = arith::AddFOp::create(ob, loc, v, constF(ob, op.scalar));
    if (rule.takesSqrt)
      v = math::SqrtOp::create(ob, loc, v);
    store(ob, v, state, idx);
  });
  return true;
}

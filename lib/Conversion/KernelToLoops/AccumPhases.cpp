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

/// The tensor-core matmul with a scratch of partial sums (split, MmaChains.md,
/// or transposed, TransposedDecodeMma.md) that adds into accumulator
/// `accum`, or null.
static const MatmulPlan *splitInto(const KernelPlan &plan, int32_t accum) {
  for (const MatmulPlan &m : plan.matmuls)
    if (m.accumulator == accum && m.usesScratch())
      return &m;
  return nullptr;
}

bool BlockEmitter::emitAccumStart(const UOp &op) {
  int32_t state = op.results[0];
  double identity = accumRule(op).identity();
  const Shape &shape = g.values[state].shape;
  int64_t width = vectorWidth(shape, {state});
  vectorPhase(shape, width, [&](OpBuilder &ob, ArrayRef<Value> idx) {
    storeLanes(ob, SmallVector<Value>(width, constF(ob, identity)), state, idx);
  });
  // A split matmul into it keeps its partial sums across the loop: they
  // start at 0 too, and join the state once, when it finishes.
  if (const MatmulPlan *m = splitInto(plan, opIndex(op))) {
    Value partials = scratch.lookup(m->op);
    auto t = cast<MemRefType>(partials.getType());
    int64_t cols = t.getShape()[1];
    threadPhase(t.getNumElements(), [&](OpBuilder &ob, Value e) {
      AffineExpr d = getAffineDimExpr(0, ctx());
      memref::StoreOp::create(
          ob, loc, arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(0)),
          partials,
          ValueRange{apply(ob, d.floorDiv(cols), e), apply(ob, d % cols, e)});
    });
  }
  return true;
}

bool BlockEmitter::emitAccumCombine(const UOp &op) {
  AccumRule rule = accumRule(op);
  int32_t x = op.operands[0], state = op.results[0];
  const Shape &shape = g.values[state].shape;
  int64_t size = accumReduceSize(op);
  // state (+)= c at the `cs.size()` consecutive elements from idx.
  auto update = [&](OpBuilder &ob, ArrayRef<Value> idx, ArrayRef<Value> cs) {
    int64_t width = static_cast<int64_t>(cs.size());
    SmallVector<Value> s = loadLanes(ob, state, idx, width), next;
    SmallVector<Value> scale;
    if (rule.combine == AccumCombine::RescaledAdd)
      scale = loadLanes(ob, op.operands[1], idx, width);
    for (int64_t i = 0; i < width; ++i)
      switch (rule.combine) {
      case AccumCombine::Add:
        next.push_back(arith::AddFOp::create(ob, loc, s[i], cs[i]));
        break;
      case AccumCombine::Max:
        next.push_back(arith::MaximumFOp::create(ob, loc, s[i], cs[i]));
        break;
      case AccumCombine::RescaledAdd:
        next.push_back(arith::AddFOp::create(
            ob, loc, arith::MulFOp::create(ob, loc, s[i], scale[i]), cs[i]));
        break;
      }
    storeLanes(ob, next, state, idx);
  };
  if (!rule.reducesLastDim) {
    // In steps of consecutive elements (VectorElementPhases.md).
    SmallVector<int32_t> touched{x, state};
    if (rule.combine == AccumCombine::RescaledAdd)
      touched.push_back(op.operands[1]);
    int64_t width = vectorWidth(shape, touched);
    vectorPhase(shape, width, [&](OpBuilder &ob, ArrayRef<Value> idx) {
      update(ob, idx, loadLanes(ob, x, idx, width));
    });
    return true;
  }
  // Σ over the strided chunks of the last dim (of x², for rms_last), as a
  // row reduction of the plan's lanes.
  // Chunk c is element c·size + o of the last dim: consecutive when it
  // sums to one.
  rowReduction(
      op, size == 1 ? reductionWidth(op, x) : 1,
      [&](OpBuilder &ob, Value out, Value c, int64_t width) {
        SmallVector<Value> xi = delinearize(ob, out, shape);
        AffineExpr d0 = getAffineDimExpr(0, ctx()), d1 = getAffineDimExpr(1, ctx());
        xi.back() = apply(ob, d0 * size + d1, {c, xi.back()});
        SmallVector<Value> vs = loadLanes(ob, x, xi, width);
        if (rule.squaresOperand)
          for (Value &v : vs)
            v = arith::MulFOp::create(ob, loc, v, v);
        return vs;
      },
      [&](OpBuilder &ob, Value acc, Value v) {
        return (Value)arith::AddFOp::create(ob, loc, acc, v);
      },
      [&](OpBuilder &ob, Value out, Value c) {
        update(ob, delinearize(ob, out, shape), {c});
      });
  return true;
}

bool BlockEmitter::emitAccumFinish(const UOp &op) {
  if (const MatmulPlan *m = splitInto(plan, opIndex(op)))
    addPartials(g.ops[m->op], *m);
  AccumRule rule = accumRule(op);
  if (!rule.finishes())
    return true;
  int32_t state = op.results[0];
  const Shape &shape = g.values[state].shape;
  double count = (double)accumCount(g, op);
  int64_t width = vectorWidth(shape, {state});
  vectorPhase(shape, width, [&](OpBuilder &ob, ArrayRef<Value> idx) {
    SmallVector<Value> vs = loadLanes(ob, state, idx, width);
    for (Value &v : vs) {
      if (rule.dividesByCount)
        v = arith::DivFOp::create(ob, loc, v, constF(ob, count));
      if (rule.addsEps)
        v = arith::AddFOp::create(ob, loc, v, constF(ob, op.scalar));
      if (rule.takesSqrt)
        v = math::SqrtOp::create(ob, loc, v);
    }
    storeLanes(ob, vs, state, idx);
  });
  return true;
}

//===- ElementwisePhases.cpp - Per-thread element code --------------------===//
//
// Element-wise operators, thread graphs, reductions, rms_norm and concat at
// block level: one thread phase over the result's elements, arithmetic in
// the compute type, reading operands with the shared broadcasting rule and
// reducing in the evaluator's order (ascending chunks from the first).
//
//===----------------------------------------------------------------------===//
#include "BlockEmitter.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::loops;

bool BlockEmitter::emitElementwise(const UOp &op) {
  const Shape &shape = g.values[op.results[0]].shape;
  threadPhase(numElements(shape), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, shape);
    SmallVector<Value> ins;
    for (int32_t v : op.operands)
      ins.push_back(load(ob, v, idx));
    switch (op.kind) {
    case OpKind::Unary:
      store(ob, unary(ob, op.unaryKind(), ins[0], op.scalar), op.results[0],
            idx);
      return;
    case OpKind::Binary:
      store(ob, binary(ob, op.binaryKind(), ins[0], ins[1]), op.results[0],
            idx);
      return;
    case OpKind::ThreadGraph: {
      // The thread graph's scalar program, in registers.
      const UGraph &body = g.bodies[op.body];
      SmallVector<Value> scalars(body.values.size());
      for (size_t i = 0; i < body.inputs.size(); ++i)
        scalars[body.inputs[i]] = ins[i];
      for (const UOp &s : body.ops)
        scalars[s.results[0]] =
            s.kind == OpKind::Unary
                ? unary(ob, s.unaryKind(), scalars[s.operands[0]], s.scalar)
                : binary(ob, s.binaryKind(), scalars[s.operands[0]],
                         scalars[s.operands[1]]);
      for (size_t r = 0; r < op.results.size(); ++r)
        store(ob, scalars[body.outputs[r]], op.results[r], idx);
      return;
    }
    case OpKind::Matmul:
    case OpKind::Reduce:
    case OpKind::RmsNorm:
    case OpKind::Concat:
    case OpKind::Custom:
    case OpKind::InputIterator:
    case OpKind::Accum:
    case OpKind::OutputSaver:
      return; // not element-wise; the driver never sends these here
    }
  });
  return true;
}

/// Folds `n` values of `x` into `init` with `combine`, reading element
/// `at(c)` for c = 0..n-1 in order.
static Value foldRange(BlockEmitter &em, OpBuilder &ob, int64_t n, Value init,
                       function_ref<Value(OpBuilder &, Value)> at,
                       function_ref<Value(OpBuilder &, Value, Value)> combine) {
  auto loop = scf::ForOp::create(ob, em.loc, em.index(ob, 0), em.index(ob, n),
                                 em.index(ob, 1), ValueRange{init});
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  Value acc = loop.getRegionIterArg(0);
  Value next = combine(lb, acc, at(lb, loop.getInductionVar()));
  scf::YieldOp::create(lb, em.loc, next);
  return loop.getResult(0);
}

bool BlockEmitter::emitReduce(const UOp &op) {
  int32_t x = op.operands[0];
  const Shape &outShape = g.values[op.results[0]].shape;
  int64_t dim = op.dim, size = op.size;
  int64_t chunks = g.values[x].shape[dim] / size;
  bool isMax = op.reduceKind() == ReduceKind::max;
  threadPhase(numElements(outShape), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, outShape);
    auto elemAt = [&](OpBuilder &lb, Value c) {
      SmallVector<Value> xi(idx.begin(), idx.end());
      AffineExpr d0 = getAffineDimExpr(0, ctx()), d1 = getAffineDimExpr(1, ctx());
      xi[dim] = apply(lb, d0 * size + d1, {c, idx[dim]});
      return load(lb, x, xi);
    };
    // The evaluator starts from chunk 0 and folds chunks 1.. into it.
    Value first = elemAt(ob, index(ob, 0));
    Value r = first;
    if (chunks > 1) {
      auto loop = scf::ForOp::create(ob, loc, index(ob, 1), index(ob, chunks),
                                     index(ob, 1), ValueRange{first});
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value v = elemAt(lb, loop.getInductionVar());
      Value acc = loop.getRegionIterArg(0);
      Value next = isMax ? (Value)arith::MaximumFOp::create(lb, loc, acc, v)
                         : (Value)arith::AddFOp::create(lb, loc, acc, v);
      scf::YieldOp::create(lb, loc, next);
      r = loop.getResult(0);
    }
    store(ob, r, op.results[0], idx);
  });
  return true;
}

bool BlockEmitter::emitRmsNorm(const UOp &op) {
  int32_t x = op.operands[0];
  const Shape &shape = g.values[x].shape;
  int64_t n = shape.back();
  Shape rows(shape.begin(), shape.end());
  rows.back() = 1;
  // One thread per row: Σx² in order, mean, + eps, sqrt; then x / rms [· w].
  threadPhase(numElements(rows), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, rows);
    auto at = [&](OpBuilder &lb, Value j) {
      SmallVector<Value> xi(idx.begin(), idx.end());
      xi.back() = j;
      return xi;
    };
    Value sum = foldRange(
        *this, ob, n, constF(ob, 0.0),
        [&](OpBuilder &lb, Value j) { return load(lb, x, at(lb, j)); },
        [&](OpBuilder &lb, Value acc, Value v) {
          return (Value)arith::AddFOp::create(
              lb, loc, acc, arith::MulFOp::create(lb, loc, v, v));
        });
    Value mean = arith::DivFOp::create(ob, loc, sum, constF(ob, (double)n));
    if (op.scalar != 0.0)
      mean = arith::AddFOp::create(ob, loc, mean, constF(ob, op.scalar));
    Value rms = math::SqrtOp::create(ob, loc, mean);
    auto loop = scf::ForOp::create(ob, loc, index(ob, 0), index(ob, n),
                                   index(ob, 1));
    OpBuilder lb = OpBuilder::atBlockTerminator(loop.getBody());
    SmallVector<Value> xi = at(lb, loop.getInductionVar());
    Value y = arith::DivFOp::create(lb, loc, load(lb, x, xi), rms);
    if (op.operands.size() > 1)
      y = arith::MulFOp::create(lb, loc, y, load(lb, op.operands[1], xi));
    store(lb, y, op.results[0], xi);
  });
  return true;
}

bool BlockEmitter::emitConcat(const UOp &op) {
  const Shape &shape = g.values[op.results[0]].shape;
  int32_t a = op.operands[0], bv = op.operands[1];
  int64_t split = g.values[a].shape[op.dim];
  threadPhase(numElements(shape), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, shape);
    Value inA = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                      idx[op.dim], index(ob, split));
    auto ifOp = scf::IfOp::create(ob, loc, TypeRange{computeType()}, inA,
                                  /*withElse=*/true);
    OpBuilder tb = OpBuilder::atBlockEnd(ifOp.thenBlock());
    scf::YieldOp::create(tb, loc, load(tb, a, idx));
    OpBuilder eb = OpBuilder::atBlockEnd(ifOp.elseBlock());
    SmallVector<Value> bi(idx.begin(), idx.end());
    AffineExpr d0 = getAffineDimExpr(0, ctx());
    bi[op.dim] = apply(eb, d0 - split, idx[op.dim]);
    scf::YieldOp::create(eb, loc, load(eb, bv, bi));
    store(ob, ifOp.getResult(0), op.results[0], idx);
  });
  return true;
}

//===- ElementwisePhases.cpp - Per-thread element code --------------------===//
//
// Element-wise operators, thread graphs, reductions, rms_norm and concat at
// block level: one thread phase over the result's elements, arithmetic in
// the compute type, reading operands with the shared broadcasting rule.
// Reductions run as the launch plan says (BlockEmitter::rowReduction): one
// thread per output in the evaluator's order, or lanes per output whose
// partial folds are folded in lane order.
//
//===----------------------------------------------------------------------===//
#include "BlockEmitter.h"
#include "Mirage/Semantics/UOpVisitor.h"

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
      for (const UOp &s : body.ops) {
        auto in = [&](unsigned i) { return scalars[s.operands[i]]; };
        scalars[s.results[0]] = visitThreadOp(
            s, [&](UnaryKind k) { return unary(ob, k, in(0), s.scalar); },
            [&](BinaryKind k) { return binary(ob, k, in(0), in(1)); });
      }
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
    case OpKind::RunningMax:
      return; // not element-wise; the driver never sends these here
    }
  });
  return true;
}

bool BlockEmitter::emitReduce(const UOp &op) {
  int32_t x = op.operands[0];
  const Shape &outShape = g.values[op.results[0]].shape;
  int64_t dim = op.dim, size = op.size;
  bool isMax = op.reduceKind() == ReduceKind::max;
  rowReduction(
      op,
      [&](OpBuilder &ob, Value out, Value c) {
        SmallVector<Value> xi = delinearize(ob, out, outShape);
        AffineExpr d0 = getAffineDimExpr(0, ctx()), d1 = getAffineDimExpr(1, ctx());
        xi[dim] = apply(ob, d0 * size + d1, {c, xi[dim]});
        return load(ob, x, xi);
      },
      [&](OpBuilder &ob, Value acc, Value v) {
        return isMax ? (Value)arith::MaximumFOp::create(ob, loc, acc, v)
                     : (Value)arith::AddFOp::create(ob, loc, acc, v);
      },
      [&](OpBuilder &ob, Value out, Value r) {
        store(ob, r, op.results[0], delinearize(ob, out, outShape));
      });
  return true;
}

bool BlockEmitter::emitRmsNorm(const UOp &op) {
  int32_t x = op.operands[0];
  const Shape &shape = g.values[x].shape;
  int64_t n = shape.back();
  Shape rows(shape.begin(), shape.end());
  rows.back() = 1;
  const ReductionPlan *r = plan.reductionOf(opIndex(op));
  bool lanes = r && r->lanes > 1;
  auto rowAt = [&](OpBuilder &ob, Value out, Value j) {
    SmallVector<Value> xi = delinearize(ob, out, rows);
    xi.back() = j;
    return xi;
  };
  auto divide = [&](OpBuilder &ob, SmallVector<Value> xi, Value rms) {
    Value y = arith::DivFOp::create(ob, loc, load(ob, x, xi), rms);
    if (op.operands.size() > 1)
      y = arith::MulFOp::create(ob, loc, y, load(ob, op.operands[1], xi));
    store(ob, y, op.results[0], xi);
  };
  // Σx² per row (lanes of it, as planned), mean, + eps, sqrt; then x / rms
  // [· w]: by the row's thread with one lane, else by a phase over all
  // elements reading the rms the row's thread left in lane 0 of the scratch.
  rowReduction(
      op,
      [&](OpBuilder &ob, Value out, Value j) {
        Value v = load(ob, x, rowAt(ob, out, j));
        return (Value)arith::MulFOp::create(ob, loc, v, v);
      },
      [&](OpBuilder &ob, Value acc, Value v) {
        return (Value)arith::AddFOp::create(ob, loc, acc, v);
      },
      [&](OpBuilder &ob, Value out, Value sum) {
        Value mean = arith::DivFOp::create(ob, loc, sum, constF(ob, (double)n));
        if (op.scalar != 0.0)
          mean = arith::AddFOp::create(ob, loc, mean, constF(ob, op.scalar));
        Value rms = math::SqrtOp::create(ob, loc, mean);
        if (lanes) {
          Value buf = scratch.lookup(opIndex(op));
          Type t = cast<MemRefType>(buf.getType()).getElementType();
          memref::StoreOp::create(ob, loc, convert(ob, rms, t), buf,
                                  ValueRange{out, index(ob, 0)});
          return;
        }
        auto loop = scf::ForOp::create(ob, loc, index(ob, 0), index(ob, n),
                                       index(ob, 1));
        OpBuilder lb = OpBuilder::atBlockTerminator(loop.getBody());
        divide(lb, rowAt(lb, out, loop.getInductionVar()), rms);
      });
  if (lanes) {
    Value buf = scratch.lookup(opIndex(op));
    threadPhase(numElements(shape), [&](OpBuilder &ob, Value e) {
      AffineExpr d = getAffineDimExpr(0, ctx());
      Value out = apply(ob, d.floorDiv(n), e);
      Value rms = convert(
          ob, memref::LoadOp::create(ob, loc, buf, ValueRange{out, index(ob, 0)}),
          computeType());
      divide(ob, delinearize(ob, e, shape), rms);
    });
  }
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

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

SmallVector<SmallVector<Value>>
BlockEmitter::elementwiseLanes(OpBuilder &ob, const UOp &op,
                               ArrayRef<SmallVector<Value>> ins, int64_t width,
                               ExpForm exp) {
  SmallVector<SmallVector<Value>> outs(op.results.size());
  for (int64_t lane = 0; lane < width; ++lane) {
    auto in = [&](unsigned i) { return ins[i][lane]; };
    switch (op.kind) {
    case OpKind::Unary:
      outs[0].push_back(unary(ob, op.unaryKind(), in(0), op.scalar, exp));
      break;
    case OpKind::Binary:
      outs[0].push_back(binary(ob, op.binaryKind(), in(0), in(1)));
      break;
    case OpKind::ThreadGraph: {
      // The thread graph's scalar program, in registers.
      const UGraph &body = g.bodies[op.body];
      SmallVector<Value> scalars(body.values.size());
      for (size_t i = 0; i < body.inputs.size(); ++i)
        scalars[body.inputs[i]] = in(i);
      for (const UOp &s : body.ops) {
        auto arg = [&](unsigned i) { return scalars[s.operands[i]]; };
        scalars[s.results[0]] = visitThreadOp(
            s, [&](UnaryKind k) { return unary(ob, k, arg(0), s.scalar, exp); },
            [&](BinaryKind k) { return binary(ob, k, arg(0), arg(1)); });
      }
      for (size_t r = 0; r < op.results.size(); ++r)
        outs[r].push_back(scalars[body.outputs[r]]);
      break;
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
      return {}; // not element-wise; the driver never sends these here
    }
  }
  return outs;
}

bool BlockEmitter::emitElementwise(const UOp &op) {
  // Computed where its reduce folds it: no phase, no tile.
  if (sched.computedIn[opIndex(op)] >= 0)
    return true;
  const Shape &shape = g.values[op.results[0]].shape;
  SmallVector<int32_t> touched(op.operands.begin(), op.operands.end());
  touched.append(op.results.begin(), op.results.end());
  // A step of `width` consecutive elements (VectorElementPhases.md): each
  // element's scalar code as before, its operands read per step.
  int64_t width = vectorWidth(shape, touched);
  ExpForm exp = expFormFor(op.results);
  vectorPhase(shape, width, [&](OpBuilder &ob, ArrayRef<Value> idx) {
    SmallVector<SmallVector<Value>> ins;
    for (int32_t v : op.operands)
      ins.push_back(loadLanes(ob, v, idx, width));
    SmallVector<SmallVector<Value>> outs =
        elementwiseLanes(ob, op, ins, width, exp);
    for (size_t r = 0; r < outs.size(); ++r)
      storeLanes(ob, outs[r], op.results[r], idx);
  });
  return true;
}

bool BlockEmitter::emitReduce(const UOp &op) {
  int32_t x = op.operands[0];
  const Shape &outShape = g.values[op.results[0]].shape;
  int64_t dim = op.dim, size = op.size;
  bool isMax = op.reduceKind() == ReduceKind::max;
  // Chunk c is element c·size + o of the reduced dim: consecutive in the
  // last dim when it reduces to one.
  bool contiguous =
      dim + 1 == static_cast<int64_t>(outShape.size()) && size == 1;
  rowReduction(
      op, contiguous ? reductionWidth(op, x) : 1,
      [&](OpBuilder &ob, Value out, Value c, int64_t width) {
        SmallVector<Value> xi = delinearize(ob, out, outShape);
        AffineExpr d0 = getAffineDimExpr(0, ctx()), d1 = getAffineDimExpr(1, ctx());
        xi[dim] = apply(ob, d0 * size + d1, {c, xi[dim]});
        return loadLanes(ob, x, xi, width);
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
  // y = x / rms [· w] at the `width` consecutive elements from xi.
  auto divide = [&](OpBuilder &ob, ArrayRef<Value> xi, int64_t width,
                    Value rms) {
    SmallVector<Value> xs = loadLanes(ob, x, xi, width), ws, ys;
    if (op.operands.size() > 1)
      ws = loadLanes(ob, op.operands[1], xi, width);
    for (int64_t i = 0; i < width; ++i) {
      Value y = arith::DivFOp::create(ob, loc, xs[i], rms);
      if (!ws.empty())
        y = arith::MulFOp::create(ob, loc, y, ws[i]);
      ys.push_back(y);
    }
    storeLanes(ob, ys, op.results[0], xi);
  };
  // Σx² per row (lanes of it, as planned), mean, + eps, sqrt; then x / rms
  // [· w]: by the row's thread with one lane, else by a phase over all
  // elements reading the rms the row's thread left in lane 0 of the scratch.
  rowReduction(
      op, reductionWidth(op, x),
      [&](OpBuilder &ob, Value out, Value j, int64_t width) {
        SmallVector<Value> vs = loadLanes(ob, x, rowAt(ob, out, j), width);
        for (Value &v : vs)
          v = arith::MulFOp::create(ob, loc, v, v);
        return vs;
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
        divide(lb, rowAt(lb, out, loop.getInductionVar()), 1, rms);
      });
  if (lanes) {
    // In steps of consecutive elements of a row (VectorElementPhases.md),
    // each reading the row's rms once.
    Value buf = scratch.lookup(opIndex(op));
    SmallVector<int32_t> touched(op.operands.begin(), op.operands.end());
    touched.push_back(op.results[0]);
    int64_t width = vectorWidth(shape, touched);
    // The row's linear index from a step's leading indices, as rowAt's `out`.
    AffineExpr row = getAffineConstantExpr(0, ctx());
    for (size_t d = 0; d + 1 < shape.size(); ++d)
      row = row * shape[d] + getAffineDimExpr(d, ctx());
    vectorPhase(shape, width, [&](OpBuilder &ob, ArrayRef<Value> idx) {
      Value out = apply(ob, row, idx.drop_back());
      Value rms = convert(
          ob, memref::LoadOp::create(ob, loc, buf, ValueRange{out, index(ob, 0)}),
          computeType());
      divide(ob, idx, width, rms);
    });
  }
  return true;
}

bool BlockEmitter::emitConcat(const UOp &op) {
  // Read in place by its readers: no phase, no tile.
  if (sched.concatInPlace[opIndex(op)])
    return true;
  // Otherwise a phase stores each element as its readers in place would
  // read it: one rule (concatLanes) for the operand that holds element i.
  const Shape &shape = g.values[op.results[0]].shape;
  threadPhase(numElements(shape), [&](OpBuilder &ob, Value e) {
    SmallVector<Value> idx = delinearize(ob, e, shape);
    store(ob, concatLanes(ob, op, idx, 1).front(), op.results[0], idx);
  });
  return true;
}

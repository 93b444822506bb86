//===- RunningMaxPhase.cpp - running_max in every iteration ----------------===//
//
// `prev, cur = running_max x dim d` keeps its state in its own result tiles
// (f32 or f64, BlockSchedule.h), which live across the for-loop like an
// accumulator's. Each iteration folds the row max of x as the plan's row
// reduction; the thread that finishes an output reads cur (the previous
// iteration's) before it writes prev and the new cur, so no other thread
// touches that element in between. The first iteration selects the row max
// instead of the state, which nothing has written yet: RunningMaxRule.h, the
// rule the evaluator runs.
//
//===----------------------------------------------------------------------===//
#include "BlockEmitter.h"

#include "Mirage/Semantics/RunningMaxRule.h"

using namespace mlir;
using namespace mirage;
using namespace mirage::loops;

bool BlockEmitter::emitRunningMax(const UOp &op) {
  int32_t x = op.operands[0], prevV = op.results[0], curV = op.results[1];
  const Shape &outShape = g.values[prevV].shape;
  int64_t dim = op.dim;
  // Chunk c is element c of dim `dim`: consecutive along the last dim.
  bool contiguous = dim + 1 == static_cast<int64_t>(outShape.size());
  rowReduction(
      op, contiguous ? reductionWidth(op, x) : 1,
      [&](OpBuilder &ob, Value out, Value c, int64_t width) {
        SmallVector<Value> xi = delinearize(ob, out, outShape);
        xi[dim] = c;
        return loadLanes(ob, x, xi, width);
      },
      [&](OpBuilder &ob, Value acc, Value v) {
        return (Value)arith::MaximumFOp::create(ob, loc, acc, v);
      },
      [&](OpBuilder &ob, Value out, Value rowMax) {
        SmallVector<Value> idx = delinearize(ob, out, outShape);
        // Without a loop (one iteration) every iteration is the first.
        Value isFirst =
            iter ? (Value)arith::CmpIOp::create(ob, loc,
                                                arith::CmpIPredicate::eq, iter,
                                                index(ob, 0))
                 : (Value)arith::ConstantOp::create(ob, loc, ob.getBoolAttr(true));
        auto select = [&](Value c, Value a, Value b) {
          return (Value)arith::SelectOp::create(ob, loc, c, a, b);
        };
        auto max = [&](Value a, Value b) {
          return (Value)arith::MaximumFOp::create(ob, loc, a, b);
        };
        FloatType ft = cast<FloatType>(rowMax.getType());
        Value floor = arith::ConstantOp::create(
            ob, loc,
            ob.getFloatAttr(ft, runningMaxFloor(ft.getWidth() == 64)));
        Value row = runningMaxRow(max, rowMax, floor);
        Value prev =
            runningMaxPrev(select, isFirst, row, load(ob, curV, idx));
        Value cur = runningMaxCur(max, prev, row);
        // prev has no tile when nothing reads it (BlockSchedule).
        if (mem[prevV])
          store(ob, prev, prevV, idx);
        store(ob, cur, curV, idx);
      });
  return true;
}

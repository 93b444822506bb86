//===- MaskFill.cpp - A −∞ fill as an additive mask ------------------------===//
//
// Frontends hide attention scores with `masked_fill(s, m, -inf)`, which
// TOSA writes `tosa.select %m, %neginf, %s`. No kernel op selects, so the
// select would cut QKᵀ from the softmax. Where the filled value s does not
// feed the condition, the select is rewritten before import as
//
//   s + select(m, −∞, 0)
//
// (and select(m, s, −∞) as s + select(m, 0, −∞)): the second term reads
// only the condition and constants, so it stays outside the graphs and
// reaches the attention graph as an additive mask, the form exported
// models pass anyway. Exact wherever s is finite or −∞ (s + 0 = s,
// s + (−∞) = −∞); a selected +∞ or NaN in s would become NaN instead of
// −∞, which is why a condition computed from s (a NaN filter, say) is
// left alone. docs/Rationale/Import.md, "Mask fills".
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace {

/// Whether `v` is a splat constant of −∞.
bool isNegInfSplat(Value v) {
  DenseFPElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return false;
  APFloat x = attr.getSplatValue<APFloat>();
  return x.isInfinity() && x.isNegative();
}

/// Whether `cond` is computed without reading `s`.
bool independentOf(Value cond, Value s) {
  if (cond == s)
    return false;
  Operation *def = cond.getDefiningOp();
  if (!def)
    return true;
  SetVector<Operation *> slice;
  BackwardSliceOptions opts;
  opts.inclusive = true;
  if (failed(getBackwardSlice(def, &slice, opts)))
    return false;
  for (Operation *op : slice)
    if (llvm::is_contained(op->getOperands(), s))
      return false;
  return true;
}

} // namespace

void mirage::import::splitMaskFills(Operation *root) {
  SmallVector<tosa::SelectOp> fills;
  root->walk([&](tosa::SelectOp sel) { fills.push_back(sel); });
  for (tosa::SelectOp sel : fills) {
    auto type = dyn_cast<RankedTensorType>(sel.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      continue;
    // Which side is the fill; s is the other.
    bool fillOnTrue = isNegInfSplat(sel.getOnTrue());
    if (!fillOnTrue && !isNegInfSplat(sel.getOnFalse()))
      continue;
    Value fill = fillOnTrue ? sel.getOnTrue() : sel.getOnFalse();
    Value s = fillOnTrue ? sel.getOnFalse() : sel.getOnTrue();
    if (s.getType() != type || !independentOf(sel.getPred(), s))
      continue;
    auto predType = dyn_cast<RankedTensorType>(sel.getPred().getType());
    auto fillType = dyn_cast<RankedTensorType>(fill.getType());
    if (!predType || !fillType || !predType.hasStaticShape() ||
        !fillType.hasStaticShape() || predType.getRank() != type.getRank())
      continue;
    // The mask's shape: the broadcast of the condition and the fill.
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      shape.push_back(std::max(predType.getDimSize(d), fillType.getDimSize(d)));
    OpBuilder b(sel);
    Location loc = sel.getLoc();
    auto unitType = RankedTensorType::get(
        SmallVector<int64_t>(type.getRank(), 1), type.getElementType());
    Value zero = tosa::ConstOp::create(
        b, loc, unitType,
        DenseElementsAttr::get(unitType,
                               b.getFloatAttr(type.getElementType(), 0.0)));
    auto maskType = RankedTensorType::get(shape, type.getElementType());
    Value mask = tosa::SelectOp::create(b, loc, maskType, sel.getPred(),
                                        fillOnTrue ? fill : zero,
                                        fillOnTrue ? zero : fill);
    Value sum = tosa::AddOp::create(b, loc, type, s, mask);
    sel.replaceAllUsesWith(sum);
    sel.erase();
  }
}

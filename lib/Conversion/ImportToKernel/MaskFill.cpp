//===- MaskFill.cpp - A constant fill as element-wise ops and masks -------===//
//
// Frontends hide attention scores with `masked_fill(s, m, -inf)` or
// `torch.where(m, s, finfo.min)` (GPT-2's causal mask), which TOSA writes
// `tosa.select %m, %fill, %s`. No kernel op selects, so the select would
// cut QKᵀ from the softmax. Where the filled value s does not feed the
// condition, the select is rewritten before import as
//
//   −∞ fill:       s + select(m, −∞, 0)
//   constant c:    s · select(m, 0, 1) + select(m, c, 0)   (no add if c = 0)
//
// (branches swapped when the fill is the false side): the masks read only
// the condition and constants, so they stay outside the graphs and reach
// the attention graph as operands, the additive one the form exported
// models pass anyway. Both are exact wherever s is finite (s + 0 = s,
// s + (−∞) = −∞; s·1 + 0 = s, s·0 + c = c), the additive one also for
// s = −∞; a selected +∞ or NaN in s would become NaN instead of the fill,
// which is why a condition computed from s (a NaN filter, say) is left
// alone. Only −∞ gets the one-mask form: s + c is not c for a finite c.
// The rule (which fills, which conditions, which branch gets what) is
// defined here once; LinalgMaskFill.cpp applies it to the same fill
// written in a linalg body. docs/Rationale/Import.md, "Mask fills".
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;

//===----------------------------------------------------------------------===//
// The rule, shared with the linalg form (LinalgMaskFill.cpp)
//===----------------------------------------------------------------------===//

bool mirage::import::FillRule::additive() const {
  return std::isinf(fill) && fill < 0;
}

bool mirage::import::FillRule::hides() const { return fill <= -1e4; }

std::optional<mirage::import::FillRule>
mirage::import::fillRuleOf(std::optional<double> onTrue,
                           std::optional<double> onFalse) {
  // Both constant: the select builds a mask (where(m, −∞, 0)); it reads
  // no s to split.
  if (onTrue.has_value() == onFalse.has_value())
    return std::nullopt;
  FillRule r;
  r.fillOnTrue = onTrue.has_value();
  r.fill = onTrue ? *onTrue : *onFalse;
  return r;
}

bool mirage::import::conditionIndependentOf(Value cond, Value s) {
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

std::string mirage::import::whyFillStays(std::optional<double> onTrue,
                                         std::optional<double> onFalse,
                                         bool conditionReadsS) {
  std::optional<FillRule> rule = fillRuleOf(onTrue, onFalse);
  if (!conditionReadsS || !rule || !rule->hides())
    return "";
  return "its condition reads the filled value (the split is exact for "
         "finite values only; where s is NaN, s + -inf is NaN, the select "
         "gives the fill)";
}

std::pair<Value, Value> mirage::import::maskBranches(const FillRule &rule,
                                                     Value fill, Value other) {
  return rule.fillOnTrue ? std::make_pair(fill, other)
                         : std::make_pair(other, fill);
}

//===----------------------------------------------------------------------===//
// The TOSA form
//===----------------------------------------------------------------------===//

namespace {

/// A splat constant of `value` with `type`'s element type, of the rank of
/// `type` with unit dims (TOSA broadcasts it).
Value unitConstant(OpBuilder &b, Location loc, RankedTensorType type,
                   double value) {
  auto unitType = RankedTensorType::get(
      SmallVector<int64_t>(type.getRank(), 1), type.getElementType());
  return tosa::ConstOp::create(
      b, loc, unitType,
      DenseElementsAttr::get(unitType,
                             b.getFloatAttr(type.getElementType(), value)));
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
    std::optional<double> t = splatValue(sel.getOnTrue()),
                          f = splatValue(sel.getOnFalse());
    std::optional<FillRule> rule = fillRuleOf(t, f);
    Value s;
    if (rule)
      s = rule->fillOnTrue ? sel.getOnFalse() : sel.getOnTrue();
    bool readsS = s && !conditionIndependentOf(sel.getPred(), s);
    if (std::string why = whyFillStays(t, f, readsS); !why.empty())
      sel->setAttr(kMaskFillWhyAttr, StringAttr::get(sel.getContext(), why));
    if (!rule || readsS || s.getType() != type)
      continue;
    Value fillValue = rule->fillOnTrue ? sel.getOnTrue() : sel.getOnFalse();
    auto predType = dyn_cast<RankedTensorType>(sel.getPred().getType());
    auto fillType = dyn_cast<RankedTensorType>(fillValue.getType());
    if (!predType || !fillType || !predType.hasStaticShape() ||
        !fillType.hasStaticShape() || predType.getRank() != type.getRank())
      continue;
    // The masks' shape: the broadcast of the condition and the fill.
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      shape.push_back(std::max(predType.getDimSize(d), fillType.getDimSize(d)));
    OpBuilder b(sel);
    Location loc = sel.getLoc();
    auto maskType = RankedTensorType::get(shape, type.getElementType());
    Value zero = unitConstant(b, loc, type, 0.0);
    auto mask = [&](Value fill, Value other) {
      auto [onTrue, onFalse] = maskBranches(*rule, fill, other);
      return tosa::SelectOp::create(b, loc, maskType, sel.getPred(), onTrue,
                                    onFalse)
          .getResult();
    };
    Value result = s;
    if (!rule->additive()) {
      Value keep = mask(zero, unitConstant(b, loc, type, 1.0));
      auto shiftType = RankedTensorType::get({1}, b.getI8Type());
      Value shift = tosa::ConstOp::create(
          b, loc, shiftType,
          DenseElementsAttr::get(shiftType, b.getI8IntegerAttr(0)));
      result = tosa::MulOp::create(b, loc, type, result, keep, shift);
    }
    if (rule->fill != 0.0)
      result = tosa::AddOp::create(b, loc, type, result, mask(fillValue, zero));
    sel.replaceAllUsesWith(result);
    sel.erase();
  }
  splitLinalgMaskFills(root);
}

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
// left alone. The rule (which fills, which conditions, which branch gets
// the 0) is defined here once; LinalgMaskFill.cpp applies it to the same
// fill written in a linalg body. docs/Rationale/Import.md, "Mask fills".
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

std::optional<bool>
mirage::import::negInfFillOnTrue(std::optional<double> onTrue,
                                 std::optional<double> onFalse) {
  // Only −∞ is absorbing for every finite or −∞ s: s + (−∞) = −∞.
  auto negInf = [](std::optional<double> x) {
    return x && std::isinf(*x) && *x < 0;
  };
  if (negInf(onTrue))
    return true;
  if (negInf(onFalse))
    return false;
  return std::nullopt;
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
  if (!negInfFillOnTrue(onTrue, onFalse)) {
    // Only a large negative constant is meant to hide (finfo.min, -1e9);
    // a select of 0 (relu written with cmpf) is no fill.
    auto hides = [](std::optional<double> x) { return x && *x <= -1e4; };
    return hides(onTrue) || hides(onFalse)
               ? "the fill is not -inf (s + c is not c for a finite c)"
               : "";
  }
  if (conditionReadsS)
    return "its condition reads the filled value (where s is NaN, s + -inf "
           "is NaN, the select gives -inf)";
  return "";
}

std::pair<Value, Value> mirage::import::maskBranches(bool fillOnTrue,
                                                     Value fill, Value zero) {
  return fillOnTrue ? std::make_pair(fill, zero) : std::make_pair(zero, fill);
}

//===----------------------------------------------------------------------===//
// The TOSA form
//===----------------------------------------------------------------------===//

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
    std::optional<bool> fillOnTrue = negInfFillOnTrue(t, f);
    Value fill, s;
    if (fillOnTrue) {
      fill = *fillOnTrue ? sel.getOnTrue() : sel.getOnFalse();
      s = *fillOnTrue ? sel.getOnFalse() : sel.getOnTrue();
    }
    bool readsS = s && !conditionIndependentOf(sel.getPred(), s);
    if (std::string why = whyFillStays(t, f, readsS); !why.empty())
      sel->setAttr(kMaskFillWhyAttr, StringAttr::get(sel.getContext(), why));
    if (!fillOnTrue || readsS || s.getType() != type)
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
    auto [onTrue, onFalse] = maskBranches(*fillOnTrue, fill, zero);
    Value mask = tosa::SelectOp::create(b, loc, maskType, sel.getPred(),
                                        onTrue, onFalse);
    Value sum = tosa::AddOp::create(b, loc, type, s, mask);
    sel.replaceAllUsesWith(sum);
    sel.erase();
  }
  splitLinalgMaskFills(root);
}

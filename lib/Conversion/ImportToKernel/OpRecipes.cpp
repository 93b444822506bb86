//===- OpRecipes.cpp - Which recipe applies to an op ----------------------===//
//
// The single entry point `analyzeOp`: generic checks on the result, then
// dispatch to the TOSA, linalg, unit-dim tensor reshape and arith/math
// recipes.
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mirage;

namespace mirage::import {

Analysis analyzeArithMathOp(Operation *op) {
  Type rt = op->getResult(0).getType();
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(op)) {
    BinaryKind k = isa<arith::AddFOp>(op)   ? BinaryKind::add
                   : isa<arith::SubFOp>(op) ? BinaryKind::sub
                   : isa<arith::MulFOp>(op) ? BinaryKind::mul
                                            : BinaryKind::div;
    return binaryRecipe(k, op->getOperand(0), op->getOperand(1), rt);
  }
  if (isa<math::ExpOp>(op))
    return unaryRecipe(UnaryKind::exp, op->getOperand(0), rt);
  if (isa<math::TanhOp>(op))
    return unaryRecipe(UnaryKind::tanh, op->getOperand(0), rt);
  if (isa<math::ErfOp>(op))
    return unaryRecipe(UnaryKind::erf, op->getOperand(0), rt);
  if (isa<math::SqrtOp>(op))
    return unaryRecipe(UnaryKind::sqrt, op->getOperand(0), rt);
  if (isa<math::RsqrtOp>(op))
    return unaryRecipe(UnaryKind::rsqrt, op->getOperand(0), rt);
  return Analysis::no("no kernel equivalent");
}

Analysis analyzeOp(Operation *op) {
  // linalg ops may have more results (unused ones; analyzeLinalgOp checks).
  bool linalg = isa<linalg::LinalgOp>(op);
  if (op->getNumResults() < 1 || (op->getNumResults() != 1 && !linalg) ||
      (op->getNumRegions() > 0 && !linalg))
    return Analysis::no("not a single-result tensor op");
  if (std::string w = whyNotImportable(op->getResult(0).getType()); !w.empty())
    return Analysis::no("result: " + w);
  if (std::string w = whyWidenedToF64(op); !w.empty())
    return Analysis::no(w);
  // Every tensor operand we might read must be importable too (checked per
  // recipe); the element types must agree with the result.
  if (op->getDialect() && op->getDialect()->getNamespace() == "tosa")
    return analyzeTosaOp(op);
  if (auto l = dyn_cast<linalg::LinalgOp>(op))
    return analyzeLinalgOp(l);
  if (auto ex = dyn_cast<tensor::ExpandShapeOp>(op))
    return reshapeRecipe(ex.getSrc(), ex.getResultType());
  if (auto co = dyn_cast<tensor::CollapseShapeOp>(op))
    return reshapeRecipe(co.getSrc(), co.getResultType());
  return analyzeArithMathOp(op);
}

} // namespace mirage::import

//===- OpShapeInference.cpp - ODS glue to the shared shape rules ----------===//
#include "Mirage/Dialect/Common/OpShapeInference.h"
#include "Mirage/Semantics/OpKinds.h"

#include "mlir/IR/Operation.h"

using namespace mlir;

std::optional<mirage::Shape> mirage::staticShapeOf(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return std::nullopt;
  return Shape(t.getShape().begin(), t.getShape().end());
}

LogicalResult mirage::emitInferred(std::optional<Location> loc,
                                   const ShapeResult &r, Type elem,
                                   SmallVectorImpl<Type> &out) {
  if (!r.ok())
    return emitOptionalError(loc, r.error);
  out.push_back(RankedTensorType::get(r.shape, elem));
  return success();
}

LogicalResult mirage::verifyUnaryScalar(Operation *op, UnaryKind kind,
                                        bool hasScalar) {
  bool needs = unaryFacts(kind).usesScalar();
  if (needs && !hasScalar)
    return op->emitOpError("'") << stringifyUnaryKind(kind)
                                << "' requires a scalar";
  if (!needs && hasScalar)
    return op->emitOpError("'") << stringifyUnaryKind(kind)
                                << "' takes no scalar";
  return success();
}

LogicalResult mirage::verifyRmsNormWeight(Operation *op, Value input,
                                          Value weight) {
  if (weight &&
      getElementTypeOrSelf(weight.getType()) != getElementTypeOrSelf(input.getType()))
    return op->emitOpError("weight must have the element type ")
           << getElementTypeOrSelf(input.getType()) << " of the operand";
  return success();
}

//===- OpShapeInference.h - ODS glue to the shared shape rules --*- C++ -*-===//
//
// The kernel and block dialects instantiate the same op classes
// (MirageOpBases.td). These templates implement their type inference once,
// on top of Mirage/Semantics/ShapeRules.h.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_DIALECT_COMMON_OPSHAPEINFERENCE_H
#define MIRAGE_DIALECT_COMMON_OPSHAPEINFERENCE_H

#include "Mirage/Semantics/ShapeRules.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <optional>

namespace mirage {

/// Returns the static shape of a ranked tensor value type, or std::nullopt.
std::optional<Shape> staticShapeOf(mlir::Type type);

/// Turns a shape-rule result into an inferred tensor type with element type
/// `elem`, or an error at `loc`.
llvm::LogicalResult
emitInferred(std::optional<mlir::Location> loc, const ShapeResult &r,
             mlir::Type elem, llvm::SmallVectorImpl<mlir::Type> &out);

/// Verifies that an rms_norm weight (if any) has the operand's element type.
llvm::LogicalResult verifyRmsNormWeight(mlir::Operation *op, mlir::Value input,
                                        mlir::Value weight);

/// Verifies a unary op's scalar: present exactly for mul_scalar/add_scalar.
llvm::LogicalResult verifyUnaryScalar(mlir::Operation *op, UnaryKind kind,
                                      bool hasScalar);

template <typename Adaptor>
llvm::LogicalResult inferMatmulTypes(std::optional<mlir::Location> loc,
                                     Adaptor a,
                                     llvm::SmallVectorImpl<mlir::Type> &out) {
  auto l = staticShapeOf(a.getLhs().getType());
  auto r = staticShapeOf(a.getRhs().getType());
  if (!l || !r)
    return mlir::emitOptionalError(loc, "operands must be statically shaped tensors");
  return emitInferred(loc, matmulShape(*l, *r),
                      mlir::getElementTypeOrSelf(a.getLhs().getType()), out);
}

template <typename Adaptor>
llvm::LogicalResult inferBinaryTypes(std::optional<mlir::Location> loc,
                                     Adaptor a,
                                     llvm::SmallVectorImpl<mlir::Type> &out) {
  auto l = staticShapeOf(a.getLhs().getType());
  auto r = staticShapeOf(a.getRhs().getType());
  if (!l || !r)
    return mlir::emitOptionalError(loc, "operands must be statically shaped tensors");
  return emitInferred(loc, broadcastShape(*l, *r),
                      mlir::getElementTypeOrSelf(a.getLhs().getType()), out);
}

template <typename Adaptor>
llvm::LogicalResult inferReduceTypes(std::optional<mlir::Location> loc,
                                     Adaptor a,
                                     llvm::SmallVectorImpl<mlir::Type> &out) {
  auto x = staticShapeOf(a.getInput().getType());
  if (!x)
    return mlir::emitOptionalError(loc, "operand must be a statically shaped tensor");
  return emitInferred(loc, reduceShape(*x, a.getDim(), a.getSize()),
                      mlir::getElementTypeOrSelf(a.getInput().getType()), out);
}

template <typename Adaptor>
llvm::LogicalResult inferRmsNormTypes(std::optional<mlir::Location> loc,
                                      Adaptor a,
                                      llvm::SmallVectorImpl<mlir::Type> &out) {
  auto x = staticShapeOf(a.getInput().getType());
  if (!x)
    return mlir::emitOptionalError(loc, "operand must be a statically shaped tensor");
  Shape g;
  bool hasWeight = static_cast<bool>(a.getWeight());
  if (hasWeight) {
    auto w = staticShapeOf(a.getWeight().getType());
    if (!w)
      return mlir::emitOptionalError(loc, "weight must be a statically shaped tensor");
    g = *w;
  }
  return emitInferred(loc, rmsNormShape(*x, g, hasWeight),
                      mlir::getElementTypeOrSelf(a.getInput().getType()), out);
}

template <typename Adaptor>
llvm::LogicalResult inferConcatTypes(std::optional<mlir::Location> loc,
                                     Adaptor a,
                                     llvm::SmallVectorImpl<mlir::Type> &out) {
  auto l = staticShapeOf(a.getLhs().getType());
  auto r = staticShapeOf(a.getRhs().getType());
  if (!l || !r)
    return mlir::emitOptionalError(loc, "operands must be statically shaped tensors");
  return emitInferred(loc, concatShape(*l, *r, a.getDim()),
                      mlir::getElementTypeOrSelf(a.getLhs().getType()), out);
}

} // namespace mirage

/// Defines inferReturnTypes for the shared op classes of one dialect.
#define MIRAGE_DEFINE_SHARED_OP_INFERENCE(NS)                                  \
  llvm::LogicalResult NS::MatmulOp::inferReturnTypes(                          \
      mlir::MLIRContext *, std::optional<mlir::Location> loc, Adaptor a,       \
      llvm::SmallVectorImpl<mlir::Type> &out) {                                \
    return ::mirage::inferMatmulTypes(loc, a, out);                            \
  }                                                                            \
  llvm::LogicalResult NS::BinaryOp::inferReturnTypes(                          \
      mlir::MLIRContext *, std::optional<mlir::Location> loc, Adaptor a,       \
      llvm::SmallVectorImpl<mlir::Type> &out) {                                \
    return ::mirage::inferBinaryTypes(loc, a, out);                            \
  }                                                                            \
  llvm::LogicalResult NS::ReduceOp::inferReturnTypes(                          \
      mlir::MLIRContext *, std::optional<mlir::Location> loc, Adaptor a,       \
      llvm::SmallVectorImpl<mlir::Type> &out) {                                \
    return ::mirage::inferReduceTypes(loc, a, out);                            \
  }                                                                            \
  llvm::LogicalResult NS::RmsNormOp::inferReturnTypes(                         \
      mlir::MLIRContext *, std::optional<mlir::Location> loc, Adaptor a,       \
      llvm::SmallVectorImpl<mlir::Type> &out) {                                \
    return ::mirage::inferRmsNormTypes(loc, a, out);                           \
  }                                                                            \
  llvm::LogicalResult NS::ConcatOp::inferReturnTypes(                          \
      mlir::MLIRContext *, std::optional<mlir::Location> loc, Adaptor a,       \
      llvm::SmallVectorImpl<mlir::Type> &out) {                                \
    return ::mirage::inferConcatTypes(loc, a, out);                            \
  }                                                                            \
  llvm::LogicalResult NS::RmsNormOp::verify() {                                \
    return ::mirage::verifyRmsNormWeight(getOperation(), getInput(),          \
                                         getWeight());                        \
  }                                                                            \
  llvm::LogicalResult NS::UnaryOp::verify() {                                  \
    return ::mirage::verifyUnaryScalar(getOperation(), getKind(),              \
                                       getScalar().has_value());               \
  }

#endif // MIRAGE_DIALECT_COMMON_OPSHAPEINFERENCE_H

//===- ImportCommon.h - Shared helpers of mirage-import ---------*- C++ -*-===//
//
// Internal to lib/Conversion (not installed): the pieces that the frontend
// recipes (LinalgToKernel, TosaToKernel), the grouping driver and the pass
// share. A *recipe* is what an op of the source program needs (its inputs)
// and a builder that re-creates it from kernel ops inside a graph body. See
// docs/Rationale/Import.md.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_CONVERSION_IMPORTCOMMON_H
#define MIRAGE_LIB_CONVERSION_IMPORTCOMMON_H

#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir {
namespace linalg {
class LinalgOp;
} // namespace linalg
namespace tensor {
class ExpandShapeOp;
} // namespace tensor
} // namespace mlir

namespace mirage::import {

//===----------------------------------------------------------------------===//
// Types and constants (ImportCommon.cpp)
//===----------------------------------------------------------------------===//

/// Why `t` cannot be a kernel tensor, or "" when it can.
std::string whyNotImportable(mlir::Type t);

/// The value of a splat floating-point constant (tensor or scalar).
std::optional<double> splatValue(mlir::Value v);

/// Whether `v` is a constant splat zero (float or integer).
bool isZeroConst(mlir::Value v);

mlir::RankedTensorType withShape(mlir::RankedTensorType t,
                                 llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Kernel-op emission (ImportCommon.cpp). Explicit result types; each returns
// a null value on a misfit (and when an operand is null).
//===----------------------------------------------------------------------===//

/// The equal-rank broadcast of the types of `a` and `b`, or null.
mlir::RankedTensorType broadcastType(mlir::Value a, mlir::Value b);

mlir::Value emitUnary(mlir::OpBuilder &b, mlir::Location loc, UnaryKind k,
                      mlir::Value x,
                      std::optional<double> scalar = std::nullopt);
mlir::Value emitBinary(mlir::OpBuilder &b, mlir::Location loc, BinaryKind k,
                       mlir::Value x, mlir::Value y);
mlir::Value emitReduce(mlir::OpBuilder &b, mlir::Location loc, ReduceKind k,
                       mlir::Value x, int64_t dim);
mlir::Value emitMatmul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       mlir::Value y);
mlir::Value emitConcat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       mlir::Value y, int64_t dim);
/// `x op c` (or `c op x` when `constOnLeft`) with a scalar constant.
mlir::Value emitScalarBinary(mlir::OpBuilder &b, mlir::Location loc,
                             BinaryKind k, mlir::Value x, double c,
                             bool constOnLeft);

//===----------------------------------------------------------------------===//
// Recipes
//===----------------------------------------------------------------------===//

using BuildFn = std::function<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                          llvm::ArrayRef<mlir::Value> inputs)>;

struct Recipe {
  llvm::SmallVector<mlir::Value, 4> inputs;
  BuildFn build;
};

/// A recipe or the reason there is none.
struct Analysis {
  std::optional<Recipe> recipe;
  std::string why;
  static Analysis no(std::string w) { return {std::nullopt, std::move(w)}; }
  static Analysis yes(llvm::SmallVector<mlir::Value, 4> in, BuildFn f) {
    return {Recipe{std::move(in), std::move(f)}, ""};
  }
};

/// An element-wise binary op, folding a splat scalar operand into
/// add_scalar/mul_scalar where the other operand already has the result type
/// (ImportCommon.cpp).
Analysis binaryRecipe(BinaryKind k, mlir::Value a, mlir::Value b,
                      mlir::Type resultType);
/// An element-wise unary op whose operand has the result type.
Analysis unaryRecipe(UnaryKind k, mlir::Value x, mlir::Type resultType,
                     std::optional<double> scalar = std::nullopt);

/// linalg structured ops: named matmuls, element-wise and keep-dim reductions
/// (LinalgToKernel/LinalgToKernel.cpp).
Analysis analyzeLinalgOp(mlir::linalg::LinalgOp op);
/// tensor.expand_shape of a linalg.reduce restoring the reduced unit dim.
Analysis analyzeExpandOfReduce(mlir::tensor::ExpandShapeOp ex);
/// Any op of the TOSA dialect (TosaToKernel/TosaToKernel.cpp).
Analysis analyzeTosaOp(mlir::Operation *op);
/// arith/math element-wise ops applied to whole tensors
/// (ImportToKernel/OpRecipes.cpp).
Analysis analyzeArithMathOp(mlir::Operation *op);

/// The recipe of any op, dispatching on its dialect
/// (ImportToKernel/OpRecipes.cpp).
Analysis analyzeOp(mlir::Operation *op);

//===----------------------------------------------------------------------===//
// Grouping and graph construction (ImportToKernel/GraphGrouping.cpp)
//===----------------------------------------------------------------------===//

/// Replaces maximal convex groups of importable ops of `block` by
/// `mirage_kernel.graph` ops (appended to `created`), rolling back and
/// retrying whenever a group fails to form a verified graph. Trivially dead
/// ops that were imported or that only fed imported ops (`importedUsers`,
/// updated) are erased.
void importBlock(mlir::Block &block,
                 llvm::SmallVectorImpl<kernel::GraphOp> &created,
                 llvm::SmallPtrSetImpl<mlir::Operation *> &importedUsers);

} // namespace mirage::import

#endif // MIRAGE_LIB_CONVERSION_IMPORTCOMMON_H

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
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

/// `v` rounded to the float type `t` (round to nearest even, what arith's
/// casts and constants do by default); `v` itself for other types.
double roundTo(double v, mlir::Type t);

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
/// Whether `pow(x, c)` has a kernel form (emitScalarBinary): c = 1, 2, 3,
/// 0.5, -0.5, -1 (x, square, square·x, sqrt, rsqrt, reciprocal).
bool hasScalarPowForm(double c);
/// `x op c` (or `c op x` when `constOnLeft`) with a scalar constant.
mlir::Value emitScalarBinary(mlir::OpBuilder &b, mlir::Location loc,
                             BinaryKind k, mlir::Value x, double c,
                             bool constOnLeft);

//===----------------------------------------------------------------------===//
// Recipes
//===----------------------------------------------------------------------===//

using BuildFn = std::function<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                          llvm::ArrayRef<mlir::Value> inputs)>;

/// A layout relative to a source tensor: dim j of the layout is source dim
/// `m[j]`, or a new unit dim where `m[j]` is -1. A source dim the map omits
/// must have size 1. Expresses unit-dim reshapes, transposes and the
/// broadcast/projection of a linalg input map (docs/Rationale/Import.md,
/// "Layouts and indexing maps").
using DimMap = llvm::SmallVector<int64_t, 4>;

struct Recipe {
  llvm::SmallVector<mlir::Value, 4> inputs;
  BuildFn build;
  /// Per input (empty: none): the layout the builder wants input i in,
  /// relative to its program type; nullopt: exactly its program type.
  llvm::SmallVector<std::optional<DimMap>, 4> layouts;
  /// Relative to what the builder returns, the layout of the op's result
  /// (nullopt: the builder returns a kernel form of the result).
  std::optional<DimMap> resultLayout;
  /// The op only changes the layout (a reshape or transpose): it joins a
  /// group only between members, and alone it forms no graph.
  bool layoutOnly = false;
  /// The builder takes its inputs in whatever kernel form they have (a
  /// reshape: any form of the input is a form of the result).
  bool anyForm = false;
  /// Element-wise builders (unary, binary, scalar ops only): they compute
  /// over this index space, relative to which `layouts` and `resultLayout`
  /// are given (nullopt layouts: the identity), and work in any kernel form
  /// of it; the graph builder picks the form of an input already there.
  std::optional<llvm::SmallVector<int64_t, 4>> loopShape;
  /// With `loopShape`: the one dim of it the op reduces (its builder finds
  /// it in the form it is given with `formDim`); such a recipe works in a
  /// form of its input that merges or splits dims only around that dim.
  std::optional<int64_t> reduceDim;
  /// A matmul (inputs A, B, then an optional init added to the product):
  /// it may work in the form of A that merges or splits only its batch
  /// dims, B and the init then reshaped to the same batch dims (attention's
  /// scores kept as `[b, h, s, s]` for a `[b·h, s, d]` batch matmul).
  bool batchForm = false;
  /// Per input (empty: none): a shape the input is reshaped to, row-major,
  /// after its layout (a contraction's two row loops merged into one m).
  llvm::SmallVector<std::optional<llvm::SmallVector<int64_t, 4>>, 4> reshapes;
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

/// linalg structured ops, generic or named, through one analysis of their
/// indexing maps: contractions, element-wise ops with transposed, broadcast
/// or projected inputs, one-dim reductions, copies and transposes
/// (LinalgToKernel/LinalgToKernel.cpp).
Analysis analyzeLinalgOp(mlir::linalg::LinalgOp op);
/// A reshape (tosa.reshape, tensor.expand_shape/collapse_shape) from `src`
/// to `result`: any kernel form of `src` is one of the result (row-major,
/// the same elements), so it computes nothing (Import.md, "Merged forms").
Analysis reshapeRecipe(mlir::Value src, mlir::Type result);
/// A transpose of `src` with result dim j = source dim perm[j].
Analysis transposeRecipe(mlir::Value src, llvm::ArrayRef<int64_t> perm,
                         mlir::Type result);
/// Any op of the TOSA dialect (TosaToKernel/TosaToKernel.cpp).
Analysis analyzeTosaOp(mlir::Operation *op);
/// arith/math element-wise ops applied to whole tensors
/// (ImportToKernel/OpRecipes.cpp).
Analysis analyzeArithMathOp(mlir::Operation *op);

/// Rewrites every select that fills a value its condition does not read
/// with a constant, before import, as element-wise ops on that value and
/// masks computed from the condition alone (left outside the graphs):
/// `tosa.select` (MaskFill.cpp) and a `linalg.generic` yielding
/// `arith.select` (LinalgMaskFill.cpp).
void splitMaskFills(mlir::Operation *root);

/// The fill rule both forms share (ImportToKernel/MaskFill.cpp): a select
/// of a value s and a constant c, rewritten as
///
///   −∞:        s + select(m, −∞, 0)                 (additive)
///   finite c:  s · select(m, 0, 1) + select(m, c, 0) (scaled; no add if c = 0)
///
/// (branches swapped when the fill is the false side). Both are exact for
/// every finite s; the additive one also for s = −∞.
struct FillRule {
  /// Whether the fill is the select's true branch.
  bool fillOnTrue = true;
  /// The fill c.
  double fill = 0;
  /// s + mask: only −∞ absorbs every finite s (s + c is not c otherwise).
  bool additive() const;
  /// Whether the fill is meant to hide (−∞, or ≤ −1e4: finfo.min, −1e9):
  /// only such a select gets a remark of its own when it stays; a select
  /// of 0 is relu written with cmpf.
  bool hides() const;
};
/// The rule of a select whose branches have the constant values `onTrue`
/// and `onFalse` (nullopt: not a constant): the constant side is the fill
/// (−∞ preferred); nullopt when neither or both are constants (both: the
/// mask itself being built).
std::optional<FillRule> fillRuleOf(std::optional<double> onTrue,
                                   std::optional<double> onFalse);
/// Whether the select condition `cond` is computed without reading `s`
/// (the filled value); a condition that reads it (a NaN filter, relu as
/// `select(s > 0, s, 0)`) keeps its select: the split is exact for finite
/// s only, and such a condition is there for the values where it is not.
bool conditionIndependentOf(mlir::Value cond, mlir::Value s);
/// Why a select with the branch constants `onTrue`/`onFalse` (nullopt: not
/// a constant) whose condition reads s (`conditionReadsS`) stays a select,
/// for its remark, when its fill hides; "" otherwise.
std::string whyFillStays(std::optional<double> onTrue,
                         std::optional<double> onFalse, bool conditionReadsS);
/// The branches (true, false) of a mask select: `fill` on the fill's side
/// of `rule`, `other` on the other.
std::pair<mlir::Value, mlir::Value> maskBranches(const FillRule &rule,
                                                 mlir::Value fill,
                                                 mlir::Value other);
/// Folds every `tosa.reciprocal` of a splat constant into a constant
/// (TOSA's folder), so that a division by a scalar imports as `mul_scalar`
/// (ImportToKernel/FoldConstants.cpp).
void foldScalarReciprocals(mlir::Operation *root);

/// Absorbs into each kernel graph under `root` the transposes of the last
/// two dims that feed its operands (ImportToKernel/OperandTransposes.cpp,
/// docs/Rationale/OperandLayouts.md): the graph reads their sources,
/// marked in `transposed_inputs`; transposes nothing else reads are erased.
void absorbOperandTransposes(mlir::Operation *root);

/// The linalg form of splitMaskFills (ImportToKernel/LinalgMaskFill.cpp).
void splitLinalgMaskFills(mlir::Operation *root);

/// Retypes to the program's float type every island of f64 ops computed
/// from an upcast of a narrower float tensor (torch-mlir's f64 statistics),
/// with a remark on the upcast when `remarks`
/// (ImportToKernel/NarrowStatistics.cpp).
void narrowWidenedStatistics(mlir::Operation *root, bool remarks);

/// Why `op` is not imported because its f64 result is computed from a
/// narrower float tensor that the program upcast (torch-mlir's f64
/// statistics in an f32 program), or "" (ImportToKernel/WidenedStatistics.cpp).
std::string whyWidenedToF64(mlir::Operation *op);

/// The recipe of any op, dispatching on its dialect
/// (ImportToKernel/OpRecipes.cpp).
Analysis analyzeOp(mlir::Operation *op);

//===----------------------------------------------------------------------===//
// Layouts (ImportToKernel/Layout.cpp)
//===----------------------------------------------------------------------===//

/// Marks the transposes the importer creates outside graphs (views of graph
/// operands) until the pass has emitted its remarks; removed after.
inline constexpr llvm::StringLiteral kImportViewAttr = "mirage.import_view";
/// Why an op whose recipe failed in its group was disabled (a string), for
/// its remark; removed after the remarks like kImportViewAttr.
inline constexpr llvm::StringLiteral kImportWhyAttr = "mirage.import_why";

/// Why a select that looks like a mask fill was left in place (a string: a
/// condition reading the filled value), set by
/// splitMaskFills for its remark; removed after the remarks like
/// kImportWhyAttr.
inline constexpr llvm::StringLiteral kMaskFillWhyAttr = "mirage.mask_fill_why";

/// Whether `a` and `b` have the same element type and the same non-unit dims
/// in the same order (so the same data in row-major order).
bool sameNonUnitDims(mlir::RankedTensorType a, mlir::RankedTensorType b);

/// Whether the kernel type `k` holds a program value of type `p`: the same
/// element type and number of elements, so the same data in row-major
/// order (its *kernel form*: dims merged, split, unit dims added or
/// dropped; docs/Rationale/Import.md, "Merged forms").
bool isKernelFormOf(mlir::RankedTensorType k, mlir::RankedTensorType p);

/// Where dim `d` of `shape` is in the row-major form `form`: the dim `t`
/// with `form[t] == shape[d]` after as many elements (`d` itself when the
/// shapes are equal); nullopt when `d` is merged or split in `form`.
std::optional<int64_t> formDim(llvm::ArrayRef<int64_t> shape, int64_t d,
                               llvm::ArrayRef<int64_t> form);

/// The shape in `form` of an element-wise operand of shape `operand`
/// broadcast to `space` (unit where it is broadcast), where `form` is a
/// row-major form of `space`; nullopt when it is broadcast along part of a
/// dim that `form` merges or splits.
std::optional<llvm::SmallVector<int64_t>>
broadcastInForm(llvm::ArrayRef<int64_t> operand, llvm::ArrayRef<int64_t> space,
                llvm::ArrayRef<int64_t> form);

/// `v` reshaped to `t` (a kernel form of it) with tensor.collapse_shape
/// and/or tensor.expand_shape; `v` itself when equal.
mlir::Value reshapeView(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        mlir::RankedTensorType t);

/// The layout that changes nothing: dim j is source dim j.
DimMap identityMap(int64_t rank);

/// `m` applied to `t`, or null when `m` is not a layout of `t` (a dim out of
/// range or repeated, a non-unit dim omitted).
mlir::RankedTensorType applyDimMap(mlir::RankedTensorType t,
                                   llvm::ArrayRef<int64_t> m);

/// The layout of `to` relative to `from` when both have the same non-unit
/// dims in order: non-unit dims matched in order, unit dims of `to` new.
DimMap alignNonUnitDims(llvm::ArrayRef<int64_t> to,
                        llvm::ArrayRef<int64_t> from);

/// Whether `m` is a layout of `t` that only adds or drops unit dims.
bool onlyUnitDims(llvm::ArrayRef<int64_t> m, mlir::RankedTensorType t);

/// `v` reshaped to `t` (same non-unit dims in order) with
/// tensor.collapse_shape and/or tensor.expand_shape; `v` itself when equal.
mlir::Value unitReshape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        mlir::RankedTensorType t);

/// Pushes layout changes up the kernel ops of one graph body under
/// construction. Graph arguments it reaches become views outside the graph
/// (created with `outer`, which must insert before the graph), passed as new
/// operands (appended to `operands`, one per body argument).
class LayoutBuilder {
public:
  LayoutBuilder(mlir::OpBuilder &outer, mlir::Block *body,
                llvm::SmallVectorImpl<mlir::Value> &operands)
      : outer(outer), body(body), operands(operands) {}

  /// `m` applied to the kernel value `v` (built at the end of the body), or
  /// null when the kernel ops cannot express it.
  mlir::Value retarget(mlir::Value v, llvm::ArrayRef<int64_t> m);

  /// The kernel value `v` (a kernel form of a program value of type
  /// `programType`) in the layout `want` relative to `programType` (nullopt:
  /// exactly `programType`); null when not expressible.
  mlir::Value convert(mlir::Value v, mlir::RankedTensorType programType,
                      const std::optional<DimMap> &want);

  /// The kernel value `v` in the kernel form `target` (any row-major
  /// reshape of it: dims merged, split, unit dims added or dropped), pushed
  /// up the kernel ops that computed it; null when they cannot express it
  /// (a matmul's m or n split or merged, a reduced dim merged with others,
  /// a broadcast along part of a merged dim).
  mlir::Value reshape(mlir::Value v, mlir::RankedTensorType target);

  /// The kernel value `v` (a kernel form of a program value of type
  /// `programType`) in the layout `want`, then reshaped to `target`. A
  /// layout that only adds or drops unit dims is not applied first: `v` is
  /// then a kernel form of `target` already and is reshaped directly, so a
  /// merged form is not reshaped back to the program type on the way.
  mlir::Value convertThenReshape(mlir::Value v,
                                 mlir::RankedTensorType programType,
                                 const std::optional<DimMap> &want,
                                 mlir::RankedTensorType target);

  /// The ops created outside the graph, in order.
  llvm::SmallVector<mlir::Operation *> views;

private:
  mlir::Value compute(mlir::Value v, mlir::RankedTensorType t, DimMap m,
                      mlir::RankedTensorType target);
  mlir::Value computeReshape(mlir::Value v, mlir::RankedTensorType t,
                             mlir::RankedTensorType target);
  /// A new body argument for `view`, a chain of views made outside the
  /// graph from `from` (recorded in `views`), passed as a new operand.
  mlir::Value viewArgument(mlir::Value view, mlir::Value from);
  mlir::OpBuilder &outer;
  mlir::Block *body;
  llvm::SmallVectorImpl<mlir::Value> &operands;
  std::map<std::pair<void *, std::vector<int64_t>>, mlir::Value> memo;
  std::map<std::pair<void *, std::vector<int64_t>>, mlir::Value> reshapeMemo;
};

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

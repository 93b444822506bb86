//===- BlockUGraph.h - Block graphs as compact μGraphs ----------*- C++ -*-===//
//
// Imports the body of a graph-defined kernel into a block-level UGraph. The
// import *is* the verifier of the μGraph rules: it builds the graph with the
// UGraph builders (the single statement of shapes and phases) and reports a
// builder's refusal at the offending operation.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_DIALECT_BLOCK_IR_BLOCKUGRAPH_H
#define MIRAGE_DIALECT_BLOCK_IR_BLOCKUGRAPH_H

#include "Mirage/Semantics/UGraph.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"

#include <optional>

namespace mirage {

/// The UGraph element type of an MLIR float type (f16, bf16, f32, f64).
std::optional<ElemType> toElemType(mlir::Type type);
/// The MLIR type of a UGraph element type.
mlir::Type toMLIRType(mlir::MLIRContext *ctx, ElemType type);

namespace block {

/// Imports and verifies `body`, the region of `owner` (a mirage_kernel.custom),
/// for a grid, for-loop range and target. Emits errors on `owner` or on the
/// offending op and fails if any μGraph rule is broken.
llvm::FailureOr<UGraph> importBlockGraph(mlir::Operation *owner,
                                         mlir::Region &body,
                                         const GridDims &grid,
                                         int64_t forloopRange,
                                         llvm::StringRef target);

/// The name of the op a block graph lives in.
constexpr llvm::StringLiteral kBlockGraphParent = "mirage_kernel.custom";

} // namespace block
} // namespace mirage

#endif // MIRAGE_DIALECT_BLOCK_IR_BLOCKUGRAPH_H

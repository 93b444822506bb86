//===- KernelUGraph.h - Kernel graphs as compact μGraphs --------*- C++ -*-===//
#ifndef MIRAGE_DIALECT_KERNEL_IR_KERNELUGRAPH_H
#define MIRAGE_DIALECT_KERNEL_IR_KERNELUGRAPH_H

#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"
#include "Mirage/Semantics/UGraph.h"

namespace mirage::kernel {

/// Imports a verified kernel graph (with its nested block and thread graphs)
/// into a compact UGraph. Emits an error and fails only on IR that the
/// verifiers would reject.
llvm::FailureOr<UGraph> importKernelGraph(GraphOp graph);

/// Builds a `mirage_kernel.graph` op equivalent to `g` at the builder's
/// insertion point, with `inputs` as its operands.
GraphOp exportKernelGraph(mlir::OpBuilder &builder, mlir::Location loc,
                          const UGraph &g, mlir::ValueRange inputs);

/// Pairs every graph under `root` that names a `reference` with the graph of
/// that name, in walk order. Emits an error on a duplicate graph name, on a
/// reference that names no graph, and on a graph that does not read the
/// values its reference reads in the same order (the operands that differ
/// are named); such a graph is left out. Fails if it emitted any.
mlir::LogicalResult collectReferencePairs(
    mlir::Operation *root,
    llvm::SmallVectorImpl<std::pair<GraphOp, GraphOp>> &pairs);

} // namespace mirage::kernel

#endif // MIRAGE_DIALECT_KERNEL_IR_KERNELUGRAPH_H

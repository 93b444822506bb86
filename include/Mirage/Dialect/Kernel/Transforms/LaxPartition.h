//===- LaxPartition.h - Split kernel graphs into LAX pieces -----*- C++ -*-===//
//
// The paper's LAX fragment (Def. 5.1): multi-linear ops, division and exp,
// with at most one exp on any input->output path. `partitionLax` enforces the
// exp rule by splitting a kernel graph into consecutive graphs chained
// through results; non-LAX ops either stay and are listed in the graph's
// `mirage.non_lax` attribute or, with `strict`, get graphs of their own.
// See docs/Rationale/Import.md, "Non-LAX ops: what we chose".
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_DIALECT_KERNEL_TRANSFORMS_LAXPARTITION_H
#define MIRAGE_DIALECT_KERNEL_TRANSFORMS_LAXPARTITION_H

#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"

#include "llvm/ADT/SmallVector.h"

namespace mirage {

/// Whether `op` is a kernel op outside LAX: silu, gelu, relu, sigmoid, tanh,
/// erf, pow and reduce max.
bool isNonLaxKernelOp(mlir::Operation *op);

/// Splits `g` so that no input->output path of any piece crosses more than
/// one exp (and, with `strict`, so that each non-LAX op is alone in its
/// piece). `g` is erased and its uses rewired when it is split. Each piece
/// holding non-LAX ops gets `mirage.non_lax = [names]`. Returns the pieces in
/// program order (just `g` when no split is needed).
llvm::SmallVector<kernel::GraphOp> partitionLax(kernel::GraphOp g,
                                                bool strict);

/// Splits `g` at its matmul chains: a piece starts at every matmul whose
/// operands already crossed a matmul in the current piece, so that no
/// input->output path of a piece crosses more than one matmul (one GEMM
/// and what surrounds it, the unit the search fuses best). For a graph the
/// search found no kernel for as a whole (docs/Rationale/FusionSearch.md,
/// "Graphs too large for one kernel"). `g` is erased and its uses rewired
/// when it is split; the pieces are unnamed, in program order, and tagged
/// like partitionLax's. Returns just `g` when no split is needed.
llvm::SmallVector<kernel::GraphOp> splitAtMatmulChains(kernel::GraphOp g);

/// Splits `g` before its matmuls: a matmul reading a value computed in its
/// piece (a LayerNorm's output) starts the next piece, with what follows
/// it; matmuls reading the same piece share the next one. For a piece the
/// search found no kernel for (docs/Rationale/FusionSearch.md, "Prologues
/// cut off before a matmul"). `g` is erased and its uses rewired when it is
/// split; the pieces are unnamed, in program order, and tagged like
/// partitionLax's. Returns just `g` when no matmul reads a computed value.
llvm::SmallVector<kernel::GraphOp> splitMatmulPrologues(kernel::GraphOp g);

} // namespace mirage

#endif // MIRAGE_DIALECT_KERNEL_TRANSFORMS_LAXPARTITION_H

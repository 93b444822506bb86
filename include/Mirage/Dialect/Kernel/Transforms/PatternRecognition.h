//===- PatternRecognition.h - Idioms on kernel graphs -----------*- C++ -*-===//
//
// Rewrites the element-wise spellings that frontends emit into the kernel
// dialect's fused ops: `1/(1+exp(-x))` -> sigmoid, `x*sigmoid(x)` -> silu,
// the tanh form of GELU -> gelu, `x*rsqrt(mean(x^2)+eps)` (or
// `x/sqrt(...)`) -> rms_norm, then `rms_norm(x)*gamma` -> rms_norm weight.
// Used by `--mirage-import`; see docs/Rationale/Import.md.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_DIALECT_KERNEL_TRANSFORMS_PATTERNRECOGNITION_H
#define MIRAGE_DIALECT_KERNEL_TRANSFORMS_PATTERNRECOGNITION_H

#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mirage {

/// Adds the sigmoid, silu, gelu, rms_norm and rms_norm-weight patterns on
/// `mirage_kernel` ops to `patterns`.
void populateKernelRecognitionPatterns(mlir::RewritePatternSet &patterns);

/// Drops multiplications by 1 (exact) and applies the recognition patterns
/// (only when `recognize`; no folding, at most 8 iterations) greedily to the
/// body of `g`, then erases the ops that became dead.
void simplifyKernelGraph(kernel::GraphOp g, bool recognize = true);

} // namespace mirage

#endif // MIRAGE_DIALECT_KERNEL_TRANSFORMS_PATTERNRECOGNITION_H

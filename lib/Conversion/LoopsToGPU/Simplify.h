//===- Simplify.h - Clean-up shared by the GPU stages -----------*- C++ -*-===//
//
// Internal to LoopsToGPU (defined in MapToGPU.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_CONVERSION_LOOPSTOGPU_SIMPLIFY_H
#define MIRAGE_LIB_CONVERSION_LOOPSTOGPU_SIMPLIFY_H

namespace mlir {
class Operation;
} // namespace mlir

namespace mirage::detail {
/// Canonicalize + CSE on `root`.
void simplify(mlir::Operation *root);
} // namespace mirage::detail

#endif // MIRAGE_LIB_CONVERSION_LOOPSTOGPU_SIMPLIFY_H

//===- KernelEmitter.h - One kernel function per block graph ----*- C++ -*-===//
#ifndef MIRAGE_LIB_CONVERSION_KERNELTOLOOPS_KERNELEMITTER_H
#define MIRAGE_LIB_CONVERSION_KERNELTOLOOPS_KERNELEMITTER_H

#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/UGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace mirage::loops {

/// Emits `func.func @name(inputs..., outputs...)` for the block graph at
/// `mb`'s insertion point, as its launch plan `plan` says. On failure
/// nothing is left behind.
std::optional<mlir::func::FuncOp>
emitKernel(mlir::OpBuilder &mb, mlir::Location loc, llvm::StringRef name,
           const UGraph &block, const KernelPlan &plan, std::string &error);

} // namespace mirage::loops

#endif // MIRAGE_LIB_CONVERSION_KERNELTOLOOPS_KERNELEMITTER_H

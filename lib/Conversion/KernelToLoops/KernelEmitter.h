//===- KernelEmitter.h - One kernel function per block graph ----*- C++ -*-===//
#ifndef MIRAGE_LIB_CONVERSION_KERNELTOLOOPS_KERNELEMITTER_H
#define MIRAGE_LIB_CONVERSION_KERNELTOLOOPS_KERNELEMITTER_H

#include "Mirage/Semantics/KernelPlan.h"
#include "Mirage/Semantics/TailCombine.h"
#include "Mirage/Semantics/UGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace mirage::loops {

/// The consumer kernel a producer runs in its tail (TailCombine.md).
struct TailSpec {
  const TailCombine *combine = nullptr;
  const UGraph *block = nullptr;    // the consumer's block graph
  const KernelPlan *plan = nullptr; // and its plan
  /// Per consumer input: the producer output it is, or -1 (an argument).
  llvm::ArrayRef<int32_t> inputFromProducer;
};

/// Emits `func.func @name(inputs..., outputs...)` for the block graph at
/// `mb`'s insertion point, as its launch plan `plan` says. With `tail`, the
/// consumer's block of each group runs at the end of the group's last
/// producer block, and the function also takes the consumer's other inputs, its
/// outputs and a `memref<groups x i32>` of zeroed counters. On failure
/// nothing is left behind.
std::optional<mlir::func::FuncOp>
emitKernel(mlir::OpBuilder &mb, mlir::Location loc, llvm::StringRef name,
           const UGraph &block, const KernelPlan &plan, std::string &error,
           const TailSpec *tail = nullptr);

} // namespace mirage::loops

#endif // MIRAGE_LIB_CONVERSION_KERNELTOLOOPS_KERNELEMITTER_H

//===- InitAllDialects.h - Register the Mirage dialects ---------*- C++ -*-===//
//
// One place that lists the dialects mirage-opt and library users register,
// so every tool sees the same set.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_INITALLDIALECTS_H
#define MIRAGE_INITALLDIALECTS_H

#include "Mirage/Dialect/Block/IR/BlockDialect.h"
#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"
#include "Mirage/Dialect/Thread/IR/ThreadDialect.h"
#include "mlir/IR/DialectRegistry.h"

namespace mirage {
inline void registerAllMirageDialects(mlir::DialectRegistry &registry) {
  registry.insert<kernel::KernelDialect, block::BlockDialect,
                  thread::ThreadDialect>();
}
} // namespace mirage

#endif // MIRAGE_INITALLDIALECTS_H

//===- Passes.h - Conversions into the Mirage dialects ----------*- C++ -*-===//
#ifndef MIRAGE_CONVERSION_PASSES_H
#define MIRAGE_CONVERSION_PASSES_H

#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage {
#define GEN_PASS_DECL
#include "Mirage/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Mirage/Conversion/Passes.h.inc"
} // namespace mirage

#endif // MIRAGE_CONVERSION_PASSES_H

//===- Passes.h - Mirage analysis passes ------------------------*- C++ -*-===//
#ifndef MIRAGE_ANALYSIS_PASSES_H
#define MIRAGE_ANALYSIS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage {
#define GEN_PASS_DECL
#include "Mirage/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Mirage/Analysis/Passes.h.inc"
} // namespace mirage

#endif // MIRAGE_ANALYSIS_PASSES_H

//===- Passes.h - Mirage passes ---------------------------------*- C++ -*-===//
#ifndef MIRAGE_TRANSFORMS_PASSES_H
#define MIRAGE_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage {
#define GEN_PASS_DECL
#include "Mirage/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Mirage/Transforms/Passes.h.inc"
} // namespace mirage

#endif // MIRAGE_TRANSFORMS_PASSES_H

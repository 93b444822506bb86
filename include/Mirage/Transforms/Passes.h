//===- Passes.h - Mirage passes ---------------------------------*- C++ -*-===//
#ifndef MIRAGE_TRANSFORMS_PASSES_H
#define MIRAGE_TRANSFORMS_PASSES_H

#include "Mirage/Dialect/Block/IR/BlockDialect.h"
#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"
#include "Mirage/Dialect/Thread/IR/ThreadDialect.h"
#include "Mirage/Search/SearchDefaults.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage {
#define GEN_PASS_DECL
#include "Mirage/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Mirage/Transforms/Passes.h.inc"
} // namespace mirage

#endif // MIRAGE_TRANSFORMS_PASSES_H

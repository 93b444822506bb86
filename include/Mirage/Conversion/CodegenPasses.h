//===- CodegenPasses.h - Kernel graphs to loops and the CPU -----*- C++ -*-===//
#ifndef MIRAGE_CONVERSION_CODEGENPASSES_H
#define MIRAGE_CONVERSION_CODEGENPASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

namespace mirage {
#define GEN_PASS_DECL
#include "Mirage/Conversion/CodegenPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "Mirage/Conversion/CodegenPasses.h.inc"
} // namespace mirage

#endif // MIRAGE_CONVERSION_CODEGENPASSES_H

//===- ThreadDialect.h - The thread-level μGraph dialect --------------*- C++ -*-===//
#ifndef MIRAGE_DIALECT_THREAD_IR_THREADDIALECT_H
#define MIRAGE_DIALECT_THREAD_IR_THREADDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Mirage/Dialect/Common/MirageEnums.h"
#include "Mirage/Semantics/ShapeRules.h"

#include "Mirage/Dialect/Thread/IR/ThreadOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "Mirage/Dialect/Thread/IR/ThreadOps.h.inc"

#endif // MIRAGE_DIALECT_THREAD_IR_THREADDIALECT_H

//===- MirageEnums.h - Operator kinds shared by all μGraph levels -*- C++ -*-===//
#ifndef MIRAGE_DIALECT_COMMON_MIRAGEENUMS_H
#define MIRAGE_DIALECT_COMMON_MIRAGEENUMS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "Mirage/Dialect/Common/MirageEnums.h.inc"

#endif // MIRAGE_DIALECT_COMMON_MIRAGEENUMS_H

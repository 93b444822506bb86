//===- KernelDialect.h - The kernel-level μGraph dialect --------------*- C++ -*-===//
#ifndef MIRAGE_DIALECT_KERNEL_IR_KERNELDIALECT_H
#define MIRAGE_DIALECT_KERNEL_IR_KERNELDIALECT_H

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

#include "Mirage/Dialect/Kernel/IR/KernelOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "Mirage/Dialect/Kernel/IR/KernelOps.h.inc"

namespace mirage::kernel {
/// This dialect's instances of the op classes shared by the kernel and block
/// levels (MirageOpBases.td), for code written once over both.
struct SharedOps {
  using Matmul = MatmulOp;
  using Unary = UnaryOp;
  using Binary = BinaryOp;
  using Reduce = ReduceOp;
  using RmsNorm = RmsNormOp;
  using Concat = ConcatOp;
};
} // namespace mirage::kernel

#endif // MIRAGE_DIALECT_KERNEL_IR_KERNELDIALECT_H

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

/// Names of the launch attributes the levels below the kernel graph carry
/// (KernelDialect.td, `discardableAttrs`; verified by the dialect).
inline constexpr llvm::StringLiteral kKernelAttr =
    KernelDialect::KernelAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kGridAttr =
    KernelDialect::GridAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kBlockAttr =
    KernelDialect::BlockAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kMinBlocksPerSMAttr =
    KernelDialect::MinBlocksPerSmAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kDynamicSharedBytesAttr =
    KernelDialect::DynamicSharedBytesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kStaticSharedBytesAttr =
    KernelDialect::StaticSharedBytesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kWaitsOnPreviousAttr =
    KernelDialect::WaitsOnPreviousAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kLaunchesDependentsAttr =
    KernelDialect::LaunchesDependentsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPrefetchStagesAttr =
    KernelDialect::PrefetchStagesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPrefetchGroupAttr =
    KernelDialect::PrefetchGroupAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPrefetchWaitAttr =
    KernelDialect::PrefetchWaitAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kReductionTreeAttr =
    KernelDialect::ReductionTreeAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kReductionFoldAttr =
    KernelDialect::ReductionFoldAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kReductionFinishAttr =
    KernelDialect::ReductionFinishAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kHostGraphAttr =
    KernelDialect::HostGraphAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kHostReferenceAttr =
    KernelDialect::HostReferenceAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPtxKernelsAttr =
    KernelDialect::PtxKernelsAttrHelper::getNameStr();
} // namespace mirage::kernel

#endif // MIRAGE_DIALECT_KERNEL_IR_KERNELDIALECT_H

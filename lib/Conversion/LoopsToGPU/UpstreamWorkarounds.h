//===- UpstreamWorkarounds.h - Upstream MLIR 22's defects -------*- C++ -*-===//
//
// Every workaround of the GPU lowering for a defect of upstream MLIR 22.1 is
// here (UpstreamWorkarounds.cpp), each with the test that pins the upstream
// behaviour it works around (test/Conversion/LoopsToGPU/upstream-*.mlir,
// run against the stock mlir-opt). When a pinning test starts failing,
// upstream has changed: the workaround can go, or must change.
//
//   hideScalarMmaSeeds / restoreScalarMmaSeeds
//       convertVectorToNVVMCompatibleMMASync fails a function with any scalar
//       element-wise op in it.          upstream-scalar-mma-seeds.mlir
//   populateBF16MmaSyncToNVVMPatterns (LoopsToGPU.h)
//       convert-nvgpu-to-nvvm cannot lower a bf16 nvgpu.mma.sync; the bf16
//       operands' f16 view for the fragment loads is in TensorCores.cpp
//       (retypeBF16Operands).           upstream-bf16-mma-sync.mlir
//   externalizeDynamicSharedMemory
//       gpu.dynamic_shared_memory becomes an internal 1-byte static .shared
//       variable.                       upstream-dynamic-shared-memory.mlir
//   alignVectorAccesses
//       vector.load/store lowered with element alignment: scalar accesses.
//                                       upstream-vector-access-alignment.mlir
//   rejectKernelMallocs (with the stage mirage-workgroup-alloc-to-global)
//       a workgroup memref.alloc in a kernel silently becomes a per-thread
//       malloc.                         upstream-workgroup-alloc-malloc.mlir
//   swizzlePermutesRows (AsyncCopies.cpp, before the XOR swizzle)
//       nvgpu's optimizeSharedMemoryReadsAndWrites xors the last index with
//       bits of the one before as if the last dim were a power of two: on a
//       4x36 f16 tile it maps column 32 of row 1 to 40 (row 2's column 4),
//       two elements to one address.   upstream-swizzle-non-power-of-two.mlir
//   foldWorkgroupCollapseViews / swizzleSeesEveryAccess (AsyncCopies.cpp)
//       the same swizzle rewrites the accesses of the buffer's own value
//       only: an ldmatrix through a memref.collapse_shape of it keeps the
//       unswizzled address while the stores that fill it move (only
//       memref.subview views make upstream decline). Seen on an H200: a
//       QK-norm attention kernel's P·V read P permuted, no race, no
//       out-of-bounds access.        upstream-swizzle-through-views.mlir
//   reorderTransposedALdMatrix (TensorCores.cpp, after the conversion)
//       a transposed A operand's ldmatrix.x4.trans delivers the fragment's
//       middle two registers swapped (rows 0-7 of K 8-15 where mma.sync
//       wants rows 8-15 of K 0-7): a wrong product, no error.
//                                       upstream-ldmatrix-trans-a.mlir
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_CONVERSION_LOOPSTOGPU_UPSTREAMWORKAROUNDS_H
#define MIRAGE_LIB_CONVERSION_LOOPSTOGPU_UPSTREAMWORKAROUNDS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mirage::detail {

/// Hides the scalar ops of `kernel` that upstream's mma.sync conversion
/// would seed on behind unrealized casts; restoreScalarMmaSeeds puts them
/// back exactly (name, operands, properties, attributes).
llvm::SmallVector<mlir::UnrealizedConversionCastOp>
hideScalarMmaSeeds(mlir::func::FuncOp kernel);
mlir::LogicalResult
restoreScalarMmaSeeds(llvm::ArrayRef<mlir::UnrealizedConversionCastOp> hidden);

/// Gives the zero-length shared global that gpu.dynamic_shared_memory lowers
/// to external linkage, so NVPTX prints `.extern .shared .align 16 .b8
/// name[];`, the base of the dynamic region. Run after the NVVM conversion.
void externalizeDynamicSharedMemory(mlir::gpu::GPUModuleOp module);

/// Sets `alignment` on the 1-D vector.load/store of `module` not in
/// `keep` (the ones the GPU stages placed themselves) to their size, up to 16
/// bytes: the loop IR emits power-of-two-sized accesses at multiples of
/// their size (the assumption cp.async makes too).
void alignVectorAccesses(mlir::gpu::GPUModuleOp module,
                         const llvm::SmallPtrSetImpl<mlir::Operation *> &keep);

/// Fails with an error on a memref.alloc left inside a kernel of `module`
/// (it would become a per-thread malloc).
mlir::LogicalResult rejectKernelMallocs(mlir::gpu::GPUModuleOp module);

/// Whether upstream's XOR swizzle of a workgroup buffer of type `t`
/// (nvgpu::optimizeSharedMemoryReadsAndWrites) permutes each row: its last
/// dim must be a power of two, the range of the xor it applies.
bool swizzlePermutesRows(mlir::MemRefType t);

/// Rewrites the accesses (memref/vector load and store, ldmatrix) through a
/// memref.collapse_shape of a workgroup alloc in `kernel` into accesses of
/// the alloc, where each collapsed dim comes from one source dim (the rest
/// of its group are 1s), and erases the views left unused.
void foldWorkgroupCollapseViews(mlir::func::FuncOp kernel);

/// Whether upstream's XOR swizzle of `a` would move every access of it: each
/// user is a load, store, ldmatrix or async copy of the buffer itself (no
/// view) of at most 16 bytes, or its dealloc.
bool swizzleSeesEveryAccess(mlir::memref::AllocOp a);

/// Swaps the middle two registers of every ldmatrix.x4.trans of 16-bit
/// elements in `kernel` (an A fragment read transposed, the only such load
/// upstream's mma.sync conversion makes; TransposedDecodeMma.md). Run right
/// after that conversion.
void reorderTransposedALdMatrix(mlir::func::FuncOp kernel);

} // namespace mirage::detail

#endif // MIRAGE_LIB_CONVERSION_LOOPSTOGPU_UPSTREAMWORKAROUNDS_H

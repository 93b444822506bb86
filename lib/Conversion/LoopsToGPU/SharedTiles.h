//===- SharedTiles.h - Which shared tile an access touches ------*- C++ -*-===//
//
// Internal to LoopsToGPU (defined in AsyncCopyOrder.cpp): the async-copy
// stage groups copies by the tiles they write and places its waits before
// the readers of a group's tiles, and the check after it follows the same
// tiles; the mapping stage and the
// shared-memory race check tell shared memrefs apart the same way.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_CONVERSION_LOOPSTOGPU_SHAREDTILES_H
#define MIRAGE_LIB_CONVERSION_LOOPSTOGPU_SHAREDTILES_H

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SetVector.h"

namespace mirage::detail {
/// Whether `t` is a memref in workgroup (shared) memory.
inline bool isSharedMemRef(mlir::Type t) {
  auto m = mlir::dyn_cast<mlir::MemRefType>(t);
  return m && mlir::nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(m);
}
/// The memref.alloc `v` is a view of (through view-like ops), or null.
mlir::Value rootAlloc(mlir::Value v);
/// The memref `op` itself reads (memref.load, vector.transfer_read,
/// vector.load, nvgpu.ldmatrix), or null.
mlir::Value readMemref(mlir::Operation *op);
/// The memref `op` itself writes (memref.store, vector.transfer_write,
/// vector.store, the destination of nvgpu.device_async_copy), or null.
mlir::Value writtenMemref(mlir::Operation *op);
/// Whether `op` or an op nested in it reads a view of one of `allocs`.
bool readsAnyOf(mlir::Operation *op,
                const llvm::SmallSetVector<mlir::Value, 4> &allocs);
} // namespace mirage::detail

#endif // MIRAGE_LIB_CONVERSION_LOOPSTOGPU_SHAREDTILES_H

//===- LoopsToGPU.h - Loop-level kernels to PTX ----------------*- C++ -*-===//
//
// The GPU half of the code generator: takes the target-neutral loop IR of
// mirage-lower-kernels-to-loops (scf.forall over #gpu.block / #gpu.thread /
// #gpu.warp, workgroup memref.alloc tiles, vector.contract) to PTX.
// See docs/Rationale/Lowering.md.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_CONVERSION_LOOPSTOGPU_H
#define MIRAGE_CONVERSION_LOOPSTOGPU_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mirage {
#define GEN_PASS_DECL
#include "Mirage/Conversion/LoopsToGPUPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "Mirage/Conversion/LoopsToGPUPasses.h.inc"

/// Registers the passes and pipelines of this library.
void registerLoopsToGPU();
} // namespace mirage

#endif // MIRAGE_CONVERSION_LOOPSTOGPU_H

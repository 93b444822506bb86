//===- LoopsToCPU.h - Run the loop-level kernels on the host ----*- C++ -*-===//
//
// The CPU half of the code generator (docs/Rationale/Lowering.md): the same
// loop IR the GPU path starts from, with workgroup tiles as stack buffers of
// each block and foralls as loops, compiled with the MLIR ExecutionEngine.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_CONVERSION_LOOPSTOCPU_H
#define MIRAGE_CONVERSION_LOOPSTOCPU_H

#include "Mirage/Conversion/KernelToLoops.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mirage {

/// Rewrites workgroup `memref.alloc`s into `memref.alloca`s in the default
/// memory space at the kernel function's entry: the blocks of the grid run
/// one after another on the host and reuse one set of tiles.
void convertWorkgroupTilesToStack(mlir::Operation *root);

/// The passes that take a loop-level kernel module (anchored on it) to the
/// LLVM dialect for the host, with the bare-pointer calling convention.
void buildLoopsToLLVMPipeline(mlir::OpPassManager &pm);

/// A kernel module compiled for the host.
class CpuExecutable {
public:
  ~CpuExecutable();
  /// Compiles `kernels` (a loop-level module; consumed: it is lowered in
  /// place). Returns null with `error` set on failure.
  static std::unique_ptr<CpuExecutable>
  compile(mlir::ModuleOp kernels, std::string &error);
  /// Calls the host function `name` with one pointer per memref argument.
  bool run(llvm::StringRef name, llvm::ArrayRef<void *> buffers,
           std::string &error);

private:
  CpuExecutable() = default;
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

} // namespace mirage

#endif // MIRAGE_CONVERSION_LOOPSTOCPU_H

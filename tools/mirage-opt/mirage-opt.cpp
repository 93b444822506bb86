//===- mirage-opt.cpp - The Mirage optimizer driver -----------------------===//
#include "Mirage/InitAllDialects.h"
#include "Mirage/InitAllPasses.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.module bodies to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mirage::registerAllMirageDialects(registry);
  mlir::registerAllPasses();
  mirage::registerAllMiragePasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Mirage multi-level tensor superoptimizer driver\n",
      registry));
}

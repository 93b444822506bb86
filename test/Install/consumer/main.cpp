//===- main.cpp - A client of the installed Mirage package ----------------===//
//
// mirage-consumer FILE [PASSES]: registers the Mirage dialects (and func),
// parses FILE, runs PASSES if given (a textual pipeline on the module, as
// inside `builtin.module(...)`, e.g. "mirage-compare"; the Mirage passes and
// pipelines are registered), and prints the module.
//
//===----------------------------------------------------------------------===//

#include "Mirage/InitAllDialects.h"
#include "Mirage/InitAllPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: mirage-consumer FILE [PASSES]\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  mirage::registerAllMirageDialects(registry);
  registry.insert<mlir::func::FuncDialect>();
  mirage::registerAllMiragePasses();

  mlir::MLIRContext context(registry);
  // Print every diagnostic, remarks included (the default prints errors only).
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], sourceMgr,
                                            &context);
  if (!module)
    return 1;

  if (argc > 2) {
    mlir::PassManager pm(&context);
    if (mlir::failed(mlir::parsePassPipeline(argv[2], pm, llvm::errs())) ||
        mlir::failed(pm.run(*module)))
      return 1;
  }
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}

//===- FuzzSupport.cpp - What the libFuzzer targets share -----------------===//
#include "FuzzSupport.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

std::unique_ptr<MLIRContext>
mirage::fuzz::makeQuietContext(const DialectRegistry &registry) {
  auto ctx = std::make_unique<MLIRContext>(registry,
                                           MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  ctx->getDiagEngine().registerHandler([](Diagnostic &) {});
  return ctx;
}

void mirage::fuzz::finding(llvm::StringRef what, llvm::StringRef detail) {
  llvm::errs() << "MIRAGE FUZZ FINDING: " << what << "\n";
  if (!detail.empty())
    llvm::errs() << detail << "\n";
  llvm::errs().flush();
  std::abort();
}

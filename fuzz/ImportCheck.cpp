//===- ImportCheck.cpp - Run --mirage-import and check its output ---------===//
#include "ImportCheck.h"
#include "FuzzSupport.h"

#include "Mirage/InitAllDialects.h"
#include "Mirage/Conversion/Passes.h"
#include "Mirage/Support/UpstreamParserGuard.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

bool mirage::fuzz::checkImport(llvm::StringRef text, bool strictLax) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    registerAllMirageDialects(*r);
    r->insert<func::FuncDialect, arith::ArithDialect, math::MathDialect,
              tensor::TensorDialect, linalg::LinalgDialect,
              tosa::TosaDialect>();
    return r;
  }();
  // Text that crashes MLIR's own parser is upstream's bug, found already
  // (UpstreamParserGuard.h); mirage-opt refuses it the same way.
  if (mirage::findUpstreamParserHazard(text))
    return false;
  std::unique_ptr<MLIRContext> ctx = makeQuietContext(*registry);
  ParserConfig config(ctx.get());
  // MLIR's lexer reads up to a terminating NUL (MemoryBuffer's guarantee);
  // a StringRef from libFuzzer has none, so parse a NUL-terminated copy.
  std::string source = text.str();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, config);
  if (!module)
    return false;

  PassManager pm(ctx.get());
  pm.enableVerifier(false);
  MirageImportOptions options;
  options.strictLax = strictLax;
  pm.addNestedPass<func::FuncOp>(createMirageImport(options));
  if (failed(pm.run(*module)))
    return true; // diagnosed; a failing pass need not leave valid IR
  if (failed(verify(*module))) {
    std::string out;
    llvm::raw_string_ostream os(out);
    os << "strict-lax=" << strictLax << "\ninput:\n" << text;
    finding("--mirage-import produced IR that does not verify", out);
  }
  return true;
}

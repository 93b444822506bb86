//===- UGraphIRFuzzer.cpp - Fuzz parsing and verifying μGraph IR ----------===//
//
// Input: MLIR text (seeds: test/Dialect, test/Workloads). The parser runs
// the op verifiers of the kernel, block and thread dialects. Whatever
// parses and verifies must also import into a UGraph (importKernelGraph
// fails only on IR the verifiers reject), and the graph exported back from
// that UGraph must verify: a verified graph that does not import, or an
// export that is invalid IR, is a finding, as is any crash or sanitizer
// report on the way.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mirage;

static std::string printed(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os, OpPrintingFlags().printGenericOpForm());
  return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    registerAllMirageDialects(*r);
    r->insert<func::FuncDialect, arith::ArithDialect>();
    return r;
  }();
  std::unique_ptr<MLIRContext> ctx = fuzz::makeQuietContext(*registry);
  ParserConfig config(ctx.get());
  // MLIR's lexer reads up to a terminating NUL (MemoryBuffer's guarantee);
  // libFuzzer's bytes have none, so parse a NUL-terminated copy.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module)
    return 0;

  llvm::SmallVector<kernel::GraphOp> graphs;
  module->walk([&](kernel::GraphOp g) { graphs.push_back(g); });
  for (kernel::GraphOp g : graphs) {
    // Graphs nested in a graph are covered by their parent's import.
    if (g->getParentOfType<kernel::GraphOp>())
      continue;
    FailureOr<UGraph> ug = kernel::importKernelGraph(g);
    if (failed(ug))
      fuzz::finding("a verified kernel graph does not import", printed(g));
    if (ug->inputs.size() != g->getNumOperands())
      continue; // an input-less export needs operands we do not have
    OpBuilder builder(g);
    kernel::GraphOp back =
        kernel::exportKernelGraph(builder, g.getLoc(), *ug, g->getOperands());
    if (!back || failed(verify(back)))
      fuzz::finding("the export of an imported kernel graph does not verify",
                    printed(g));
    back->erase();
  }
  return 0;
}

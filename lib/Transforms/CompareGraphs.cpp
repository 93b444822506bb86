//===- CompareGraphs.cpp - Compare graphs with their references -----------===//
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/MemoryLimit.h"
#include "Mirage/Semantics/RandomInputs.h"
#include "Mirage/Transforms/Passes.h"

#include "llvm/Support/Format.h"

#include <cmath>

namespace mirage {
#define GEN_PASS_DEF_MIRAGECOMPARE
#include "Mirage/Transforms/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

namespace {
struct ComparePass : mirage::impl::MirageCompareBase<ComparePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<kernel::GraphOp, kernel::GraphOp>> pairs;
    bool ok = succeeded(kernel::collectReferencePairs(getOperation(), pairs));
    for (auto [cand, ref] : pairs)
      ok &= succeeded(compare(cand, ref));
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult compare(kernel::GraphOp candOp, kernel::GraphOp refOp) {
    // The inputs are the reference's (collectReferencePairs).
    if (candOp.getResultTypes() != refOp.getResultTypes())
      return candOp.emitError("signature differs from reference '")
             << *candOp.getReference() << "'";
    FailureOr<UGraph> cand = kernel::importKernelGraph(candOp);
    FailureOr<UGraph> ref = kernel::importKernelGraph(refOp);
    if (failed(cand) || failed(ref))
      return failure();
    if (std::string over =
            memoryOverLimit(float64RunBytes({&*cand, &*ref}), "float64 values");
        !over.empty())
      return candOp.emitError("graph '")
             << candOp.getSymName().value_or("<unnamed>")
             << "' cannot be compared with reference '"
             << *candOp.getReference() << "': the runs " << over;
    Float64Semantics sem;
    Evaluator<Float64Semantics> eval(sem);
    double worst = 0;
    for (unsigned t = 0; t < trials; ++t) {
      auto inputs = randomInputs(*ref, seed + t);
      auto a = eval.run(*cand, inputs);
      auto b = eval.run(*ref, inputs);
      for (size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, maxRelativeError(a[i], b[i]));
    }
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << "graph '" << candOp.getSymName().value_or("<unnamed>") << "' "
       << (worst <= tolerance ? "matches" : "differs from") << " reference '"
       << *candOp.getReference() << "': ";
    if (std::isinf(worst)) // maxRelativeError: a NaN/inf where the other
                           // graph is finite (or a different inf)
      os << "non-finite values (NaN or inf) where the reference differs";
    else
      os << "max relative error " << llvm::format("%.3g", worst);
    os << " over " << trials << " trials";
    if (worst <= tolerance) { // NaN compares false: reported as an error
      mlir::emitRemark(candOp.getLoc(), msg);
      return success();
    }
    return candOp.emitError(msg);
  }
};
} // namespace

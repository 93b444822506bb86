//===- EvaluateGraphs.cpp - Run kernel graphs on random inputs ------------===//
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/RandomInputs.h"
#include "Mirage/Transforms/Passes.h"

#include "llvm/Support/Format.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEEVALUATE
#include "Mirage/Transforms/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;

namespace {
struct EvaluatePass : mirage::impl::MirageEvaluateBase<EvaluatePass> {
  using Base::Base;
  void runOnOperation() override {
    bool failedAny = false;
    getOperation().walk([&](kernel::GraphOp op) {
      FailureOr<UGraph> g = kernel::importKernelGraph(op);
      if (failed(g)) {
        failedAny = true;
        return;
      }
      Float64Semantics sem;
      Evaluator<Float64Semantics> eval(sem);
      std::vector<Tensor<double>> outs = eval.run(*g, randomInputs(*g, seed));
      for (auto [i, t] : llvm::enumerate(outs)) {
        double sum = 0;
        for (double v : t.data)
          sum += v;
        std::string s;
        llvm::raw_string_ostream os(s);
        os << "graph '" << (g->name.empty() ? "<unnamed>" : g->name)
           << "' output #" << i << " " << op.getResult(i).getType()
           << ": sum = " << llvm::format("%.6g", sum) << ", first = [";
        for (int64_t k = 0; k < std::min<int64_t>(printCount, t.size()); ++k)
          os << (k ? ", " : "") << llvm::format("%.6g", t.data[k]);
        os << "]";
        mlir::emitRemark(op.getLoc(), s);
      }
    });
    if (failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

//===- EvaluateGraphs.cpp - Run kernel graphs on random inputs ------------===//
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/MemoryLimit.h"
#include "Mirage/Semantics/RandomInputs.h"
#include "Mirage/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

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
    // Outputs of graphs evaluated so far, so a graph fed by another graph
    // sees the values that graph computed.
    llvm::DenseMap<Value, Tensor<double>> computed;
    getOperation().walk([&](kernel::GraphOp op) {
      FailureOr<UGraph> g = kernel::importKernelGraph(op);
      if (failed(g)) {
        failedAny = true;
        return;
      }
      if (std::string over = memoryOverLimit(float64RunBytes({&*g}),
                                             "float64 values");
          !over.empty()) {
        op.emitError("graph '")
            << (g->name.empty() ? "<unnamed>" : g->name)
            << "' cannot be evaluated: the run " << over;
        failedAny = true;
        return;
      }
      Float64Semantics sem;
      Evaluator<Float64Semantics> eval(sem);
      std::vector<Tensor<double>> ins = randomInputs(*g, seed);
      // Operands defined by dense float constants (arith.constant,
      // tosa.const) take the constant's values instead of random ones.
      for (auto [i, v] : llvm::enumerate(op.getInputs())) {
        DenseFPElementsAttr attr;
        if (i < ins.size() && matchPattern(v, m_Constant(&attr)) &&
            attr.getNumElements() == ins[i].size()) {
          int64_t k = 0;
          for (APFloat f : attr.getValues<APFloat>())
            ins[i].data[k++] = f.convertToDouble();
        } else if (auto it = computed.find(v);
                   i < ins.size() && it != computed.end() &&
                   it->second.shape == ins[i].shape) {
          ins[i] = it->second;
        }
      }
      std::vector<Tensor<double>> outs = eval.run(*g, ins);
      for (auto [i, t] : llvm::enumerate(outs))
        if (i < op.getNumResults())
          computed[op.getResult(i)] = t;
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
        if (printAll) {
          std::string all;
          llvm::raw_string_ostream as(all);
          as << "graph '" << (g->name.empty() ? "<unnamed>" : g->name)
             << "' output #" << i << " " << op.getResult(i).getType()
             << ": values = [";
          for (int64_t k = 0; k < t.size(); ++k)
            as << (k ? ", " : "") << llvm::format("%.9g", t.data[k]);
          as << "]";
          mlir::emitRemark(op.getLoc(), all);
        }
      }
    });
    if (failedAny)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

//===- EvaluateGraphs.cpp - Run kernel graphs on random inputs ------------===//
#include "Mirage/Dialect/Kernel/IR/KernelUGraph.h"
#include "Mirage/Semantics/Evaluator.h"
#include "Mirage/Semantics/FloatSemantics.h"
#include "Mirage/Semantics/MemoryLimit.h"
#include "Mirage/Semantics/RandomInputs.h"
#include "Mirage/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
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
/// The values of `v` when it is a dense float constant, a graph result
/// evaluated so far, or a reshape or transpose of one (the views the
/// importer leaves around graphs): reshapes keep the row-major data,
/// transposes permute it.
std::optional<Tensor<double>>
knownValues(Value v, const llvm::DenseMap<Value, Tensor<double>> &computed,
            int depth = 0) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape() || depth > 64)
    return std::nullopt;
  Shape shape(t.getShape().begin(), t.getShape().end());
  DenseFPElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr))) {
    Tensor<double> r(shape, 0.0);
    if (attr.getNumElements() != r.size())
      return std::nullopt;
    int64_t k = 0;
    for (APFloat f : attr.getValues<APFloat>())
      r.data[k++] = f.convertToDouble();
    return r;
  }
  if (auto it = computed.find(v); it != computed.end())
    return it->second.shape == shape ? std::optional(it->second)
                                     : std::nullopt;
  Operation *d = v.getDefiningOp();
  if (!d || d->getNumOperands() == 0)
    return std::nullopt;
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tosa::ReshapeOp>(d)) {
    auto src = knownValues(d->getOperand(0), computed, depth + 1);
    if (!src || src->size() != (int64_t)numElements(shape))
      return std::nullopt;
    src->shape = shape;
    return src;
  }
  SmallVector<int64_t> perm;
  if (auto tr = dyn_cast<linalg::TransposeOp>(d))
    perm.assign(tr.getPermutation().begin(), tr.getPermutation().end());
  else if (auto tt = dyn_cast<tosa::TransposeOp>(d))
    if (auto p = dyn_cast_if_present<DenseI32ArrayAttr>(tt->getAttr("perms")))
      perm.assign(p.asArrayRef().begin(), p.asArrayRef().end());
  if (perm.size() != shape.size())
    return std::nullopt;
  auto src = knownValues(d->getOperand(0), computed, depth + 1);
  if (!src || src->shape.size() != perm.size())
    return std::nullopt;
  Shape strides = rowMajorStrides(src->shape);
  Tensor<double> r(shape, 0.0);
  forEachIndex(shape, [&](int64_t out, ArrayRef<int64_t> idx) {
    int64_t off = 0;
    for (auto [j, p] : llvm::enumerate(perm))
      off += idx[j] * strides[p];
    r.data[out] = src->data[off];
  });
  return r;
}

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
      // tosa.const), by graphs evaluated before, or by reshapes and
      // transposes of those take those values instead of random ones.
      // An input stored transposed is read as its transpose.
      for (auto [i, v] : llvm::enumerate(op.getInputs()))
        if (i < ins.size())
          if (auto known = knownValues(v, computed)) {
            if (op.isTransposedInput(i))
              known = transposeLastTwo(*known);
            if (known->shape == ins[i].shape)
              ins[i] = std::move(*known);
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

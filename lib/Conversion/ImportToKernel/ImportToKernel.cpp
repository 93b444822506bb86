//===- ImportToKernel.cpp - The mirage-import pass ------------------------===//
//
// `--mirage-import` assembles the pieces: per block, the frontend recipes
// (LinalgToKernel, TosaToKernel, OpRecipes) and the convex grouping
// (GraphGrouping) turn the tensor computation into `mirage_kernel.graph` ops;
// each new graph then goes through recognition (KernelPatternRecognition) and
// the LAX split (LaxPartition); finally every TOSA/linalg op left behind gets
// a remark saying why. See docs/Rationale/Import.md.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Dialect/Kernel/Transforms/PatternRecognition.h"
#include "Mirage/Dialect/Kernel/Transforms/LaxPartition.h"
#include "Mirage/Conversion/Passes.h"

#include "../ImportCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mirage {
#define GEN_PASS_DEF_MIRAGEIMPORT
#include "Mirage/Conversion/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;
using namespace mirage::import;
namespace mk = mirage::kernel;

namespace {

/// Verifies `op` with its diagnostics silenced; `firstError` gets the first
/// message.
LogicalResult verifySilently(Operation *op, std::string &firstError) {
  ScopedDiagnosticHandler silence(op->getContext(), [&](Diagnostic &d) {
    if (firstError.empty() && d.getSeverity() == DiagnosticSeverity::Error)
      firstError = d.str();
    return success();
  });
  return mlir::verify(op);
}

/// Why `op` was left behind.
std::string reasonIn(Operation *op) {
  if (auto why = op->getAttrOfType<StringAttr>(kMaskFillWhyAttr))
    return "a select with no kernel equivalent, not split into masks: " +
           why.str();
  Analysis a = analyzeOp(op);
  if (!a.recipe)
    return a.why;
  if (auto why = op->getAttrOfType<StringAttr>(kImportWhyAttr))
    return "its group could not form a kernel graph: " + why.str();
  if (a.recipe->layoutOnly)
    return "layout change with no imported op on both sides (a graph's "
           "operand or result, not a cut)";
  return "its group could not form a kernel graph";
}

/// Why `op` was left behind (and the op without the importer's marks, so
/// that the remark's note shows the op as the program has it).
std::string reason(Operation *op) {
  std::string why = reasonIn(op);
  op->removeAttr(kImportWhyAttr);
  op->removeAttr(kMaskFillWhyAttr);
  return why;
}

/// Ops of the program outside linalg and TOSA that the import left between
/// graphs and that move or compute tensor data: reshapes that merge or
/// split non-unit dims (a unit reshape left behind is a graph's operand or
/// result view, or one the importer made), slices, concatenations, pads,
/// and element-wise arith/math ops on whole tensors.
bool leftBehindOutsideLinalgAndTosa(Operation *op) {
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
    return !analyzeOp(op).recipe;
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ConcatOp,
          tensor::PadOp, tensor::ReshapeOp, tensor::GatherOp,
          tensor::ScatterOp>(op))
    return true;
  Dialect *d = op->getDialect();
  return d && isa<arith::ArithDialect, math::MathDialect>(d) &&
         op->getNumResults() == 1 &&
         isa<RankedTensorType>(op->getResult(0).getType()) &&
         !isa<arith::ConstantOp>(op);
}

struct ImportPass : mirage::impl::MirageImportBase<ImportPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp f = getOperation();
    // The function as it was, to put back if importing it broke the IR.
    OwningOpRef<func::FuncOp> original = f.clone();
    // A constant fill of attention scores becomes masks, which the graphs
    // take as operands instead of being cut by the select.
    splitMaskFills(f.getOperation());
    // A division by a scalar constant becomes mul_scalar, not a graph
    // operand and a reciprocal op.
    foldScalarReciprocals(f.getOperation());
    // torch-mlir's f64 statistics are computed in the program's type.
    if (narrowF64Statistics)
      narrowWidenedStatistics(f.getOperation(), remarks);
    // Blocks to process: those not inside linalg or mirage ops.
    SmallVector<Block *> blocks;
    f->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<linalg::LinalgOp, mk::GraphOp, mk::CustomOp>(op))
        return WalkResult::skip();
      for (Region &r : op->getRegions())
        for (Block &b : r)
          blocks.push_back(&b);
      return WalkResult::advance();
    });
    SmallVector<mk::GraphOp> created;
    // Ops that feed imported ops are candidates for dead-code removal.
    llvm::SmallPtrSet<Operation *, 32> importedUsers;
    for (Block *b : blocks) {
      for (Operation &op : *b)
        if (analyzeOp(&op).recipe)
          for (Value v : op.getOperands())
            if (Operation *d = v.getDefiningOp())
              importedUsers.insert(d);
      importBlock(*b, created, importedUsers);
    }
    // Recognition, then the LAX split.
    for (mk::GraphOp g : created) {
      simplifyKernelGraph(g, recognize);
      (void)partitionLax(g, strictLax);
    }
    // Operands transposed outside the graphs are read as they lie.
    if (!created.empty())
      absorbOperandTransposes(f.getOperation());
    // Every graph was verified when it was built; this checks what the
    // rewrite did around them (dominance of moved ops, uses of erased ones).
    // It should never fire; if it does, the function stays as it was and
    // says so, rather than the pass emitting invalid IR.
    std::string error;
    if (!created.empty() && failed(verifySilently(f, error))) {
      f.getBody().getBlocks().clear();
      f.getBody().takeBody(original->getBody());
      f.emitWarning("mirage-import left this function unchanged: importing "
                    "it produced IR that does not verify (an importer bug: ")
          << error << ")";
    }
    if (remarks) {
      f->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (op->hasAttr(kImportViewAttr))
          return WalkResult::skip(); // made by the importer, not left behind
        if (isa<linalg::LinalgOp>(op) && !isa<linalg::FillOp>(op)) {
          std::string why = reason(op); // before the note prints the op
          op->emitRemark("not imported: ") << why;
          return WalkResult::skip();
        }
        if (isa<mk::GraphOp, mk::CustomOp>(op))
          return WalkResult::skip();
        bool tosaOp =
            op->getDialect() && op->getDialect()->getNamespace() == "tosa" &&
            !isa<tosa::ConstOp, tosa::YieldOp, tosa::ConstShapeOp>(op) &&
            op->getNumResults() > 0;
        if (tosaOp || leftBehindOutsideLinalgAndTosa(op)) {
          std::string why = reason(op); // before the note prints the op
          op->emitRemark("not imported: ") << why;
        }
        return WalkResult::advance();
      });
    }
    f->walk([](Operation *op) {
      op->removeAttr(kImportViewAttr);
      op->removeAttr(kImportWhyAttr);
      op->removeAttr(kMaskFillWhyAttr);
    });
  }
};

} // namespace

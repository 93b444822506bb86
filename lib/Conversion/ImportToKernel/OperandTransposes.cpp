//===- OperandTransposes.cpp - Transposed operands read as they lie -------===//
//
// A linear layer as frontends export it transposes its weight (N x K, as
// nn.Linear stores it) before the matmul. That transpose reads a function
// argument, so grouping leaves it outside the graph as the graph's operand.
// Here a transpose of the last two dims that feeds a graph operand is
// absorbed: the graph reads the transpose's source, marked in
// `transposed_inputs`, and its body keeps the logical type
// (docs/Rationale/OperandLayouts.md). The transpose goes when nothing else
// reads it.
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"
#include "Mirage/Semantics/UGraph.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
namespace mk = mirage::kernel;

namespace {

/// Whether `perm` keeps every dim but swaps the last two.
template <typename T> bool swapsLastTwo(ArrayRef<T> perm) {
  size_t r = perm.size();
  if (r < 2 || perm[r - 1] != static_cast<T>(r - 2) ||
      perm[r - 2] != static_cast<T>(r - 1))
    return false;
  for (size_t d = 0; d + 2 < r; ++d)
    if (perm[d] != static_cast<T>(d))
      return false;
  return true;
}

/// The source of `v` if `v` is a transpose of its last two dims.
Value transposedSource(Value v) {
  Operation *d = v.getDefiningOp();
  if (auto t = dyn_cast_if_present<tosa::TransposeOp>(d))
    return swapsLastTwo(t.getPerms()) ? t.getInput1() : Value();
  if (auto t = dyn_cast_if_present<linalg::TransposeOp>(d))
    return t.hasPureTensorSemantics() && swapsLastTwo(t.getPermutation())
               ? t.getInput()
               : Value();
  return Value();
}

/// A reshape's source when it only adds or drops unit dims before the last
/// two (TorchToTosa's rank-3 view of a transposed 2-D weight).
Value leadingUnitReshapeSource(Value v) {
  Operation *d = v.getDefiningOp();
  if (!isa_and_present<tosa::ReshapeOp, tensor::ExpandShapeOp,
                       tensor::CollapseShapeOp>(d))
    return Value();
  Value u = d->getOperand(0);
  auto ut = dyn_cast<RankedTensorType>(u.getType());
  auto vt = cast<RankedTensorType>(v.getType());
  if (!ut || ut.getRank() < 2 || vt.getRank() < 2 ||
      ut.getShape().take_back(2) != vt.getShape().take_back(2))
    return Value();
  auto lead = [](RankedTensorType t) {
    return RankedTensorType::get(t.getShape().drop_back(2), t.getElementType());
  };
  return mirage::import::sameNonUnitDims(lead(ut), lead(vt)) ? u : Value();
}

} // namespace

void mirage::import::absorbOperandTransposes(Operation *root) {
  SmallVector<mk::GraphOp> graphs;
  root->walk([&](mk::GraphOp g) { graphs.push_back(g); });
  // Ops that may die, once each (a transpose can feed several graphs).
  llvm::SetVector<Operation *> candidates;
  for (mk::GraphOp g : graphs) {
    SmallVector<int64_t> transposed;
    if (std::optional<ArrayRef<int64_t>> t = g.getTransposedInputs())
      transposed.assign(t->begin(), t->end());
    for (unsigned i = 0; i < g.getInputs().size(); ++i) {
      if (g.isTransposedInput(i))
        continue;
      Value in = g.getInputs()[i];
      auto it = cast<RankedTensorType>(in.getType());
      Value src = transposedSource(in);
      Value reshaped;
      if (!src)
        if ((reshaped = leadingUnitReshapeSource(in)))
          src = transposedSource(reshaped);
      auto st =
          dyn_cast_if_present<RankedTensorType>(src ? src.getType() : Type());
      if (!st || !st.hasStaticShape())
        continue;
      if (reshaped) {
        // The source viewed with the operand's leading dims.
        OpBuilder b(g);
        src = unitReshape(b, g.getLoc(), src,
                          it.clone(mirage::swapLastTwo(it.getShape())));
        if (!src)
          continue;
        candidates.insert(reshaped.getDefiningOp());
      }
      candidates.insert(in.getDefiningOp());
      g->setOperand(i, src);
      transposed.push_back(i);
    }
    if (transposed.empty())
      continue;
    llvm::sort(transposed);
    g.setTransposedInputsAttr(
        DenseI64ArrayAttr::get(g.getContext(), transposed));
  }
  // Transposes (and reshapes of them) nothing else reads go, with the
  // empty tensor a linalg one wrote into; a reshape goes before its
  // transpose.
  for (Operation *op : llvm::reverse(candidates)) {
    if (!op->use_empty())
      continue;
    Operation *init = nullptr;
    if (auto t = dyn_cast<linalg::TransposeOp>(op))
      init = t.getInit().getDefiningOp();
    op->erase();
    if (init && isOpTriviallyDead(init))
      init->erase();
  }
}

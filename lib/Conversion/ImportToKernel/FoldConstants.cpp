//===- FoldConstants.cpp - Scalar constants computed by the program -------===//
//
// TorchToTosa and the dynamo-based importers divide by a scalar as
// `tosa.mul %x, (tosa.reciprocal %c)` with %c a splat constant. Imported as
// written, the constant would be a graph operand and its reciprocal an op
// of the kernel graph (one more op for the search, a tensor read per
// kernel). Folded first, with TOSA's own folder (1/c rounded once in the
// element type, what the reciprocal op computes), the product imports as
// `mul_scalar 1/c`, as the same division does in the linalg form.
// docs/Rationale/Import.md, "Scalars".
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

void mirage::import::foldScalarReciprocals(Operation *root) {
  SmallVector<tosa::ReciprocalOp> ops;
  root->walk([&](tosa::ReciprocalOp r) {
    if (splatValue(r.getInput1()))
      ops.push_back(r);
  });
  for (tosa::ReciprocalOp r : ops) {
    OpBuilder b(r);
    SmallVector<Value> folded;
    if (failed(b.tryFold(r, folded)) || folded.size() != 1 ||
        folded[0].getType() != r.getType())
      continue;
    Operation *constant = r.getInput1().getDefiningOp();
    r.replaceAllUsesWith(folded[0]);
    r.erase();
    if (constant && isOpTriviallyDead(constant))
      constant->erase();
  }
}

//===- WidenedStatistics.cpp - f64 computed by an upcast ------------------===//
//
// torch-mlir computes some statistics of an f32/f16 program in f64 (its
// variance decomposition upcasts with `arith.extf` inside a linalg body and
// truncates back at the end). Imported as they are, those ops would form an
// f64 graph, which the to-PTX pipeline rejects. NarrowStatistics.cpp
// computes such islands in the program's type by default; those it does
// not narrow (the option off, TOSA's tosa.cast form, an f64 result) stay,
// with this remark (docs/Rationale/Import.md, "Idioms as frontends write
// them").
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/IR/Operation.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace mirage::import {

static bool isF64Tensor(Type t) {
  auto st = dyn_cast<ShapedType>(t);
  return st && st.getElementType().isF64();
}

std::string whyWidenedToF64(Operation *op) {
  if (!llvm::any_of(op->getResultTypes(), isF64Tensor))
    return "";
  // Backward through the f64 tensors `op` is computed from: an op that
  // reads a narrower float tensor and yields f64 is the upcast.
  SmallVector<Operation *> work{op};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *o = work.pop_back_val();
    if (!seen.insert(o).second)
      continue;
    for (Value v : o->getOperands()) {
      auto st = dyn_cast<ShapedType>(v.getType());
      if (!st)
        continue;
      Type e = st.getElementType();
      if (isa<FloatType>(e) && e.getIntOrFloatBitWidth() < 64) {
        std::string s;
        llvm::raw_string_ostream os(s);
        os << "f64 computed from an upcast " << e
           << " tensor (a frontend's f64 statistics): an f64 graph has no GPU "
              "path, and computing it in "
           << e << " would round differently, so it stays";
        return s;
      }
      if (Operation *d = v.getDefiningOp(); d && e.isF64())
        work.push_back(d);
    }
  }
  return "";
}

} // namespace mirage::import

//===- KernelDialect.cpp - The kernel-level μGraph dialect ----------------===//
#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"
#include "Mirage/Dialect/Block/IR/BlockDialect.h"
#include "Mirage/Dialect/Block/IR/BlockUGraph.h"
#include "Mirage/Dialect/Common/OpShapeInference.h"
#include "Mirage/Semantics/Target.h"
#include "Mirage/Semantics/UGraph.h"

using namespace mlir;
using namespace mirage::kernel;

#include "Mirage/Dialect/Kernel/IR/KernelOpsDialect.cpp.inc"

void KernelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Mirage/Dialect/Kernel/IR/KernelOps.cpp.inc"
      >();
}

MIRAGE_DEFINE_SHARED_OP_INFERENCE(mirage::kernel)

LogicalResult KernelDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Attribute value = attr.getValue();
  auto positiveTriple = [&]() -> LogicalResult {
    auto dims = dyn_cast<DenseI64ArrayAttr>(value);
    if (!dims || dims.size() != 3 ||
        llvm::any_of(dims.asArrayRef(), [](int64_t d) { return d <= 0; }))
      return op->emitError("'")
             << name << "' must be array<i64: x, y, z> with positive sizes";
    return success();
  };
  auto integerAtLeast = [&](int64_t least) -> LogicalResult {
    auto i = dyn_cast<IntegerAttr>(value);
    if (!i || !i.getType().isSignlessInteger() || i.getInt() < least)
      return op->emitError("'")
             << name << "' must be an integer of at least " << least;
    return success();
  };
  if (name == KernelAttrHelper::getNameStr() ||
      name == WaitsOnPreviousAttrHelper::getNameStr() ||
      name == LaunchesDependentsAttrHelper::getNameStr())
    return isa<UnitAttr>(value)
               ? success()
               : op->emitError("'") << name << "' must be a unit attribute";
  if (name == GridAttrHelper::getNameStr() ||
      name == BlockAttrHelper::getNameStr())
    return positiveTriple();
  if (name == MinBlocksPerSmAttrHelper::getNameStr() ||
      name == PrefetchStagesAttrHelper::getNameStr())
    return integerAtLeast(1);
  if (name == DynamicSharedBytesAttrHelper::getNameStr() ||
      name == StaticSharedBytesAttrHelper::getNameStr() ||
      name == PrefetchGroupAttrHelper::getNameStr() ||
      name == PrefetchWaitAttrHelper::getNameStr())
    return integerAtLeast(0);
  if (name == HostGraphAttrHelper::getNameStr() ||
      name == HostReferenceAttrHelper::getNameStr())
    return isa<StringAttr>(value)
               ? success()
               : op->emitError("'") << name << "' must be a string";
  auto pow2 = [](int64_t x) { return x > 0 && (x & (x - 1)) == 0; };
  if (name == ReductionTreeAttrHelper::getNameStr()) {
    // [id, half, lanes, outputs]: half a power of two below lanes, a power
    // of two; the id names the tree within its kernel.
    auto v = dyn_cast<DenseI64ArrayAttr>(value);
    if (!v || v.size() != 4 || v[0] < 0 || !pow2(v[1]) || !pow2(v[2]) ||
        v[1] >= v[2] || v[3] <= 0)
      return op->emitError("'") << name
                                << "' must be array<i64: id, half, lanes, "
                                   "outputs> with half < lanes, both powers "
                                   "of two, and outputs positive";
    return success();
  }
  if (name == ReductionFinishAttrHelper::getNameStr()) {
    auto v = dyn_cast<DenseI64ArrayAttr>(value);
    if (!v || v.size() != 2 || v[0] < 0 || v[1] <= 0)
      return op->emitError("'") << name
                                << "' must be array<i64: id, outputs> with "
                                   "outputs positive";
    return success();
  }
  if (name == ReductionFoldAttrHelper::getNameStr()) {
    // [id, lanes, outputs]: lanes a power of two above 1.
    auto v = dyn_cast<DenseI64ArrayAttr>(value);
    if (!v || v.size() != 3 || v[0] < 0 || v[1] < 2 || !pow2(v[1]) ||
        v[2] <= 0)
      return op->emitError("'") << name
                                << "' must be array<i64: id, lanes, outputs> "
                                   "with lanes a power of two above 1 and "
                                   "outputs positive";
    return success();
  }
  if (name == PtxKernelsAttrHelper::getNameStr()) {
    auto dict = dyn_cast<DictionaryAttr>(value);
    if (!dict || llvm::any_of(dict, [](NamedAttribute k) {
          auto sizes = dyn_cast<DenseI64ArrayAttr>(k.getValue());
          return !sizes || sizes.size() != 2;
        }))
      return op->emitError("'")
             << name
             << "' must map kernel names to array<i64: dynamic, static>";
    return success();
  }
  return op->emitError("unknown attribute '")
         << name << "' of the mirage_kernel dialect";
}

LogicalResult GraphOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments but the graph has "
           << getInputs().size() << " inputs";
  if (std::optional<ArrayRef<int64_t>> t = getTransposedInputs()) {
    for (auto [n, i] : llvm::enumerate(*t)) {
      if (i < 0 || i >= static_cast<int64_t>(getInputs().size()))
        return emitOpError("transposed input #") << i << " does not exist";
      if (n > 0 && (*t)[n - 1] >= i)
        return emitOpError("transposed inputs must be listed in increasing "
                           "order, once each");
      if (cast<RankedTensorType>(getInputs()[i].getType()).getRank() < 2)
        return emitOpError("transposed input #")
               << i << " must have at least two dims";
    }
  }
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    Type want = getInputs()[i].getType();
    if (isTransposedInput(i)) {
      // The body computes with the stored tensor's transpose.
      auto st = cast<RankedTensorType>(want);
      want = st.clone(mirage::swapLastTwo(st.getShape()));
      if (arg.getType() != want)
        return emitOpError("body argument #")
               << i << " must have the type of transposed input #" << i
               << " with its last two dims swapped";
      continue;
    }
    if (arg.getType() != want)
      return emitOpError("body argument #")
             << i << " must have the type of input #" << i;
  }
  Dialect *kernelDialect = getContext()->getLoadedDialect("mirage_kernel");
  for (Operation &op : body) {
    // Kernel graphs do not nest: a graph is the unit of search and checking.
    if (op.getDialect() != kernelDialect || isa<GraphOp>(op))
      return op.emitOpError("is not a kernel-graph operator");
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with 'mirage_kernel.yield'");
  if (yield.getValues().size() != getNumResults())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values for " << getNumResults()
           << " graph results";
  for (auto [i, v] : llvm::enumerate(yield.getValues()))
    if (v.getType() != getResult(i).getType())
      return yield.emitOpError("operand #")
             << i << " must have the type of graph result #" << i;
  // Rank and extent limits hold for every device tensor of the graph.
  auto checkValue = [&](Value v) -> LogicalResult {
    auto t = cast<RankedTensorType>(v.getType());
    if (!t.hasStaticShape())
      return emitOpError("tensors must be statically shaped");
    mirage::ShapeResult r = mirage::checkTensorShape(t.getShape());
    if (!r.ok())
      return emitOpError(r.error);
    return success();
  };
  for (Value v : body.getArguments())
    if (failed(checkValue(v)))
      return failure();
  for (Operation &op : body)
    for (Value v : op.getResults())
      if (failed(checkValue(v)))
        return failure();
  return success();
}

mirage::GridDims CustomOp::getGridDims() {
  ArrayRef<int64_t> g = getGrid();
  return {g.size() > 0 ? g[0] : 1, g.size() > 1 ? g[1] : 1,
          g.size() > 2 ? g[2] : 1};
}

LogicalResult CustomOp::verifyRegions() {
  if (getGrid().size() != 3)
    return emitOpError("grid must have three dims (x, y, z), got ")
           << getGrid().size();
  for (auto [i, v] : llvm::enumerate(getOperands())) {
    auto t = cast<RankedTensorType>(v.getType());
    mirage::ShapeResult r = mirage::checkTensorShape(t.getShape());
    if (!r.ok())
      return emitOpError("input #") << i << ": " << r.error;
  }
  return mirage::block::importBlockGraph(
      *this, getBody(), getGridDims(), getForloopRange(),
      getTarget() ? *getTarget() : StringRef(mirage::kDefaultTarget));
}

#define GET_OP_CLASSES
#include "Mirage/Dialect/Kernel/IR/KernelOps.cpp.inc"

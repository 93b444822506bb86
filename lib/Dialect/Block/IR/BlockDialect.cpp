//===- BlockDialect.cpp - The block-level μGraph dialect ------------------===//
#include "Mirage/Dialect/Block/IR/BlockDialect.h"
#include "Mirage/Dialect/Block/IR/BlockUGraph.h"
#include "Mirage/Dialect/Common/OpShapeInference.h"
#include "Mirage/Dialect/Thread/IR/ThreadDialect.h"
#include "Mirage/Semantics/OpKinds.h"

using namespace mlir;
using namespace mirage::block;

#include "Mirage/Dialect/Block/IR/BlockOpsDialect.cpp.inc"

void BlockDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Mirage/Dialect/Block/IR/BlockOps.cpp.inc"
      >();
}

MIRAGE_DEFINE_SHARED_OP_INFERENCE(mirage::block)

static LogicalResult verifyInsideBlockGraph(Operation *op) {
  Operation *parent = op->getParentOp();
  if (!parent || parent->getName().getStringRef() != kBlockGraphParent)
    return op->emitOpError("must be nested directly in a '")
           << kBlockGraphParent << "' body";
  return success();
}

static LogicalResult verifyMapSize(Operation *op, ArrayRef<int64_t> map,
                                   StringRef what) {
  if (map.size() != 3)
    return op->emitOpError(what) << " must have one entry per grid axis (3), got "
                                 << map.size();
  return success();
}

static mirage::AxisMap toAxisMap(ArrayRef<int64_t> m) {
  return {m.size() > 0 ? m[0] : -1, m.size() > 1 ? m[1] : -1,
          m.size() > 2 ? m[2] : -1};
}

mirage::AxisMap InputIteratorOp::getAxisMap() { return toAxisMap(getImap()); }
mirage::AxisMap OutputSaverOp::getAxisMap() { return toAxisMap(getOmap()); }

LogicalResult InputIteratorOp::verify() {
  if (failed(verifyInsideBlockGraph(*this)) ||
      failed(verifyMapSize(*this, getImap(), "imap")))
    return failure();
  int64_t rank = getInput().getType().getRank();
  std::string err = mirage::checkAxisMap(getAxisMap(), rank, "imap");
  if (!err.empty())
    return emitOpError(err);
  // I64Attr getters are unsigned; fmap is signed (-1 = none).
  int64_t fmap = static_cast<int64_t>(getFmap());
  if (fmap < -1 || fmap >= rank)
    return emitOpError("fmap dim ") << fmap << " out of range for rank "
                                    << rank;
  if (getResult().getType().getRank() != rank)
    return emitOpError("tile rank must equal the input rank");
  return success();
}

LogicalResult OutputSaverOp::verify() {
  if (failed(verifyInsideBlockGraph(*this)) ||
      failed(verifyMapSize(*this, getOmap(), "omap")))
    return failure();
  std::string err = mirage::checkAxisMap(
      getAxisMap(), getInput().getType().getRank(), "omap");
  if (!err.empty())
    return emitOpError(err);
  return success();
}

LogicalResult AccumOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor a,
                                        SmallVectorImpl<Type> &out) {
  auto x = mirage::staticShapeOf(a.getInput().getType());
  if (!x)
    return emitOptionalError(loc, "operand must be a statically shaped tensor");
  mirage::Shape r;
  bool hasRescale = static_cast<bool>(a.getRescale());
  if (hasRescale) {
    auto s = mirage::staticShapeOf(a.getRescale().getType());
    if (!s)
      return emitOptionalError(loc, "rescale must be a statically shaped tensor");
    r = *s;
  }
  int64_t size = a.getSize() ? static_cast<int64_t>(*a.getSize()) : 0;
  return mirage::emitInferred(
      loc, mirage::accumShape(a.getKind(), *x, size, hasRescale, r),
      getElementTypeOrSelf(a.getInput().getType()), out);
}

LogicalResult AccumOp::verify() {
  if (failed(verifyInsideBlockGraph(*this)))
    return failure();
  // A zero size would read as "none given" in the UGraph.
  if (getSize() && static_cast<int64_t>(*getSize()) <= 0)
    return emitOpError("size must be positive, got ")
           << static_cast<int64_t>(*getSize());
  // eps belongs to rms_last only (sqrt(mean(x²) + eps)); 0 is "none".
  if (getEps().convertToDouble() != 0.0 &&
      !::mirage::accumFacts(getKind()).usesScalar())
    return emitOpError("eps is only valid for the rms_last kind, not ")
           << ::mirage::stringifyAccumKind(getKind());
  if (getRescale() && getElementTypeOrSelf(getRescale().getType()) !=
                          getElementTypeOrSelf(getInput().getType()))
    return emitOpError("rescale must have the element type ")
           << getElementTypeOrSelf(getInput().getType()) << " of the operand";
  return success();
}
LogicalResult RunningMaxOp::verify() {
  if (failed(verifyInsideBlockGraph(*this)))
    return failure();
  auto x = mirage::staticShapeOf(getInput().getType());
  if (!x)
    return emitOpError("operand must be a statically shaped tensor");
  // I64Attr getters are unsigned; a negative dim reads as a huge one.
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= static_cast<int64_t>(x->size()))
    return emitOpError("dim ") << dim << " out of range for rank "
                               << x->size();
  mirage::Shape want = *x;
  want[dim] = 1;
  auto r = mirage::staticShapeOf(getPrev().getType());
  if (!r || *r != want)
    return emitOpError("results must have the operand's shape with dim ")
           << dim << " reduced to 1, " << mirage::shapeToString(want)
           << ", not " << getPrev().getType();
  // The in-loop rule (the operand is an iterator's tile, not an
  // accumulator's result) is a phase fact: the block graph's import checks
  // it (UGraph::addRunningMax) when the enclosing custom op is verified.
  return success();
}

LogicalResult YieldOp::verify() { return verifyInsideBlockGraph(*this); }

LogicalResult ThreadGraphOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments but the op has "
           << getInputs().size() << " inputs";
  if (getInputs().empty())
    return emitOpError("must have at least one input");
  if (getResults().empty())
    return emitOpError("must have at least one result");
  // Thread operators have no conversions, so one element type serves all.
  Type elem = getElementTypeOrSelf(getInputs()[0].getType());
  for (auto [i, v] : llvm::enumerate(getOperands()))
    if (getElementTypeOrSelf(v.getType()) != elem)
      return emitOpError("input #")
             << i << " must have the element type " << elem << " of input #0";
  for (auto [i, v] : llvm::enumerate(getResults()))
    if (getElementTypeOrSelf(v.getType()) != elem)
      return emitOpError("result #")
             << i << " must have the element type " << elem << " of the inputs";
  mirage::Shape shape;
  for (auto [i, in] : llvm::enumerate(getInputs())) {
    auto t = cast<RankedTensorType>(in.getType());
    if (!t.hasStaticShape())
      return emitOpError("input #") << i << " must be statically shaped";
    if (body.getArgument(i).getType() != t.getElementType())
      return emitOpError("body argument #")
             << i << " must be the element type " << t.getElementType()
             << " of input #" << i;
    mirage::Shape s(t.getShape().begin(), t.getShape().end());
    if (i == 0) {
      shape = s;
      continue;
    }
    mirage::ShapeResult r = mirage::broadcastShape(shape, s);
    if (!r.ok())
      return emitOpError("inputs: ") << r.error;
    shape = r.shape;
  }
  for (Operation &op : body)
    if (op.getDialect() != getContext()->getLoadedDialect("mirage_thread"))
      return op.emitOpError("is not a thread-graph operator");
  auto yield = dyn_cast<mirage::thread::YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with 'mirage_thread.yield'");
  if (yield.getValues().size() != getResults().size())
    return emitOpError("yields ") << yield.getValues().size()
                                  << " values for " << getResults().size()
                                  << " results";
  for (auto [i, res] : llvm::enumerate(getResults())) {
    auto t = cast<RankedTensorType>(res.getType());
    if (yield.getValues()[i].getType() != t.getElementType())
      return emitOpError("yielded value #")
             << i << " must have the element type of result #" << i;
    if (t.getShape() != ArrayRef<int64_t>(shape))
      return emitOpError("result #")
             << i << " must have the broadcast shape of the inputs "
             << mirage::shapeToString(shape);
  }
  return success();
}

#define GET_OP_CLASSES
#include "Mirage/Dialect/Block/IR/BlockOps.cpp.inc"

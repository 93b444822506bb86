//===- TosaToKernel.cpp - Recipes for TOSA ops ----------------------------===//
//
// Recipes for the TOSA ops that have an exact kernel form: matmul with zero
// zero points, element-wise arithmetic with equal-rank broadcasting, the
// unary activations, relu-shaped clamp/maximum, keep-dim reductions and
// concat, and unit-dim reshapes and transposes (layout changes, absorbed
// where the kernel ops can express them). Attributes are read
// through UpstreamAttrs only (a verified op may lack one).
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"
#include "../UpstreamAttrs.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace mirage;

namespace mirage::import {

/// `reduce_sum`/`reduce_max` of `x` along `d` (kept as a unit dim), in any
/// form of `x` that keeps `d` whole (Import.md, "Merged forms").
/// (The graph builder checks that the result is a kernel form of the op's.)
static Analysis reduceRecipe(ReduceKind k, Value x, int64_t d) {
  auto xt = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t, 4> space(xt.getShape());
  Analysis a = Analysis::yes(
      {x}, [k, d, space](OpBuilder &b, Location l,
                         ArrayRef<Value> in) -> Value {
        auto it = cast<RankedTensorType>(in[0].getType());
        std::optional<int64_t> j = formDim(space, d, it.getShape());
        return j ? emitReduce(b, l, k, in[0], *j) : Value();
      });
  a.recipe->loopShape = space;
  a.recipe->reduceDim = d;
  return a;
}

Analysis analyzeTosaOp(Operation *op) {
  Type rt = op->getResult(0).getType();
  auto tensorOperand = [](Value v) { return whyNotImportable(v.getType()); };
  if (auto m = dyn_cast<tosa::MatMulOp>(op)) {
    if (!isZeroConst(m.getAZp()) || !isZeroConst(m.getBZp()))
      return Analysis::no("matmul with non-zero zero points");
    Value a = m.getA(), b = m.getB();
    for (Value v : {a, b})
      if (std::string w = tensorOperand(v); !w.empty())
        return Analysis::no("operand: " + w);
    if (cast<RankedTensorType>(a.getType()).getElementType() !=
        cast<RankedTensorType>(rt).getElementType())
      return Analysis::no("matmul accumulates in a different element type");
    // In A's form (batchForm); the graph builder checks that the result is
    // a kernel form of the op's.
    Analysis an = Analysis::yes(
        {a, b}, [](OpBuilder &bd, Location l, ArrayRef<Value> in) {
          return emitMatmul(bd, l, in[0], in[1]);
        });
    an.recipe->batchForm = true;
    return an;
  }
  if (auto a = dyn_cast<tosa::AddOp>(op))
    return binaryRecipe(BinaryKind::add, a.getInput1(), a.getInput2(), rt);
  if (auto a = dyn_cast<tosa::SubOp>(op))
    return binaryRecipe(BinaryKind::sub, a.getInput1(), a.getInput2(), rt);
  if (auto a = dyn_cast<tosa::MulOp>(op)) {
    if (!isZeroConst(a.getShift()))
      return Analysis::no("mul with a non-zero shift");
    return binaryRecipe(BinaryKind::mul, a.getInput1(), a.getInput2(), rt);
  }
  if (auto a = dyn_cast<tosa::PowOp>(op))
    return binaryRecipe(BinaryKind::pow, a.getInput1(), a.getInput2(), rt);
  if (auto a = dyn_cast<tosa::ReciprocalOp>(op))
    return unaryRecipe(UnaryKind::reciprocal, a.getInput1(), rt);
  if (auto a = dyn_cast<tosa::RsqrtOp>(op))
    return unaryRecipe(UnaryKind::rsqrt, a.getInput1(), rt);
  if (auto a = dyn_cast<tosa::ExpOp>(op))
    return unaryRecipe(UnaryKind::exp, a.getInput1(), rt);
  if (auto a = dyn_cast<tosa::SigmoidOp>(op))
    return unaryRecipe(UnaryKind::sigmoid, a.getInput(), rt);
  if (auto a = dyn_cast<tosa::TanhOp>(op))
    return unaryRecipe(UnaryKind::tanh, a.getInput(), rt);
  if (auto a = dyn_cast<tosa::ErfOp>(op))
    return unaryRecipe(UnaryKind::erf, a.getInput(), rt);
  if (auto a = dyn_cast<tosa::NegateOp>(op)) {
    if (!isZeroConst(a.getInput1Zp()) || !isZeroConst(a.getOutputZp()))
      return Analysis::no("negate with non-zero zero points");
    return unaryRecipe(UnaryKind::mul_scalar, a.getInput1(), rt, -1.0);
  }
  if (auto a = dyn_cast<tosa::ClampOp>(op)) {
    UpstreamAttrs attrs(op);
    std::optional<double> lo = attrs.floating("min_val");
    std::optional<double> hi = attrs.floating("max_val");
    if (!attrs.ok())
      return Analysis::no(attrs.why());
    if (*lo != 0.0 || !(*hi >= 3.0e38))
      return Analysis::no("clamp other than relu (min 0, max +inf/max float)");
    return unaryRecipe(UnaryKind::relu, a.getInput(), rt);
  }
  if (auto a = dyn_cast<tosa::MaximumOp>(op)) {
    auto z1 = splatValue(a.getInput1()), z2 = splatValue(a.getInput2());
    if (z2 && *z2 == 0.0 && a.getInput1().getType() == rt)
      return unaryRecipe(UnaryKind::relu, a.getInput1(), rt);
    if (z1 && *z1 == 0.0 && a.getInput2().getType() == rt)
      return unaryRecipe(UnaryKind::relu, a.getInput2(), rt);
    return Analysis::no("maximum other than max(x, 0)");
  }
  if (auto a = dyn_cast<tosa::ReduceSumOp>(op)) {
    if (std::string w = tensorOperand(a.getInput()); !w.empty())
      return Analysis::no("operand: " + w);
    UpstreamAttrs attrs(op);
    std::optional<int64_t> axis = attrs.integer("axis");
    if (!attrs.ok())
      return Analysis::no(attrs.why());
    return reduceRecipe(ReduceKind::sum, a.getInput(), *axis);
  }
  if (auto a = dyn_cast<tosa::ReduceMaxOp>(op)) {
    if (std::string w = tensorOperand(a.getInput()); !w.empty())
      return Analysis::no("operand: " + w);
    UpstreamAttrs attrs(op);
    std::optional<int64_t> axis = attrs.integer("axis");
    auto nan = attrs.get<tosa::NanPropagationModeAttr>("nan_mode");
    if (!attrs.ok())
      return Analysis::no(attrs.why());
    if (nan.getValue() != tosa::NanPropagationMode::PROPAGATE)
      return Analysis::no("reduce_max with nan_mode IGNORE");
    return reduceRecipe(ReduceKind::max, a.getInput(), *axis);
  }
  if (auto a = dyn_cast<tosa::ConcatOp>(op)) {
    SmallVector<Value, 4> ins(a.getInput1().begin(), a.getInput1().end());
    if (ins.empty())
      return Analysis::no("empty concat");
    for (Value v : ins)
      if (std::string w = tensorOperand(v); !w.empty())
        return Analysis::no("operand: " + w);
    UpstreamAttrs attrs(op);
    std::optional<int64_t> axis = attrs.integer("axis");
    if (!attrs.ok())
      return Analysis::no(attrs.why());
    int64_t d = *axis;
    return Analysis::yes(ins, [d, rt](OpBuilder &b, Location l,
                                      ArrayRef<Value> in) -> Value {
      Value v = in[0];
      for (Value x : in.drop_front())
        v = emitConcat(b, l, v, x, d);
      return v && v.getType() == rt ? v : Value();
    });
  }
  if (auto r = dyn_cast<tosa::ReshapeOp>(op))
    return reshapeRecipe(r.getInput1(), rt);
  // An identity (the dynamo importers write one before a view) moves
  // nothing: a layout op with the same form on both sides.
  if (auto id = dyn_cast<tosa::IdentityOp>(op))
    return reshapeRecipe(id.getInput1(), rt);
  if (auto t = dyn_cast<tosa::TransposeOp>(op)) {
    UpstreamAttrs attrs(op);
    auto perms = attrs.get<DenseI32ArrayAttr>("perms");
    if (!attrs.ok())
      return Analysis::no(attrs.why());
    SmallVector<int64_t> perm(perms.asArrayRef().begin(),
                              perms.asArrayRef().end());
    return transposeRecipe(t.getInput1(), perm, rt);
  }
  return Analysis::no("no kernel equivalent for '" +
                      op->getName().getStringRef().str() + "'");
}

} // namespace mirage::import

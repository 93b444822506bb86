//===- ImportCommon.cpp - Shared helpers of mirage-import -----------------===//
//
// Type checks, constant folding helpers, kernel-op emission with explicit
// result types, and the generic unary/binary recipes shared by the linalg,
// TOSA and arith/math frontends.
//
//===----------------------------------------------------------------------===//
#include "ImportCommon.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace mk = mirage::kernel;

namespace mirage::import {

//===----------------------------------------------------------------------===//
// Types and constants
//===----------------------------------------------------------------------===//

/// Why `t` cannot be a kernel tensor, or "" when it can.
std::string whyNotImportable(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt)
    return "not a ranked tensor";
  if (!rt.hasStaticShape())
    return "dynamic shape";
  if (rt.getRank() < 1 || rt.getRank() > 4)
    return "rank " + std::to_string(rt.getRank()) + " (kernel tensors have rank 1 to 4)";
  if (rt.getEncoding())
    return "tensor with an encoding";
  Type e = rt.getElementType();
  if (!(e.isF16() || e.isBF16() || e.isF32() || e.isF64())) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "element type " << e << " (only f16, bf16, f32, f64)";
    return s;
  }
  return "";
}

/// The value of a splat floating-point constant (tensor or scalar).
std::optional<double> splatValue(Value v) {
  Attribute a;
  if (!v || !matchPattern(v, m_Constant(&a)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto d = dyn_cast<DenseFPElementsAttr>(a))
    if (d.isSplat())
      return d.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

double roundTo(double v, Type t) {
  auto ft = dyn_cast<FloatType>(t);
  if (!ft)
    return v;
  APFloat a(v);
  bool lost = false;
  a.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return a.convertToDouble();
}

bool isZeroConst(Value v) {
  std::optional<double> s = splatValue(v);
  if (s)
    return *s == 0.0;
  Attribute a;
  if (v && matchPattern(v, m_Constant(&a)))
    if (auto d = dyn_cast<DenseIntElementsAttr>(a))
      return d.isSplat() && d.getSplatValue<APInt>().isZero();
  return false;
}

RankedTensorType withShape(RankedTensorType t, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, t.getElementType());
}

//===----------------------------------------------------------------------===//
// Kernel-op emission helpers (explicit result types; null on misfit)
//===----------------------------------------------------------------------===//

RankedTensorType broadcastType(Value a, Value b) {
  auto ta = dyn_cast<RankedTensorType>(a.getType());
  auto tb = dyn_cast<RankedTensorType>(b.getType());
  if (!ta || !tb || ta.getRank() != tb.getRank() ||
      ta.getElementType() != tb.getElementType())
    return {};
  SmallVector<int64_t> s;
  for (int64_t i = 0; i < ta.getRank(); ++i) {
    int64_t x = ta.getDimSize(i), y = tb.getDimSize(i);
    if (x == y || y == 1)
      s.push_back(x);
    else if (x == 1)
      s.push_back(y);
    else
      return {};
  }
  return withShape(ta, s);
}

Value emitUnary(OpBuilder &b, Location loc, UnaryKind k, Value x,
                std::optional<double> scalar) {
  if (!x)
    return {};
  FloatAttr s = scalar ? b.getF64FloatAttr(*scalar) : FloatAttr();
  return mk::UnaryOp::create(b, loc, x.getType(), k, x, s);
}

Value emitBinary(OpBuilder &b, Location loc, BinaryKind k, Value x, Value y) {
  if (!x || !y)
    return {};
  RankedTensorType t = broadcastType(x, y);
  if (!t)
    return {};
  return mk::BinaryOp::create(b, loc, t, k, x, y);
}

Value emitReduce(OpBuilder &b, Location loc, ReduceKind k, Value x,
                 int64_t dim) {
  if (!x)
    return {};
  auto t = cast<RankedTensorType>(x.getType());
  if (dim < 0 || dim >= t.getRank())
    return {};
  SmallVector<int64_t> s(t.getShape());
  s[dim] = 1;
  return mk::ReduceOp::create(b, loc, withShape(t, s),
                              ReduceKindAttr::get(b.getContext(), k), x,
                              b.getI64IntegerAttr(dim), IntegerAttr());
}

Value emitMatmul(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x || !y)
    return {};
  auto tx = cast<RankedTensorType>(x.getType());
  auto ty = cast<RankedTensorType>(y.getType());
  int64_t r = tx.getRank();
  if (r < 2 || r != ty.getRank() || tx.getElementType() != ty.getElementType())
    return {};
  for (int64_t i = 0; i + 2 < r; ++i)
    if (tx.getDimSize(i) != ty.getDimSize(i))
      return {};
  if (tx.getDimSize(r - 1) != ty.getDimSize(r - 2))
    return {};
  SmallVector<int64_t> s(tx.getShape());
  s[r - 1] = ty.getDimSize(r - 1);
  return mk::MatmulOp::create(b, loc, withShape(tx, s), x, y);
}

Value emitConcat(OpBuilder &b, Location loc, Value x, Value y, int64_t dim) {
  if (!x || !y)
    return {};
  auto tx = cast<RankedTensorType>(x.getType());
  auto ty = cast<RankedTensorType>(y.getType());
  if (tx.getRank() != ty.getRank() || dim < 0 || dim >= tx.getRank())
    return {};
  SmallVector<int64_t> s(tx.getShape());
  s[dim] += ty.getDimSize(dim);
  return mk::ConcatOp::create(b, loc, withShape(tx, s), x, y,
                              b.getI64IntegerAttr(dim));
}

bool hasScalarPowForm(double c) {
  return c == 1.0 || c == 2.0 || c == 3.0 || c == 0.5 || c == -0.5 ||
         c == -1.0;
}

/// `x op c` (or `c op x` when `constOnLeft`) with a scalar constant.
Value emitScalarBinary(OpBuilder &b, Location loc, BinaryKind k, Value x,
                       double c, bool constOnLeft) {
  if (!x)
    return {};
  switch (k) {
  case BinaryKind::add:
    return emitUnary(b, loc, UnaryKind::add_scalar, x, c);
  case BinaryKind::mul:
    return emitUnary(b, loc, UnaryKind::mul_scalar, x, c);
  case BinaryKind::sub:
    if (!constOnLeft)
      return emitUnary(b, loc, UnaryKind::add_scalar, x, -c);
    return emitUnary(b, loc, UnaryKind::add_scalar,
                     emitUnary(b, loc, UnaryKind::mul_scalar, x, -1.0), c);
  case BinaryKind::div:
    if (!constOnLeft)
      return c == 0 ? Value() : emitUnary(b, loc, UnaryKind::mul_scalar, x, 1.0 / c);
    if (c == 1.0)
      return emitUnary(b, loc, UnaryKind::reciprocal, x);
    return emitUnary(b, loc, UnaryKind::mul_scalar,
                     emitUnary(b, loc, UnaryKind::reciprocal, x), c);
  case BinaryKind::pow:
    if (!constOnLeft && c == 2.0)
      return emitUnary(b, loc, UnaryKind::square, x);
    // x³ as x·x·x (GELU's cube, written pow(x, 3) by frontends): the same
    // function, up to rounding; the gelu pattern recognises this product.
    if (!constOnLeft && c == 3.0)
      return emitBinary(b, loc, BinaryKind::mul,
                        emitUnary(b, loc, UnaryKind::square, x), x);
    if (!constOnLeft && c == 1.0)
      return x;
    if (!constOnLeft && c == 0.5)
      return emitUnary(b, loc, UnaryKind::sqrt, x);
    if (!constOnLeft && c == -0.5)
      return emitUnary(b, loc, UnaryKind::rsqrt, x);
    if (!constOnLeft && c == -1.0)
      return emitUnary(b, loc, UnaryKind::reciprocal, x);
    return {};
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Generic recipes
//===----------------------------------------------------------------------===//

/// An element-wise binary op, folding a splat scalar operand into
/// add_scalar/mul_scalar where the other operand already has the result type.
static Analysis elementwise(Analysis a, Type resultType) {
  if (a.recipe)
    if (auto rt = dyn_cast<RankedTensorType>(resultType))
      a.recipe->loopShape = llvm::SmallVector<int64_t, 4>(rt.getShape().begin(), rt.getShape().end());
  return a;
}

static Analysis binaryRecipeIn(BinaryKind k, Value a, Value b,
                               Type resultType);

Analysis binaryRecipe(BinaryKind k, Value a, Value b, Type resultType) {
  return elementwise(binaryRecipeIn(k, a, b, resultType), resultType);
}

static Analysis binaryRecipeIn(BinaryKind k, Value a, Value b,
                               Type resultType) {
  std::optional<double> ca = splatValue(a), cb = splatValue(b);
  bool scalarKind = k == BinaryKind::add || k == BinaryKind::mul ||
                    k == BinaryKind::sub;
  if (scalarKind && cb && a.getType() == resultType)
    return Analysis::yes({a}, [k, c = *cb](OpBuilder &bd, Location l,
                                           ArrayRef<Value> in) {
      return emitScalarBinary(bd, l, k, in[0], c, false);
    });
  if (scalarKind && ca && b.getType() == resultType)
    return Analysis::yes({b}, [k, c = *ca](OpBuilder &bd, Location l,
                                           ArrayRef<Value> in) {
      return emitScalarBinary(bd, l, k, in[0], c, true);
    });
  if (k == BinaryKind::pow && cb && a.getType() == resultType &&
      hasScalarPowForm(*cb))
    return Analysis::yes({a}, [c = *cb](OpBuilder &bd, Location l,
                                        ArrayRef<Value> in) {
      return emitScalarBinary(bd, l, BinaryKind::pow, in[0], c, false);
    });
  for (Value v : {a, b})
    if (std::string w = whyNotImportable(v.getType()); !w.empty())
      return Analysis::no("operand: " + w);
  if (!broadcastType(a, b))
    return Analysis::no("operand shapes do not broadcast at equal rank");
  return Analysis::yes({a, b}, [k](OpBuilder &bd, Location l,
                                   ArrayRef<Value> in) {
    return emitBinary(bd, l, k, in[0], in[1]);
  });
}

Analysis unaryRecipe(UnaryKind k, Value x, Type resultType,
                     std::optional<double> scalar) {
  if (x.getType() != resultType)
    return Analysis::no("operand and result types differ");
  return elementwise(Analysis::yes({x}, [k, scalar](OpBuilder &bd, Location l,
                                                    ArrayRef<Value> in) {
                       return emitUnary(bd, l, k, in[0], scalar);
                     }),
                     resultType);
}

Analysis reshapeRecipe(Value src, Type result) {
  if (std::string w = whyNotImportable(src.getType()); !w.empty())
    return Analysis::no("operand: " + w);
  if (std::string w = whyNotImportable(result); !w.empty())
    return Analysis::no(w);
  if (!isKernelFormOf(cast<RankedTensorType>(src.getType()),
                      cast<RankedTensorType>(result)))
    return Analysis::no("reshape that changes the number of elements");
  Analysis a = Analysis::yes(
      {src}, [](OpBuilder &, Location, ArrayRef<Value> in) { return in[0]; });
  a.recipe->layoutOnly = true;
  a.recipe->anyForm = true;
  return a;
}

Analysis transposeRecipe(Value src, ArrayRef<int64_t> perm, Type result) {
  if (std::string w = whyNotImportable(src.getType()); !w.empty())
    return Analysis::no("operand: " + w);
  auto st = cast<RankedTensorType>(src.getType());
  if ((int64_t)perm.size() != st.getRank() ||
      applyDimMap(st, perm) != result)
    return Analysis::no("transpose whose permutation does not give its result");
  Analysis a = Analysis::yes(
      {src}, [](OpBuilder &, Location, ArrayRef<Value> in) { return in[0]; });
  a.recipe->layouts.push_back(DimMap(perm.begin(), perm.end()));
  a.recipe->layoutOnly = true;
  return a;
}

} // namespace mirage::import

//===- ImportToKernel.cpp - linalg/TOSA programs into kernel graphs -------===//
//
// `--mirage-import`: per block, every op gets an optional *recipe* (the values
// it needs and a function that rebuilds it from kernel ops). Importable ops
// are clustered into convex groups (no path leaves a group and comes back,
// and contracting all groups keeps the block acyclic). Each group becomes one
// `mirage_kernel.graph`; recognition patterns then rewrite the graph body
// (rms_norm, silu, gelu, sigmoid) and the graph is split into LAX
// sub-programs. Anything that fails at any step is rolled back and left as it
// was. See docs/Rationale/Import.md.
//
//===----------------------------------------------------------------------===//
#include "Mirage/Conversion/Passes.h"
#include "Mirage/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallSet.h"

#include <map>

#include <cmath>
#include <functional>
#include <optional>

namespace mirage {
#define GEN_PASS_DEF_MIRAGEIMPORT
#include "Mirage/Conversion/Passes.h.inc"
} // namespace mirage

using namespace mlir;
using namespace mirage;
namespace mk = mirage::kernel;

namespace {

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
                std::optional<double> scalar = std::nullopt) {
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
// Recipes
//===----------------------------------------------------------------------===//

using BuildFn =
    std::function<Value(OpBuilder &, Location, ArrayRef<Value> inputs)>;

struct Recipe {
  SmallVector<Value, 4> inputs;
  BuildFn build;
};

/// A recipe or the reason there is none.
struct Analysis {
  std::optional<Recipe> recipe;
  std::string why;
  static Analysis no(std::string w) { return {std::nullopt, std::move(w)}; }
  static Analysis yes(SmallVector<Value, 4> in, BuildFn f) {
    return {Recipe{std::move(in), std::move(f)}, ""};
  }
};

/// An element-wise binary op, folding a splat scalar operand into
/// add_scalar/mul_scalar where the other operand already has the result type.
Analysis binaryRecipe(BinaryKind k, Value a, Value b, Type resultType) {
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
      (*cb == 2.0 || *cb == 0.5 || *cb == -0.5 || *cb == -1.0 || *cb == 1.0))
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
                     std::optional<double> scalar = std::nullopt) {
  if (x.getType() != resultType)
    return Analysis::no("operand and result types differ");
  return Analysis::yes({x}, [k, scalar](OpBuilder &bd, Location l,
                                        ArrayRef<Value> in) {
    return emitUnary(bd, l, k, in[0], scalar);
  });
}

//----- linalg bodies ---------------------------------------------------------

/// A value of a linalg body during compilation: a kernel tensor or a scalar
/// constant.
struct Sym {
  Value t;
  std::optional<double> c;
  bool ok() const { return t || c; }
};

std::optional<double> foldScalar(Operation *op, double x, double y) {
  if (isa<arith::AddFOp>(op)) return x + y;
  if (isa<arith::SubFOp>(op)) return x - y;
  if (isa<arith::MulFOp>(op)) return x * y;
  if (isa<arith::DivFOp>(op)) return x / y;
  return std::nullopt;
}

/// Checks that every op of a linalg body can be compiled (same element type,
/// supported arith/math ops). `allowed` are the block args that may be used.
std::string checkBody(Block &body, Type elemType,
                      const llvm::SmallDenseSet<Value> &allowed) {
  for (Operation &op : body.without_terminator()) {
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, arith::MaximumFOp, arith::MaxNumFOp,
             arith::ConstantOp, math::ExpOp, math::SqrtOp, math::RsqrtOp,
             math::TanhOp, math::PowFOp>(op))
      return "body op '" + op.getName().getStringRef().str() +
             "' has no kernel equivalent";
    for (Type t : op.getResultTypes())
      if (t != elemType)
        return "body mixes element types";
    for (Value v : op.getOperands())
      if (auto ba = dyn_cast<BlockArgument>(v))
        if (ba.getOwner() == &body && !allowed.contains(v))
          return "body reads the output (accumulating) operand";
  }
  for (Value v : body.getTerminator()->getOperands())
    if (auto ba = dyn_cast<BlockArgument>(v))
      if (ba.getOwner() == &body && !allowed.contains(v))
        return "body yields the output operand";
  return "";
}

/// Compiles the scalar expression `v` of a linalg body into kernel ops;
/// `env` maps block arguments to kernel tensors.
Sym compileScalar(OpBuilder &b, Location loc, Value v,
                  DenseMap<Value, Sym> &env) {
  if (auto it = env.find(v); it != env.end())
    return it->second;
  Sym r;
  Operation *op = v.getDefiningOp();
  if (!op) {
    // A value from outside the body: a scalar constant only.
    return r;
  }
  if (std::optional<double> c = splatValue(v)) {
    r.c = c;
  } else if (op->getNumOperands() == 1 &&
             isa<arith::NegFOp, math::ExpOp, math::SqrtOp, math::RsqrtOp,
                 math::TanhOp>(op)) {
    Sym x = compileScalar(b, loc, op->getOperand(0), env);
    if (x.c) {
      double c = *x.c;
      if (isa<arith::NegFOp>(op)) r.c = -c;
      else if (isa<math::ExpOp>(op)) r.c = std::exp(c);
      else if (isa<math::SqrtOp>(op)) r.c = std::sqrt(c);
      else if (isa<math::RsqrtOp>(op)) r.c = 1.0 / std::sqrt(c);
      else r.c = std::tanh(c);
    } else if (x.t) {
      if (isa<arith::NegFOp>(op))
        r.t = emitUnary(b, loc, UnaryKind::mul_scalar, x.t, -1.0);
      else if (isa<math::ExpOp>(op))
        r.t = emitUnary(b, loc, UnaryKind::exp, x.t);
      else if (isa<math::SqrtOp>(op))
        r.t = emitUnary(b, loc, UnaryKind::sqrt, x.t);
      else if (isa<math::RsqrtOp>(op))
        r.t = emitUnary(b, loc, UnaryKind::rsqrt, x.t);
      else
        r.t = emitUnary(b, loc, UnaryKind::tanh, x.t);
    }
  } else if (op->getNumOperands() == 2 &&
             isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
                 math::PowFOp, arith::MaximumFOp, arith::MaxNumFOp>(op)) {
    Sym x = compileScalar(b, loc, op->getOperand(0), env);
    Sym y = compileScalar(b, loc, op->getOperand(1), env);
    if (!x.ok() || !y.ok())
      return r;
    if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op)) {
      // max(t, 0) is relu; nothing else.
      if (x.t && y.c && *y.c == 0.0)
        r.t = emitUnary(b, loc, UnaryKind::relu, x.t);
      else if (y.t && x.c && *x.c == 0.0)
        r.t = emitUnary(b, loc, UnaryKind::relu, y.t);
      else if (x.c && y.c)
        r.c = std::max(*x.c, *y.c);
      return r;
    }
    BinaryKind k = isa<arith::AddFOp>(op)   ? BinaryKind::add
                   : isa<arith::SubFOp>(op) ? BinaryKind::sub
                   : isa<arith::MulFOp>(op) ? BinaryKind::mul
                   : isa<arith::DivFOp>(op) ? BinaryKind::div
                                            : BinaryKind::pow;
    if (x.c && y.c) {
      if (k == BinaryKind::pow)
        r.c = std::pow(*x.c, *y.c);
      else
        r.c = foldScalar(op, *x.c, *y.c);
    } else if (x.t && y.t) {
      r.t = emitBinary(b, loc, k, x.t, y.t);
    } else if (x.t) {
      r.t = emitScalarBinary(b, loc, k, x.t, *y.c, false);
    } else {
      r.t = emitScalarBinary(b, loc, k, y.t, *x.c, true);
    }
  }
  env[v] = r;
  return r;
}

/// For an input of a linalg op whose map should keep the loop dims in place:
/// true if result j is d_j, or the constant 0 on a unit dim of the input.
bool isInPlaceMap(AffineMap m, ArrayRef<int64_t> shape, unsigned numLoops,
                  std::optional<unsigned> reducedDim = std::nullopt) {
  if (m.getNumDims() != numLoops || m.getNumResults() != numLoops ||
      shape.size() != numLoops)
    return false;
  for (unsigned j = 0; j < numLoops; ++j) {
    AffineExpr e = m.getResult(j);
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (d.getPosition() != j)
        return false;
      if (reducedDim && j == *reducedDim)
        return false;
    } else if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      if (c.getValue() != 0 || shape[j] != 1)
        return false;
    } else {
      return false;
    }
  }
  return true;
}

/// A fill of `tensor.empty` (or any fill) with a constant; returns it.
std::optional<double> fillValue(Value init) {
  if (auto f = init.getDefiningOp<linalg::FillOp>())
    return splatValue(f.getInputs()[0]);
  return splatValue(init);
}

/// The combiner of a reduction body: `yield comb(f(in), out)`. Returns the
/// reduce kind and the value f(in) (the pre-reduction expression).
std::optional<std::pair<ReduceKind, Value>> reductionCombiner(Block &body,
                                                              Value outArg) {
  auto y = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!y || y.getNumOperands() != 1)
    return std::nullopt;
  Operation *comb = y.getOperand(0).getDefiningOp();
  if (!comb || comb->getNumOperands() != 2 || comb->getBlock() != &body)
    return std::nullopt;
  ReduceKind k;
  if (isa<arith::AddFOp>(comb))
    k = ReduceKind::sum;
  else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(comb))
    k = ReduceKind::max;
  else
    return std::nullopt;
  Value a = comb->getOperand(0), c = comb->getOperand(1);
  if (c == outArg && a != outArg)
    return std::make_pair(k, a);
  if (a == outArg && c != outArg)
    return std::make_pair(k, c);
  return std::nullopt;
}

/// Whether `init` is the neutral element of the reduction.
bool neutralInit(ReduceKind k, Value init) {
  std::optional<double> v = fillValue(init);
  if (!v)
    return false;
  return k == ReduceKind::sum ? *v == 0.0 : (*v <= -1e30 || std::isinf(*v));
}

/// linalg structured ops other than matmuls: element-wise (all parallel) or
/// one reduction with a keep-dim output map.
Analysis linalgRecipe(linalg::LinalgOp op) {
  if (op->getNumResults() != 1 || op.getNumDpsInits() != 1)
    return Analysis::no("not a single-result linalg op on tensors");
  if (!op.hasPureTensorSemantics())
    return Analysis::no("linalg op on buffers");
  auto resTy = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (std::string w = whyNotImportable(op->getResult(0).getType()); !w.empty())
    return Analysis::no(w);
  Type elem = resTy.getElementType();
  unsigned numLoops = op.getNumLoops();
  SmallVector<utils::IteratorType> its = op.getIteratorTypesArray();
  SmallVector<unsigned> red;
  for (unsigned i = 0; i < its.size(); ++i)
    if (its[i] == utils::IteratorType::reduction)
      red.push_back(i);
  if (red.size() > 1)
    return Analysis::no("reduces more than one dim");
  Block *body = op.getBlock();
  if (!body)
    return Analysis::no("no body");
  OpOperand *init = op.getDpsInitOperand(0);
  Value outArg = body->getArgument(init->getOperandNumber());
  if (red.empty() && !op.getMatchingIndexingMap(init).isIdentity())
    return Analysis::no("output indexing map is not the identity");
  // Inputs: tensors with in-place maps, or scalar constants.
  SmallVector<Value, 4> inputs;
  llvm::SmallDenseSet<Value> allowed;
  SmallVector<std::pair<unsigned, std::optional<double>>> argInfo; // arg#, const
  for (OpOperand *in : op.getDpsInputOperands()) {
    Value v = in->get();
    Value arg = body->getArgument(in->getOperandNumber());
    allowed.insert(arg);
    if (!isa<ShapedType>(v.getType())) {
      std::optional<double> c = splatValue(v);
      if (!c)
        return Analysis::no("scalar operand that is not a constant");
      argInfo.push_back({in->getOperandNumber(), c});
      continue;
    }
    if (std::string w = whyNotImportable(v.getType()); !w.empty())
      return Analysis::no("operand: " + w);
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != elem)
      return Analysis::no("operand element type differs from the result");
    if (!isInPlaceMap(op.getMatchingIndexingMap(in), t.getShape(), numLoops))
      return Analysis::no("operand indexing map is a transpose, projection or "
                          "rank-changing broadcast");
    if (auto sv = splatValue(v)) {
      argInfo.push_back({in->getOperandNumber(), sv});
      continue;
    }
    argInfo.push_back({in->getOperandNumber(), std::nullopt});
    inputs.push_back(v);
  }
  if (!red.empty()) {
    // The accumulator may only feed the combiner (checked below).
    if (!outArg.hasOneUse())
      return Analysis::no("reduction body uses the accumulator more than once");
    allowed.insert(outArg);
  }
  if (std::string w = checkBody(*body, elem, allowed); !w.empty())
    return Analysis::no(w);
  auto yieldOp = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yieldOp || yieldOp.getNumOperands() != 1)
    return Analysis::no("body does not yield one value");

  std::optional<ReduceKind> rk;
  Value pre = yieldOp.getOperand(0);
  bool addInit = false;
  unsigned rdim = 0;
  if (!red.empty()) {
    rdim = red[0];
    auto rc = reductionCombiner(*body, outArg);
    if (!rc)
      return Analysis::no("reduction body is not sum/max of one expression");
    rk = rc->first;
    pre = rc->second;
    {
      // The output must keep the reduced dim as a unit dim.
      AffineMap m = op.getMatchingIndexingMap(init);
      bool ok = m.getNumResults() == numLoops && resTy.getRank() == numLoops;
      for (unsigned j = 0; ok && j < numLoops; ++j) {
        AffineExpr e = m.getResult(j);
        if (j == rdim) {
          auto c = dyn_cast<AffineConstantExpr>(e);
          ok = c && c.getValue() == 0 && resTy.getDimSize(j) == 1;
        } else {
          auto d = dyn_cast<AffineDimExpr>(e);
          ok = d && d.getPosition() == j;
        }
      }
      if (!ok)
        return Analysis::no("reduction output drops the reduced dim or is "
                            "permuted (kernel reductions keep it as size 1)");
    }
    if (!neutralInit(*rk, init->get())) {
      if (*rk == ReduceKind::max)
        return Analysis::no("max reduction with a non-neutral initial value");
      if (std::string w = whyNotImportable(init->get().getType()); !w.empty())
        return Analysis::no("init: " + w);
      addInit = true;
      inputs.push_back(init->get());
    }
    // Inputs that broadcast along the reduced dim would change the result.
    for (OpOperand *in : op.getDpsInputOperands())
      if (auto t = dyn_cast<RankedTensorType>(in->get().getType()))
        if (t.getRank() == numLoops &&
            t.getDimSize(rdim) != op.getStaticLoopRanges()[rdim])
          return Analysis::no("operand broadcast along the reduced dim");
  }
  Type resultType = resTy;
  auto build = [body, argInfo, pre, rk, rdim, addInit, resultType,
                numIn = inputs.size()](OpBuilder &b, Location loc,
                                       ArrayRef<Value> in) -> Value {
    DenseMap<Value, Sym> env;
    unsigned next = 0;
    for (auto [argNo, c] : argInfo) {
      Sym s;
      if (c)
        s.c = c;
      else
        s.t = in[next++];
      env[body->getArgument(argNo)] = s;
    }
    Sym r = compileScalar(b, loc, pre, env);
    if (!r.t)
      return Value(); // constant results are left to the frontend
    Value v = r.t;
    if (rk) {
      v = emitReduce(b, loc, *rk, v, rdim);
      if (addInit)
        v = emitBinary(b, loc, BinaryKind::add, in[numIn - 1], v);
    }
    if (v && v.getType() != resultType)
      return Value();
    return v;
  };
  return Analysis::yes(std::move(inputs), build);
}

/// linalg.matmul / batch_matmul without user maps or casts.
Analysis linalgMatmulRecipe(linalg::LinalgOp op) {
  if (auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation()))
    if (mm.hasUserDefinedMaps())
      return Analysis::no("matmul with user-defined indexing maps");
  if (auto mm = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
    if (mm.hasUserDefinedMaps())
      return Analysis::no("batch_matmul with user-defined indexing maps");
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return Analysis::no("matmul on buffers");
  Value a = op.getDpsInputOperand(0)->get(), b = op.getDpsInputOperand(1)->get();
  Value c = op.getDpsInitOperand(0)->get();
  for (Value v : {a, b, c})
    if (std::string w = whyNotImportable(v.getType()); !w.empty())
      return Analysis::no("operand: " + w);
  Type e = cast<RankedTensorType>(c.getType()).getElementType();
  if (cast<RankedTensorType>(a.getType()).getElementType() != e ||
      cast<RankedTensorType>(b.getType()).getElementType() != e)
    return Analysis::no("mixed element types (casting matmul)");
  std::optional<double> f = fillValue(c);
  bool zeroInit = f && *f == 0.0;
  Type rt = op->getResult(0).getType();
  if (zeroInit)
    return Analysis::yes({a, b}, [rt](OpBuilder &bd, Location l,
                                      ArrayRef<Value> in) -> Value {
      Value v = emitMatmul(bd, l, in[0], in[1]);
      return v && v.getType() == rt ? v : Value();
    });
  return Analysis::yes({a, b, c}, [rt](OpBuilder &bd, Location l,
                                       ArrayRef<Value> in) -> Value {
    Value v = emitBinary(bd, l, BinaryKind::add, in[2],
                         emitMatmul(bd, l, in[0], in[1]));
    return v && v.getType() == rt ? v : Value();
  });
}

/// tensor.expand_shape of a linalg.reduce that re-inserts the reduced dim.
Analysis expandOfReduceRecipe(tensor::ExpandShapeOp ex) {
  auto red = ex.getSrc().getDefiningOp<linalg::ReduceOp>();
  if (!red || red->getNumResults() != 1 || red.getDimensions().size() != 1)
    return Analysis::no("expand_shape changes the layout (the kernel dialect "
                        "has no reshape)");
  int64_t d = red.getDimensions()[0];
  Value x = red.getInputs()[0];
  if (std::string w = whyNotImportable(x.getType()); !w.empty())
    return Analysis::no("reduce input: " + w);
  auto xt = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> keep(xt.getShape());
  keep[d] = 1;
  if (ex.getResultType() != withShape(xt, keep))
    return Analysis::no("expand_shape does not restore the reduced unit dim");
  Block &body = red.getCombiner().front();
  if (body.getNumArguments() != 2)
    return Analysis::no("reduce body");
  auto rc = reductionCombiner(body, body.getArgument(1));
  if (!rc || rc->second != body.getArgument(0))
    return Analysis::no("reduce body is not a plain sum/max");
  ReduceKind k = rc->first;
  if (!neutralInit(k, red.getInits()[0]))
    return Analysis::no("reduce with a non-neutral initial value");
  return Analysis::yes({x}, [k, d](OpBuilder &b, Location l,
                                   ArrayRef<Value> in) {
    return emitReduce(b, l, k, in[0], d);
  });
}

//----- TOSA -----------------------------------------------------------------

Analysis tosaRecipe(Operation *op) {
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
    return Analysis::yes({a, b}, [rt](OpBuilder &bd, Location l,
                                      ArrayRef<Value> in) -> Value {
      Value v = emitMatmul(bd, l, in[0], in[1]);
      return v && v.getType() == rt ? v : Value();
    });
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
  if (auto a = dyn_cast<tosa::NegateOp>(op)) {
    if (!isZeroConst(a.getInput1Zp()) || !isZeroConst(a.getOutputZp()))
      return Analysis::no("negate with non-zero zero points");
    return unaryRecipe(UnaryKind::mul_scalar, a.getInput1(), rt, -1.0);
  }
  if (auto a = dyn_cast<tosa::ClampOp>(op)) {
    auto lo = dyn_cast<FloatAttr>(a.getMinValAttr());
    auto hi = dyn_cast<FloatAttr>(a.getMaxValAttr());
    if (!lo || !hi || lo.getValueAsDouble() != 0.0 ||
        !(hi.getValueAsDouble() >= 3.0e38))
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
    int64_t d = a.getAxis();
    return Analysis::yes({a.getInput()}, [d, rt](OpBuilder &b, Location l,
                                                 ArrayRef<Value> in) -> Value {
      Value v = emitReduce(b, l, ReduceKind::sum, in[0], d);
      return v && v.getType() == rt ? v : Value();
    });
  }
  if (auto a = dyn_cast<tosa::ReduceMaxOp>(op)) {
    if (std::string w = tensorOperand(a.getInput()); !w.empty())
      return Analysis::no("operand: " + w);
    if (a.getNanMode() != tosa::NanPropagationMode::PROPAGATE)
      return Analysis::no("reduce_max with nan_mode IGNORE");
    int64_t d = a.getAxis();
    return Analysis::yes({a.getInput()}, [d, rt](OpBuilder &b, Location l,
                                                 ArrayRef<Value> in) -> Value {
      Value v = emitReduce(b, l, ReduceKind::max, in[0], d);
      return v && v.getType() == rt ? v : Value();
    });
  }
  if (auto a = dyn_cast<tosa::ConcatOp>(op)) {
    SmallVector<Value, 4> ins(a.getInput1().begin(), a.getInput1().end());
    if (ins.empty())
      return Analysis::no("empty concat");
    for (Value v : ins)
      if (std::string w = tensorOperand(v); !w.empty())
        return Analysis::no("operand: " + w);
    int64_t d = a.getAxis();
    return Analysis::yes(ins, [d, rt](OpBuilder &b, Location l,
                                      ArrayRef<Value> in) -> Value {
      Value v = in[0];
      for (Value x : in.drop_front())
        v = emitConcat(b, l, v, x, d);
      return v && v.getType() == rt ? v : Value();
    });
  }
  if (isa<tosa::ReshapeOp>(op))
    return Analysis::no("reshape (the kernel dialect has no reshape; it stays "
                        "between graphs)");
  if (isa<tosa::TransposeOp>(op))
    return Analysis::no("transpose (the kernel dialect has no transpose)");
  return Analysis::no("no kernel equivalent for '" +
                      op->getName().getStringRef().str() + "'");
}

Analysis analyzeOp(Operation *op) {
  if (op->getNumResults() != 1 ||
      (op->getNumRegions() > 0 && !isa<linalg::LinalgOp>(op)))
    return Analysis::no("not a single-result tensor op");
  if (std::string w = whyNotImportable(op->getResult(0).getType()); !w.empty())
    return Analysis::no("result: " + w);
  Type rt = op->getResult(0).getType();
  // Every tensor operand we might read must be importable too (checked per
  // recipe); the element types must agree with the result.
  if (op->getDialect() && op->getDialect()->getNamespace() == "tosa")
    return tosaRecipe(op);
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return linalgMatmulRecipe(cast<linalg::LinalgOp>(op));
  if (isa<linalg::FillOp>(op))
    return Analysis::no("fill (kept as an initial value)");
  if (auto l = dyn_cast<linalg::LinalgOp>(op)) {
    if (isa<linalg::TransposeOp, linalg::BroadcastOp, linalg::MatvecOp,
            linalg::VecmatOp, linalg::ReduceOp>(op))
      return Analysis::no("'" + op->getName().getStringRef().str() +
                          "' changes the rank or layout");
    if (!isa<linalg::GenericOp>(op) && l.getNumReductionLoops() > 0)
      return Analysis::no("'" + op->getName().getStringRef().str() +
                          "' is not a supported contraction");
    return linalgRecipe(l);
  }
  if (auto ex = dyn_cast<tensor::ExpandShapeOp>(op))
    return expandOfReduceRecipe(ex);
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(op)) {
    BinaryKind k = isa<arith::AddFOp>(op)   ? BinaryKind::add
                   : isa<arith::SubFOp>(op) ? BinaryKind::sub
                   : isa<arith::MulFOp>(op) ? BinaryKind::mul
                                            : BinaryKind::div;
    return binaryRecipe(k, op->getOperand(0), op->getOperand(1), rt);
  }
  if (isa<math::ExpOp>(op))
    return unaryRecipe(UnaryKind::exp, op->getOperand(0), rt);
  if (isa<math::TanhOp>(op))
    return unaryRecipe(UnaryKind::tanh, op->getOperand(0), rt);
  if (isa<math::SqrtOp>(op))
    return unaryRecipe(UnaryKind::sqrt, op->getOperand(0), rt);
  if (isa<math::RsqrtOp>(op))
    return unaryRecipe(UnaryKind::rsqrt, op->getOperand(0), rt);
  return Analysis::no("no kernel equivalent");
}

//===----------------------------------------------------------------------===//
// Recognition patterns on kernel graphs
//===----------------------------------------------------------------------===//

std::optional<double> scalarOf(mk::UnaryOp u) {
  if (!u || !u.getScalar())
    return std::nullopt;
  return u.getScalar()->convertToDouble();
}
mk::UnaryOp unaryOf(Value v, UnaryKind k) {
  auto u = v ? v.getDefiningOp<mk::UnaryOp>() : mk::UnaryOp();
  return u && u.getKind() == k ? u : mk::UnaryOp();
}
mk::BinaryOp binaryOf(Value v, BinaryKind k) {
  auto u = v ? v.getDefiningOp<mk::BinaryOp>() : mk::BinaryOp();
  return u && u.getKind() == k ? u : mk::BinaryOp();
}
bool near(double a, double b, double rel = 1e-5) {
  return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

/// 1 / (1 + exp(-x))  ->  sigmoid(x)
struct SigmoidPattern : OpRewritePattern<mk::UnaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(mk::UnaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != UnaryKind::reciprocal)
      return failure();
    auto add = unaryOf(op.getInput(), UnaryKind::add_scalar);
    if (!add || scalarOf(add) != 1.0)
      return failure();
    auto e = unaryOf(add.getInput(), UnaryKind::exp);
    if (!e)
      return failure();
    auto neg = unaryOf(e.getInput(), UnaryKind::mul_scalar);
    if (!neg || scalarOf(neg) != -1.0)
      return failure();
    rw.replaceOpWithNewOp<mk::UnaryOp>(op, op.getType(), UnaryKind::sigmoid,
                                       neg.getInput(), FloatAttr());
    return success();
  }
};

/// x * sigmoid(x)  ->  silu(x)
struct SiluPattern : OpRewritePattern<mk::BinaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(mk::BinaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::mul)
      return failure();
    for (int i = 0; i < 2; ++i) {
      Value x = op->getOperand(i), s = op->getOperand(1 - i);
      auto sig = unaryOf(s, UnaryKind::sigmoid);
      if (sig && sig.getInput() == x && x.getType() == op.getType()) {
        rw.replaceOpWithNewOp<mk::UnaryOp>(op, op.getType(), UnaryKind::silu,
                                           x, FloatAttr());
        return success();
      }
    }
    return failure();
  }
};

/// Flattens a product tree of mul and mul_scalar into factors and a
/// coefficient. Stops at values with more than one use (except the root).
void productFactors(Value v, SmallVectorImpl<Value> &fs, double &coef,
                    bool root) {
  if (!root && !v.hasOneUse()) {
    fs.push_back(v);
    return;
  }
  if (auto m = binaryOf(v, BinaryKind::mul)) {
    if (m.getLhs().getType() == v.getType() &&
        m.getRhs().getType() == v.getType()) {
      productFactors(m.getLhs(), fs, coef, false);
      productFactors(m.getRhs(), fs, coef, false);
      return;
    }
  }
  if (auto s = unaryOf(v, UnaryKind::mul_scalar)) {
    coef *= scalarOf(s).value_or(0.0);
    productFactors(s.getInput(), fs, coef, false);
    return;
  }
  fs.push_back(v);
}

/// Whether v = x³ (x*x*x in any association, or square(x)*x, or pow(x,3)).
bool isCube(Value v, Value x) {
  SmallVector<Value> fs;
  double c = 1;
  productFactors(v, fs, c, true);
  if (c != 1.0)
    return false;
  int n = 0;
  for (Value f : fs) {
    if (f == x)
      n += 1;
    else if (auto s = unaryOf(f, UnaryKind::square); s && s.getInput() == x)
      n += 2;
    else
      return false;
  }
  return n == 3;
}

/// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))  ->  gelu(x)
struct GeluPattern : RewritePattern {
  GeluPattern(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rw) const override {
    if (!isa<mk::BinaryOp, mk::UnaryOp>(op) || op->getNumResults() != 1)
      return failure();
    Value root = op->getResult(0);
    SmallVector<Value> fs;
    double coef = 1;
    productFactors(root, fs, coef, true);
    if (fs.size() != 2 || !near(coef, 0.5))
      return failure();
    for (int i = 0; i < 2; ++i) {
      Value x = fs[i], u = fs[1 - i];
      if (x.getType() != root.getType())
        continue;
      auto one = unaryOf(u, UnaryKind::add_scalar);
      if (!one || scalarOf(one) != 1.0)
        continue;
      auto th = unaryOf(one.getInput(), UnaryKind::tanh);
      if (!th)
        continue;
      // √(2/π)·(x + 0.044715·x³), either as a scaled sum or a sum of scaled
      // terms.
      SmallVector<Value> inner;
      double k = 1;
      productFactors(th.getInput(), inner, k, true);
      const double c = std::sqrt(2.0 / M_PI);
      bool ok = false;
      if (inner.size() == 1 && near(k, c)) {
        if (auto add = binaryOf(inner[0], BinaryKind::add)) {
          for (int j = 0; j < 2 && !ok; ++j) {
            Value a = add->getOperand(j), bterm = add->getOperand(1 - j);
            if (a != x)
              continue;
            SmallVector<Value> cf;
            double kk = 1;
            productFactors(bterm, cf, kk, true);
            if (cf.size() == 1 && near(kk, 0.044715) && isCube(cf[0], x))
              ok = true;
            else if (near(kk, 0.044715)) {
              // Factors x, x, x directly.
              int n = 0;
              bool only = true;
              for (Value f : cf)
                if (f == x) ++n;
                else if (auto s = unaryOf(f, UnaryKind::square); s && s.getInput() == x) n += 2;
                else only = false;
              ok = only && n == 3;
            }
          }
        }
      }
      if (!ok)
        continue;
      rw.replaceOpWithNewOp<mk::UnaryOp>(op, root.getType(), UnaryKind::gelu,
                                         x, FloatAttr());
      return success();
    }
    return failure();
  }
};

/// Matches mean(x², last dim) + eps where mean is sum·(1/n) or sum/n.
/// Returns x and eps.
std::optional<std::pair<Value, double>> matchMeanSquarePlusEps(Value v) {
  double eps = 0;
  if (auto a = unaryOf(v, UnaryKind::add_scalar)) {
    eps = scalarOf(a).value_or(0.0);
    v = a.getInput();
  }
  auto ms = unaryOf(v, UnaryKind::mul_scalar);
  if (!ms || !scalarOf(ms))
    return std::nullopt;
  double scale = *scalarOf(ms);
  auto red = ms.getInput().getDefiningOp<mk::ReduceOp>();
  if (!red || red.getKind() != ReduceKind::sum || red.getSize() != 1)
    return std::nullopt;
  auto xt = cast<RankedTensorType>(red.getInput().getType());
  if (static_cast<int64_t>(red.getDim()) != xt.getRank() - 1)
    return std::nullopt;
  int64_t n = xt.getDimSize(xt.getRank() - 1);
  if (!near(scale * n, 1.0, 1e-6))
    return std::nullopt;
  Value sq = red.getInput();
  Value x;
  if (auto s = unaryOf(sq, UnaryKind::square))
    x = s.getInput();
  else if (auto m = binaryOf(sq, BinaryKind::mul); m && m.getLhs() == m.getRhs())
    x = m.getLhs();
  else
    return std::nullopt;
  if (x.getType() != sq.getType())
    return std::nullopt;
  return std::make_pair(x, eps);
}

/// x * rsqrt(mean(x²)+eps), x / sqrt(mean(x²)+eps)  ->  rms_norm x eps
struct RmsNormPattern : OpRewritePattern<mk::BinaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(mk::BinaryOp op,
                                PatternRewriter &rw) const override {
    std::optional<std::pair<Value, double>> m;
    Value x;
    if (op.getKind() == BinaryKind::mul) {
      for (int i = 0; i < 2 && !m; ++i) {
        x = op->getOperand(i);
        if (auto r = unaryOf(op->getOperand(1 - i), UnaryKind::rsqrt))
          m = matchMeanSquarePlusEps(r.getInput());
        if (m && m->first != x)
          m.reset();
      }
    } else if (op.getKind() == BinaryKind::div) {
      x = op.getLhs();
      if (auto s = unaryOf(op.getRhs(), UnaryKind::sqrt))
        m = matchMeanSquarePlusEps(s.getInput());
      if (m && m->first != x)
        m.reset();
    }
    if (!m || x.getType() != op.getType())
      return failure();
    rw.replaceOpWithNewOp<mk::RmsNormOp>(op, op.getType(), x, Value(),
                                         rw.getF64FloatAttr(m->second));
    return success();
  }
};

/// rms_norm(x) * gamma  ->  rms_norm x weight gamma (gamma broadcasts to x)
struct RmsNormWeightPattern : OpRewritePattern<mk::BinaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(mk::BinaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::mul)
      return failure();
    for (int i = 0; i < 2; ++i) {
      auto n = op->getOperand(i).getDefiningOp<mk::RmsNormOp>();
      Value g = op->getOperand(1 - i);
      if (!n || n.getWeight() || !n->hasOneUse() ||
          n.getType() != op.getType())
        continue;
      RankedTensorType bt = broadcastType(n.getResult(), g);
      if (!bt || bt != op.getType())
        continue;
      rw.replaceOpWithNewOp<mk::RmsNormOp>(op, op.getType(), n.getInput(), g,
                                           n.getEpsAttr());
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// LAX split
//===----------------------------------------------------------------------===//

bool isNonLax(Operation *op) {
  if (auto u = dyn_cast<mk::UnaryOp>(op)) {
    switch (u.getKind()) {
    case UnaryKind::silu:
    case UnaryKind::gelu:
    case UnaryKind::relu:
    case UnaryKind::sigmoid:
    case UnaryKind::tanh:
      return true;
    default:
      return false;
    }
  }
  if (auto b = dyn_cast<mk::BinaryOp>(op))
    return b.getKind() == BinaryKind::pow;
  if (auto r = dyn_cast<mk::ReduceOp>(op))
    return r.getKind() == ReduceKind::max;
  return false;
}

bool isExp(Operation *op) {
  auto u = dyn_cast<mk::UnaryOp>(op);
  return u && u.getKind() == UnaryKind::exp;
}

/// Splits `g` into consecutive graphs by `part` (non-decreasing along
/// def-use edges). Returns the new graphs.
SmallVector<mk::GraphOp> splitGraph(mk::GraphOp g,
                                    DenseMap<Operation *, int> &part,
                                    int numParts) {
  Block &body = g.getBody().front();
  auto yield = cast<mk::YieldOp>(body.getTerminator());
  OpBuilder b(g);
  // Outer value of each inner value materialised so far.
  IRMapping outer;
  for (auto [arg, in] : llvm::zip(body.getArguments(), g.getInputs()))
    outer.map(arg, in);
  SmallVector<mk::GraphOp> made;
  for (int p = 0; p < numParts; ++p) {
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      if (part.lookup(&op) == p)
        ops.push_back(&op);
    if (ops.empty())
      continue;
    llvm::SetVector<Value> ins, outs;
    llvm::SmallPtrSet<Operation *, 16> inPart(ops.begin(), ops.end());
    for (Operation *op : ops)
      for (Value v : op->getOperands())
        if (!v.getDefiningOp() || !inPart.contains(v.getDefiningOp()))
          ins.insert(v);
    for (Operation *op : ops)
      for (Value r : op->getResults())
        for (OpOperand &use : r.getUses())
          if (!inPart.contains(use.getOwner()))
            outs.insert(r);
    if (outs.empty())
      continue;
    SmallVector<Value> outerIns;
    for (Value v : ins)
      outerIns.push_back(outer.lookup(v));
    SmallVector<Type> outTypes;
    for (Value v : outs)
      outTypes.push_back(v.getType());
    auto ng = mk::GraphOp::create(b, g.getLoc(), outTypes, outerIns,
                                  StringAttr(), StringAttr());
    Block *nb = new Block();
    ng.getBody().push_back(nb);
    IRMapping inner;
    for (Value v : ins)
      inner.map(v, nb->addArgument(v.getType(), g.getLoc()));
    OpBuilder ib = OpBuilder::atBlockEnd(nb);
    for (Operation *op : ops)
      ib.clone(*op, inner);
    SmallVector<Value> ys;
    for (Value v : outs)
      ys.push_back(inner.lookup(v));
    mk::YieldOp::create(ib, g.getLoc(), ys);
    for (auto [v, r] : llvm::zip(outs, ng.getResults()))
      outer.map(v, r);
    made.push_back(ng);
  }
  SmallVector<Value> repl;
  for (Value v : yield.getValues())
    repl.push_back(outer.lookup(v));
  g->replaceAllUsesWith(repl);
  g->erase();
  return made;
}

/// Part assignment: a new part starts at an exp whose input already crossed
/// an exp in the current part; with `strict`, each non-LAX op gets its own
/// part and its users start a new one.
int assignParts(mk::GraphOp g, bool strict, DenseMap<Operation *, int> &part) {
  DenseMap<Value, int> expCount;
  int maxPart = 0;
  DenseMap<Operation *, bool> isolated;
  for (Operation &op : g.getBody().front().without_terminator()) {
    int p = 0;
    for (Value v : op.getOperands())
      if (Operation *d = v.getDefiningOp()) {
        int q = part.lookup(d);
        if (strict && isolated.lookup(d))
          ++q;
        p = std::max(p, q);
      }
    bool nonLax = strict && isNonLax(&op);
    if (nonLax) {
      // Its own part after everything it reads.
      p = maxPart + 1;
    }
    int e = 0;
    for (Value v : op.getOperands())
      if (Operation *d = v.getDefiningOp(); d && part.lookup(d) == p)
        e = std::max(e, expCount.lookup(v));
    if (isExp(&op)) {
      if (e >= 1) {
        p = maxPart + 1;
        e = 0;
      }
      ++e;
    }
    part[&op] = p;
    isolated[&op] = nonLax;
    maxPart = std::max(maxPart, p);
    for (Value r : op.getResults())
      expCount[r] = e;
  }
  return maxPart + 1;
}

//===----------------------------------------------------------------------===//
// Grouping and graph construction
//===----------------------------------------------------------------------===//

struct BlockImporter {
  Block &block;
  bool recognize;
  bool strictLax;
  /// Ops that must not be imported (a previous attempt failed), with reason.
  DenseMap<Operation *, std::string> &disabled;
  SmallVector<mk::GraphOp> &created;

  BlockImporter(Block &block, bool recognize, bool strictLax,
                DenseMap<Operation *, std::string> &disabled,
                SmallVector<mk::GraphOp> &created)
      : block(block), recognize(recognize), strictLax(strictLax),
        disabled(disabled), created(created) {}

  std::vector<Operation *> ops;
  DenseMap<Operation *, int> index;
  std::vector<std::optional<Recipe>> recipes;
  std::vector<SmallVector<int, 4>> deps; // producers relevant for grouping
  std::vector<int> parent;               // union-find over op indices
  std::vector<int> member;               // group root or -1

  int find(int i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  }

  void collectProducers(Operation *op, SmallVectorImpl<int> &out) {
    auto add = [&](Value v) {
      if (Operation *d = v.getDefiningOp())
        if (Operation *a = block.findAncestorOpInBlock(*d))
          if (auto it = index.find(a); it != index.end() && a != op)
            out.push_back(it->second);
    };
    for (Value v : op->getOperands())
      add(v);
    op->walk([&](Operation *nested) {
      if (nested != op)
        for (Value v : nested->getOperands())
          add(v);
    });
  }

  /// Would the group made of the groups `roots` plus op `x` be non-convex or
  /// close a cycle among groups?
  bool createsCycle(const llvm::SmallDenseSet<int> &roots, int x) {
    auto inM = [&](int n) {
      return n == x || (member[n] >= 0 && roots.contains(find(member[n])));
    };
    SmallVector<int> stack;
    DenseSet<int> seen, seenGroups;
    for (int n = 0; n < (int)ops.size(); ++n)
      if (inM(n))
        for (int p : deps[n])
          if (!inM(p))
            stack.push_back(p);
    while (!stack.empty()) {
      int n = stack.pop_back_val();
      if (!seen.insert(n).second)
        continue;
      if (inM(n))
        return true;
      if (member[n] >= 0) {
        int g = find(member[n]);
        if (seenGroups.insert(g).second)
          for (int m = 0; m < (int)ops.size(); ++m)
            if (member[m] >= 0 && find(member[m]) == g)
              for (int p : deps[m])
                stack.push_back(p);
      } else {
        for (int p : deps[n])
          stack.push_back(p);
      }
    }
    return false;
  }

  void analyze() {
    for (Operation &op : block)
      if (!op.hasTrait<OpTrait::IsTerminator>()) {
        index[&op] = ops.size();
        ops.push_back(&op);
      }
    recipes.resize(ops.size());
    deps.resize(ops.size());
    parent.resize(ops.size());
    member.assign(ops.size(), -1);
    for (int i = 0; i < (int)ops.size(); ++i) {
      parent[i] = i;
      if (!disabled.count(ops[i])) {
        Analysis a = analyzeOp(ops[i]);
        recipes[i] = std::move(a.recipe);
      }
      if (recipes[i]) {
        for (Value v : recipes[i]->inputs)
          if (Operation *d = v.getDefiningOp())
            if (Operation *anc = block.findAncestorOpInBlock(*d))
              if (auto it = index.find(anc); it != index.end())
                deps[i].push_back(it->second);
      } else {
        collectProducers(ops[i], deps[i]);
      }
    }
  }

  void group() {
    for (int i = 0; i < (int)ops.size(); ++i) {
      if (!recipes[i])
        continue;
      llvm::SmallDenseSet<int> cands;
      for (int p : deps[i])
        if (member[p] >= 0)
          cands.insert(find(member[p]));
      llvm::SmallDenseSet<int> chosen;
      if (!cands.empty() && !createsCycle(cands, i)) {
        chosen = cands;
      } else {
        for (int c : cands) {
          llvm::SmallDenseSet<int> one;
          one.insert(c);
          if (!createsCycle(one, i)) {
            chosen = one;
            break;
          }
        }
      }
      member[i] = i;
      for (int c : chosen)
        parent[c] = i;
    }
    for (int i = 0; i < (int)ops.size(); ++i)
      if (member[i] >= 0)
        member[i] = find(i);
  }

  /// Builds the graph for one group; returns failure with the op to disable.
  LogicalResult realize(ArrayRef<Operation *> members,
                        const llvm::SmallPtrSetImpl<Operation *> &allMembers,
                        const DenseMap<Operation *, const Recipe *> &recipeOf,
                        Operation *&culprit, std::string &why) {
    llvm::SmallPtrSet<Operation *, 16> inG(members.begin(), members.end());
    // Inputs.
    llvm::SetVector<Value> ins;
    for (Operation *m : members)
      for (Value v : recipeOf.lookup(m)->inputs)
        if (!v.getDefiningOp() || !inG.contains(v.getDefiningOp()))
          ins.insert(v);
    // Outputs: results used by ops that stay, or by other groups' recipes.
    llvm::SetVector<Value> outs;
    for (Operation *m : members)
      for (OpOperand &use : m->getResult(0).getUses()) {
        Operation *u = use.getOwner();
        Operation *anc = block.findAncestorOpInBlock(*u);
        if (anc && inG.contains(anc))
          continue;
        if (anc && allMembers.contains(anc)) {
          if (llvm::is_contained(recipeOf.lookup(anc)->inputs,
                                 m->getResult(0)))
            outs.insert(m->getResult(0));
          continue;
        }
        outs.insert(m->getResult(0));
      }
    if (outs.empty())
      return success(); // nothing observable; members die with their users
    // Placement: after the last member; ops in between that use the group
    // move after the graph and must be free of side effects.
    Operation *last = members.front();
    for (Operation *m : members)
      if (last->isBeforeInBlock(m))
        last = m;
    SmallVector<Operation *> toMove;
    llvm::SmallPtrSet<Operation *, 16> tainted(inG.begin(), inG.end());
    for (Operation *o = members.front(); o && o != last; o = o->getNextNode()) {
      if (inG.contains(o))
        continue;
      bool uses = false;
      auto check = [&](Operation *nested) {
        for (Value v : nested->getOperands())
          if (Operation *d = v.getDefiningOp())
            if (Operation *a = block.findAncestorOpInBlock(*d))
              if (tainted.contains(a))
                uses = true;
      };
      o->walk(check);
      if (uses) {
        if (!isMemoryEffectFree(o)) {
          culprit = nullptr;
          why = "grouping would move an op with side effects";
          return failure();
        }
        tainted.insert(o);
        toMove.push_back(o);
      }
    }
    // Build the graph.
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    Location loc = members.size() == 1
                       ? members.front()->getLoc()
                       : b.getFusedLoc(llvm::to_vector(llvm::map_range(
                             members, [](Operation *m) { return m->getLoc(); })));
    SmallVector<Type> outTypes;
    for (Value v : outs)
      outTypes.push_back(v.getType());
    auto g = mk::GraphOp::create(b, loc, outTypes, ins.getArrayRef(),
                                 StringAttr(), StringAttr());
    Block *body = new Block();
    g.getBody().push_back(body);
    IRMapping map;
    for (Value v : ins)
      map.map(v, body->addArgument(v.getType(), v.getLoc()));
    OpBuilder ib = OpBuilder::atBlockEnd(body);
    for (Operation *m : members) {
      SmallVector<Value> in;
      for (Value v : recipeOf.lookup(m)->inputs)
        in.push_back(map.lookup(v));
      Value r = recipeOf.lookup(m)->build(ib, m->getLoc(), in);
      if (!r || r.getType() != m->getResult(0).getType()) {
        g->erase();
        culprit = m;
        why = "operand shapes have no kernel form";
        return failure();
      }
      map.map(m->getResult(0), r);
    }
    SmallVector<Value> ys;
    for (Value v : outs)
      ys.push_back(map.lookup(v));
    mk::YieldOp::create(ib, loc, ys);
    {
      ScopedDiagnosticHandler silence(g->getContext(),
                                      [](Diagnostic &) { return success(); });
      if (failed(mlir::verify(g))) {
        g->erase();
        culprit = nullptr;
        why = "the kernel graph would not verify";
        return failure();
      }
    }
    // Commit.
    Operation *after = g;
    for (Operation *o : toMove) {
      o->moveAfter(after);
      after = o;
    }
    for (auto [cv, r] : llvm::zip(outs, g.getResults()))
      Value(cv).replaceUsesWithIf(r, [&](OpOperand &use) {
        Operation *anc = block.findAncestorOpInBlock(*use.getOwner());
        return !(anc && inG.contains(anc));
      });
    created.push_back(g);
    return success();
  }
};

/// Cleans up a freshly built graph body: recognition, dead code.
void simplifyGraph(mk::GraphOp g, bool recognize) {
  MLIRContext *ctx = g->getContext();
  RewritePatternSet ps(ctx);
  if (recognize) {
    ps.add<SigmoidPattern, SiluPattern, RmsNormPattern, RmsNormWeightPattern>(
        ctx);
    ps.add<GeluPattern>(ctx);
  }
  GreedyRewriteConfig cfg;
  cfg.setMaxIterations(8);
  cfg.enableFolding(false);
  (void)applyPatternsGreedily(g.getBody(), std::move(ps), cfg);
  // Dead ops (patterns leave the matched intermediates behind).
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op :
         llvm::make_early_inc_range(llvm::reverse(g.getBody().front())))
      if (!op.hasTrait<OpTrait::IsTerminator>() && isOpTriviallyDead(&op)) {
        op.erase();
        changed = true;
      }
  }
}

struct ImportPass : mirage::impl::MirageImportBase<ImportPass> {
  using Base::Base;

  void importBlock(Block &block, SmallVector<mk::GraphOp> &created) {
    DenseMap<Operation *, std::string> disabled;
    for (unsigned attempt = 0; attempt < 64; ++attempt) {
      BlockImporter bi(block, recognize, strictLax, disabled, created);
      bi.analyze();
      bi.group();
      // Groups in order of their first member.
      std::map<int, SmallVector<Operation *>> groups;
      llvm::SmallPtrSet<Operation *, 32> allMembers;
      DenseMap<Operation *, const Recipe *> recipeOf;
      for (int i = 0; i < (int)bi.ops.size(); ++i)
        if (bi.member[i] >= 0) {
          groups[bi.member[i]].push_back(bi.ops[i]);
          allMembers.insert(bi.ops[i]);
          recipeOf[bi.ops[i]] = &*bi.recipes[i];
        }
      if (groups.empty())
        return;
      SmallVector<SmallVector<Operation *>> ordered;
      for (auto &[root, ms] : groups)
        ordered.push_back(ms);
      llvm::sort(ordered, [](const auto &a, const auto &b) {
        return a.front()->isBeforeInBlock(b.front());
      });
      bool retry = false;
      for (auto &ms : ordered) {
        Operation *culprit = nullptr;
        std::string why;
        if (failed(bi.realize(ms, allMembers, recipeOf, culprit, why))) {
          // Disable the culprit (or the whole group) and start over; the
          // graphs built so far stay (their members are now dead).
          if (culprit)
            disabled[culprit] = why;
          else
            for (Operation *m : ms)
              disabled[m] = why;
          retry = true;
          break;
        }
      }
      // Erase what the graphs replaced (reverse order: users first) and
      // whatever became dead because of it.
      eraseDead(block);
      if (!retry)
        return;
    }
  }

  /// Erases ops that are trivially dead and either imported or feeding only
  /// what was erased (constants, fills, empties, imported ops).
  void eraseDead(Block &block) {
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
        if (op.hasTrait<OpTrait::IsTerminator>() || !isOpTriviallyDead(&op))
          continue;
        if (!importedUsers.contains(&op) && !analyzeOp(&op).recipe)
          continue;
        for (Value v : op.getOperands())
          if (Operation *d = v.getDefiningOp())
            importedUsers.insert(d);
        op.erase();
        changed = true;
      }
    }
  }

  llvm::SmallPtrSet<Operation *, 32> importedUsers;

  void runOnOperation() override {
    func::FuncOp f = getOperation();
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
    for (Block *b : blocks) {
      for (Operation &op : *b)
        if (analyzeOp(&op).recipe)
          for (Value v : op.getOperands())
            if (Operation *d = v.getDefiningOp())
              importedUsers.insert(d);
      importBlock(*b, created);
    }
    // Recognition, then the LAX split.
    for (mk::GraphOp g : created) {
      simplifyGraph(g, recognize);
      DenseMap<Operation *, int> part;
      int n = assignParts(g, strictLax, part);
      SmallVector<mk::GraphOp> pieces{g};
      if (n > 1)
        pieces = splitGraph(g, part, n);
      for (mk::GraphOp p : pieces) {
        SmallVector<Attribute> nonLax;
        llvm::SmallSet<StringRef, 4> seen;
        p.getBody().walk([&](Operation *op) {
          if (!isNonLax(op))
            return;
          std::string name;
          if (auto u = dyn_cast<mk::UnaryOp>(op))
            name = stringifyUnaryKind(u.getKind()).str();
          else if (auto b = dyn_cast<mk::BinaryOp>(op))
            name = stringifyBinaryKind(b.getKind()).str();
          else
            name = "reduce_max";
          StringAttr s = StringAttr::get(op->getContext(), name);
          if (seen.insert(s.getValue()).second)
            nonLax.push_back(s);
        });
        if (!nonLax.empty())
          p->setAttr("mirage.non_lax", ArrayAttr::get(p->getContext(), nonLax));
      }
    }
    if (remarks) {
      f->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (isa<linalg::LinalgOp>(op) && !isa<linalg::FillOp>(op)) {
          op->emitRemark("not imported: ") << reason(op);
          return WalkResult::skip();
        }
        if (isa<mk::GraphOp, mk::CustomOp>(op))
          return WalkResult::skip();
        if (op->getDialect() && op->getDialect()->getNamespace() == "tosa" &&
            !isa<tosa::ConstOp, tosa::YieldOp, tosa::ConstShapeOp>(op) &&
            op->getNumResults() > 0)
          op->emitRemark("not imported: ") << reason(op);
        return WalkResult::advance();
      });
    }
  }

  std::string reason(Operation *op) {
    Analysis a = analyzeOp(op);
    if (!a.recipe)
      return a.why;
    return "its group could not form a kernel graph";
  }
};

} // namespace

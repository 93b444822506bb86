//===- LinalgToKernel.cpp - Recipes for linalg on tensors -----------------===//
//
// Recipes for linalg structured ops on tensors: named matmul/batch_matmul,
// element-wise generics and named element-wise ops (their scalar body is
// compiled into kernel ops), generics with one keep-dim reduction, and the
// `tensor.expand_shape(linalg.reduce)` idiom that restores the reduced unit
// dim. Attributes are read through UpstreamAttrs only (a verified op may
// lack one).
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"
#include "../UpstreamAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

using namespace mlir;
using namespace mirage;
using namespace mirage::import;

namespace {

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
  // Splat constants are folded into the body, so without a tensor operand
  // the result is a constant, which has no kernel form (constants enter
  // graphs as operands).
  if (inputs.empty())
    return Analysis::no("every operand is a splat constant (the result is a "
                        "constant)");
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
} // namespace

namespace mirage::import {

/// tensor.expand_shape of a linalg.reduce that re-inserts the reduced dim.
Analysis analyzeExpandOfReduce(tensor::ExpandShapeOp ex) {
  auto red = ex.getSrc().getDefiningOp<linalg::ReduceOp>();
  if (!red || red->getNumResults() != 1)
    return Analysis::no("expand_shape changes the layout (the kernel dialect "
                        "has no reshape)");
  UpstreamAttrs attrs(red);
  auto dims = attrs.get<DenseI64ArrayAttr>("dimensions");
  if (!attrs.ok())
    return Analysis::no("reduce: " + attrs.why());
  if (dims.size() != 1)
    return Analysis::no("expand_shape changes the layout (the kernel dialect "
                        "has no reshape)");
  int64_t d = dims[0];
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

Analysis analyzeLinalgOp(linalg::LinalgOp l) {
  Operation *op = l.getOperation();
  // The interface methods used below (indexing maps, iterator types, and
  // hasUserDefinedMaps) read these attributes where the op stores them.
  UpstreamAttrs attrs(op);
  attrs.getIfDeclared<ArrayAttr>("indexing_maps");
  attrs.getIfDeclared<ArrayAttr>("iterator_types");
  if (!attrs.ok())
    return Analysis::no(attrs.why());
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return linalgMatmulRecipe(l);
  if (isa<linalg::FillOp>(op))
    return Analysis::no("fill (kept as an initial value)");
  if (isa<linalg::TransposeOp, linalg::BroadcastOp, linalg::MatvecOp,
          linalg::VecmatOp, linalg::ReduceOp>(op))
    return Analysis::no("'" + op->getName().getStringRef().str() +
                        "' changes the rank or layout");
  if (!isa<linalg::GenericOp>(op) && l.getNumReductionLoops() > 0)
    return Analysis::no("'" + op->getName().getStringRef().str() +
                        "' is not a supported contraction");
  return linalgRecipe(l);
}

} // namespace mirage::import

//===- LinalgToKernel.cpp - Recipes for linalg on tensors -----------------===//
//
// Recipes for linalg structured ops on tensors: named matmul/batch_matmul,
// element-wise generics and named element-wise ops (their scalar body is
// compiled into kernel ops), generics with one keep-dim reduction, and the
// `tensor.expand_shape(linalg.reduce)` idiom that restores the reduced unit
// dim. Bodies are compiled as frontends write them: casts of constants
// (torch-mlir's scalars), `math.fpowi` with a constant exponent, and only
// what the first result needs when the other results are unused (a max
// with its index). Attributes are read through UpstreamAttrs only (a
// verified op may lack one).
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"
#include "../UpstreamAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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

/// The value of a constant integer scalar (an exponent of math.fpowi, the
/// operand of sitofp/uitofp).
std::optional<int64_t> intConstant(Value v) {
  APInt i;
  if (v && matchPattern(v, m_ConstantInt(&i)))
    return i.getSExtValue();
  return std::nullopt;
}

/// Casts whose operand is a constant fold to a constant: frontends write
/// scalars that way (torch-mlir's `arith.truncf %eps : f64 to f32` of a
/// Python float, `arith.sitofp` of an integer divisor). A cast of a computed
/// value would need a kernel cast op, which there is not.
bool isConstantCast(Operation *op) {
  return isa<arith::TruncFOp, arith::ExtFOp, arith::SIToFPOp, arith::UIToFPOp>(
      op);
}

/// Whether the body value `v` is a constant: defined outside the body as a
/// constant, a constant block argument, or a constant cast of one.
bool isConstantValue(Value v, const llvm::SmallDenseSet<Value> &consts) {
  if (consts.contains(v) || matchPattern(v, m_Constant()))
    return true;
  Operation *d = v.getDefiningOp();
  return d && isConstantCast(d) && isConstantValue(d->getOperand(0), consts);
}

/// The ops of `body` that the value `root` depends on. The other ops compute
/// results nobody reads (the index of a max-with-index reduction).
llvm::SmallPtrSet<Operation *, 16> liveOps(Block &body, Value root) {
  llvm::SmallPtrSet<Operation *, 16> live;
  SmallVector<Value> work{root};
  while (!work.empty()) {
    Operation *d = work.pop_back_val().getDefiningOp();
    if (!d || d->getBlock() != &body || !live.insert(d).second)
      continue;
    llvm::append_range(work, d->getOperands());
  }
  return live;
}

/// Checks that every op of a linalg body that computes `live` values can be
/// compiled (same element type, supported arith/math ops; casts and integer
/// exponents of constants only). `allowed` are the block args that may be
/// used; `consts` the block args bound to constants.
std::string checkBody(Block &body, Type elemType,
                      const llvm::SmallDenseSet<Value> &allowed,
                      const llvm::SmallDenseSet<Value> &consts,
                      const llvm::SmallPtrSetImpl<Operation *> &live) {
  for (Operation &op : body.without_terminator()) {
    if (!live.contains(&op)) {
      // Computes only results nobody reads (checked by the caller); it must
      // not do anything else.
      if (!isMemoryEffectFree(&op))
        return "body op '" + op.getName().getStringRef().str() +
               "' has side effects";
      continue;
    }
    if (isConstantCast(&op)) {
      // A cast with an explicit rounding mode would need it honoured.
      if (!isConstantValue(op.getOperand(0), consts) ||
          op.getAttr("roundingmode"))
        return "body op '" + op.getName().getStringRef().str() +
               "' casts a computed value (there is no kernel cast)";
      continue;
    }
    if (auto p = dyn_cast<math::FPowIOp>(op)) {
      std::optional<int64_t> n = intConstant(p.getRhs());
      if (!n || !hasScalarPowForm((double)*n))
        return "math.fpowi whose exponent is not a constant with a kernel "
               "form (-1, 1, 2, 3)";
    }
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, arith::MaximumFOp, arith::MaxNumFOp,
             arith::ConstantOp, math::ExpOp, math::SqrtOp, math::RsqrtOp,
             math::TanhOp, math::ErfOp, math::PowFOp, math::FPowIOp>(op))
      return "body op '" + op.getName().getStringRef().str() +
             "' has no kernel equivalent";
    for (Type t : op.getResultTypes())
      if (t != elemType && !isa<arith::ConstantOp>(op))
        return "body mixes element types";
    for (Value v : op.getOperands())
      if (auto ba = dyn_cast<BlockArgument>(v))
        if (ba.getOwner() == &body && !allowed.contains(v))
          return "body reads the output (accumulating) operand";
  }
  Value y0 = body.getTerminator()->getNumOperands()
                 ? body.getTerminator()->getOperand(0)
                 : Value();
  if (auto ba = dyn_cast_if_present<BlockArgument>(y0))
    if (ba.getOwner() == &body && !allowed.contains(y0))
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
  } else if (isConstantCast(op)) {
    Value src = op->getOperand(0);
    std::optional<double> c = intConstant(src);
    if (!c)
      c = compileScalar(b, loc, src, env).c;
    if (c)
      r.c = roundTo(*c, op->getResult(0).getType());
  } else if (auto p = dyn_cast<math::FPowIOp>(op)) {
    Sym x = compileScalar(b, loc, p.getLhs(), env);
    std::optional<int64_t> n = intConstant(p.getRhs());
    if (n && x.c)
      r.c = std::pow(*x.c, (double)*n);
    else if (n && x.t)
      r.t = emitScalarBinary(b, loc, BinaryKind::pow, x.t, (double)*n, false);
  } else if (op->getNumOperands() == 1 &&
             isa<arith::NegFOp, math::ExpOp, math::SqrtOp, math::RsqrtOp,
                 math::TanhOp, math::ErfOp>(op)) {
    Sym x = compileScalar(b, loc, op->getOperand(0), env);
    if (x.c) {
      double c = *x.c;
      if (isa<arith::NegFOp>(op)) r.c = -c;
      else if (isa<math::ExpOp>(op)) r.c = std::exp(c);
      else if (isa<math::SqrtOp>(op)) r.c = std::sqrt(c);
      else if (isa<math::RsqrtOp>(op)) r.c = 1.0 / std::sqrt(c);
      else if (isa<math::ErfOp>(op)) r.c = std::erf(c);
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
      else if (isa<math::ErfOp>(op))
        r.t = emitUnary(b, loc, UnaryKind::erf, x.t);
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
  if (!y || y.getNumOperands() < 1)
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

/// Whether `init` is the neutral element of the reduction. For max, -inf or
/// any value at or below -1e30, or the lowest finite value of the element
/// type (torch-mlir fills with it: -65504 in f16): they differ from -inf only
/// on a row that is entirely -inf.
bool neutralInit(ReduceKind k, Value init) {
  std::optional<double> v = fillValue(init);
  if (!v)
    return false;
  if (k == ReduceKind::sum)
    return *v == 0.0;
  if (*v <= -1e30 || std::isinf(*v))
    return true;
  auto ft = dyn_cast<FloatType>(getElementTypeOrSelf(init.getType()));
  return ft &&
         *v == APFloat::getLargest(ft.getFloatSemantics(), /*Negative=*/true)
                   .convertToDouble();
}


//----- indexing maps ---------------------------------------------------------

/// For each dim of an operand, the loop its indexing map reads there, or -1
/// for the constant 0 on a unit dim; nullopt (with `why`) for any other map.
std::optional<SmallVector<int64_t>> operandLoops(AffineMap m,
                                                 ArrayRef<int64_t> shape,
                                                 ArrayRef<int64_t> ranges,
                                                 std::string &why) {
  if (m.getNumResults() != shape.size() || m.getNumDims() != ranges.size()) {
    why = "indexing map does not fit the operand";
    return std::nullopt;
  }
  SmallVector<int64_t> loops;
  for (auto [j, e] : llvm::enumerate(m.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      int64_t l = d.getPosition();
      if (llvm::is_contained(loops, l)) {
        why = "indexing map reads a loop twice (a diagonal)";
        return std::nullopt;
      }
      if (shape[j] != ranges[l]) {
        why = "operand dim differs from its loop range";
        return std::nullopt;
      }
      loops.push_back(l);
    } else if (auto c = dyn_cast<AffineConstantExpr>(e);
               c && c.getValue() == 0 && shape[j] == 1) {
      loops.push_back(-1);
    } else {
      why = "indexing map is not a projected permutation";
      return std::nullopt;
    }
  }
  return loops;
}

/// The layout (DimMap) of an operand whose dims read `opLoops` in which dim
/// p reads loop `want[p]` (-1: a new unit dim).
DimMap layoutFor(ArrayRef<int64_t> opLoops, ArrayRef<int64_t> want) {
  DimMap m;
  for (int64_t l : want) {
    auto it = l < 0 ? opLoops.end() : llvm::find(opLoops, l);
    m.push_back(it == opLoops.end() ? -1 : it - opLoops.begin());
  }
  return m;
}

std::optional<DimMap> unlessIdentity(DimMap m) {
  for (auto [j, d] : llvm::enumerate(m))
    if (d != (int64_t)j)
      return m;
  return std::nullopt;
}

std::string loopName(int64_t l) { return "d" + std::to_string(l); }

/// Static loop ranges, or nullopt when one is dynamic.
std::optional<SmallVector<int64_t>> staticRanges(linalg::LinalgOp op) {
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  for (int64_t x : r)
    if (ShapedType::isDynamic(x))
      return std::nullopt;
  return r;
}

/// Whether the body is `yield out + a * b` over the two inputs (any order).
bool isContractionBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      body->getNumArguments() != 3 || body->getOperations().size() != 3)
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1),
        out = body->getArgument(2);
  auto y = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!y || y.getNumOperands() != 1)
    return false;
  auto add = y.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value prod = add.getLhs() == out   ? add.getRhs()
               : add.getRhs() == out ? add.getLhs()
                                     : Value();
  auto mul = prod ? prod.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

/// A contraction's kernel form `a · b`, plus its init `c` unless that is a
/// zero fill: the recipe's inputs are (a, b) or (a, b, c).
Analysis matmulPlusInit(Value a, Value b, Value c) {
  std::optional<double> f = fillValue(c);
  bool addInit = !(f && *f == 0.0);
  SmallVector<Value, 4> inputs{a, b};
  if (addInit)
    inputs.push_back(c);
  return Analysis::yes(
      std::move(inputs),
      [addInit](OpBuilder &bd, Location l, ArrayRef<Value> in) -> Value {
        Value v = emitMatmul(bd, l, in[0], in[1]);
        if (addInit)
          v = emitBinary(bd, l, BinaryKind::add, in[2], v);
        return v;
      });
}

/// A contraction with two row loops `m1, m2` (torch's linear layer at batch
/// > 1: `(d0, d1, d3), (d3, d2) -> (d0, d1, d2)`) as one kernel matmul of A
/// `[batch, m1, m2, k]` reshaped to `[batch, m1·m2, k]`: the result
/// `[batch, m1·m2, n]` is a row-major form of the output when the output
/// holds its non-unit loops in the order batch, m1, m2, n (Import.md,
/// "Merged forms"). B is not broadcast: it has no row loop.
Analysis mergedRowsRecipe(Value a, Value b, Value c, ArrayRef<int64_t> ranges,
                          ArrayRef<int64_t> la, ArrayRef<int64_t> lb,
                          ArrayRef<int64_t> lc, ArrayRef<int64_t> batch,
                          SmallVector<int64_t> ms, int64_t n, int64_t k) {
  if (batch.size() > 1)
    return Analysis::no("contraction with two row loops and more than one "
                        "batch dim (rank > 4 before the rows are merged)");
  // The output's non-unit loops must read batch, m1, m2, n in order.
  SmallVector<int64_t> order;
  for (int64_t l : lc)
    if (l >= 0 && ranges[l] != 1)
      order.push_back(l);
  if (llvm::find(order, ms[1]) < llvm::find(order, ms[0]))
    std::swap(ms[0], ms[1]);
  SmallVector<int64_t> expect(batch.begin(), batch.end());
  expect.append({ms[0], ms[1]});
  if (n >= 0)
    expect.push_back(n);
  if (order != expect)
    return Analysis::no("contraction with two row loops that the output "
                        "does not hold together, in order, before its "
                        "column");
  SmallVector<int64_t> wa(batch), wb(batch);
  SmallVector<int64_t, 4> sa, sc; // A and the init, rows merged
  for (int64_t l : batch) {
    sa.push_back(ranges[l]);
    sc.push_back(ranges[l]);
  }
  wa.append({ms[0], ms[1], k});
  wb.append({k, n});
  int64_t rows = ranges[ms[0]] * ranges[ms[1]];
  sa.append({rows, k < 0 ? 1 : ranges[k]});
  sc.append({rows, n < 0 ? 1 : ranges[n]});
  Analysis an = matmulPlusInit(a, b, c);
  an.recipe->layouts = {unlessIdentity(layoutFor(la, wa)),
                        unlessIdentity(layoutFor(lb, wb))};
  an.recipe->reshapes = {sa, std::nullopt};
  if (an.recipe->inputs.size() == 3) { // the init, in the output's program type
    an.recipe->layouts.push_back(std::nullopt);
    an.recipe->reshapes.push_back(sc);
  }
  return an;
}

/// A contraction (`out + a·b` over loops classified by the maps) as a kernel
/// matmul `[batch..., m, n]` of A `[batch..., m, k]` and B `[batch..., k, n]`.
Analysis contractionRecipe(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return Analysis::no("contraction on buffers");
  auto ranges = staticRanges(op);
  if (!ranges)
    return Analysis::no("dynamic loop range");
  OpOperand *ia = op.getDpsInputOperand(0), *ib = op.getDpsInputOperand(1);
  OpOperand *ic = op.getDpsInitOperand(0);
  Value a = ia->get(), b = ib->get(), c = ic->get();
  for (Value v : {a, b, c})
    if (std::string w = whyNotImportable(v.getType()); !w.empty())
      return Analysis::no("operand: " + w);
  Type e = cast<RankedTensorType>(c.getType()).getElementType();
  if (cast<RankedTensorType>(a.getType()).getElementType() != e ||
      cast<RankedTensorType>(b.getType()).getElementType() != e)
    return Analysis::no("mixed element types (casting matmul)");
  std::string why;
  auto la = operandLoops(op.getMatchingIndexingMap(ia),
                         cast<RankedTensorType>(a.getType()).getShape(),
                         *ranges, why);
  auto lb = operandLoops(op.getMatchingIndexingMap(ib),
                         cast<RankedTensorType>(b.getType()).getShape(),
                         *ranges, why);
  auto lc = operandLoops(op.getMatchingIndexingMap(ic),
                         cast<RankedTensorType>(c.getType()).getShape(),
                         *ranges, why);
  if (!la || !lb || !lc)
    return Analysis::no("contraction " + why);
  SmallVector<utils::IteratorType> its = op.getIteratorTypesArray();
  SmallVector<int64_t> batch, ms, ns, ks;
  for (int64_t l = 0; l < (int64_t)ranges->size(); ++l) {
    if ((*ranges)[l] == 1)
      continue; // a unit loop is a unit dim wherever it is read
    bool inA = llvm::is_contained(*la, l), inB = llvm::is_contained(*lb, l),
         inC = llvm::is_contained(*lc, l);
    bool par = its[l] == utils::IteratorType::parallel;
    if (inA && inB && inC && par)
      batch.push_back(l);
    else if (inA && !inB && inC && par)
      ms.push_back(l);
    else if (!inA && inB && inC && par)
      ns.push_back(l);
    else if (inA && inB && !inC && !par)
      ks.push_back(l);
    else
      return Analysis::no("contraction loop " + loopName(l) +
                          " is not a batch, row, column or contracted dim");
  }
  if (ms.size() == 2 && ns.size() <= 1 && ks.size() <= 1)
    return mergedRowsRecipe(a, b, c, *ranges, *la, *lb, *lc, batch, ms,
                            ns.empty() ? -1 : ns[0], ks.empty() ? -1 : ks[0]);
  if (ms.size() > 1 || ns.size() > 1 || ks.size() > 1)
    return Analysis::no("contraction with more than one column or contracted "
                        "loop, or more than two row loops (the kernel matmul "
                        "would need them merged)");
  if (batch.size() + 2 > 4)
    return Analysis::no("contraction with more than 2 batch dims");
  // Unit loops of the output are batch dims too while the rank allows, so
  // the matmul comes out in the output's own form.
  for (int64_t l : *lc)
    if (l >= 0 && (*ranges)[l] == 1 &&
        its[l] == utils::IteratorType::parallel && batch.size() + 2 < 4)
      batch.push_back(l);
  // Batch loops in the output's order.
  llvm::sort(batch, [&](int64_t x, int64_t y) {
    return llvm::find(*lc, x) < llvm::find(*lc, y);
  });
  int64_t m = ms.empty() ? -1 : ms[0], n = ns.empty() ? -1 : ns[0],
          k = ks.empty() ? -1 : ks[0];
  SmallVector<int64_t> kr(batch), wa(batch), wb(batch);
  kr.append({m, n});
  wa.append({m, k});
  wb.append({k, n});
  DimMap resultLayout;
  for (int64_t l : *lc) {
    auto it = l < 0 ? kr.end() : llvm::find(kr, l);
    resultLayout.push_back(it == kr.end() ? -1 : it - kr.begin());
  }
  Analysis an = matmulPlusInit(a, b, c);
  an.recipe->layouts = {unlessIdentity(layoutFor(*la, wa)),
                        unlessIdentity(layoutFor(*lb, wb))};
  if (an.recipe->inputs.size() == 3) // the init
    an.recipe->layouts.push_back(unlessIdentity(layoutFor(*lc, kr)));
  an.recipe->resultLayout = unlessIdentity(resultLayout);
  an.recipe->batchForm = !batch.empty();
  return an;
}

/// Every other linalg structured op: element-wise (all loops parallel) or one
/// reduction loop, each input requested in loop layout through its map (so
/// transposed, broadcast and projected inputs), the output map a permutation
/// of the loops (reductions: of the parallel loops, the reduced dim kept as
/// the constant 0 or dropped).
Analysis linalgRecipe(linalg::LinalgOp op) {
  if (op->getNumResults() < 1 ||
      op->getNumResults() != op.getNumDpsInits())
    return Analysis::no("not a linalg op on tensors with results");
  // Results after the first that nobody reads are not computed (torch-mlir
  // writes aten.max.dim, softmax's row max, with an index result that is
  // then unused; argmax itself has no kernel form).
  for (OpResult r : op->getResults().drop_front())
    if (!r.use_empty())
      return Analysis::no("result #" + std::to_string(r.getResultNumber()) +
                          " is used (only a single-result linalg op, or one "
                          "whose other results are unused, is imported; an "
                          "index result is an argmax, which has no kernel "
                          "form)");
  if (!op.hasPureTensorSemantics())
    return Analysis::no("linalg op on buffers");
  auto resTy = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (std::string w = whyNotImportable(op->getResult(0).getType()); !w.empty())
    return Analysis::no(w);
  Type elem = resTy.getElementType();
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 1 || numLoops > 4)
    return Analysis::no(std::to_string(numLoops) +
                        " loops (kernel tensors have rank 1 to 4)");
  auto ranges = staticRanges(op);
  if (!ranges)
    return Analysis::no("dynamic loop range");
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
  std::string why;
  auto outLoops = operandLoops(op.getMatchingIndexingMap(init),
                               resTy.getShape(), *ranges, why);
  if (!outLoops)
    return Analysis::no("output " + why);
  for (int64_t l = 0; l < (int64_t)numLoops; ++l) {
    bool inOut = llvm::is_contained(*outLoops, l);
    bool reduced = llvm::is_contained(red, (unsigned)l);
    if (inOut == reduced)
      return Analysis::no(reduced ? "output reads the reduced loop"
                                  : "output indexing map does not read every "
                                    "parallel loop");
  }
  SmallVector<int64_t> loops = llvm::to_vector(llvm::seq<int64_t>(0, numLoops));
  // Inputs: tensors requested in loop layout, or scalar constants.
  SmallVector<Value, 4> inputs;
  SmallVector<std::optional<DimMap>, 4> layouts;
  llvm::SmallDenseSet<Value> allowed, consts;
  llvm::SmallDenseSet<int64_t> covered;
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
      consts.insert(arg);
      continue;
    }
    // A splat constant of any shape and float type is a scalar of the body
    // (rank 0 too: torch-mlir passes `tensor<f64>` scalars, then truncates
    // them in the body); the body's checks see how it is used.
    if (auto sv = splatValue(v)) {
      argInfo.push_back({in->getOperandNumber(), sv});
      consts.insert(arg);
      continue;
    }
    if (std::string w = whyNotImportable(v.getType()); !w.empty())
      return Analysis::no("operand: " + w);
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() != elem)
      return Analysis::no("operand element type differs from the result");
    auto ol = operandLoops(op.getMatchingIndexingMap(in), t.getShape(),
                           *ranges, why);
    if (!ol)
      return Analysis::no("operand " + why);
    if (!red.empty() && (*ranges)[red[0]] != 1 &&
        !llvm::is_contained(*ol, (int64_t)red[0]))
      return Analysis::no("operand broadcast along the reduced dim");
    for (int64_t l : *ol)
      if (l >= 0)
        covered.insert(l);
    argInfo.push_back({in->getOperandNumber(), std::nullopt});
    inputs.push_back(v);
    layouts.push_back(unlessIdentity(layoutFor(*ol, loops)));
  }
  // Splat constants are folded into the body, so without a tensor operand
  // the result is a constant, which has no kernel form (constants enter
  // graphs as operands).
  if (inputs.empty() && llvm::any_of(body->getOperations(), [](Operation &o) {
        return isa<linalg::IndexOp>(o);
      }))
    return Analysis::no("computed from loop indices only (an index-built "
                        "mask is materialised outside the graphs and enters "
                        "them as an operand)");
  if (inputs.empty())
    return Analysis::no("every operand is a splat constant (the result is a "
                        "constant)");
  for (int64_t l : loops)
    if ((*ranges)[l] != 1 && !covered.contains(l))
      return Analysis::no("the result is broadcast along " + loopName(l) +
                          ", which no input reads (the kernel dialect has no "
                          "broadcast op)");
  auto yieldOp = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yieldOp || yieldOp.getNumOperands() != op->getNumResults())
    return Analysis::no("body does not yield one value per result");
  // Only what the first result needs is compiled.
  llvm::SmallPtrSet<Operation *, 16> live =
      liveOps(*body, yieldOp.getOperand(0));
  if (!red.empty()) {
    // The accumulator may only feed the combiner (checked below).
    if (llvm::count_if(outArg.getUsers(), [&](Operation *u) {
          return live.contains(u);
        }) != 1)
      return Analysis::no("reduction body uses the accumulator more than once");
    allowed.insert(outArg);
  }
  if (std::string w = checkBody(*body, elem, allowed, consts, live);
      !w.empty())
    return Analysis::no(w);

  std::optional<ReduceKind> rk;
  Value pre = yieldOp.getOperand(0);
  bool addInit = false;
  int64_t rdim = red.empty() ? -1 : red[0];
  // The result, relative to the loop layout (the reduced loop a unit dim).
  DimMap resultLayout;
  for (int64_t l : *outLoops)
    resultLayout.push_back(l >= 0 ? l : rdim);
  if (!red.empty()) {
    auto rc = reductionCombiner(*body, outArg);
    if (!rc)
      return Analysis::no("reduction body is not sum/max of one expression");
    rk = rc->first;
    pre = rc->second;
    if (!neutralInit(*rk, init->get())) {
      if (*rk == ReduceKind::max)
        return Analysis::no("max reduction with a non-neutral initial value");
      if (std::string w = whyNotImportable(init->get().getType()); !w.empty())
        return Analysis::no("init: " + w);
      addInit = true;
      inputs.push_back(init->get());
      layouts.push_back(unlessIdentity(layoutFor(*outLoops, loops)));
    }
  }
  SmallVector<int64_t> space(*ranges);
  Analysis an = Analysis::yes(std::move(inputs), [body, argInfo, pre, rk, rdim,
                                                  addInit, space](
                                                     OpBuilder &b, Location loc,
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
      // The reduced loop in the form the inputs were given in.
      std::optional<int64_t> j = formDim(
          space, rdim, cast<RankedTensorType>(v.getType()).getShape());
      if (!j)
        return Value();
      v = emitReduce(b, loc, *rk, v, *j);
      if (addInit)
        v = emitBinary(b, loc, BinaryKind::add, in.back(), v);
    }
    return v;
  });
  // A copy whose layout changes is a transpose (or unit-dim reshape).
  bool copy = red.empty() && argInfo.size() == 1 && !argInfo[0].second &&
              pre == body->getArgument(argInfo[0].first);
  an.recipe->resultLayout = unlessIdentity(resultLayout);
  an.recipe->loopShape = SmallVector<int64_t, 4>(ranges->begin(), ranges->end());
  if (!red.empty())
    an.recipe->reduceDim = rdim;
  an.recipe->layoutOnly =
      copy && (an.recipe->resultLayout || layouts[0].has_value());
  an.recipe->layouts = std::move(layouts);
  return an;
}

} // namespace

namespace mirage::import {

Analysis analyzeLinalgOp(linalg::LinalgOp l) {
  Operation *op = l.getOperation();
  // The interface methods used below (indexing maps, iterator types) read
  // these attributes where the op stores them or derive the maps from them.
  UpstreamAttrs attrs(op);
  attrs.getIfDeclared<ArrayAttr>("indexing_maps");
  attrs.getIfDeclared<ArrayAttr>("iterator_types");
  attrs.getIfDeclared<DenseI64ArrayAttr>("dimensions");
  attrs.getIfDeclared<DenseI64ArrayAttr>("permutation");
  if (!attrs.ok())
    return Analysis::no(attrs.why());
  if (isa<linalg::FillOp>(op))
    return Analysis::no("fill (kept as an initial value)");
  if (isContractionBody(l))
    return contractionRecipe(l);
  return linalgRecipe(l);
}

} // namespace mirage::import

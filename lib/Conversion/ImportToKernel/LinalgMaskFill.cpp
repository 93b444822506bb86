//===- LinalgMaskFill.cpp - A constant fill in a linalg body as masks -----===//
//
// torch-mlir lowers `masked_fill(s, m, -inf)` and `torch.where(m, s,
// finfo.min)` (aten.where.self once decomposed) to an element-wise
// linalg.generic yielding
//
//   arith.select %c, %fill, %s      (or select %c, %s, %fill)
//
// where %c is an i1 block argument (the mask tensor) or a condition the
// body computes from other arguments and `linalg.index` (a causal mask
// written into the fill), and %fill a constant or a block argument bound
// to a splat or rank-0 tensor (torch-mlir: a rank-0 generic truncating a
// `tensor<f64>` constant). With the rule of MaskFill.cpp (which fills,
// which conditions, which branch gets what) it becomes
//
//   −∞:  mask = generic(condition inputs) { select(c, −∞, 0) }  left outside
//        sum  = generic(s, mask)          { s + mask }          imported
//   c:   masks = generic(condition inputs) { select(c, 0, 1), select(c, c, 0) }
//        sum   = generic(s, keep, fill)    { s · keep + fill }
//
// The mask generic runs over the loops the condition reads only (the
// others are unit dims of the masks, read through the constant 0), so a
// causal mask over B×H×Q×K scores is a 1×1×Q×K operand, as in the TOSA
// form. Left alone: conditions that read s (in the body or through an
// input computed from s's tensor), s computed in the body rather than a
// block argument, a constant s (the mask itself being built: where(m, −∞,
// 0)), and output maps that are not permutations. docs/Rationale/Import.md,
// "Mask fills".
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"


using namespace mlir;
using namespace mirage::import;

namespace {

/// How far constantOf follows producers (a rank-0 generic truncating a
/// constant is two steps; anything deeper is not what frontends write).
constexpr int kMaxDepth = 8;

std::optional<double> scalarConstant(Value v, int depth);

/// The value every element of the tensor (or scalar) `t` has, when it is a
/// constant: a splat, a linalg.fill of a constant, or a generic result whose
/// yielded value is one.
std::optional<double> tensorConstant(Value t, int depth) {
  if (depth > kMaxDepth)
    return std::nullopt;
  if (std::optional<double> c = splatValue(t))
    return c;
  Operation *d = t.getDefiningOp();
  if (auto f = dyn_cast_if_present<linalg::FillOp>(d)) {
    std::optional<double> c = scalarConstant(f.value(), depth + 1);
    if (!c)
      return std::nullopt;
    return roundTo(*c, getElementTypeOrSelf(t.getType()));
  }
  if (auto g = dyn_cast_if_present<linalg::GenericOp>(d)) {
    unsigned r = cast<OpResult>(t).getResultNumber();
    return scalarConstant(g.getBody()->getTerminator()->getOperand(r),
                          depth + 1);
  }
  return std::nullopt;
}

/// The value of the scalar `v` of a linalg body when the same at every
/// point: a constant, a cast of one (rounded as the cast rounds; an f64 −∞
/// truncated stays −∞, a large finite f64 may become −∞ in f16), or a
/// block argument bound to a constant tensor input.
std::optional<double> scalarConstant(Value v, int depth) {
  if (depth > kMaxDepth)
    return std::nullopt;
  if (std::optional<double> c = splatValue(v))
    return c;
  if (auto ba = dyn_cast<BlockArgument>(v)) {
    auto l = dyn_cast_if_present<linalg::LinalgOp>(
        ba.getOwner()->getParentOp());
    if (!l || ba.getOwner() != l.getBlock() ||
        ba.getArgNumber() >= l->getNumOperands())
      return std::nullopt;
    OpOperand &o = l->getOpOperand(ba.getArgNumber());
    if (l.isDpsInit(&o)) // what the result held before: not a constant
      return std::nullopt;
    return tensorConstant(o.get(), depth + 1);
  }
  Operation *d = v.getDefiningOp();
  if (isa_and_present<arith::TruncFOp, arith::ExtFOp>(d) &&
      !d->getAttr("roundingmode"))
    if (std::optional<double> c = scalarConstant(d->getOperand(0), depth + 1))
      return roundTo(*c, v.getType());
  return std::nullopt;
}

/// A constant fill found in the body of a generic.
struct BodyFill {
  arith::SelectOp select;
  FillRule rule;
  /// The filled value: a block argument bound to an input or the init.
  BlockArgument s;
  /// The ops that compute the condition, in body order, and the block
  /// arguments they read (by argument number).
  SmallVector<Operation *> condOps;
  SmallVector<BlockArgument> condArgs;
  /// Per loop: whether the condition depends on it.
  SmallVector<bool> loopsRead;
};

/// The fill `g` computes, or nullopt when `g` is not one the rule
/// splits; `why` then says why a fill stays (empty when `g` is no fill).
std::optional<BodyFill> matchBodyFill(linalg::GenericOp g, std::string &why) {
  if (g->getNumResults() != 1 || g.getNumDpsInits() != 1 ||
      !g.hasPureTensorSemantics() ||
      g.getNumParallelLoops() != g.getNumLoops())
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(g->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !isa<FloatType>(type.getElementType()))
    return std::nullopt;
  AffineMap outMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  if (!outMap.isPermutation())
    return std::nullopt;
  Block *body = g.getBody();
  auto sel = body->getTerminator()->getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!sel || sel->getBlock() != body)
    return std::nullopt;
  BodyFill f;
  f.select = sel;
  std::optional<double> tc = scalarConstant(sel.getTrueValue(), 0),
                        fc = scalarConstant(sel.getFalseValue(), 0);
  // Both sides constant (PyTorch's reference attention builds its bias as
  // where(m, −∞, 0); a causal mask selecting −∞/0 from indices): the mask
  // itself, it reads no scores and stays outside as it is.
  std::optional<FillRule> rule = fillRuleOf(tc, fc);
  if (!rule)
    return std::nullopt;
  f.rule = *rule;
  Value s = f.rule.fillOnTrue ? sel.getFalseValue() : sel.getTrueValue();
  auto sArg = dyn_cast<BlockArgument>(s);
  if (!sArg || sArg.getOwner() != body) {
    if (f.rule.hides())
      why = "the filled value is computed in the body (only a block "
            "argument is split)";
    return std::nullopt;
  }
  if (s.getType() != type.getElementType())
    return std::nullopt;
  f.s = sArg;
  Value sTensor = g->getOperand(sArg.getArgNumber());
  if (!isa<RankedTensorType>(sTensor.getType()))
    return std::nullopt;
  // The condition: the body ops computing it, the block arguments and loops
  // they read. None may be s, and nothing it reads from outside the body
  // may be computed from s's tensor (the TOSA rule, one level up).
  unsigned numLoops = g.getNumLoops();
  f.loopsRead.assign(numLoops, false);
  llvm::SmallPtrSet<Operation *, 16> ops;
  llvm::SetVector<BlockArgument> args;
  auto readsS = [&] {
    why = whyFillStays(tc, fc, true);
    return std::nullopt;
  };
  SmallVector<Value> work{sel.getCondition()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto ba = dyn_cast<BlockArgument>(v); ba && ba.getOwner() == body) {
      OpOperand &o = g->getOpOperand(ba.getArgNumber());
      if (ba == sArg || !conditionIndependentOf(o.get(), sTensor))
        return readsS();
      if (g.isDpsInit(&o))
        return std::nullopt;
      args.insert(ba);
      continue;
    }
    Operation *d = v.getDefiningOp();
    if (!d || !g->isProperAncestor(d)) {
      // A value of the enclosing region (a captured scalar).
      if (!conditionIndependentOf(v, sTensor))
        return readsS();
      continue;
    }
    // Only plain ops of the body itself are cloned into the mask generic.
    if (d->getBlock() != body || d == sel.getOperation() ||
        d->getNumRegions() || !isMemoryEffectFree(d))
      return std::nullopt;
    if (!ops.insert(d).second)
      continue;
    if (auto idx = dyn_cast<linalg::IndexOp>(d))
      f.loopsRead[idx.getDim()] = true;
    llvm::append_range(work, d->getOperands());
  }
  for (Operation &op : *body)
    if (ops.contains(&op))
      f.condOps.push_back(&op);
  f.condArgs = args.takeVector();
  llvm::sort(f.condArgs, [](BlockArgument a, BlockArgument b) {
    return a.getArgNumber() < b.getArgNumber();
  });
  for (BlockArgument a : f.condArgs) {
    AffineMap m = g.getMatchingIndexingMap(&g->getOpOperand(a.getArgNumber()));
    for (unsigned l = 0; l < numLoops; ++l)
      if (m.isFunctionOfDim(l))
        f.loopsRead[l] = true;
  }
  // A condition that reads no loop is one value for the whole tensor (a
  // scalar flag), not a mask.
  if (llvm::none_of(f.loopsRead, [](bool b) { return b; }))
    return std::nullopt;
  return f;
}

/// Replaces `g` by s + mask (−∞) or s · keep + fill (other constants), the
/// masks results of one generic over the loops the condition reads.
void splitBodyFill(linalg::GenericOp g, const BodyFill &f,
                   llvm::SmallPtrSetImpl<Operation *> &erased) {
  MLIRContext *ctx = g.getContext();
  OpBuilder b(g);
  Location loc = g.getLoc();
  auto type = cast<RankedTensorType>(g->getResult(0).getType());
  Type elem = type.getElementType();
  unsigned numLoops = g.getNumLoops();
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  // The mask generic's loops: those the condition reads, in order.
  SmallVector<int64_t> newLoop(numLoops, -1);
  unsigned numMaskLoops = 0;
  for (unsigned l = 0; l < numLoops; ++l)
    if (f.loopsRead[l])
      newLoop[l] = numMaskLoops++;
  // The mask has the result's dims, unit where the condition does not read
  // the loop; the sum reads it through the constant 0 there.
  AffineMap outMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  SmallVector<AffineExpr> maskRead, maskWrite;
  SmallVector<int64_t> maskShape;
  for (AffineExpr e : outMap.getResults()) {
    unsigned l = cast<AffineDimExpr>(e).getPosition();
    bool read = newLoop[l] >= 0;
    maskRead.push_back(read ? getAffineDimExpr(l, ctx)
                            : getAffineConstantExpr(0, ctx));
    maskWrite.push_back(read ? getAffineDimExpr(newLoop[l], ctx)
                             : getAffineConstantExpr(0, ctx));
    maskShape.push_back(read ? ranges[l] : 1);
  }
  // The condition's inputs, their maps renumbered to the mask's loops
  // (they read only loops the condition reads, by construction).
  SmallVector<AffineExpr> renumber;
  for (unsigned l = 0; l < numLoops; ++l)
    renumber.push_back(newLoop[l] >= 0 ? getAffineDimExpr(newLoop[l], ctx)
                                       : getAffineConstantExpr(0, ctx));
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  for (BlockArgument a : f.condArgs) {
    OpOperand &o = g->getOpOperand(a.getArgNumber());
    ins.push_back(o.get());
    maps.push_back(g.getMatchingIndexingMap(&o).replaceDimsAndSymbols(
        renumber, {}, numMaskLoops, 0));
  }
  maps.push_back(AffineMap::get(numMaskLoops, 0, maskWrite, ctx));
  auto maskType = RankedTensorType::get(maskShape, elem);
  SmallVector<utils::IteratorType> parallel(numMaskLoops,
                                            utils::IteratorType::parallel);
  Value cond = arith::SelectOp(f.select).getCondition();
  // One mask generic: select(c, fill, other) on the rule's sides, the
  // condition's ops cloned in. One generic per mask rather than one with
  // two results: each stays outside with the remark of its i1 input.
  auto buildMask = [&](double fill, double other) {
    Value empty = tensor::EmptyOp::create(b, loc, maskShape, elem);
    return linalg::GenericOp::create(
               b, loc, TypeRange{maskType}, ins, ValueRange{empty}, maps,
               parallel,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 IRMapping map;
                 for (auto [a, n] : llvm::zip(f.condArgs, args))
                   map.map(a, n);
                 for (Operation *op : f.condOps) {
                   if (auto idx = dyn_cast<linalg::IndexOp>(op))
                     map.map(idx.getResult(),
                             linalg::IndexOp::create(nb, l,
                                                     newLoop[idx.getDim()]));
                   else
                     nb.clone(*op, map);
                 }
                 auto constant = [&](double v) {
                   return arith::ConstantOp::create(nb, l,
                                                    nb.getFloatAttr(elem, v))
                       .getResult();
                 };
                 Value fillValue = constant(fill);
                 Value otherValue = constant(other);
                 auto [onTrue, onFalse] =
                     maskBranches(f.rule, fillValue, otherValue);
                 Value m = arith::SelectOp::create(
                     nb, l, map.lookupOrDefault(cond), onTrue, onFalse);
                 linalg::YieldOp::create(nb, l, m);
               })
        ->getResult(0);
  };
  // The masks: keep = select(c, 0, 1) for a finite fill, fill =
  // select(c, fill, 0) unless the fill is 0.
  bool scaled = !f.rule.additive(), added = f.rule.fill != 0.0;
  SmallVector<Value> masks;
  if (scaled)
    masks.push_back(buildMask(0.0, 1.0));
  if (added)
    masks.push_back(buildMask(f.rule.fill, 0.0));
  // s · keep + fill, over the original loops, into the original init.
  OpOperand &sOperand = g->getOpOperand(f.s.getArgNumber());
  SmallVector<Value> sumIns{sOperand.get()};
  SmallVector<AffineMap> sumMaps{g.getMatchingIndexingMap(&sOperand)};
  for (Value m : masks) {
    sumIns.push_back(m);
    sumMaps.push_back(AffineMap::get(numLoops, 0, maskRead, ctx));
  }
  sumMaps.push_back(outMap);
  auto sum = linalg::GenericOp::create(
      b, loc, TypeRange{type}, sumIns,
      ValueRange{g.getDpsInitOperand(0)->get()}, sumMaps,
      g.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value r = args[0];
        unsigned next = 1;
        if (scaled)
          r = arith::MulFOp::create(nb, l, r, args[next++]);
        if (added)
          r = arith::AddFOp::create(nb, l, r, args[next++]);
        linalg::YieldOp::create(nb, l, r);
      });
  // The fill's producers (torch-mlir's rank-0 −∞ tensor) die with `g`;
  // left behind they would be remarked as ops the importer left out.
  SmallVector<Value> operands(g->getOperands());
  g->replaceAllUsesWith(sum);
  erased.insert(g);
  g->erase();
  SmallVector<Operation *> dead;
  for (Value v : operands)
    if (Operation *d = v.getDefiningOp())
      dead.push_back(d);
  while (!dead.empty()) {
    Operation *d = dead.pop_back_val();
    if (erased.contains(d) || !isOpTriviallyDead(d))
      continue;
    for (Value v : d->getOperands())
      if (Operation *p = v.getDefiningOp())
        if (p != d)
          dead.push_back(p);
    erased.insert(d);
    d->erase();
  }
}

} // namespace

void mirage::import::splitLinalgMaskFills(Operation *root) {
  SmallVector<std::pair<linalg::GenericOp, BodyFill>> fills;
  root->walk([&](linalg::GenericOp g) {
    std::string why;
    if (std::optional<BodyFill> f = matchBodyFill(g, why))
      fills.push_back({g, std::move(*f)});
    else if (!why.empty())
      g->setAttr(kMaskFillWhyAttr, StringAttr::get(g.getContext(), why));
  });
  // A split erases the producers that die with its generic; a later
  // candidate among them (an unused fill feeding only another) is gone.
  llvm::SmallPtrSet<Operation *, 8> erased;
  for (auto &[g, f] : fills)
    if (!erased.contains(g))
      splitBodyFill(g, f, erased);
}

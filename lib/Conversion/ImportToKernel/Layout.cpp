//===- Layout.cpp - Kernel forms, DimMaps and retargeting -----------------===//
//
// Layout changes (reshapes, transposes, the broadcast and projection of
// linalg input maps) have no kernel op. Inside a graph a program value is
// held in a *kernel form*: any row-major reshape of it (the same elements;
// dims merged, split, unit dims anywhere). A layout a recipe wants is
// produced by `LayoutBuilder::retarget` (a DimMap: transposes, unit dims)
// or `LayoutBuilder::reshape` (another form), which push the change up the
// kernel ops that computed the value until it reaches graph arguments,
// where it becomes a view outside the graph. See docs/Rationale/Import.md,
// "Layouts and indexing maps" and "Merged forms".
//
//===----------------------------------------------------------------------===//
#include "../ImportCommon.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mirage;
namespace mk = mirage::kernel;

namespace mirage::import {

namespace {

SmallVector<int64_t> nonUnit(ArrayRef<int64_t> s) {
  SmallVector<int64_t> r;
  for (int64_t d : s)
    if (d != 1)
      r.push_back(d);
  return r;
}

bool isIdentityMap(ArrayRef<int64_t> m, int64_t rank) {
  if ((int64_t)m.size() != rank)
    return false;
  for (auto [j, d] : llvm::enumerate(m))
    if (d != (int64_t)j)
      return false;
  return true;
}

/// Whether the non-unit source dims appear in `m` in increasing order (the
/// layout then only adds or drops unit dims).
bool keepsOrder(ArrayRef<int64_t> m, ArrayRef<int64_t> shape) {
  int64_t last = -1;
  for (int64_t d : m)
    if (d >= 0 && shape[d] != 1) {
      if (d < last)
        return false;
      last = d;
    }
  return true;
}

/// Groups of `shape`'s dims, each holding one non-unit dim (unit dims join
/// their left neighbour's group, leading ones the first group); empty when
/// every dim is a unit dim.
SmallVector<ReassociationIndices> unitGroups(ArrayRef<int64_t> shape) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t i = 0; i < (int64_t)shape.size(); ++i) {
    if (shape[i] != 1) {
      pending.push_back(i);
      groups.push_back(pending);
      pending.clear();
    } else if (groups.empty()) {
      pending.push_back(i);
    } else {
      groups.back().push_back(i);
    }
  }
  return groups;
}

/// The minimal pairs of consecutive dim groups of `a` and `b` with equal
/// products (row-major reshape between them moves no element across a
/// pair); a side's group may be empty only for unit dims at the end.
/// nullopt when the element counts differ or a dim is 0.
std::optional<SmallVector<std::pair<ReassociationIndices,
                                    ReassociationIndices>>>
factorShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  for (int64_t d : llvm::concat<const int64_t>(a, b))
    if (d <= 0)
      return std::nullopt;
  SmallVector<std::pair<ReassociationIndices, ReassociationIndices>> groups;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    ReassociationIndices ga, gb;
    int64_t pa = 1, pb = 1;
    if (i < a.size()) {
      ga.push_back(i);
      pa *= a[i++];
    }
    if (j < b.size()) {
      gb.push_back(j);
      pb *= b[j++];
    }
    while (pa != pb) {
      if (pa < pb) {
        if (i >= a.size())
          return std::nullopt;
        ga.push_back(i);
        pa *= a[i++];
      } else {
        if (j >= b.size())
          return std::nullopt;
        gb.push_back(j);
        pb *= b[j++];
      }
    }
    // Trailing unit dims of one side join the last pair.
    if ((ga.empty() || gb.empty()) && !groups.empty()) {
      llvm::append_range(groups.back().first, ga);
      llvm::append_range(groups.back().second, gb);
      continue;
    }
    groups.push_back({ga, gb});
  }
  return groups;
}

} // namespace

bool isKernelFormOf(RankedTensorType k, RankedTensorType p) {
  return k && p && k.getElementType() == p.getElementType() &&
         k.hasStaticShape() && p.hasStaticShape() &&
         k.getNumElements() == p.getNumElements();
}

std::optional<int64_t> formDim(ArrayRef<int64_t> shape, int64_t d,
                               ArrayRef<int64_t> form) {
  if (d < 0 || d >= (int64_t)shape.size())
    return std::nullopt;
  if (shape == form)
    return d;
  int64_t before = 1, total = 1, ftotal = 1;
  for (int64_t i = 0; i < (int64_t)shape.size(); ++i) {
    total *= shape[i];
    if (i < d)
      before *= shape[i];
  }
  for (int64_t x : form)
    ftotal *= x;
  if (total != ftotal)
    return std::nullopt;
  int64_t p = 1;
  for (int64_t t = 0; t < (int64_t)form.size(); ++t) {
    if (p == before && form[t] == shape[d])
      return t;
    p *= form[t];
  }
  return std::nullopt;
}

std::optional<SmallVector<int64_t>>
broadcastInForm(ArrayRef<int64_t> operand, ArrayRef<int64_t> space,
                ArrayRef<int64_t> form) {
  if (operand.size() != space.size())
    return std::nullopt;
  auto groups = factorShapes(space, form);
  if (!groups)
    return std::nullopt;
  SmallVector<int64_t> r;
  for (auto &[gs, gf] : *groups) {
    bool full = true, none = true;
    for (int64_t i : gs) {
      if (space[i] == 1)
        continue;
      if (operand[i] == space[i])
        none = false;
      else if (operand[i] == 1)
        full = false;
      else
        return std::nullopt;
    }
    if (!full && !none)
      return std::nullopt; // broadcast along part of a merged dim
    for (int64_t j : gf)
      r.push_back(full ? form[j] : 1);
  }
  return r;
}

Value reshapeView(OpBuilder &b, Location loc, Value v, RankedTensorType t) {
  auto vt = dyn_cast<RankedTensorType>(v.getType());
  if (!vt || !isKernelFormOf(vt, t))
    return {};
  if (sameNonUnitDims(vt, t))
    return unitReshape(b, loc, v, t);
  auto groups = factorShapes(vt.getShape(), t.getShape());
  if (!groups)
    return {};
  SmallVector<ReassociationIndices> ra, rb;
  SmallVector<int64_t> mid;
  for (auto &[ga, gb] : *groups) {
    if (ga.empty() || gb.empty())
      return {}; // only unit dims on both sides: sameNonUnitDims above
    int64_t p = 1;
    for (int64_t i : ga)
      p *= vt.getDimSize(i);
    mid.push_back(p);
    ra.push_back(ga);
    rb.push_back(gb);
  }
  Value cur = v;
  if ((int64_t)mid.size() != vt.getRank())
    cur = tensor::CollapseShapeOp::create(b, loc, withShape(vt, mid), cur, ra);
  if ((int64_t)mid.size() != t.getRank())
    cur = tensor::ExpandShapeOp::create(b, loc, t, cur, rb);
  return cur;
}

DimMap identityMap(int64_t rank) {
  return DimMap(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
}

bool sameNonUnitDims(RankedTensorType a, RankedTensorType b) {
  return a && b && a.getElementType() == b.getElementType() &&
         a.hasStaticShape() && b.hasStaticShape() &&
         nonUnit(a.getShape()) == nonUnit(b.getShape());
}

RankedTensorType applyDimMap(RankedTensorType t, ArrayRef<int64_t> m) {
  if (!t || !t.hasStaticShape())
    return {};
  int64_t r = t.getRank();
  SmallVector<bool> seen(r, false);
  SmallVector<int64_t> s;
  for (int64_t d : m) {
    if (d < -1 || d >= r)
      return {};
    if (d == -1) {
      s.push_back(1);
      continue;
    }
    if (seen[d])
      return {};
    seen[d] = true;
    s.push_back(t.getDimSize(d));
  }
  for (int64_t d = 0; d < r; ++d)
    if (!seen[d] && t.getDimSize(d) != 1)
      return {};
  return withShape(t, s);
}

DimMap alignNonUnitDims(ArrayRef<int64_t> to, ArrayRef<int64_t> from) {
  // Non-unit dims match in order; between two of them, the unit dims of
  // both match in order too, as far as both have them (so equal shapes
  // align as the identity, and a kept unit dim stays where it was).
  DimMap m(to.size(), -1);
  size_t i = 0, k = 0;
  while (i < to.size() || k < from.size()) {
    size_t ri = i, rk = k;
    while (ri < to.size() && to[ri] == 1)
      ++ri;
    while (rk < from.size() && from[rk] == 1)
      ++rk;
    for (size_t t = 0; i + t < ri && k + t < rk; ++t)
      m[i + t] = k + t;
    i = ri;
    k = rk;
    if (i < to.size() && k < from.size())
      m[i] = k;
    if (i < to.size())
      ++i;
    if (k < from.size())
      ++k;
  }
  return m;
}

bool onlyUnitDims(ArrayRef<int64_t> m, RankedTensorType t) {
  return applyDimMap(t, m) && keepsOrder(m, t.getShape());
}

Value unitReshape(OpBuilder &b, Location loc, Value v, RankedTensorType t) {
  auto vt = dyn_cast<RankedTensorType>(v.getType());
  if (!vt || !sameNonUnitDims(vt, t))
    return {};
  if (vt == t)
    return v;
  if (vt.getRank() != t.getRank())
    if (auto re = getReassociationIndicesForReshape(vt, t)) {
      if (vt.getRank() > t.getRank())
        return tensor::CollapseShapeOp::create(b, loc, t, v, *re);
      return tensor::ExpandShapeOp::create(b, loc, t, v, *re);
    }
  SmallVector<int64_t> core = nonUnit(vt.getShape());
  Value cur = v;
  if ((int64_t)core.size() != vt.getRank())
    cur = tensor::CollapseShapeOp::create(b, loc, withShape(vt, core), cur,
                                          unitGroups(vt.getShape()));
  if ((int64_t)core.size() != t.getRank())
    cur = tensor::ExpandShapeOp::create(b, loc, t, cur,
                                        unitGroups(t.getShape()));
  return cur;
}

Value LayoutBuilder::convert(Value v, RankedTensorType programType,
                             const std::optional<DimMap> &want) {
  auto vt = dyn_cast_if_present<RankedTensorType>(v ? v.getType() : Type());
  if (!vt || !programType || !isKernelFormOf(vt, programType))
    return {};
  // A form that merges or splits non-unit dims is first reshaped back.
  if (!sameNonUnitDims(vt, programType)) {
    v = reshape(v, programType);
    if (!v)
      return {};
    vt = programType;
  }
  DimMap rel = want ? *want : identityMap(programType.getRank());
  DimMap align = alignNonUnitDims(programType.getShape(), vt.getShape());
  DimMap m;
  for (int64_t d : rel) {
    if (d < -1 || d >= programType.getRank())
      return {};
    m.push_back(d < 0 ? -1 : align[d]);
  }
  return retarget(v, m);
}

Value LayoutBuilder::retarget(Value v, ArrayRef<int64_t> mIn) {
  if (!v)
    return {};
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return {};
  RankedTensorType target = applyDimMap(t, mIn);
  if (!target || target.getRank() < 1 || target.getRank() > 4)
    return {};
  if (isIdentityMap(mIn, t.getRank()) ||
      (target == t && keepsOrder(mIn, t.getShape())))
    return v;
  auto key = std::make_pair(v.getAsOpaquePointer(),
                            std::vector<int64_t>(mIn.begin(), mIn.end()));
  if (auto it = memo.find(key); it != memo.end())
    return it->second;
  Value r = compute(v, t, DimMap(mIn), target);
  if (r && r.getType() != target)
    r = {};
  memo[key] = r;
  return r;
}

Value LayoutBuilder::compute(Value v, RankedTensorType t, DimMap m,
                             RankedTensorType target) {
  Location loc = v.getLoc();
  int64_t r = t.getRank(), R = m.size();
  auto has = [&](int64_t d) { return llvm::is_contained(m, d); };
  // Puts the omitted unit source dim `d` at the new unit dim `j`.
  auto place = [&](int64_t j, int64_t d) {
    if (m[j] == d)
      return true;
    if (m[j] != -1 || has(d) || t.getDimSize(d) != 1)
      return false;
    m[j] = d;
    return true;
  };
  if (auto ba = dyn_cast<BlockArgument>(v)) {
    if (ba.getOwner() != body || ba.getArgNumber() >= operands.size())
      return {};
    Value src = operands[ba.getArgNumber()];
    auto st = dyn_cast<RankedTensorType>(src.getType());
    if (!st || st != t)
      return {};
    // A unit reshape this builder made is looked through: the view is made
    // of its source instead, or is that source when nothing else changes.
    while (Operation *d = src.getDefiningOp()) {
      if (!llvm::is_contained(views, d))
        break;
      Value s0 = d->getOperand(0);
      auto t0 = cast<RankedTensorType>(s0.getType());
      if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(d)) {
        if (!sameNonUnitDims(st, t0))
          break; // a merged form's view (reshapeView): not a DimMap
        DimMap al = alignNonUnitDims(st.getShape(), t0.getShape());
        for (int64_t &x : m)
          x = x < 0 ? -1 : al[x];
      } else if (auto tr = dyn_cast<linalg::TransposeOp>(d)) {
        ArrayRef<int64_t> p = tr.getPermutation();
        for (int64_t &x : m)
          x = x < 0 ? -1 : p[x];
      } else {
        break;
      }
      src = s0;
      st = t0;
    }
    if (src != operands[ba.getArgNumber()]) {
      if (!applyDimMap(st, m))
        return {};
      // The source itself, where it already has the target's type (not
      // only the same non-unit dims: a [64] weight wanted as [1, 64] still
      // needs its unit reshape, made below).
      if (st == target && applyDimMap(st, m) == target &&
          keepsOrder(m, st.getShape())) {
        for (auto [i, o] : llvm::enumerate(operands))
          if (o == src && i < body->getNumArguments())
            return body->getArgument(i);
        operands.push_back(src);
        return body->addArgument(target, loc);
      }
    }
    r = st.getRank();
    auto hasSrc = [&](int64_t d) { return llvm::is_contained(m, d); };
    // Unit source dims the layout drops fill its new unit dims, so that a
    // transpose needs no reshape after it.
    for (int64_t &x : m)
      if (x == -1)
        for (int64_t d = 0; d < r; ++d)
          if (st.getDimSize(d) == 1 && !hasSrc(d)) {
            x = d;
            break;
          }
    // A permutation of the non-unit dims first, then the unit dims.
    Value cur = src;
    if (!keepsOrder(m, st.getShape())) {
      SmallVector<int64_t> perm;
      for (int64_t d : m)
        if (d >= 0)
          perm.push_back(d);
      for (int64_t d = 0; d < r; ++d)
        if (!hasSrc(d))
          perm.push_back(d);
      SmallVector<int64_t> ps;
      for (int64_t d : perm)
        ps.push_back(st.getDimSize(d));
      auto empty = tensor::EmptyOp::create(outer, loc, ps, st.getElementType());
      auto tr = linalg::TransposeOp::create(outer, loc, cur, empty, perm);
      tr->setAttr(kImportViewAttr, outer.getUnitAttr());
      views.push_back(empty);
      views.push_back(tr);
      cur = tr->getResult(0);
    }
    Value view = unitReshape(outer, loc, cur, target);
    if (!view)
      return {};
    if (view == src)
      return v;
    return viewArgument(view, cur);
  }
  Operation *op = v.getDefiningOp();
  if (!op || op->getBlock() != body)
    return {};
  OpBuilder b = OpBuilder::atBlockEnd(body);
  if (auto u = dyn_cast<mk::UnaryOp>(op)) {
    Value x = retarget(u.getInput(), m);
    if (!x)
      return {};
    return mk::UnaryOp::create(b, loc, target, u.getKindAttr(), x,
                               u.getScalarAttr());
  }
  if (auto bin = dyn_cast<mk::BinaryOp>(op)) {
    // Operands in a fixed order (each call may add a graph operand; the
    // order of a call's arguments differs between compilers).
    Value rhs = retarget(bin.getRhs(), m);
    Value lhs = retarget(bin.getLhs(), m);
    return emitBinary(b, loc, bin.getKind(), lhs, rhs);
  }
  if (auto red = dyn_cast<mk::ReduceOp>(op)) {
    int64_t d = red.getDim();
    if (!has(d)) {
      // A reduced unit dim the layout drops: a new unit dim holds it, one
      // that keeps it in order with the other dims where there is one (else
      // its input would be transposed).
      auto inOrder = [&](int64_t j) {
        for (int64_t k = 0; k < R; ++k)
          if (m[k] >= 0 && ((k < j && m[k] > d) || (k > j && m[k] < d)))
            return false;
        return true;
      };
      for (int64_t j = 0; j < R && !has(d); ++j)
        if (m[j] == -1 && inOrder(j))
          place(j, d);
      for (int64_t j = 0; j < R && !has(d); ++j)
        if (m[j] == -1)
          place(j, d);
      if (!has(d))
        return {};
    }
    int64_t j = llvm::find(m, d) - m.begin();
    Value x = retarget(red.getInput(), m);
    if (!x)
      return {};
    return mk::ReduceOp::create(b, loc, target, red.getKindAttr(), x,
                                b.getI64IntegerAttr(j), red.getSizeAttr());
  }
  if (auto cat = dyn_cast<mk::ConcatOp>(op)) {
    int64_t d = cat.getDim();
    if (!has(d))
      return {};
    int64_t j = llvm::find(m, d) - m.begin();
    Value rhs = retarget(cat.getRhs(), m);
    Value lhs = retarget(cat.getLhs(), m);
    return emitConcat(b, loc, lhs, rhs, j);
  }
  if (auto mm = dyn_cast<mk::MatmulOp>(op)) {
    if (R < 2)
      return {};
    DimMap keep = m;
    bool plain = place(R - 2, r - 2) && place(R - 1, r - 1);
    if (plain) {
      Value rhs = retarget(mm.getRhs(), m);
      Value lhs = retarget(mm.getLhs(), m);
      return emitMatmul(b, loc, lhs, rhs);
    }
    m = keep;
    // (A·B)ᵀ = Bᵀ·Aᵀ on the last two dims.
    if (place(R - 2, r - 1) && place(R - 1, r - 2)) {
      Value lhsT = retarget(mm.getLhs(), m);
      Value rhsT = retarget(mm.getRhs(), m);
      return emitMatmul(b, loc, rhsT, lhsT);
    }
    return {};
  }
  if (auto rn = dyn_cast<mk::RmsNormOp>(op)) {
    if (!place(R - 1, r - 1))
      return {};
    Value x = retarget(rn.getInput(), m);
    Value w;
    if (Value w0 = rn.getWeight()) {
      if (cast<RankedTensorType>(w0.getType()).getRank() != r)
        return {};
      w = retarget(w0, m);
      if (!w)
        return {};
    }
    if (!x)
      return {};
    return mk::RmsNormOp::create(b, loc, target, x, w, rn.getEpsAttr());
  }
  return {};
}

Value LayoutBuilder::viewArgument(Value view, Value from) {
  SmallVector<Operation *> chain;
  for (Value x = view; x != from; x = x.getDefiningOp()->getOperand(0))
    chain.push_back(x.getDefiningOp());
  // The value reshapes of this builder's views start from (their data, in
  // row-major order); two views of one root with one type are one value.
  auto root = [&](Value x) {
    while (Operation *d = x.getDefiningOp()) {
      if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(d) ||
          !(llvm::is_contained(views, d) || llvm::is_contained(chain, d)))
        break;
      x = d->getOperand(0);
    }
    return x;
  };
  Value r = root(view);
  for (auto [i, o] : llvm::enumerate(operands))
    if (i < body->getNumArguments() && o.getType() == view.getType() &&
        root(o) == r) {
      for (Operation *d : chain)
        d->erase();
      return body->getArgument(i);
    }
  views.append(chain.rbegin(), chain.rend());
  operands.push_back(view);
  return body->addArgument(view.getType(), view.getLoc());
}

Value LayoutBuilder::reshape(Value v, RankedTensorType target) {
  auto t = dyn_cast_if_present<RankedTensorType>(v ? v.getType() : Type());
  if (!t || !target || !isKernelFormOf(t, target) || target.getRank() < 1 ||
      target.getRank() > 4)
    return {};
  if (t == target)
    return v;
  auto key = std::make_pair(v.getAsOpaquePointer(),
                            std::vector<int64_t>(target.getShape().begin(),
                                                 target.getShape().end()));
  if (auto it = reshapeMemo.find(key); it != reshapeMemo.end())
    return it->second;
  Value r = computeReshape(v, t, target);
  if (r && r.getType() != target)
    r = {};
  reshapeMemo[key] = r;
  return r;
}

Value LayoutBuilder::convertThenReshape(Value v, RankedTensorType programType,
                                       const std::optional<DimMap> &want,
                                       RankedTensorType target) {
  if (v && want && !onlyUnitDims(*want, programType))
    v = convert(v, programType, want);
  return reshape(v, target);
}

Value LayoutBuilder::computeReshape(Value v, RankedTensorType t,
                                    RankedTensorType target) {
  Location loc = v.getLoc();
  ArrayRef<int64_t> R = t.getShape(), W = target.getShape();
  auto shaped = [&](Value x, ArrayRef<int64_t> s) {
    return withShape(cast<RankedTensorType>(x.getType()), s);
  };
  // The operand `x` of an element-wise op with result shape R, wanted with
  // the result in shape W (broadcast dims stay broadcast).
  auto operandIn = [&](Value x) -> Value {
    auto s = broadcastInForm(cast<RankedTensorType>(x.getType()).getShape(),
                             R, W);
    return s ? reshape(x, shaped(x, *s)) : Value();
  };
  if (auto ba = dyn_cast<BlockArgument>(v)) {
    if (ba.getOwner() != body || ba.getArgNumber() >= operands.size())
      return {};
    Value src = operands[ba.getArgNumber()];
    if (src.getType() != t)
      return {};
    Value view = reshapeView(outer, loc, src, target);
    if (!view)
      return {};
    return viewArgument(view, src);
  }
  Operation *op = v.getDefiningOp();
  if (!op || op->getBlock() != body)
    return {};
  OpBuilder b = OpBuilder::atBlockEnd(body);
  if (auto u = dyn_cast<mk::UnaryOp>(op)) {
    Value x = reshape(u.getInput(), target);
    if (!x)
      return {};
    return mk::UnaryOp::create(b, loc, target, u.getKindAttr(), x,
                               u.getScalarAttr());
  }
  if (auto bin = dyn_cast<mk::BinaryOp>(op))
    return emitBinary(b, loc, bin.getKind(), operandIn(bin.getLhs()),
                      operandIn(bin.getRhs()));
  if (auto red = dyn_cast<mk::ReduceOp>(op)) {
    // The reduced (unit) dim must stand alone in W, after the same elements.
    std::optional<int64_t> j = formDim(R, red.getDim(), W);
    if (!j)
      return {};
    Value in = red.getInput();
    SmallVector<int64_t> ws(W);
    ws[*j] = cast<RankedTensorType>(in.getType()).getDimSize(red.getDim());
    Value x = reshape(in, shaped(in, ws));
    if (!x)
      return {};
    return mk::ReduceOp::create(b, loc, target, red.getKindAttr(), x,
                                b.getI64IntegerAttr(*j), red.getSizeAttr());
  }
  if (auto cat = dyn_cast<mk::ConcatOp>(op)) {
    std::optional<int64_t> j = formDim(R, cat.getDim(), W);
    if (!j)
      return {};
    auto part = [&](Value x) -> Value {
      SmallVector<int64_t> ws(W);
      ws[*j] = cast<RankedTensorType>(x.getType()).getDimSize(cat.getDim());
      return reshape(x, shaped(x, ws));
    };
    Value rhs = part(cat.getRhs()); // a fixed order, as in retarget
    Value lhs = part(cat.getLhs());
    return emitConcat(b, loc, lhs, rhs, *j);
  }
  if (auto mm = dyn_cast<mk::MatmulOp>(op)) {
    // Only the batch dims may merge or split: m and n stay the last two.
    int64_t r = R.size(), w = W.size();
    if (r < 2 || w < 2 || W[w - 1] != R[r - 1] || W[w - 2] != R[r - 2])
      return {};
    auto withBatch = [&](Value x) -> Value {
      auto xs = cast<RankedTensorType>(x.getType()).getShape();
      SmallVector<int64_t> ws(W.begin(), W.end() - 2);
      ws.append({xs[xs.size() - 2], xs[xs.size() - 1]});
      return reshape(x, shaped(x, ws));
    };
    return emitMatmul(b, loc, withBatch(mm.getLhs()), withBatch(mm.getRhs()));
  }
  if (auto rn = dyn_cast<mk::RmsNormOp>(op)) {
    if (R.back() != W.back())
      return {};
    Value x = reshape(rn.getInput(), target);
    Value wt;
    if (Value w0 = rn.getWeight()) {
      wt = operandIn(w0);
      if (!wt)
        return {};
    }
    if (!x)
      return {};
    return mk::RmsNormOp::create(b, loc, target, x, wt, rn.getEpsAttr());
  }
  return {};
}

} // namespace mirage::import
